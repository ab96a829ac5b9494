"""What a page of entities, relations or events is filtered by: one object per list, built at
the edge (GraphQL or MCP), checked once by the use case and passed down to the query."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Self

from engine.clock import instant


@dataclass(frozen=True)
class StoryWindow:
    """A story, or an event-time window (from <= at <= to); both optional."""

    story_id: str | None = None
    from_: datetime | None = None
    to: datetime | None = None

    def in_utc(self) -> Self:
        """The window's instants in UTC; a time without a zone is INVALID_INPUT naming it."""
        return replace(self, from_=instant(self.from_, "from"), to=instant(self.to, "to"))


@dataclass(frozen=True)
class EntityFilter(StoryWindow):
    """Entities of one kind or status, or whose name contains a text (case-insensitive)."""

    kind: str | None = None
    status: str | None = None
    name_contains: str | None = None


@dataclass(frozen=True)
class RelationFilter(StoryWindow):
    """Relations of one confirmation status; removed ones only when asked for."""

    confirmation: str | None = None
    include_removed: bool = False


@dataclass(frozen=True)
class EventFilter(StoryWindow):
    """Events of a story and/or an event-time window."""
