// `storygraph search backfill --reset`: the vector index goes (the next embed creates it again).
DROP INDEX search_vector IF EXISTS
