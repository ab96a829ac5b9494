"""The full-text read of search (issue 30): one statement, `cypher/search/hits.cypher`.

Lucene scores, the time slice, the standing and the ranking formula (engine/search/ranking.py,
its weights passed as parameters) are all applied in the database, and so is the keyset page.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from engine.search.hits import Hit, HitObject, HitPage, PassageRef, matched_passage
from engine.search.ranking import EARLIER_TEXT_WEIGHT, RRF_K, HitKind, Standing, weight_params
from engine.search.text import SearchText, scoped
from engine.story.models import Entity, Event, Relation, Summary
from graph.base import Store
from graph.story.codec import decode, from_props
from graph.temporal import from_neo4j

# Lucene hands over this many times `candidates` of the scope's best matches (then 8x, up
# to LUCENE_MAX_FACTOR x, while the time and kind filters leave too few)
LUCENE_FACTOR = 4
LUCENE_MAX_FACTOR = 2048

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
    ) -> HitPage:
        """One page of hits; with `vector` (the query's embedding) the full-text and vector
        lists are fused by reciprocal rank (engine/search/ranking.py).

        Lucene hands over at most `LUCENE_FACTOR x candidates` of the scope's best matches;
        when it handed over that many and the time and kind filters left fewer than
        `candidates` hits, the read is repeated with eight times as many (a search as of long
        ago, or of one kind among many), so the cap never changes an answer."""
        candidates = max(candidates, limit + 1)
        lucene_limit = LUCENE_FACTOR * candidates
        while True:
            row = await self._read(
                scope, text, as_of=as_of, valid_at=valid_at, kinds=kinds,
                standings=standings, after=after, limit=limit, candidates=candidates,
                vector=vector, vector_k=vector_k, min_similarity=min_similarity,
                lucene_limit=lucene_limit,
            )  # fmt: skip
            saturated = row["yielded"] >= lucene_limit and row["passed"] < candidates
            if not saturated or lucene_limit >= LUCENE_MAX_FACTOR * candidates:
                break
            lucene_limit *= 8
        page = [_hit(h, text.words) for h in row["page"]]
        return HitPage(hits=page[:limit], has_next=len(page) > limit, total=row["total"])

    async def _read(
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
        candidates: int,
        vector: list[float] | None,
        vector_k: int,
        min_similarity: float,
        lucene_limit: int,
    ) -> Any:
        found = await self.read_one(
            "search/hits",
            index=text.index,
            index_query=scoped(text.lucene, scope),
            lucene_limit=lucene_limit,
            scope=scope,
            as_of=as_of,
            valid_at=valid_at,
            labels=[_LABELS[k] for k in kinds],
            vector=vector,
            vector_k=vector_k,
            min_similarity=min_similarity,
            rrf_k=RRF_K,
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
