// Search (issue 30): wait until the full-text index of 072 is online, so the first search
// after an upgrade of a large store reads a populated index instead of failing.
CALL db.awaitIndex('search_text', 1800);
