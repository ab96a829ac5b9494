"""A search hit and the passage it shows: which text matched, and where.

The hit's object is its version believed at asOf (an `Entity`, `Event`, `Relation` or
`Summary` model) or a source passage. The passage shown is the first field that holds a
query word, in this order: the current version's name/title, its description/reason/text,
then an earlier version's name/title ("earlier_name") — never text recorded after asOf,
since the read only returns versions recorded by then.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine.page import Page
from engine.search.ranking import HitKind, Standing
from engine.search.text import highlights
from engine.search.vectors import SearchMode
from engine.story.models import Entity, Event, Relation, Summary

HitObject = Entity | Event | Relation | Summary


@dataclass(frozen=True)
class PassageRef:
    """A line (or piece) of one source version, found by its locator."""

    source_id: str
    version: str
    locator: str
    recorded_at: datetime


@dataclass(frozen=True)
class Hit:
    kind: HitKind
    key: str  # the object's id, or the passage's `source@version#locator`
    obj: HitObject | None
    passage_ref: PassageRef | None
    standing: Standing
    current: bool  # the text matched is the version believed at asOf (not an earlier one)
    field: str  # name, title, description, reason, text, earlier_name, earlier_title
    passage: str
    spans: list[tuple[int, int]]
    score: float  # Lucene's (0 for a hit found only by its vector)
    rank: float  # engine.search.ranking.rank / fused_rank
    mentions: int
    similarity: float | None = None  # cosine to the query's vector (hybrid search)


@dataclass(frozen=True)
class HitPage(Page[Hit]):
    """A page of hits like every list's page, and how the search ran: its total is always
    counted (the same read ranks every candidate), and `mode` / `note` say whether vectors
    took part and, when not, why."""

    total: int
    mode: SearchMode = SearchMode.LEXICAL
    note: str | None = None  # why the search is lexical (engine/search/vectors.py)


_FIELDS = ("name", "title", "description", "reason", "text")


def matched_passage(
    current: dict[str, Any], matched: list[dict[str, Any]], words: tuple[str, ...]
) -> tuple[str, str, list[tuple[int, int]]]:
    """(field, text, highlight spans) for the hit: the current version's fields first, then
    the earlier versions that matched (best Lucene score first)."""
    for name in _FIELDS:
        text = current.get(name)
        if isinstance(text, str) and text:
            spans = highlights(text, words)
            if spans:
                return name, text, spans
    for node in matched:
        if node.get("current"):
            continue
        for name in ("name", "title", "description", "reason"):
            text = node.get(name)
            if isinstance(text, str) and text:
                spans = highlights(text, words)
                if spans:
                    return f"earlier_{name}", text, spans
    # Lucene matched on a form the highlighter does not mark (a stemmed or folded word)
    for name in _FIELDS:
        text = current.get(name)
        if isinstance(text, str) and text:
            return name, text, []
    return "text", "", []
