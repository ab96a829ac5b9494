// params: model, dimensions, now
// Record which model and dimension the vectors are made with (the first embed).
MERGE (c:SearchVectors {name: 'search_vector'})
ON CREATE SET c.model = $model, c.dimensions = $dimensions, c.created_at = $now
RETURN c.model AS model, c.dimensions AS dimensions
