"""Search over the story graph: Lucene queries built from user text, passages,
highlights and the ranking formula. Pure: no I/O."""
