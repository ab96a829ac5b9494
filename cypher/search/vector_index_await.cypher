// Wait (at most five minutes) until the vector index created by the first embed is online.
CALL db.awaitIndex('search_vector', 300)
