// params: dimensions
// The vector index of hybrid search, created by the first embed with EMBEDDING_DIMENSIONS
// (a migration cannot know it); cosine similarity.
CREATE VECTOR INDEX search_vector IF NOT EXISTS
FOR (n:Embedded) ON n.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}
