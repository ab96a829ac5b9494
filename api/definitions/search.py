"""search: the story graph's text as known at asOf, for people and agents.

One resolver, one use case (`jobs.search.reads.search`): only a scope the caller may read,
user text escaped or refused (INVALID_INPUT, never a Lucene error), hits ranked by
engine/search/ranking.py and paged after a keyset cursor. The answer says which mode ran
(`mode: HYBRID` when an embedding endpoint adds semantic hits, else LEXICAL with a `note`
saying why: no fake semantic search).
"""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.types import Info

from api.context import Context
from api.definitions.base import build, versioned
from api.definitions.pagination import PageInfo, page_size
from api.definitions.story_types import Entity, Event, Relation, Summary
from api.paging import SEARCH
from engine.search import hits as h
from engine.search import vectors as v
from engine.search.ranking import HitKind, Standing
from engine.story import models as m
from jobs.search.reads import SearchAsk, search

SearchKind = strawberry.enum(HitKind, name="SearchKind")
SearchStanding = strawberry.enum(Standing, name="SearchStanding")


SearchMode = strawberry.enum(
    v.SearchMode,
    name="SearchMode",
    description="HYBRID: full-text and vector hits fused by reciprocal rank; LEXICAL: "
    "full-text only (see `note`).",
)


@strawberry.type(description="Where a query word occurs in the passage: [start, end) characters.")
class Highlight:
    start: int
    end: int


@strawberry.type(description="A line (or piece) of one source version, found by its locator.")
class PassageHit:
    source_id: str
    source_version: str
    locator: str
    recorded_at: datetime


@strawberry.type(
    description=(
        "One object as believed at asOf (its version), why it matched (the passage and "
        "highlights), its standing and score. rank = Lucene score x standing weight x "
        "currency weight; in hybrid mode reciprocal rank fusion of the full-text and vector "
        "lists x the same weights (docs/guides/search.md)."
    )
)
class SearchHit:
    kind: SearchKind  # type: ignore[valid-type]
    id: strawberry.ID
    version: int | None = strawberry.field(
        description="The version (seq) believed at asOf; null for summaries and passages."
    )
    standing: SearchStanding  # type: ignore[valid-type]
    current: bool = strawberry.field(
        description="The text matched is the version believed at asOf (false: an earlier one)."
    )
    field: str
    passage: str
    highlights: list[Highlight]
    score: float
    rank: float
    mentions: int
    similarity: float | None = strawberry.field(
        default=None,
        description="Hybrid search: cosine similarity of the text to the query's embedding "
        "(null when only the full text matched, and in lexical mode).",
    )
    entity: Entity | None = None
    event: Event | None = None
    relation: Relation | None = None
    summary: Summary | None = None
    source_passage: PassageHit | None = None


@strawberry.type
class SearchEdge:
    cursor: str
    node: SearchHit


@strawberry.type
class SearchConnection:
    edges: list[SearchEdge]
    page_info: PageInfo
    total_count: int
    as_of: datetime
    mode: SearchMode  # type: ignore[valid-type]
    note: str | None = strawberry.field(
        default=None,
        description="Why the search is lexical (no embedding endpoint, the endpoint down, "
        "nothing embedded yet, vectors of another model); null in hybrid mode.",
    )


def _hit(hit: h.Hit, as_of: datetime) -> SearchHit:
    obj = hit.obj
    out = SearchHit(
        kind=hit.kind,
        id=strawberry.ID(hit.key),
        version=obj.seq if isinstance(obj, m.Version) else None,
        standing=hit.standing,
        current=hit.current,
        field=hit.field,
        passage=hit.passage,
        highlights=[Highlight(start=s, end=e) for s, e in hit.spans],
        score=hit.score,
        rank=hit.rank,
        mentions=hit.mentions,
        similarity=hit.similarity,
    )
    if isinstance(obj, m.Entity):
        out.entity = versioned(Entity, obj, as_of_=as_of)
    elif isinstance(obj, m.Event):
        out.event = versioned(Event, obj)
    elif isinstance(obj, m.Relation):
        out.relation = versioned(Relation, obj, as_of_=as_of)
    elif isinstance(obj, m.Summary):
        out.summary = build(Summary, obj, id=strawberry.ID(obj.id))
    if hit.passage_ref is not None:
        ref = hit.passage_ref
        out.source_passage = PassageHit(
            source_id=ref.source_id,
            source_version=ref.version,
            locator=ref.locator,
            recorded_at=ref.recorded_at,
        )
    return out


@strawberry.type
class Query:
    @strawberry.field(
        description=(
            "Search one scope's story graph as known at asOf (default now): entity names, "
            "earlier names and descriptions, event titles and descriptions, relation reasons, "
            "stage summaries and source passages. validAt keeps what held in the world then. "
            "Text is searched as words (no query syntax); empty or too long text is "
            "INVALID_INPUT."
        )
    )
    async def search(
        self,
        info: Info[Context, None],
        scope: str,
        text: str,
        as_of: datetime | None = None,
        valid_at: datetime | None = None,
        kinds: list[SearchKind] | None = None,  # type: ignore[valid-type]
        standing: list[SearchStanding] | None = None,  # type: ignore[valid-type]
        first: int | None = 20,
        after: str | None = None,
    ) -> SearchConnection:
        at, page = await search(
            info.context.deps,
            info.context.caller(),
            scope,
            SearchAsk(
                text=text,
                first=page_size(first, info.context.settings.page_max_first),
                kinds=kinds,
                standings=standing,
                after=SEARCH.decode(after),
            ),
            as_of=as_of,
            valid_at=valid_at,
        )
        edges = [
            SearchEdge(
                cursor=SEARCH.encode(hit),
                node=_hit(hit, at),
            )
            for hit in page.items
        ]
        return SearchConnection(
            edges=edges,
            page_info=PageInfo(
                has_next_page=page.has_next,
                has_previous_page=after is not None,
                start_cursor=edges[0].cursor if edges else None,
                end_cursor=edges[-1].cursor if edges else None,
            ),
            total_count=page.total,
            as_of=at,
            mode=page.mode,
            note=page.note,
        )
