"""Turning story reads' rows into a `StoryGraph`, and the parameters of a window read.

`story/window_graph` answers a window (`from`/`to`, `storyId`; docs/rules/story-graph.md) in one
round trip and returns one list per object kind; the whole-scope reads return one row per version.
Both are assembled here the same way: versions believed at `as_of` are shown without a retraction (a
later retraction is not known at `as_of`, docs/rules/story-graph.md#time).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, TypeVar

from engine.clock import EARLIEST, FOREVER, utc
from engine.story.models import (
    Change,
    Entity,
    Event,
    Reference,
    Relation,
    Story,
    Suggestion,
    Summary,
    Version,
)
from engine.story.views import StoryGraph
from graph.story.codec import decode, from_props

V = TypeVar("V", bound=Version)

# (StoryGraph field, `story/asof_<stem>` query, row key) of a whole-scope read.
WHOLE_SCOPE_READS: tuple[tuple[str, str, str], ...] = (
    ("stories", "story/asof_story", "v"),
    ("events", "story/asof_event", "v"),
    ("entities", "story/asof_entity", "v"),
    ("relations", "story/asof_relation", "v"),
    ("suggestions", "story/asof_suggestion", "v"),
    ("changes", "story/asof_change", "n"),
    ("summaries", "story/asof_summary", "n"),
    ("references", "story/asof_reference", "n"),
)


def window_params(
    scope: str,
    as_of: datetime,
    valid_at: datetime | None,
    from_: datetime | None,
    to: datetime | None,
    story_id: str | None,
) -> dict[str, Any]:
    """Both ends of the `at` range are always bound, so the (scope, at) index is a range
    seek; `validAt` T also bounds it, since only events that happened by T are shown."""
    upper = [utc(t) for t in (to, valid_at) if t is not None]
    return {
        "scope": scope,
        "as_of": utc(as_of),
        "from_time": utc(from_) if from_ is not None else EARLIEST,
        "to_time": min(upper) if upper else FOREVER,
        "story_id": story_id,
    }


def _believed(cls: type[V], props: list[dict[str, Any]]) -> list[V]:
    return [decode(cls, p, believed=True) for p in props]


def graph_from_lists(scope: str, as_of: datetime, lists: Mapping[str, Any]) -> StoryGraph:
    return StoryGraph(
        scope=scope,
        as_of=as_of,
        stories=_believed(Story, lists["stories"]),
        events=_believed(Event, lists["events"]),
        entities=_believed(Entity, lists["entities"]),
        relations=_believed(Relation, lists["relations"]),
        suggestions=_believed(Suggestion, lists["suggestions"]),
        changes=[from_props(Change, p) for p in lists["changes"]],
        summaries=[from_props(Summary, p) for p in lists["summaries"]],
        references=[from_props(Reference, p) for p in lists["references"]],
    )
