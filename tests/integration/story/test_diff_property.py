"""Property: `storyGraphDiff(since, until)` is exactly the difference of the as-of
reads at `since` and `until`. For random publishes and corrections at increasing record
times, every pair of moments is diffed through the store the API reads it with
(`graph.story.diff.StoryDiff`: pages, total count, references), page by page (a small page, so the keyset is exercised), and
compared with a model of the diff written here from its rules (the table in
`engine/story/diff.py`'s docstring), not with the implementation's own entry maker: the
same objects, the same kind of change, the same fields with the same before/after values,
who made it, the total count, and the references each change cites (those the as-of read at
`until` lists for the object and the result that changed it)."""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import Enum
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from neo4j import AsyncDriver
from pydantic import BaseModel

from engine.settings import Settings
from engine.story.diff import DiffEntry
from engine.story.models import Reference
from engine.story.views import StoryGraph
from graph.story import StoryRepository
from graph.story.diff import StoryDiff
from graph.temporal import to_epoch_us
from tests.support.story import T0
from tests.support.story_history import OPS, record_history

_counter = iter(range(10**9))

# what says who changed an object, when and through what: never a change of its value
BOOKKEEPING = {
    "id",
    "scope",
    "seq",
    "recorded_at",
    "retracted_at",
    "by",
    "why",
    "via_result",
    "via_concern",
}


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


def _shown(value: Any) -> str | None:
    """A value as the diff shows it: lists joined, instants in ISO 8601, JSON booleans."""
    if value is None:
        return None
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return ", ".join(str(_shown(v)) for v in value)
    if isinstance(value, Enum):
        return str(value.value)
    return str(value)


def _value(obj: BaseModel | None) -> dict[str, Any]:
    if obj is None:
        return {}
    return {k: getattr(obj, k) for k in obj.model_dump() if k not in BOOKKEEPING}


def expected_entry(before: BaseModel | None, after: BaseModel) -> Any:
    """The rules' entry for one object (None: no entry): added when it was not there; else
    by the fields whose values differ (an added object shows only the fields it fills)."""
    old, new = _value(before), _value(after)
    fields = tuple(
        (name, _shown(old.get(name)), _shown(new.get(name)))
        for name in sorted(set(old) | set(new))
        if old.get(name) != new.get(name)
        and (_shown(old.get(name)) is not None or _shown(new.get(name)) not in (None, ""))
    )
    if before is None:
        change = "added"
    elif not fields:
        return None
    elif "removed" in {f[0] for f in fields}:
        change = "removed" if new.get("removed") else "restored"
    elif (
        old.get("confirmation") != new.get("confirmation")
        and _shown(new.get("confirmation")) == "rejected"
    ):
        change = "retracted"
    elif old.get("status") != new.get("status") and _shown(new.get("status")) == "dismissed":
        change = "retracted"
    else:
        change = "revised"
    result = getattr(after, "via_result", None) or getattr(after, "result_id", None)
    return change, fields, getattr(after, "by", None), result


def expected_diff(before: StoryGraph, after: StoryGraph) -> dict[tuple[str, str], Any]:
    """What the two as-of reads differ in, entry by entry (the diff's specification)."""
    old, new = _objects(before), _objects(after)
    out = {}
    for key, obj in new.items():
        made = expected_entry(old.get(key), obj)
        if made is not None:
            out[key] = made
    return out


def cited(graph: StoryGraph, owner: str, result: str | None) -> list[str]:
    """The references the read at `until` lists for an object, written by one result."""
    return sorted(r.id for r in graph.references if r.owner_id == owner and r.result_id == result)


async def read_diff(
    store: StoryDiff, scope: str, since: datetime, until: datetime
) -> tuple[list[DiffEntry], dict[str, list[Reference]], int]:
    """Every page of the diff as the API reads it (`jobs.story.diff.story_diff`): the
    entries, the references each page's changes cite, and the total count."""
    entries: list[DiffEntry] = []
    refs: dict[str, list[Reference]] = {}
    after: tuple[int, str] | None = None
    while True:
        page = await store.page(scope, since, until, after, 3)
        entries.extend(page.items)
        refs.update(await store.references(scope, page.items))
        if not page.has_next:
            return entries, refs, await store.count(scope, since, until)
        last = page.items[-1]
        after = (to_epoch_us(last.changed_at), last.object_id)


@pytest.mark.timeout(360)  # 15 histories, every pair read page by page on two busy cores
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
            found, refs, total = await read_diff(store, sub, since, until)
            got = {
                (e.object_kind, e.object_id): (
                    e.change.value,
                    tuple((f.field, f.before, f.after) for f in e.fields),
                    e.by,
                    e.result_id,
                )
                for e in found
            }
            assert len(got) == len(found), "an object appears twice in the diff"
            expected = expected_diff(before, after)
            # an object with no author of its own (a stage summary) is by its result's publisher
            for key, (change, fields, by, result) in list(expected.items()):
                if by is None and result is not None:
                    publisher = (await repo.result(sub, result)).result.by
                    expected[key] = (change, fields, publisher, result)
            assert got == expected, (since, until)
            assert total == len(expected), "totalCount counts the entries"
            assert {
                e.object_id: sorted(r.id for r in refs.get(e.object_id, [])) for e in found
            } == {key[1]: cited(after, key[1], made[3]) for key, made in expected.items()}
            keys = [(e.changed_at, e.object_id) for e in found]
            assert keys == sorted(keys), "the diff is ordered by (changedAt, id)"
    finally:
        await neo4j_driver.execute_query(
            "MATCH (n {scope: $s}) DETACH DELETE n", s=sub, database_=settings.neo4j_database
        )
