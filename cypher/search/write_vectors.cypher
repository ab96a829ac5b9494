// params: rows
// The vectors an embed job computed ({id: elementId, vector}); a node deleted meanwhile (a
// withdrawn passage) is skipped. `Embedded` is the label the vector index `search_vector` covers.
// `calls`: the embedding requests (cost ledger) that made them, written in this statement.
// include: model_calls
CALL () {
  UNWIND $rows AS row
  MATCH (n) WHERE elementId(n) = row.id
  SET n:Embedded, n.embedding = row.vector
  RETURN count(n) AS written
}
RETURN written
