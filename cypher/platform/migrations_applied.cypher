// The migrations recorded so far, with the checksum of the text each was applied from.
MATCH (m:Migration)
RETURN m.name AS name, m.checksum AS checksum
