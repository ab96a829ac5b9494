"""One instant, any offset (docs/rules/story-graph.md#time): Neo4j neither equates nor orders the same instant
written with two offsets the way `recorded_at <= T < retracted_at` needs, so every stored
and compared time is UTC. Data written with +08:00 is read with Z and -05:00, at the exact
boundaries included."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from neo4j import AsyncDriver

from engine.errors import InvalidInput
from engine.settings import Settings
from engine.story.inputs import EntityEdit
from graph.migrate import load_migrations
from graph.story import StoryRepository
from tests.support.story import ALICE, RUN, cite, entity, publish, source

BEIJING = timezone(timedelta(hours=8))
NEW_YORK = timezone(timedelta(hours=-5))
WRITTEN = datetime(2026, 9, 23, 10, 10, tzinfo=BEIJING)  # 02:10Z
EDITED = datetime(2026, 9, 23, 11, 0, tzinfo=BEIJING)  # 03:00Z
HAPPENED = datetime(2026, 9, 22, 16, 0, tzinfo=BEIJING)  # 08:00Z


def _same(instant: datetime, tz: timezone) -> datetime:
    return instant.astimezone(tz)


async def _written_in_beijing(repo: StoryRepository, scope: str) -> str:
    await repo.upsert_source(source(scope), now=WRITTEN)
    out = await repo.publish_result(
        publish(
            scope,
            "k1",
            events=[{"ref": "e1", "title": "提测会议", "at": HAPPENED, "references": [cite()]}],
            entities=[entity("zs", "张三", kind="person", status="main")],
            changes=[{"event": "e1", "entity": "zs", "kind": "proposed"}],
        ),
        by=RUN,
        now=WRITTEN,
    )
    zs = out.plan.entities[0].id
    await repo.update_entity(
        scope, zs, EntityEdit(name="张三丰"), seen_version=1, by=ALICE, now=EDITED
    )
    return zs


@pytest.mark.parametrize("tz", [UTC, NEW_YORK, BEIJING], ids=["Z", "-05:00", "+08:00"])
async def test_as_of_the_exact_recorded_instant_in_any_offset_shows_what_was_written(
    repo: StoryRepository, scope: str, tz: timezone
) -> None:
    zs = await _written_in_beijing(repo, scope)
    at_write = await repo.story_graph(scope, as_of=_same(WRITTEN, tz))
    assert [e.title for e in at_write.events] == ["提测会议"]
    assert [e.name for e in at_write.entities] == ["张三"]
    assert len(at_write.references) == 1
    just_before = await repo.story_graph(scope, as_of=_same(WRITTEN, tz) - timedelta(seconds=1))
    assert just_before.events == [] and just_before.entities == []
    # The edit's instant is both the old version's retraction and the new one's record time.
    at_edit = await repo.story_graph(scope, as_of=_same(EDITED, tz))
    assert [e.name for e in at_edit.entities] == ["张三丰"]
    view = await repo.entity(scope, zs, as_of=_same(EDITED, tz))
    assert view.entity.name == "张三丰" and [v.seq for v in view.history] == [1, 2]


@pytest.mark.parametrize("tz", [UTC, NEW_YORK], ids=["Z", "-05:00"])
async def test_window_bounded_by_the_events_instant_in_another_offset_finds_it(
    repo: StoryRepository, scope: str, tz: timezone
) -> None:
    await _written_in_beijing(repo, scope)
    exact, later = _same(HAPPENED, tz), _same(EDITED, tz) + timedelta(hours=1)
    window = await repo.story_graph(scope, as_of=later, from_=exact, to=exact)
    assert [e.title for e in window.events] == ["提测会议"]
    assert [e.name for e in window.entities] == ["张三丰"]
    happened = await repo.story_graph(scope, as_of=later, valid_at=exact)
    assert [e.title for e in happened.events] == ["提测会议"]
    view = await repo.graph_view(scope, as_of=_same(WRITTEN, tz), from_=exact, to=exact)
    assert [t.title for t in view.timeline] == ["提测会议"]


async def test_every_stored_time_is_utc_in_neo4j(
    repo: StoryRepository, scope: str, neo4j_driver: AsyncDriver, settings: Settings
) -> None:
    await _written_in_beijing(repo, scope)
    records, _, _ = await neo4j_driver.execute_query(
        "MATCH (n {scope: $scope}) UNWIND keys(n) AS k WITH n[k] AS v "
        "WHERE valueType(v) STARTS WITH 'ZONED DATETIME' RETURN collect(DISTINCT v.offset) AS o",
        scope=scope,
        database_=settings.neo4j_database,
    )
    assert records[0]["o"] == ["Z"]


@pytest.mark.parametrize("argument", ["as_of", "valid_at", "from_", "to"])
async def test_a_read_time_without_a_zone_is_invalid_input(
    repo: StoryRepository, scope: str, argument: str
) -> None:
    with pytest.raises(InvalidInput):
        naive = datetime(2026, 9, 23, 10, 10)
        await repo.story_graph(scope, **{"as_of": WRITTEN, argument: naive})


async def test_migration_rewrites_times_stored_with_an_offset_so_reads_in_z_find_them(
    repo: StoryRepository, scope: str, neo4j_driver: AsyncDriver, settings: Settings
) -> None:
    await _written_in_beijing(repo, scope)
    db = settings.neo4j_database
    # What the codec stored before: the same instants with the writer's offset (+08:00).
    await neo4j_driver.execute_query(
        "MATCH (n {scope: $scope}) UNWIND keys(n) AS k WITH n, k, n[k] AS v "
        "WHERE valueType(v) STARTS WITH 'ZONED DATETIME' "
        "SET n[k] = datetime({datetime: v, timezone: '+08:00'})",
        scope=scope,
        database_=db,
    )
    exact = _same(WRITTEN, UTC)
    assert (await repo.story_graph(scope, as_of=exact)).events == []  # the bug, as stored
    (utc_migration,) = [m for m in load_migrations() if m.name.endswith("_utc_instants")]
    for statement in utc_migration.statements:
        await neo4j_driver.execute_query(statement, database_=db)
    assert [e.title for e in (await repo.story_graph(scope, as_of=exact)).events] == ["提测会议"]
    records, _, _ = await neo4j_driver.execute_query(
        "MATCH (n {scope: $scope}) UNWIND keys(n) AS k WITH n[k] AS v "
        "WHERE valueType(v) STARTS WITH 'ZONED DATETIME' RETURN collect(DISTINCT v.offset) AS o",
        scope=scope,
        database_=db,
    )
    assert records[0]["o"] == ["Z"]


async def test_written_instants_come_back_exactly_before_1970_and_to_the_microsecond(
    repo: StoryRepository, scope: str
) -> None:
    """Bulk writes send each instant as [epoch seconds, nanosecond] and Neo4j rebuilds it
    (graph/story/codec.write_row): a time before 1970 (negative seconds) and microseconds
    must survive, as the same instant, both as a value read back and as a read's bound."""
    long_ago = datetime(1899, 12, 31, 23, 59, 59, 987654, tzinfo=BEIJING)
    recorded = datetime(2026, 9, 23, 10, 10, 10, 123456, tzinfo=BEIJING)
    await repo.upsert_source(source(scope), now=recorded)
    await repo.publish_result(
        publish(
            scope,
            "k-old",
            events=[{"ref": "e1", "title": "旧事", "at": long_ago, "references": [cite()]}],
        ),
        by=RUN,
        now=recorded,
    )
    graph = await repo.story_graph(scope, as_of=recorded)
    (event,) = graph.events
    assert event.at == long_ago and event.recorded_at == recorded
    assert [r.recorded_at for r in graph.references] == [recorded]
    before = recorded - timedelta(microseconds=1)
    assert (await repo.story_graph(scope, as_of=before)).events == []
    window = await repo.story_graph(scope, as_of=recorded, from_=long_ago, to=long_ago)
    assert [e.title for e in window.events] == ["旧事"]
