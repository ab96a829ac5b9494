"""A signal's concern ended: its outcome is written once, whatever happens to the job (issue
28 item 3). Real Neo4j: a retried job, two workers at once, and a concern that escalated
before it resolved each leave exactly one outcome in the story graph."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from neo4j import AsyncDriver

from engine.concern.model import (
    Concern,
    ConcernStatus,
)
from engine.concern.policy import ConcernPolicy
from engine.principal import WORKER
from engine.settings import Settings
from engine.signal.model import SignalStatus
from engine.signal.stored import Signal
from engine.story.models import Actor
from graph.signal.bindings import PersonBindings
from jobs.concern.answers import settle_signal_answer
from jobs.deps import Deps
from jobs.review.common import runs_of
from jobs.review.conversation import ReviewWaits
from tests.support.answer_review import promised
from tests.support.signal_answers import ended_concern

SH = ZoneInfo("Asia/Shanghai")
THURSDAY = datetime(2035, 3, 22, 17, 0, tzinfo=SH)


def ended(signal: Signal, status: ConcernStatus, *answers: str) -> Concern:
    return ended_concern(signal, *answers, answered_at=THURSDAY, status=status)


async def settle(deps: Deps, concern: Concern, scope: str, at: datetime):  # type: ignore[no-untyped-def]
    policy = ConcernPolicy.from_settings(deps.settings)
    return await settle_signal_answer(deps, WORKER, concern, scope, policy=policy, now=at)


async def outcome_rows(deps: Deps, scope: str) -> tuple[list[str], list[str], list[str]]:
    records, _, _ = await deps.driver.execute_query(
        """MATCH (v:SignalVersion {scope: $scope}) WITH collect(v.status) AS statuses
           OPTIONAL MATCH (e:EventVersion {scope: $scope})
           WITH statuses, collect(e.title) AS titles
           OPTIONAL MATCH (sv:SourceVersion {scope: $scope}) WHERE sv.source_id <> 'chat-1'
           RETURN statuses, titles, collect(sv.version) AS versions""",
        scope=scope,
        database_=deps.database,
    )
    r = records[0]
    return sorted(r["statuses"]), r["titles"], r["versions"]


def deps_of(driver: AsyncDriver, settings: Settings) -> Deps:
    return Deps(settings=settings, driver=driver, pool=None, worker_id="test")


async def test_a_retried_end_writes_the_outcome_once(
    neo4j_driver: AsyncDriver, settings: Settings, scope: str
) -> None:
    deps = deps_of(neo4j_driver, settings)
    signal = await promised(deps, scope)
    concern = ended(signal, ConcernStatus.RESOLVED, "嗯", "已经提测了")
    plan, _ = await settle(deps, concern, scope, THURSDAY + timedelta(minutes=5))
    assert plan is not None and plan.status is SignalStatus.KEPT
    again, _ = await settle(deps, concern, scope, THURSDAY + timedelta(minutes=6))
    assert again is None
    assert await outcome_rows(deps, scope) == (["kept", "open"], ["前端部分已提测"], ["m2"])


async def test_two_workers_ending_the_same_concern_write_one_outcome(
    neo4j_driver: AsyncDriver, settings: Settings, scope: str
) -> None:
    deps = deps_of(neo4j_driver, settings)
    signal = await promised(deps, scope)
    concern = ended(signal, ConcernStatus.RESOLVED, "已经提测了")
    at = THURSDAY + timedelta(minutes=5)
    results = await asyncio.gather(
        *(settle(deps, concern, scope, at) for _ in range(3)), return_exceptions=True
    )
    # one holds the one-review lease and writes; the others find it written, or wait for
    # the lease (their answer's job settles again once it is free, and finds it written)
    written = [r for r in results if isinstance(r, tuple) and r[0] is not None]
    assert len(written) == 1, results
    assert all(isinstance(r, (tuple, ReviewWaits)) for r in results), results
    assert (await settle(deps, concern, scope, at))[0] is None
    assert await outcome_rows(deps, scope) == (["kept", "open"], ["前端部分已提测"], ["m1"])


async def test_an_escalated_concern_leaves_the_signal_unresolved_until_it_is_answered(
    neo4j_driver: AsyncDriver, settings: Settings, scope: str
) -> None:
    deps = deps_of(neo4j_driver, settings)
    signal = await promised(deps, scope)
    escalated = ended(signal, ConcernStatus.ESCALATED)
    plan, _ = await settle(deps, escalated, scope, THURSDAY)
    assert plan is not None and plan.status is SignalStatus.UNRESOLVED
    assert (await settle(deps, escalated, scope, THURSDAY))[0] is None  # once
    assert await outcome_rows(deps, scope) == (["open", "unresolved"], [], [])
    # the owner re-engaged the concern and 李四 answered after all: the answer still lands
    resolved = ended(signal, ConcernStatus.RESOLVED, "昨天就提测了")
    plan, _ = await settle(deps, resolved, scope, THURSDAY + timedelta(hours=1))
    assert plan is not None and plan.status is SignalStatus.KEPT and plan.signal.seq == 3
    [event] = plan.events
    assert event.at == datetime(2035, 3, 21, 18, 0, tzinfo=SH)  # 昨天, as the person says
    statuses, titles, _ = await outcome_rows(deps, scope)
    assert statuses == ["kept", "open", "unresolved"] and titles == ["前端部分已提测"]


async def test_a_moved_commitment_moves_the_same_signals_due_once(
    neo4j_driver: AsyncDriver, settings: Settings, scope: str
) -> None:
    deps = deps_of(neo4j_driver, settings)
    signal = await promised(deps, scope)
    concern = ended(signal, ConcernStatus.WAITING_REPLY, "推迟到周五")  # the loop goes on
    plan, new = await settle(deps, concern, scope, THURSDAY + timedelta(minutes=5))
    assert plan is not None and plan.status is SignalStatus.OPEN and new == []
    assert plan.signal.id == signal.id and plan.signal.via_concern == concern.concern_id
    assert plan.signal.due == datetime(2035, 3, 23, 18, 0, tzinfo=SH)
    assert plan.signal.by.kind.value == "run"
    assert (await settle(deps, concern, scope, THURSDAY + timedelta(minutes=6)))[0] is None
    statuses, titles, _ = await outcome_rows(deps, scope)
    assert statuses == ["open", "open"] and titles == ["前端部分提测推迟到周五"]


async def test_an_answer_dated_in_the_past_is_recorded_when_it_arrives(
    neo4j_driver: AsyncDriver, settings: Settings, scope: str
) -> None:
    """What the graph knew at an earlier moment never changes: a reply dated yesterday
    (`advanceConcern(at:)`) brings its event at the time the person says, recorded now."""
    deps = deps_of(neo4j_driver, settings)
    signal = await promised(deps, scope)
    arrived = datetime.now(SH)
    dated = arrived - timedelta(days=1)
    concern = ended_concern(signal, "已经提测了", answered_at=dated)
    plan, _ = await settle(deps, concern, scope, dated)
    assert plan is not None and plan.status is SignalStatus.KEPT
    [event] = plan.events
    assert event.at < arrived  # when the person says it happened, not when it arrived
    assert event.recorded_at >= arrived and plan.signal.recorded_at >= arrived


async def test_the_loop_writes_story_objects_only_through_the_review_of_its_conversation(
    neo4j_driver: AsyncDriver, settings: Settings, scope: str
) -> None:
    """Every story object written for the concern (events, suggestion versions, their
    references) is the review run's: `by` the run, under the run's result, and the run's own
    record (completed, its result, the conversation's lines it read) shows it."""
    deps = deps_of(neo4j_driver, settings)
    signal = await promised(deps, scope)
    concern = ended(signal, ConcernStatus.RESOLVED, "嗯", "已经提测了")
    plan, _ = await settle(deps, concern, scope, THURSDAY + timedelta(minutes=5))
    assert plan is not None and plan.run_id == f"sup-{concern.concern_id}-m2"
    records, _, _ = await deps.driver.execute_query(
        """MATCH (v {scope: $scope})
           WHERE (v:EventVersion OR v:SuggestionVersion OR v:RelationVersion OR v:EntityVersion)
             AND v.via_concern = $cid
           OPTIONAL MATCH (ref:Reference {scope: $scope, owner_id: v.id})
           RETURN labels(v) AS labels, v.by AS by, v.via_result AS result,
                  collect(ref.result_id) AS cited""",
        scope=scope,
        cid=concern.concern_id,
        database_=deps.database,
    )
    assert records, "the answer wrote nothing"
    for r in records:
        assert r["by"] == Actor.run(plan.run_id).label(), r
        assert r["result"] == plan.result_id and set(r["cited"]) <= {plan.result_id}, r
    run = await runs_of(deps).get(plan.run_id)
    assert run.run.status.value == "completed" and run.run.result_id == plan.result_id
    assert [s.source_id for s in run.run.covered()] == [f"concern-{concern.concern_id}"]


async def test_the_conversation_binds_who_answered_and_not_the_loops_voice(
    neo4j_driver: AsyncDriver, settings: Settings, scope: str
) -> None:
    """The concern's conversation binds its speakers as an app's source does: 李四, who
    answered on the concern's channel, is p_lisi there; the loop's own lines ("跟进→李四")
    are nobody's."""
    deps = deps_of(neo4j_driver, settings)
    signal = await promised(deps, scope)
    asked = ("李四，前端部分周四提测了吗？", THURSDAY - timedelta(minutes=10))
    concern = ended_concern(signal, "已经提测了", answered_at=THURSDAY, asked=asked)
    person = concern.people[0].model_copy(update={"last_channel": "telegram"})
    log = [e.model_copy(update={"channel": "telegram"}) for e in concern.conversation_log]
    concern = concern.model_copy(update={"people": [person], "conversation_log": log})
    plan, _ = await settle(deps, concern, scope, THURSDAY + timedelta(minutes=5))
    assert plan is not None
    page = await PersonBindings(deps.driver, deps.database).page(
        scope, as_of=THURSDAY + timedelta(minutes=6), first=50
    )
    bound = [(b.source_id, b.speaker, b.person_id, b.channel, b.by.label()) for b in page.items]
    assert bound == [
        (
            f"concern-{concern.concern_id}",
            "李四",
            "p_lisi",
            "telegram",
            Actor.run(f"concern:{concern.concern_id}").label(),
        )
    ]
