"""The scheduler's scans are index seeks (every lookup has an index; docs/rules/concerns.md)."""

from __future__ import annotations

from typing import Any

import pytest
from neo4j import AsyncDriver

from bench.story_profile import db_hits as total_db_hits
from engine.concern.model import ConcernType, Priority, RaiseConcernInput, ScheduleTrigger
from engine.settings import Settings
from graph.concern.codec import utc
from graph.concern.scans import ConcernScans
from graph.queries import queries
from tests.support.concern_jobs import BOSS, at


def operators(plan: dict[str, Any]) -> list[str]:
    found = [plan["operatorType"]]
    for child in plan.get("children", []):
        found += operators(child)
    return found


@pytest.mark.parametrize(
    ("key", "index_seek"),
    [
        ("concern/scan_due", "NodeIndexSeek"),
        ("concern/scan_timeouts", "NodeIndexSeek"),
        ("concern/scan_schedules", "NodeIndexSeek"),
        ("concern/scan_due_in_scope", "NodeIndexSeek"),
        ("concern/scan_timeouts_in_scope", "NodeIndexSeek"),
        ("concern/scan_schedules_in_scope", "NodeIndexSeek"),
        ("concern/count_due", "NodeIndexSeek"),
        ("concern/outbox_due", "NodeIndexSeek"),
    ],
)
async def test_scan_plans_seek_their_index(
    neo4j_driver: AsyncDriver, settings: Settings, key: str, index_seek: str
) -> None:
    _, summary, _ = await neo4j_driver.execute_query(
        "EXPLAIN " + queries().text(key),
        now=utc(at(0)),
        scope="a-scope",
        limit=10,
        concern_id=None,
        database_=settings.neo4j_database,
    )
    assert summary.plan is not None
    ops = [op.split("@")[0] for op in operators(summary.plan)]
    assert any(op.startswith(index_seek) for op in ops), ops
    assert not any(op.startswith(("NodeByLabelScan", "AllNodesScan")) for op in ops), ops


def db_hits(plan: dict[str, Any]) -> dict[str, int]:
    """Each operator of a profiled plan with the db hits it made."""
    found = {plan["operatorType"].split("@")[0]: int(plan.get("dbHits", 0))}
    for child in plan.get("children", []):
        found |= db_hits(child)
    return found


def weekly(next_run_at: Any) -> RaiseConcernInput:
    return RaiseConcernInput(
        type=ConcernType.SCHEDULE,
        priority=Priority.MEDIUM,
        title="每周一提醒周报",
        goal="提醒大家交周报",
        initiator=BOSS,
        trigger=ScheduleTrigger(next_run_at=next_run_at),
    )


SCANS = [
    f"concern/{scan}{suffix}"
    for scan in ("scan_due", "scan_timeouts", "scan_schedules")
    for suffix in ("", "_in_scope")
]


@pytest.mark.parametrize("key", SCANS)
async def test_the_scans_take_every_value_from_their_index(
    raise_one: Any, neo4j_driver: AsyncDriver, settings: Settings, scope: str, key: str
) -> None:
    """A due scan reads no concern node: its index holds every property it filters on and
    returns, so only the seek touches the store (at 1M concerns a scan that read
    each due node's properties cost 33x an index count of the same rows)."""
    db = settings.neo4j_database
    for minute in range(4):
        await raise_one(weekly(at(minute)) if "schedules" in key else None, now=at(minute))
    if "timeouts" in key:  # waiting for a reply past its deadline
        await neo4j_driver.execute_query(
            "MATCH (c:Concern) WHERE c.scope = $scope SET c.status = 'waiting_reply'",
            scope=scope,
            database_=db,
        )
    _, summary, _ = await neo4j_driver.execute_query(
        "PROFILE " + queries().text(key), now=utc(at(300)), scope=scope, limit=10, database_=db
    )
    assert summary.profile is not None
    hits = db_hits(summary.profile)
    seeks = [op for op in hits if op.startswith("NodeIndexSeek")]
    assert len(seeks) == 1, hits  # a seek, never a scan of the whole index
    (seek,) = seeks
    assert hits[seek] >= 4, hits
    assert {op: n for op, n in hits.items() if op != seek and n} == {}, hits


