"""Reading a selection (/; docs/rules/reviews.md) inside a transaction: the selected objects in the
versions believed at `as_of`, the names of relation ends, the references, and the sources
and exact source versions around them — all from the selection's scope only."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from neo4j import AsyncManagedTransaction

from engine.clock import recorded_within
from engine.errors import NotFound
from engine.story.knowledge import entry_id
from engine.story.models import (
    ObjectKind,
    Reference,
    Source,
    SourceVersion,
    Summary,
)
from engine.story.previews import ObjectRef, PreviewRequest
from engine.story.selection import Selection, dedupe, version_key
from graph.base import rows as named_rows
from graph.story.codec import from_props
from graph.story.kinds import VERSIONED

_SELECTABLE = (ObjectKind.ENTITY, ObjectKind.RELATION, ObjectKind.EVENT)


async def _believed(
    tx: AsyncManagedTransaction, kind: ObjectKind, scope: str, ids: Iterable[str], at: datetime
) -> dict[str, Any]:
    q = VERSIONED[kind]
    rows = await named_rows(tx, q.versions, scope=scope, ids=sorted(set(ids)))
    versions = [from_props(q.model, r["v"]) for r in rows]
    return {
        v.id: v.model_copy(update={"retracted_at": None})
        for v in versions
        if recorded_within(v.recorded_at, v.retracted_at, at)
    }


async def _result_refs(tx: AsyncManagedTransaction, scope: str, result_id: str) -> list[ObjectRef]:
    """All objects one result wrote (结果定位以结果 ID 为准), in a stable order."""
    if not await named_rows(tx, "story/result_by_id", scope=scope, id=result_id):
        raise NotFound("no such result in this scope", id=result_id, scope=scope)
    refs: list[ObjectRef] = []
    for kind in _SELECTABLE:
        rows = await named_rows(tx, VERSIONED[kind].in_result, scope=scope, result_id=result_id)
        refs += [ObjectRef(kind=kind, id=i) for i in sorted({r["v"]["id"] for r in rows})]
    rows = await named_rows(tx, "story/result_summarys", scope=scope, result_id=result_id)
    refs += [ObjectRef(kind=ObjectKind.SUMMARY, id=i) for i in sorted({r["n"]["id"] for r in rows})]
    return refs


async def load_selection(
    tx: AsyncManagedTransaction,
    request: PreviewRequest,
    at: datetime,
) -> Selection:
    """Sources read: those cited, the entries named, and the entry an earlier save to
    knowledge made for each selected object (with their current versions)."""
    scope = request.scope
    refs = list(request.objects)
    if request.result_id is not None:
        refs += await _result_refs(tx, scope, request.result_id)
    refs = dedupe(refs)

    def ids(kind: ObjectKind) -> list[str]:
        return [r.id for r in refs if r.kind is kind]

    entities = await _believed(tx, ObjectKind.ENTITY, scope, ids(ObjectKind.ENTITY), at)
    relations = await _believed(tx, ObjectKind.RELATION, scope, ids(ObjectKind.RELATION), at)
    events = await _believed(tx, ObjectKind.EVENT, scope, ids(ObjectKind.EVENT), at)
    ends = {e for r in relations.values() for e in (r.from_id, r.to_id)} - set(entities)
    names = {i: e.name for i, e in entities.items()}
    if ends:
        names |= {
            i: e.name for i, e in (await _believed(tx, ObjectKind.ENTITY, scope, ends, at)).items()
        }
    summaries = {
        s.id: s
        for s in (
            from_props(Summary, r["n"])
            for r in await named_rows(
                tx, "knowledge/summaries_by_id", scope=scope, ids=ids(ObjectKind.SUMMARY)
            )
        )
        if s.recorded_at <= at
    }
    selected = [*entities, *relations, *events, *summaries]
    references = [
        from_props(Reference, r["n"])
        for r in await named_rows(
            tx, "knowledge/references_of", scope=scope, as_of=at, owner_ids=selected
        )
    ]
    wanted = sorted(
        {r.source_id for r in references}
        | {r.entry for r in refs if r.entry is not None}
        | {entry_id(scope, r) for r in refs}
    )
    sources = {
        s.id: s
        for s in (
            from_props(Source, r["s"])
            for r in await named_rows(tx, "knowledge/sources", scope=scope, ids=wanted)
        )
    }
    keys = {(r.source_id, r.source_version) for r in references} | {
        (s.id, s.current_version) for s in sources.values()
    }
    versions = {
        version_key(v.source_id, v.version): v
        for v in (
            from_props(SourceVersion, r["v"])
            for r in await named_rows(
                tx,
                "knowledge/source_versions",
                scope=scope,
                keys=[{"source_id": s, "version": v} for s, v in sorted(keys)],
            )
        )
    }
    return Selection(
        scope=scope,
        as_of=at,
        refs=refs,
        entities=entities,
        relations=relations,
        events=events,
        summaries=summaries,
        names=names,
        references=references,
        sources=sources,
        versions=versions,
    ).check_found()
