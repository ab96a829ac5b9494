"""The full-text read of search: one statement, `cypher/search/hits.cypher`.

Lucene scores, the time slice, the standing and the ranking formula (engine/search/ranking.py,
its weights passed as parameters) are all applied in the database, and so is the keyset page.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from engine.search.hits import Hit, HitObject, HitPage, PassageRef, matched_passage
from engine.search.ranking import EARLIER_TEXT_WEIGHT, RRF_K, HitKind, Standing, weight_params
from engine.search.text import CJK_UNIGRAM_WEIGHT, ENGLISH_INDEX, SearchText, scoped
from engine.story.models import Entity, Event, Relation, Summary
from graph.base import Store
from graph.story.codec import decode, from_props
from graph.temporal import from_neo4j

# Lucene hands over this many times `candidates` of the scope's best matches (then 8x, up
# to LUCENE_MAX_FACTOR x, while the time and kind filters leave too few)
LUCENE_FACTOR = 4
LUCENE_MAX_FACTOR = 2048
# the vector index is asked for 4x more neighbours each time the scope's share of them is
# short of what hybrid search ranks (Neo4j's vector index cannot be filtered by scope)
VECTOR_GROWTH = 4

_LABELS: dict[HitKind, str] = {
    HitKind.ENTITY: "EntityVersion",
    HitKind.EVENT: "EventVersion",
    HitKind.RELATION: "RelationVersion",
    HitKind.SUMMARY: "Summary",
    HitKind.PASSAGE: "Passage",
}

_MODELS: dict[HitKind, type[HitObject]] = {
    HitKind.ENTITY: Entity,
    HitKind.EVENT: Event,
    HitKind.RELATION: Relation,
    HitKind.SUMMARY: Summary,
}


class SearchStore(Store):
    async def search(
        self,
        scope: str,
        text: SearchText,
        *,
        as_of: datetime,
        valid_at: datetime | None,
        kinds: Sequence[HitKind],
        standings: Sequence[Standing] | None,
        after: tuple[float, int, str] | None,
        limit: int,
        candidates: int = 200,
        vector: list[float] | None = None,
        vector_k: int = 100,
        min_similarity: float = 0.5,
        vector_max_k: int = 10_000,
        lexical_weight: float = 1.0,
        vector_weight: float = 1.0,
    ) -> HitPage:
        """One page of hits; with `vector` (the query's embedding) the full-text and vector
        lists are fused by reciprocal rank (engine/search/ranking.py).

        Lucene hands over at most `LUCENE_FACTOR x candidates` of the scope's best matches;
        when it handed over that many and the time and kind filters left fewer than
        `candidates` hits, the read is repeated with eight times as many (a search as of long
        ago, or of one kind among many), so the cap never changes an answer."""
        candidates = max(candidates, limit + 1)
        lucene_limit = LUCENE_FACTOR * candidates
        labels = [_LABELS[k] for k in kinds]
        vector_hits = (
            None
            if vector is None
            else await self.neighbours(
                vector,
                scope=scope,
                as_of=as_of,
                labels=labels,
                want=vector_k,
                min_similarity=min_similarity,
                max_k=vector_max_k,
            )  # fmt: skip
        )
        while True:
            row = await self._read(
                scope, text, as_of=as_of, valid_at=valid_at, labels=labels,
                standings=standings, after=after, limit=limit, candidates=candidates,
                vector_hits=vector_hits, lexical_weight=lexical_weight,
                vector_weight=vector_weight, lucene_limit=lucene_limit,
            )  # fmt: skip
            saturated = row["yielded"] >= lucene_limit and row["passed"] < candidates
            if not saturated or lucene_limit >= LUCENE_MAX_FACTOR * candidates:
                break
            lucene_limit *= 8
        page = [_hit(h, text.words) for h in row["page"]]
        return HitPage(items=page[:limit], has_next=len(page) > limit, total=row["total"])

    async def neighbours(
        self,
        vector: list[float],
        *,
        scope: str,
        as_of: datetime,
        labels: list[str],
        want: int,
        min_similarity: float,
        max_k: int,
    ) -> list[dict[str, Any]]:
        """Up to `want` of the scope's nearest neighbours of `vector` ({id, similarity}) at
        or above the floor. The index is asked for `want` neighbours over all scopes, then
        4x as many while the scope's share is short and more could still pass: the index had
        that many, and the weakest it gave was still above the floor (beyond it, none can
        pass). `max_k` bounds the cost; the bench reports recall with 100 other scopes."""
        k = want
        while True:
            row = (
                await self.query(
                    "search/vector_neighbours",
                    vector=vector,
                    k=k,
                    scope=scope,
                    as_of=as_of,
                    labels=labels,
                    min_similarity=min_similarity,
                )  # fmt: skip
            )[0]
            hits: list[dict[str, Any]] = row["hits"]
            more = row["yielded"] >= k and row["weakest"] >= min_similarity
            if len(hits) >= want or not more or k >= max_k:
                return hits[:want]
            k = min(k * VECTOR_GROWTH, max_k)

    async def _read(
        self,
        scope: str,
        text: SearchText,
        *,
        as_of: datetime,
        valid_at: datetime | None,
        labels: list[str],
        standings: Sequence[Standing] | None,
        after: tuple[float, int, str] | None,
        limit: int,
        candidates: int,
        vector_hits: list[dict[str, Any]] | None,
        lexical_weight: float,
        vector_weight: float,
        lucene_limit: int,
    ) -> Any:
        found = await self.read_one(
            "search/hits",
            index=text.index,
            index_query=scoped(text.lucene, scope),
            unigram=_unigram(text, scope),
            lucene_limit=lucene_limit,
            scope=scope,
            as_of=as_of,
            valid_at=valid_at,
            labels=labels,
            hybrid=vector_hits is not None,
            vector_hits=vector_hits or [],
            rrf_k=RRF_K,
            lexical_weight=lexical_weight,
            vector_weight=vector_weight,
            standings=None if standings is None else [s.value for s in standings],
            weights=weight_params(),
            earlier_weight=EARLIER_TEXT_WEIGHT,
            after=None
            if after is None
            else {"rank": after[0], "mentions": after[1], "key": after[2]},
            limit=limit,
            candidates=candidates,
        )
        return found[0]


def _unigram(text: SearchText, scope: str) -> list[dict[str, Any]]:
    """A Chinese query's single-character reading (engine/search/text.py), else none."""
    if text.unigram_lucene is None:
        return []
    query = scoped(text.unigram_lucene, scope)
    return [{"index": ENGLISH_INDEX, "query": query, "weight": CJK_UNIGRAM_WEIGHT}]


def _hit(row: dict[str, Any], words: tuple[str, ...]) -> Hit:
    kind = HitKind(row["kind"])
    props: dict[str, Any] = row["v"]
    props.pop("embedding", None)
    field, passage, spans = matched_passage(props, row["matched"], words)
    obj: HitObject | None = None
    ref: PassageRef | None = None
    if kind is HitKind.PASSAGE:
        ref = PassageRef(
            source_id=props["source_id"],
            version=props["version"],
            locator=props["locator"],
            recorded_at=from_neo4j(props["recorded_at"]),
        )
    elif kind is HitKind.SUMMARY:
        obj = from_props(Summary, props)
    else:
        model = _MODELS[kind]
        assert model is not Summary
        obj = decode(model, props, believed=True)  # type: ignore[type-var]
    return Hit(
        kind=kind,
        key=row["key"],
        obj=obj,
        passage_ref=ref,
        standing=Standing(row["standing"]),
        current=row["current"],
        field=field,
        passage=passage,
        spans=spans,
        score=float(row["score"]),
        rank=float(row["rank"]),
        mentions=int(row["mentions"]),
        similarity=None if row["similarity"] is None else float(row["similarity"]),
    )
