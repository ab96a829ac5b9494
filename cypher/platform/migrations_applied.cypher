// The migrations recorded so far, with the checksum of the text each was applied from
// (read through the name constraint's index: every record has a name).
MATCH (m:Migration)
WHERE m.name IS NOT NULL
RETURN m.name AS name, m.checksum AS checksum
