"""Search over the story graph (issue 30): Lucene queries built from user text, passages,
highlights and the ranking formula. Pure: no I/O."""
