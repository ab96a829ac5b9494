// Hybrid search (issue 30 item 3). The vector index `search_vector` itself is created by the
// first embed (cypher/search/vector_index_create.cypher), because its dimension comes from
// EMBEDDING_DIMENSIONS, which a migration cannot know; the model and dimension it was made
// with are recorded on one SearchVectors node, and a later different setting is refused
// (README "Search"). Embed runs are progress records, listed per scope newest first.
CREATE CONSTRAINT search_vectors_name IF NOT EXISTS FOR (c:SearchVectors) REQUIRE c.name IS UNIQUE;
CREATE CONSTRAINT embed_run_id IF NOT EXISTS FOR (r:EmbedRun) REQUIRE r.id IS UNIQUE;
CREATE INDEX embed_run_scope IF NOT EXISTS FOR (r:EmbedRun) ON (r.scope, r.started_at);
