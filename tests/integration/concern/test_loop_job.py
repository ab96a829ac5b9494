"""The agent-loop job and the scheduler on real Neo4j and Redis (docs/rules/concerns.md)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from arq.connections import ArqRedis
from arq.worker import Retry
from neo4j import AsyncDriver

from engine.concern.scheduler import Trigger, TriggerKind, scan_due_concerns
from engine.settings import Settings
from graph.concern.outbox import Outbox
from graph.concern.repository import ConcernRepository
from jobs.concern.channel import WebhookChannel
from jobs.concern.effects import enqueue_advance
from jobs.tasks.concern_loop import advance_concern
from jobs.tasks.concern_scheduler import run_concern_scheduler
from jobs.worker import create_worker
from tests.support.concern_jobs import at
from tests.support.scripted_model import ScriptedModelServer, status
from tests.support.webhook import Webhook


@pytest.fixture
def webhook() -> Iterator[Webhook]:
    with Webhook() as hook:
        yield hook


def due_trigger(when: str) -> Trigger:
    return Trigger(kind=TriggerKind.NEXT_ACTION_DUE, event_key=when)


async def test_duplicate_triggers_run_the_loop_once(
    raise_one: Any,
    job_ctx: dict[str, Any],
    pool: ArqRedis,
    queue_name: str,
    neo4j_driver: AsyncDriver,
    settings: Settings,
) -> None:
    raised = await raise_one()
    # raising enqueued the first turn under its own id; a scan's job for the same due item
    # is enqueued once, whoever enqueues it
    [scanned] = scan_due_concerns([raised], at(30))
    trig = scanned.trigger
    first = await enqueue_advance(
        pool, queue_name, concern_id=raised.concern_id, trigger=trig, now=at(30)
    )
    second = await enqueue_advance(
        pool, queue_name, concern_id=raised.concern_id, trigger=trig, now=at(31)
    )
    assert (first, second) == (True, False)
    worker = create_worker(
        settings.model_copy(update={"queue_name": queue_name}), burst=True, crons=False
    )
    try:
        await worker.main()
    finally:
        await worker.close()
    # the raise's turn, the scan's (which finds the trigger decided), the created report
    assert (worker.jobs_complete, worker.jobs_failed) == (3, 0)
    after_worker = await ConcernRepository(neo4j_driver, settings.neo4j_database).load(
        raised.concern_id
    )
    assert after_worker.concern.revision == raised.revision + 1
    # arq may forget a job id (keep_result); the concern itself remembers the trigger
    gateway = job_ctx["gateway"]
    await advance_concern(
        job_ctx,
        concern_id=raised.concern_id,
        trigger=trig.model_dump(mode="json"),
        now=at(32).isoformat(),
    )
    assert gateway.turns == 0
    again = await ConcernRepository(neo4j_driver, settings.neo4j_database).load(raised.concern_id)
    assert again == after_worker
    sends = [
        r
        for r in await Outbox(neo4j_driver, settings.neo4j_database).of_concern(raised.concern_id)
        if r.kind == "send_message"
    ]
    assert [(r.recipient_name, r.status, r.attempts) for r in sends] == [("张三", "sent", 1)]


async def test_send_failure_stays_pending_and_a_retry_sends_it_once(
    raise_one: Any,
    job_ctx: dict[str, Any],
    webhook: Webhook,
    neo4j_driver: AsyncDriver,
    settings: Settings,
) -> None:
    db = settings.neo4j_database
    job_ctx["concern_channel"] = WebhookChannel(job_ctx["http"], webhook.url)
    raised = await raise_one()
    trig = due_trigger(raised.next_action.when.isoformat()).model_dump(mode="json")  # type: ignore[union-attr]
    with pytest.raises(Retry):
        await advance_concern(
            job_ctx, concern_id=raised.concern_id, trigger=trig, now=at(30).isoformat()
        )
    assert job_ctx["gateway"].turns == 1
    rows = await Outbox(neo4j_driver, db).of_concern(raised.concern_id)
    assert {(r.kind, r.status, r.attempts) for r in rows} == {
        ("report", "pending", 1),
        ("send_message", "pending", 1),
    }  # created + contacted report
    assert all(r.last_error and "503" in r.last_error for r in rows)
    assert webhook.accepted == []

    webhook.failing = False
    job_ctx["job_try"] = 2
    await advance_concern(
        job_ctx, concern_id=raised.concern_id, trigger=trig, now=at(31).isoformat()
    )
    await advance_concern(
        job_ctx, concern_id=raised.concern_id, trigger=trig, now=at(32).isoformat()
    )
    assert job_ctx["gateway"].turns == 1, "the retry delivered; it did not think again"
    rows = await Outbox(neo4j_driver, db).of_concern(raised.concern_id)
    assert {(r.kind, r.status, r.attempts) for r in rows} == {
        ("report", "sent", 2),
        ("send_message", "sent", 2),
    }
    keys = [a["idem"] for a in webhook.accepted]
    assert sorted(keys) == sorted(r.key for r in rows) and len(set(keys)) == len(keys)
    assert [a["recipient"]["name"] for a in webhook.accepted if a["kind"] == "send_message"] == [
        "张三"
    ]


async def test_rate_limited_model_defers_the_job_by_retry_after(
    raise_one: Any,
    job_ctx: dict[str, Any],
    neo4j_driver: AsyncDriver,
    settings: Settings,
    model_server: ScriptedModelServer,
) -> None:
    from jobs.llm.gateway import build_gateway

    raised = await raise_one()
    trig = due_trigger(raised.next_action.when.isoformat()).model_dump(mode="json")  # type: ignore[union-attr]
    model = model_server
    # the refusal comes only to a turn that carries the concern's goal and its person
    model.script(status(429, retry_after="7", grounded_in=(raised.goal, "张三")))
    job_ctx["gateway"] = build_gateway(
        settings.model_copy(update={"model_base_url": model.base_url}), http=job_ctx["http"]
    )
    with pytest.raises(Retry) as deferred:
        await advance_concern(
            job_ctx, concern_id=raised.concern_id, trigger=trig, now=at(30).isoformat()
        )
    assert model.calls == 1, "a 429 is not retried inside the gateway"
    asked = json.dumps(model.requests[0].messages, ensure_ascii=False)
    assert raised.goal in asked and "张三" in asked  # a turn over this concern was refused
    assert deferred.value.defer_score == 7000
    unchanged = await ConcernRepository(neo4j_driver, settings.neo4j_database).load(
        raised.concern_id
    )
    assert unchanged.concern == raised


async def test_two_schedulers_enqueue_each_due_item_once(
    raise_one: Any, job_ctx: dict[str, Any], pool: ArqRedis, queue_name: str, scope: str
) -> None:
    raised = [await raise_one(now=at(i)) for i in range(3)]
    await raise_one(now=at(100))  # not due yet at the scan time
    queued_by_raise = {j.decode() for j in await pool.zrange(queue_name, 0, -1)}
    other = dict(job_ctx, worker_id="second-worker")
    runs = await asyncio.gather(
        run_concern_scheduler(job_ctx, now=at(30).isoformat(), scope=scope),
        run_concern_scheduler(other, now=at(30).isoformat(), scope=scope),
    )
    assert [r["due"] for r in runs] == [3, 3]
    # each raise enqueued its first turn under its own id; the scans' jobs (at the scan's
    # moment) are enqueued once between the two schedulers
    scanned = {scan_due_concerns([c], at(30))[0].job_id for c in raised}
    assert not scanned & queued_by_raise
    assert sorted(j for r in runs for j in r["enqueued"]) == sorted(scanned)
    queued = {j.decode() for j in await pool.zrange(queue_name, 0, -1)}
    assert len([j for j in queued if j.startswith("concern:")]) == 4 + 3
    later = await run_concern_scheduler(job_ctx, now=at(31).isoformat(), scope=scope)
    assert later["enqueued"] == []  # same due times, same ids: nothing new
    sent = {k for r in runs for k in r["sent"]}
    # the created reports due by then (the 4th is stamped later), each sent by one worker
    assert len(sent) == 3 and sum(len(r["sent"]) for r in runs) == 3


async def test_a_scan_while_the_raised_turn_waits_in_the_queue_still_reports_at_its_moment(
    raise_one: Any,
    job_ctx: dict[str, Any],
    drain: Any,
    neo4j_driver: AsyncDriver,
    settings: Settings,
    scope: str,
) -> None:
    """The scheduler run at +30 min comes before any worker took the turn the raise queued
    (a busy machine): its scan must still lead to a turn at +30 that delivers the contacted
    report, due at +30 by the 30-minute gap after the created one. Under one shared job id
    the scan enqueued nothing and the owner heard nothing more."""
    raised = await raise_one()
    run = await run_concern_scheduler(job_ctx, now=at(30).isoformat(), scope=scope)
    assert run["due"] == 1
    await drain()
    rows = await Outbox(neo4j_driver, settings.neo4j_database).of_concern(raised.concern_id)
    told = sorted((r.report_kinds, r.deliver_at, r.status) for r in rows if r.kind == "report")
    assert told == [(["contacted"], at(30), "sent"), (["created"], at(0), "sent")]
    assert len(run["enqueued"]) == 1  # the scan's own turn, at +30
