// Which model and dimension made the stored vectors (recorded when the vector index was
// created); none before the first embed.
OPTIONAL MATCH (c:SearchVectors {name: 'search_vector'})
RETURN c.model AS model, c.dimensions AS dimensions
