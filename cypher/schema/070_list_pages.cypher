// The concern list pages newest first after a keyset cursor: scope first, then created_at,
// so a page walks the index in order from the cursor and stops at its limit; its cost grows
// with the page, not with the scope's concerns (issue 14 item 1).
CREATE INDEX concern_page IF NOT EXISTS FOR (c:Concern) ON (c.scope, c.created_at);
