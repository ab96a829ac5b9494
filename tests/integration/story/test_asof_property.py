"""Property (docs/rules/story-graph.md#time): for random publishes and corrections at increasing record
times, `storyGraph(asOf=t)` read from Neo4j equals the in-memory replay of only the
operations recorded at or before t (tests.support.story_replay, the reference model) — for the
whole scope and for a `from`/`to` window, which Neo4j answers with its own query. Each
operation is recorded with a generated UTC offset and each moment is read with another, so
one instant written with two offsets must be the same moment (docs/rules/story-graph.md#time: UTC instants).
`storyObjects(ids, asOf=t)`, Neo4j's read of a few objects' neighbourhood, equals that
neighbourhood cut out of the whole-scope answer (`around`)."""

from __future__ import annotations

from datetime import timedelta, timezone
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from neo4j import AsyncDriver

from engine.settings import Settings
from engine.story.views import StoryGraph
from graph.story import StoryRepository
from tests.support.story import T0, source
from tests.support.story_history import OPS, ZONES, on_replay, record_history
from tests.support.story_replay import StoryReplay

_counter = iter(range(10**9))


def around(g: StoryGraph, ids: set[str]) -> StoryGraph:
    """What the details of `ids` show, cut out of the whole graph `g`: the objects named, the
    relations and changes touching them with their entities and events, a summary's events
    and entities, and the suggestions about and references of the objects named."""
    rels = [r for r in g.relations if ids & {r.id, r.from_id, r.to_id}]
    changes = [c for c in g.changes if ids & {c.id, c.event_id, c.entity_id}]
    sums = [s for s in g.summaries if s.id in ids]
    entities = ids | {r.from_id for r in rels} | {r.to_id for r in rels}
    entities |= {c.entity_id for c in changes} | {e for s in sums for e in s.entity_ids}
    events = ids | {c.event_id for c in changes} | {e for s in sums for e in s.event_ids}
    suggestions = [s for s in g.suggestions if s.target_id in ids]
    owners = ids | {s.id for s in suggestions}
    return g.model_copy(
        update={
            "stories": [],
            "events": [e for e in g.events if e.id in events],
            "entities": [e for e in g.entities if e.id in entities],
            "relations": rels,
            "changes": changes,
            "summaries": sums,
            "suggestions": suggestions,
            "references": [r for r in g.references if r.owner_id in owners],
        }
    ).canonical()


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(specs=OPS, read_zones=st.lists(st.sampled_from(ZONES), min_size=1, max_size=4))
async def test_as_of_equals_replay_of_the_operations_before_it(
    specs: list[dict[str, Any]],
    read_zones: list[timezone],
    repo: StoryRepository,
    scope: str,
    neo4j_driver: AsyncDriver,
    settings: Settings,
) -> None:
    sub = f"{scope}-{next(_counter)}"
    start = T0 + timedelta(days=30)
    try:
        src = source(sub)
        ops = await record_history(repo, sub, specs, start)
        checkpoints = [start - timedelta(seconds=1), start] + [
            op.at + delta for op in ops for delta in (timedelta(0), timedelta(seconds=30))
        ]
        for k, moment in enumerate(checkpoints):
            # The same instant read in another offset than it was written with.
            t = moment.astimezone(read_zones[k % len(read_zones)])
            replay = StoryReplay()
            if start <= t:
                replay.upsert_source(src, start)
            for op in ops:
                if op.at <= t:
                    on_replay(replay, sub, op)
            stored = await repo.story_graph(sub, as_of=t, include_removed=True)
            assert stored == replay.graph(sub, t, include_removed=True), t
            # a few objects' details are read by their own query (story/objects_graph)
            for kind in ("entities", "relations", "events", "changes", "summaries"):
                named = {o.id for o in getattr(stored, kind)[:2]} | {"no-such-id"}
                objects = await repo.objects_graph(
                    sub, sorted(named), as_of=t, include_removed=True
                )
                assert objects == around(stored, named), (t, kind)
            # A window is read by its own query (story/window_graph): same answer as replay.
            lo = (T0 + timedelta(days=1)).astimezone(read_zones[0])
            hi = (T0 + timedelta(days=4)).astimezone(read_zones[-1])
            window = await repo.story_graph(sub, as_of=t, from_=lo, to=hi, include_removed=True)
            assert window == replay.graph(sub, t, from_=lo, to=hi, include_removed=True), t
    finally:
        await neo4j_driver.execute_query(
            "MATCH (n {scope: $s}) DETACH DELETE n", s=sub, database_=settings.neo4j_database
        )
