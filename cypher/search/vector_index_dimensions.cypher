// The dimension the vector index was created with (none while it does not exist).
SHOW VECTOR INDEXES YIELD name, options, state
WHERE name = 'search_vector'
RETURN options.indexConfig.`vector.dimensions` AS dimensions, state
