"""Search over the story graph: the full-text and vector reads (`graph.search.store`,
`graph.search.vectors`); the passages they read are written beside source versions
(`graph.story.passages`)."""
