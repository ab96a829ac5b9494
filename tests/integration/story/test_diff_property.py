"""Property: `storyGraphDiff(since, until)` is exactly the difference of the as-of
reads at `since` and `until`. For random publishes and corrections at increasing record
times, every pair of moments is diffed through Neo4j, page by page (a small page, so the
keyset is exercised), and compared with what the two `storyGraph(asOf)` reads differ in:
the same objects, the same kind of change, the same fields with the same before/after
values, and who made it."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from neo4j import AsyncDriver

from engine.settings import Settings
from engine.story.diff import DiffEntry, entry
from engine.story.views import StoryGraph
from graph.story import StoryRepository
from graph.story.diff import StoryDiff
from graph.temporal import to_epoch_us
from tests.support.story import T0
from tests.support.story_history import OPS, record_history

_counter = iter(range(10**9))


def _objects(graph: StoryGraph) -> dict[tuple[str, str], Any]:
    out: dict[tuple[str, str], Any] = {}
    for kind, items in (
        ("story", graph.stories),
        ("event", graph.events),
        ("entity", graph.entities),
        ("relation", graph.relations),
        ("suggestion", graph.suggestions),
        ("summary", graph.summaries),
    ):
        for obj in items:
            out[(kind, obj.id)] = obj
    return out


def expected_diff(before: StoryGraph, after: StoryGraph) -> dict[tuple[str, str], Any]:
    """What the two as-of reads differ in, entry by entry (the diff's specification)."""
    old, new = _objects(before), _objects(after)
    out = {}
    for key, obj in new.items():
        made = entry(key[0], old.get(key), obj, obj.recorded_at)
        if made is not None:
            out[key] = (made.change, made.fields, made.by)
    return out


async def read_diff(
    store: StoryDiff, scope: str, since: datetime, until: datetime
) -> list[DiffEntry]:
    entries: list[DiffEntry] = []
    after: tuple[int, str] | None = None
    while True:
        page = await store.page(scope, since, until, after, 3)
        entries.extend(page.items)
        if not page.has_next:
            return entries
        last = page.items[-1]
        after = (to_epoch_us(last.changed_at), last.object_id)


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(specs=OPS, pairs=st.lists(st.tuples(st.integers(0, 20), st.integers(0, 20)), max_size=5))
async def test_the_diff_equals_the_difference_of_the_as_of_reads(
    specs: list[dict[str, Any]],
    pairs: list[tuple[int, int]],
    repo: StoryRepository,
    scope: str,
    neo4j_driver: AsyncDriver,
    settings: Settings,
) -> None:
    sub = f"{scope}-{next(_counter)}"
    start = T0 + timedelta(days=30)
    store = StoryDiff(neo4j_driver, settings.neo4j_database)
    try:
        ops = await record_history(repo, sub, specs, start)
        moments = [start - timedelta(seconds=1)] + [
            op.at + delta for op in ops for delta in (timedelta(0), timedelta(seconds=30))
        ]
        chosen = [(0, len(moments) - 1)] + pairs
        for a, b in chosen:
            since, until = sorted((moments[a % len(moments)], moments[b % len(moments)]))
            before = await repo.story_graph(sub, as_of=since, include_removed=True)
            after = await repo.story_graph(sub, as_of=until, include_removed=True)
            found = await read_diff(store, sub, since, until)
            got = {(e.object_kind, e.object_id): (e.change, e.fields, e.by) for e in found}
            assert len(got) == len(found), "an object appears twice in the diff"
            assert got == expected_diff(before, after), (since, until)
            keys = [(e.changed_at, e.object_id) for e in found]
            assert keys == sorted(keys), "the diff is ordered by (changedAt, id)"
    finally:
        await neo4j_driver.execute_query(
            "MATCH (n {scope: $s}) DETACH DELETE n", s=sub, database_=settings.neo4j_database
        )
