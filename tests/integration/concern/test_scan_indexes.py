"""The scheduler's scans are index seeks (seed 002 §十; CONVENTIONS: every lookup has an index)."""

from __future__ import annotations

from typing import Any

import pytest
from neo4j import AsyncDriver

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
        ("concern/scan_schedules", "NodeIndexSeekByRange"),
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
        scope=None,
        limit=10,
        concern_id=None,
        database_=settings.neo4j_database,
    )
    assert summary.plan is not None
    ops = [op.split("@")[0] for op in operators(summary.plan)]
    assert any(op.startswith(index_seek) for op in ops), ops
    assert not any(op.startswith(("NodeByLabelScan", "AllNodesScan")) for op in ops), ops


async def test_the_three_scans_partition_live_concerns(
    raise_one: Any, neo4j_driver: AsyncDriver, settings: Settings, scope: str
) -> None:
    db = settings.neo4j_database
    due = await raise_one(now=at(0))
    await raise_one(now=at(90))  # due later
    schedule = await raise_one(
        RaiseConcernInput(
            type=ConcernType.SCHEDULE,
            priority=Priority.MEDIUM,
            title="每周一提醒周报",
            goal="提醒大家交周报",
            initiator=BOSS,
            trigger=ScheduleTrigger(next_run_at=at(10)),
        ),
        now=at(0),
    )
    found_due = await ConcernScans(neo4j_driver, db).due(at(30), scope=scope)
    assert [j.concern_id for j in found_due] == [due.concern_id]
    assert await ConcernScans(neo4j_driver, db).timeouts(at(30), scope=scope) == []
    (sched,) = await ConcernScans(neo4j_driver, db).schedules(at(30), scope=scope)
    assert (sched.concern_id, sched.trigger.kind.value) == (schedule.concern_id, "schedule_due")


async def test_the_scans_read_no_concern_document(
    raise_one: Any, neo4j_driver: AsyncDriver, settings: Settings, scope: str
) -> None:
    """The scans return indexed properties only: a scan costs what an index count costs,
    not a document parse per due concern (issue 14)."""
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
