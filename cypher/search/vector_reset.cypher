// params: batch
// `storygraph search backfill --reset` (another model or dimension): forget the vectors, one
// batch per call (called until it clears none); the index and its record go beside this.
MATCH (n:Embedded)
WITH n LIMIT $batch
REMOVE n:Embedded, n.embedding
RETURN count(n) AS cleared
