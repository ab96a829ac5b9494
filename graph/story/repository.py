"""The story graph repository (docs/rules/story-graph.md), split by idea into its parts:

- `graph/story/store.py` `StoryStore`: versioned kinds read and written by named queries;
- `graph/story/sources.py` `StorySources`: upsertSource, withdrawSource, excerpts;
- `graph/story/publish.py` `StoryPublisher`: publishResult, one transaction per result;
- `graph/story/reads.py` `StoryReads`: storyGraph, graphView, entity, result as of a moment;
- `graph/story/corrections.py` `StoryCorrections`: a person's entity edits, relation actions
  and suggestion decisions.

`StoryRepository` is all of them over one driver, for the use cases in `jobs/story/`.
Every write is one `execute_write` transaction whose function reads what the decision needs
and writes what it returns; an exception raised inside (a stale edit, a rejected result)
rolls the whole transaction back, so nothing is written. Functions are idempotent under the
driver's retries: ids are deterministic and every read happens inside the transaction.
Every read and write names its scope; no read falls back to another scope (docs/rules/reviews.md
…历史选择不能回退到其他项目的最新图谱). No method reads a clock: a write records at the
`now` its use case passes, a read answers as of the `as_of` it is given.
"""

from __future__ import annotations

from graph.story.corrections import StoryCorrections
from graph.story.publish import PublishOutcome, StoryPublisher
from graph.story.reads import StoryReads
from graph.story.sources import StorySources

__all__ = ["PublishOutcome", "StoryRepository"]


class StoryRepository(StorySources, StoryPublisher, StoryReads, StoryCorrections):
    """Sources, publishing, reads and corrections of one database's story graphs."""
