"""A signal's concern ended: its outcome is written once, whatever happens to the job
(docs/rules/loop.md#from-an-answer-back-to-the-graph-one-way-in). Real Neo4j: a retried job, two workers at once, and a concern that escalated
before it resolved each leave exactly one outcome in the story graph."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from neo4j import AsyncDriver

from engine.clock import utcnow
from engine.concern.model import (
    Concern,
    ConcernStatus,
)
from engine.concern.policy import ConcernPolicy
from engine.principal import OPEN_PRINCIPAL, WORKER, Principal
from engine.settings import Settings
from engine.signal.derive import from_difference
from engine.signal.model import Passage, SignalStatus
from engine.signal.stored import Signal
from engine.story.corrections import RelationAction
from engine.story.models import Actor
from graph.signal.bindings import PersonBindings
from jobs.concern.answers import settle_signal_answer
from jobs.deps import Deps
from jobs.review.common import runs_of
from jobs.review.conversation import ReviewWaits
from jobs.signal.record import signal_store
from jobs.story import writes
from tests.support.answer_review import promised
from tests.support.signal_answers import ended_concern
from tests.support.story import cite, entity, relation, source

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


def editor(scope: str) -> Principal:
    return Principal("wang", frozenset({scope}), frozenset({"editor"}))


async def pending_difference(deps: Deps, scope: str) -> tuple[Signal, str, str]:
    """张三 负责 支付模块, confirmed by a person; a later result says 李四 (a pending
    difference); its signal, as a review records it. (signal, suggestion id, relation id)"""
    await writes.upsert_source(
        deps, OPEN_PRINCIPAL, source(scope, text="老板：支付模块由张三负责").model_dump()
    )
    await writes.upsert_source(
        deps,
        OPEN_PRINCIPAL,
        source(scope, "conv-2", text="王五：支付模块改由李四负责").model_dump(),
    )
    people = [
        entity("zs", "张三", kind="person", status="main"),
        entity("pay", "支付模块", kind="project", status="main"),
    ]
    own = relation("own", "zs", "pay", "负责", references=[cite(locator="lines:1-1")])
    first = {"scope": scope, "key": "r1", "entities": people, "relations": [own]}
    await writes.publish_result(deps, OPEN_PRINCIPAL, first)
    ids = await named(deps, scope)
    await writes.correct_relation(deps, editor(scope), RelationAction.CONFIRM, scope, ids["负责"])
    known = [
        {"ref": "zs", "name": "张三", "id": ids["张三"]},
        {"ref": "pay", "name": "支付模块", "id": ids["支付模块"]},
    ]
    against = own | {
        "stance": "contradicts",
        "reason": "支付模块改由李四负责",
        "references": [cite("conv-2", locator="lines:1-1")],
    }
    second = {"scope": scope, "key": "r2", "entities": known, "relations": [against]}
    await writes.publish_result(deps, OPEN_PRINCIPAL, second)
    records, _, _ = await deps.driver.execute_query(
        "MATCH (v:SuggestionVersion {scope: $s}) RETURN v.id AS id",
        s=scope,
        database_=deps.database,
    )
    [suggestion] = {r["id"] for r in records}
    draft = from_difference(
        target_kind="relation",
        target_id=ids["负责"],
        field="负责人",
        confirmed_value="张三",
        proposed_value="李四",
        text="支付模块 负责人：张三 → 李四",
        suggestion_id=suggestion,
        passage=Passage(source_id="conv-2", source_version="v1", locator="lines:1-1"),
        said_at=None,
    )
    store = signal_store(deps)

    async def work(tx):  # type: ignore[no-untyped-def]
        return await store.record_in(
            tx, [draft], scope=scope, run_id="run-2", result_id="res-2", now=utcnow()
        )

    [signal] = await store.write(work)
    return signal, suggestion, ids["负责"]


async def named(deps: Deps, scope: str) -> dict[str, str]:
    records, _, _ = await deps.driver.execute_query(
        "MATCH (v:EntityVersion {scope: $s}) RETURN v.name AS name, v.id AS id "
        "UNION MATCH (v:RelationVersion {scope: $s}) RETURN v.type AS name, v.id AS id",
        s=scope,
        database_=deps.database,
    )
    return {r["name"]: r["id"] for r in records}


async def test_a_person_accepts_after_an_answer_recorded_on_a_clock_moved_ahead(
    neo4j_driver: AsyncDriver, settings: Settings, scope: str
) -> None:
    """The scheduler's clock moved ahead (THURSDAY, years away) records 张三's answer at that
    moment, as evidence on the pending difference; an editor accepting it now, on the wall
    clock, is not refused for the machine's clock: the acceptance is recorded just after the
    answer, by that user, and before it the confirmed 张三 still stands."""
    deps = deps_of(neo4j_driver, settings)  # the wall clock: the API's
    signal, suggestion, rel = await pending_difference(deps, scope)
    answer = "对，已经交给李四了"
    concern = ended_concern(
        signal,
        answer,
        answered_at=THURSDAY,
        status=ConcernStatus.RESOLVED,  # a value chosen: the loop resolves the concern
        person=("p_zs", "张三"),
        goal="确认负责人是张三还是李四",  # the difference's goal (engine.signal.policy.goal_of)
    )
    plan, _ = await settle(deps, concern, scope, THURSDAY + timedelta(minutes=5))
    assert plan is not None and plan.suggestion is not None  # the answer as quoted evidence
    evidence_at = plan.suggestion.recorded_at
    assert evidence_at > utcnow()  # recorded at the moved clock's moment

    accepted = await writes.resolve_suggestion(deps, editor(scope), "accept", scope, suggestion)
    assert accepted.status.value == "accepted" and accepted.by == Actor.user("wang")
    assert accepted.recorded_at > evidence_at  # after the answer, never before it
    # the suggestion's history keeps the answer; the relation moves by the user, at that moment
    assert await versions(deps, "SuggestionVersion", suggestion) == [
        ("pending", plan.suggestion.by.label(), evidence_at),
        ("accepted", "user:wang", accepted.recorded_at),
    ]
    [*_, before, after] = await versions(deps, "RelationVersion", rel)
    assert before[:2] == ("confirmed", "user:wang")  # the person's word stood until now
    assert after[1:] == ("user:wang", accepted.recorded_at)


async def versions(deps: Deps, label: str, object_id: str) -> list[tuple[str, str, datetime]]:
    """(status or confirmation, by, recorded at) of an object's versions from the second on."""
    records, _, _ = await deps.driver.execute_query(
        f"MATCH (v:{label} {{id: $id}}) WHERE v.seq > 1 RETURN coalesce(v.status,"
        " v.confirmation) AS state, v.by AS by, v.recorded_at AS at ORDER BY v.seq",
        id=object_id,
        database_=deps.database,
    )
    return [(r["state"], r["by"], r["at"].to_native()) for r in records]
