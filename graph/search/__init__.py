"""Search over the story graph: the passages written beside source versions
(`graph.search.passages`) and the full-text read (`graph.search.store`)."""
