"""Known events a review leaf carries (identity paragraph; docs/rules/reviews.md).

"工作回顾的手动操作重新整理所选区间": a manual review re-reads the whole interval, so messages an
earlier run already organised come back. They must not become a second event. A leaf is
told which current events of the review's own story scope already cite the text of its
segments, with their stored ids, so the answer can say "this fact is that event" by id; the
publish path then reuses the stored event (engine/story/identity.py). The list is:

- same scope, same source: only events whose references cite a version of one of the
  batch's sources, in the one story scope the review publishes into;
- matched by content, not offsets: the source version changes (v1 → v2) while old lines
  keep their text, so an event is offered when the text its reference cites (read from the
  cited version) occurs verbatim in one of the batch's segments;
- bounded: at most `MAX_KNOWN_EVENTS`, earliest first.

The model decides; nothing here merges anything. The offline leaf reuses an event only when
a fact cites exactly that text at exactly that time (`match_event`), so a message repeated
later ("好的" again, at another time) is a new event.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from datetime import datetime

from pydantic import BaseModel, Field

MAX_KNOWN_EVENTS = 200  # known events per leaf request
MAX_CITED = 500  # characters of a cited text sent to the model
MIN_CITED = 2  # a shorter cited text is too weak to offer an event on


class KnownEvent(BaseModel):
    """A stored current event as a review leaf request shows it to the model."""

    id: str
    title: str
    at: datetime
    cited: list[str] = Field(default_factory=list)  # texts its references cite

    def payload(self) -> dict[str, object]:
        return {
            "id": self.id,
            "title": self.title,
            "at": self.at.isoformat(),
            "cited": [c[:MAX_CITED] for c in self.cited],
        }


def relevant_events(
    candidates: Iterable[KnownEvent], texts: Sequence[str], *, limit: int = MAX_KNOWN_EVENTS
) -> list[KnownEvent]:
    """The candidates one of whose cited texts occurs in `texts` (only those cited texts
    kept), earliest first (ties by id), at most `limit`."""
    found = []
    for event in candidates:
        cited = [
            c
            for c in dict.fromkeys(event.cited)
            if len(c.strip()) >= MIN_CITED and any(c in t for t in texts)
        ]
        if cited:
            found.append(event.model_copy(update={"cited": cited}))
    found.sort(key=lambda e: (e.at, e.id))
    return found[:limit]


def match_event(
    known: Sequence[KnownEvent],
    cited: str,
    at: datetime | None,
    *,
    taken: Collection[str] = (),
) -> str | None:
    """The id of the one known event that cites exactly `cited` at exactly `at`, not already
    `taken` by another fact of the same answer; None when there is none or more than one
    (two candidates are never guessed between)."""
    if at is None:
        return None
    same = [k for k in known if k.id not in taken and k.at == at and cited in k.cited]
    return same[0].id if len(same) == 1 else None
