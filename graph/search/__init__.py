"""Search over the story graph (issue 30): the passages written beside source versions
(`graph.search.passages`) and the full-text read (`graph.search.store`)."""
