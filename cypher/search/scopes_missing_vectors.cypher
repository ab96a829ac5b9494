// The scopes with searchable texts that have no vector yet: the embedding sweep (a cron and
// `storygraph search backfill` without --scope) embeds each. A label scan, run rarely.
CALL {
  MATCH (n:EntityVersion) WHERE n.embedding IS NULL RETURN n
  UNION ALL
  MATCH (n:EventVersion) WHERE n.embedding IS NULL RETURN n
  UNION ALL
  MATCH (n:RelationVersion) WHERE n.embedding IS NULL RETURN n
  UNION ALL
  MATCH (n:Summary) WHERE n.embedding IS NULL RETURN n
  UNION ALL
  MATCH (n:Passage) WHERE n.embedding IS NULL RETURN n
}
WITH n WHERE trim(coalesce(n.name, '') + coalesce(n.title, '') + coalesce(n.description, '')
                  + coalesce(n.reason, '') + coalesce(n.text, '')) <> ''
RETURN DISTINCT n.scope AS scope ORDER BY scope