@pytest.mark.parametrize("kind", ["due", "timeouts", "schedules"])
async def test_a_scoped_scan_costs_the_same_beside_another_scopes_backlog(
    raise_one: Any, neo4j_driver: AsyncDriver, settings: Settings, scope: str, kind: str
) -> None:
    """A scheduler run limited to one scope reads that scope's due concerns only: its db hits
    are the same with 300 due concerns in another scope as with none, and it answers only its
    own (costs grow with the answer, not with every scope's backlog)."""
    db = settings.neo4j_database
    for minute in range(3):
        await raise_one(weekly(at(minute)) if kind == "schedules" else None, now=at(minute))
    if kind == "timeouts":
        await neo4j_driver.execute_query(
            "MATCH (c:Concern) WHERE c.scope = $scope SET c.status = 'waiting_reply'",
            scope=scope,
            database_=db,
        )
    mine = sorted(
        j.concern_id
        for j in await getattr(ConcernScans(neo4j_driver, db), kind)(at(300), scope=scope)
    )
    assert len(mine) == 3

    async def hits() -> int:
        _, summary, _ = await neo4j_driver.execute_query(
            "PROFILE " + queries().text(f"concern/scan_{kind}_in_scope"),
            now=utc(at(300)),
            scope=scope,
            limit=500,
            database_=db,
        )
        assert summary.profile is not None
        return total_db_hits(summary.profile)

    alone = await hits()
    other = f"{scope}-other"
    try:
        await neo4j_driver.execute_query(
            "MATCH (c:Concern) WHERE c.scope = $scope WITH c LIMIT 1 "
            "UNWIND range(1, 300) AS i CREATE (d:Concern) "
            "SET d = c {.*, scope: $other, concern_id: $other + '-' + toString(i)}",
            scope=scope,
            other=other,
            database_=db,
        )
        everyone = await getattr(ConcernScans(neo4j_driver, db), kind)(at(300), limit=10_000)
        assert len({j.concern_id for j in everyone} - set(mine)) >= 300  # the backlog is due
        assert await hits() == alone
        scoped = await getattr(ConcernScans(neo4j_driver, db), kind)(at(300), scope=scope)
        assert sorted(j.concern_id for j in scoped) == mine
    finally:
        await neo4j_driver.execute_query(
            "MATCH (c:Concern) WHERE c.scope = $other DETACH DELETE c", other=other, database_=db
        )


async def test_the_three_scans_partition_live_concerns(
    raise_one: Any, neo4j_driver: AsyncDriver, settings: Settings, scope: str
) -> None:
    db = settings.neo4j_database
    due = await raise_one(now=at(0))
    await raise_one(now=at(90))  # due later
    schedule = await raise_one(weekly(at(10)), now=at(0))
    found_due = await ConcernScans(neo4j_driver, db).due(at(30), scope=scope)
    assert [j.concern_id for j in found_due] == [due.concern_id]
    assert await ConcernScans(neo4j_driver, db).timeouts(at(30), scope=scope) == []
    (sched,) = await ConcernScans(neo4j_driver, db).schedules(at(30), scope=scope)
    assert (sched.concern_id, sched.trigger.kind.value) == (schedule.concern_id, "schedule_due")


async def test_the_scans_read_no_concern_document(
    raise_one: Any, neo4j_driver: AsyncDriver, settings: Settings, scope: str
) -> None:
    """The scans return indexed properties only: a scan costs what an index count costs,
    not a document parse per due concern."""
    db = settings.neo4j_database
    due = await raise_one(now=at(0))
    before = await ConcernScans(neo4j_driver, db).due(at(30), scope=scope)
    await neo4j_driver.execute_query(
        "MATCH (c:Concern {concern_id: $id}) SET c.doc = 'not a document'",
        id=due.concern_id,
        database_=db,
    )
    after = await ConcernScans(neo4j_driver, db).due(at(30), scope=scope)
    assert [j.job_id for j in after] == [j.job_id for j in before]
    assert [j.concern_id for j in after] == [due.concern_id]
