// After a reset: no record of a model or dimension (the next embed records its own).
OPTIONAL MATCH (c:SearchVectors {name: 'search_vector'})
DETACH DELETE c
RETURN count(c) AS forgotten
