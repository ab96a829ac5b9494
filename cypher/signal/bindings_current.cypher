// params: ids, now
// The current versions of the given person bindings (ids derived from what they bind).
MATCH (v:PersonBindingVersion)
WHERE v.id IN $ids AND v.retracted_at > $now
RETURN v {.*} AS v
