// Paged lists (issue 14): each list reads its page in the order of an index, so a page costs
// what it returns however large the scope is. The keyset cursor is the order's key; the
// trailing id makes the order total.
CREATE INDEX entity_version_page IF NOT EXISTS FOR (v:EntityVersion) ON (v.scope, v.name, v.id);
CREATE INDEX relation_version_page IF NOT EXISTS FOR (v:RelationVersion) ON (v.scope, v.type, v.id);
CREATE INDEX event_version_page IF NOT EXISTS FOR (v:EventVersion) ON (v.scope, v.at, v.id);
