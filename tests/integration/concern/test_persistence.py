"""Concerns in Neo4j: round trip, optimistic locking, transitions, agenda (docs/rules/concerns.md)."""

from __future__ import annotations

from typing import Any

import pytest
from arq.connections import ArqRedis
from neo4j import AsyncDriver

from engine.concern.advance import InboundMessage, record_inbound
from engine.concern.loop import decide
from engine.concern.loop_output import LoopOutput, LoopStep, OutboundDraft
from engine.concern.model import ConcernStatus, Direction, Priority
from engine.concern.priority import change_priority
from engine.concern.scheduler import Trigger, TriggerKind
from engine.errors import Conflict
from engine.principal import WORKER
from engine.settings import Settings
from graph.concern.agenda import AgendaStore
from graph.concern.outbox import Outbox
from graph.concern.persons import PersonStore
from graph.concern.repository import ConcernRepository
from jobs.concern.commands import advance_concern
from tests.support.concern_jobs import POLICY, at, concern_deps


def _due(_concern_id: str, when: str) -> Trigger:
    return Trigger(kind=TriggerKind.NEXT_ACTION_DUE, event_key=when)


async def _node_count(driver: AsyncDriver, db: str, scope: str, label: str) -> int:
    records, _, _ = await driver.execute_query(
        f"MATCH (n:{label} {{scope: $scope}}) RETURN count(n) AS n", scope=scope, database_=db
    )
    return int(records[0]["n"])


async def test_raised_concern_round_trips_with_people_as_separate_nodes(
    raise_one: Any, neo4j_driver: AsyncDriver, settings: Settings, scope: str
) -> None:
    db = settings.neo4j_database
    raised = await raise_one()
    stored = await ConcernRepository(neo4j_driver, db).load(raised.concern_id)
    assert stored.concern == raised and stored.scope == scope
    assert stored.concern.goal == "拿到张三的具体提测时间点"
    assert await _node_count(neo4j_driver, db, scope, "Person") == 2  # 老板 and 张三
    zhangsan = await PersonStore(neo4j_driver, db).resolve(scope, "p_zhangsan")
    assert zhangsan.display_name == "张三"
    (item,) = await PersonStore(neo4j_driver, db).concern_slice(scope, "p_zhangsan")
    assert item.concern.concern_id == raised.concern_id and item.role_in_concern == "当事人"
    agenda = await AgendaStore(neo4j_driver, db).load(scope)
    assert [(r.concern_id, r.status, r.priority) for r in agenda.concern_refs] == [
        (raised.concern_id, ConcernStatus.PENDING, Priority.HIGH)
    ]
    (created,) = await Outbox(neo4j_driver, db).of_concern(raised.concern_id)
    assert (created.kind, created.status, created.text) == (
        "report",
        "pending",
        "好的，我来联系张三，有进展及时同步给你。",
    )
    assert created.recipient_person_id == "p_owner"


async def test_timeline_and_conversation_log_read_back_in_order(
    raise_one: Any,
    neo4j_driver: AsyncDriver,
    settings: Settings,
    pool: ArqRedis,
    queue_name: str,
    scope: str,
) -> None:
    db = settings.neo4j_database
    raised = await raise_one()
    when = raised.next_action.when.isoformat()  # type: ignore[union-attr]
    out = LoopOutput(
        goal_met=False,
        step=LoopStep.FOLLOW_UP,
        messages=[OutboundDraft(person_id="p_zhangsan", text="提测什么时候能给？")],
    )
    decision = decide(raised, _due(raised.concern_id, when), out, at(1), POLICY)
    await ConcernRepository(neo4j_driver, db).save_decision(
        decision, scope=scope, expected_revision=raised.revision, now=at(1)
    )
    for minute, text in ((5, "我看看"), (3, "在开会")):  # the later-stamped one arrives first
        message = InboundMessage(person_id="p_zhangsan", text=text, ts=at(minute), channel="feishu")
        await advance_concern(
            concern_deps(neo4j_driver, settings, pool, queue_name),
            WORKER,
            raised.concern_id,
            message,
            now=at(6),
        )
    stored = (await ConcernRepository(neo4j_driver, db).load(raised.concern_id)).concern
    assert [(e.direction, e.text) for e in stored.conversation_log] == [
        (Direction.OUTBOUND, "提测什么时候能给？"),
        (Direction.INBOUND, "在开会"),
        (Direction.INBOUND, "我看看"),
    ]
    assert [e.type.value for e in stored.timeline] == [
        "discovered",
        "report",
        "status",
        "action_send",
        "status",
        "report",
        "reply_received",
        "status",
        "reply_received",
    ]
    assert stored.timeline == sorted(stored.timeline, key=lambda e: e.ts)


async def test_stale_revision_is_conflict_and_writes_nothing(
    raise_one: Any, neo4j_driver: AsyncDriver, settings: Settings, scope: str
) -> None:
    db = settings.neo4j_database
    raised = await raise_one()
    when = raised.next_action.when.isoformat()  # type: ignore[union-attr]
    first = decide(
        raised,
        _due(raised.concern_id, when),
        LoopOutput(
            goal_met=False,
            step=LoopStep.FOLLOW_UP,
            messages=[OutboundDraft(person_id="p_zhangsan", text="第一版")],
        ),
        at(1),
        POLICY,
    )
    second = decide(
        raised,
        _due(raised.concern_id, when),
        LoopOutput(
            goal_met=False,
            step=LoopStep.FOLLOW_UP,
            messages=[OutboundDraft(person_id="p_zhangsan", text="第二版")],
        ),
        at(2),
        POLICY,
    )
    assert first.effects[0].key == second.effects[0].key  # same trigger, same keys
    await ConcernRepository(neo4j_driver, db).save_decision(
        first, scope=scope, expected_revision=raised.revision, now=at(1)
    )
    before = await ConcernRepository(neo4j_driver, db).load(raised.concern_id)
    rows_before = await Outbox(neo4j_driver, db).of_concern(raised.concern_id)
    with pytest.raises(Conflict):
        await ConcernRepository(neo4j_driver, db).save_decision(
            second, scope=scope, expected_revision=raised.revision, now=at(2)
        )
    assert await ConcernRepository(neo4j_driver, db).load(raised.concern_id) == before
    assert await Outbox(neo4j_driver, db).of_concern(raised.concern_id) == rows_before
    assert "第二版" not in {r.text for r in rows_before}


async def test_disallowed_transition_is_conflict_and_writes_nothing(
    raise_one: Any,
    neo4j_driver: AsyncDriver,
    settings: Settings,
    scope: str,
    pool: ArqRedis,
    queue_name: str,
) -> None:
    db = settings.neo4j_database
    raised = await raise_one()
    when = raised.next_action.when.isoformat()  # type: ignore[union-attr]
    resolved = decide(
        raised,
        _due(raised.concern_id, when),
        LoopOutput(
            goal_met=True, step=LoopStep.RESOLVE, conclusion="周五提测", key_information="周五"
        ),
        at(10),
        POLICY,
    )
    await ConcernRepository(neo4j_driver, db).save_decision(
        resolved, scope=scope, expected_revision=raised.revision, now=at(10)
    )
    before = await ConcernRepository(neo4j_driver, db).load(raised.concern_id)
    assert before.concern.status == ConcernStatus.RESOLVED
    late = InboundMessage(person_id="p_zhangsan", text="改成下周一", ts=at(20), channel="feishu")
    with pytest.raises(Conflict):  # resolved -> in_progress is not a transition
        await advance_concern(
            concern_deps(neo4j_driver, settings, pool, queue_name),
            WORKER,
            raised.concern_id,
            late,
            now=at(20),
        )
    with pytest.raises(Conflict):
        record_inbound(before.concern, late, at(20))
    assert await ConcernRepository(neo4j_driver, db).load(raised.concern_id) == before
    queued = [j.decode() for j in await pool.zrange(queue_name, 0, -1)]
    # the delivery of the `created` report and the first turn raising enqueued: no loop job
    # for the refused reply
    assert sorted(j.split(":")[0] for j in queued) == ["concern", "concern-deliver"]
    assert not any(":reply:" in j for j in queued)


async def test_agenda_registers_updates_priority_and_moves_closed_concerns_to_decisions(
    raise_one: Any, neo4j_driver: AsyncDriver, settings: Settings, scope: str
) -> None:
    db = settings.neo4j_database
    raised = await raise_one()
    bumped = change_priority(
        raised, Priority.CRITICAL, now=at(1), job_id="priority:1", policy=POLICY
    )
    await ConcernRepository(neo4j_driver, db).save_decision(
        bumped, scope=scope, expected_revision=raised.revision, now=at(1)
    )
    agenda = await AgendaStore(neo4j_driver, db).load(scope)
    assert [(r.concern_id, r.priority) for r in agenda.concern_refs] == [
        (raised.concern_id, Priority.CRITICAL)
    ]
    c = bumped.new_concern
    done = decide(
        c,
        _due(c.concern_id, c.next_action.when.isoformat()),  # type: ignore[union-attr]
        LoopOutput(goal_met=True, step=LoopStep.RESOLVE, conclusion="周五提测"),
        at(5),
        POLICY,
    )
    await ConcernRepository(neo4j_driver, db).save_decision(
        done, scope=scope, expected_revision=c.revision, now=at(5)
    )
    agenda = await AgendaStore(neo4j_driver, db).load(scope)
    assert agenda.concern_refs == ()
    assert [(d.concern_id, d.outcome) for d in agenda.recent_decisions] == [
        (raised.concern_id, "resolved")
    ]
    (backflow,) = [
        r
        for r in await Outbox(neo4j_driver, db).of_concern(raised.concern_id)
        if r.kind == "backflow"
    ]
    assert backflow.text.splitlines()[:2] == ["[回流] 联系张三确认提测时间", "结果：周五提测"]
