"""The review of a concern's conversation is a review like any other: it takes the one-review
lease (docs/rules/reviews.md: one review at a time in a deployment). A real arq worker on
Redis, real Neo4j, the default offline model: while an ordinary review of the scope holds the
lease (executed in place by another live worker), 李四's "已经提测了" is read by the turn and
the concern resolves, but nothing is written into the story graph; once that review has
finished and given the lease back, the answer's own job writes the event once."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import replace
from datetime import timedelta
from typing import Any

from arq.connections import ArqRedis
from arq.jobs import Job, JobStatus
from neo4j import AsyncDriver

from engine.concern.advance import InboundMessage
from engine.concern.model import ConcernStatus
from engine.principal import WORKER
from engine.review.lifecycle import RunStatus
from engine.review.types import Scope
from engine.settings import Settings
from graph.concern.repository import ConcernRepository
from jobs.concern.commands import advance_concern
from jobs.concern.effects import answer_job_id
from jobs.liveness import alive_key, keep_alive
from jobs.llm.gateway import OfflineModelGateway
from jobs.review.common import lease_of, runs_of
from jobs.review.runs import Opened, execute, open_run
from tests.support.answer_review import (
    ask_when_due,
    events_of,
    follow_up,
    promised,
    signal_versions,
)
from tests.support.concern_jobs import T0, concern_deps
from tests.support.polling import until_async


async def test_a_replys_review_waits_for_an_ordinary_review_and_then_writes_once(
    neo4j_driver: AsyncDriver,
    settings: Settings,
    pool: ArqRedis,
    queue_name: str,
    scope: str,
    job_ctx: dict[str, Any],
    drain: Any,
) -> None:
    deps = concern_deps(neo4j_driver, settings, pool, queue_name)
    signal = await promised(deps, scope)
    cid = await follow_up(deps, scope, signal)
    _, sent_at = await ask_when_due(deps, job_ctx, drain, scope, cid)

    # an ordinary review of the scope, executed in place by another live worker, holds the lease
    other = replace(deps, worker_id="another-worker")
    alive = asyncio.create_task(keep_alive(pool, alive_key(queue_name, other.worker_id)))
    window = (T0 - timedelta(days=60), T0 - timedelta(days=59))  # nothing to read: no writes
    held = await open_run(other, Scope.projects(scope), interval=window, enqueue=False)
    assert isinstance(held, Opened)

    answered_at = sent_at + timedelta(minutes=20)
    message = InboundMessage(
        person_id="p_lisi", text="已经提测了", ts=answered_at, channel="feishu", message_id="ls@20"
    )
    await advance_concern(deps, WORKER, cid, message, now=answered_at)
    worker = asyncio.create_task(drain())  # burst: until the queue, deferred jobs too, is empty
    try:
        concerns = ConcernRepository(neo4j_driver, settings.neo4j_database)
        await until_async(
            lambda: concerns.load(cid),
            lambda s: s.concern.status is ConcernStatus.RESOLVED,
            "the turn read the answer",
        )
        line = len((await concerns.load(cid)).concern.conversation_log)
        waiting = Job(answer_job_id(cid, line), pool, _queue_name=queue_name)

        async def answer() -> tuple[JobStatus, list[dict[str, Any]]]:
            return await waiting.status(), await events_of(deps, scope)

        status, written = await until_async(
            answer,
            lambda got: got[0] is JobStatus.deferred or got[1],
            "the answer waits for the lease, or is written",
        )
        # while the other review holds the lease, the answer's review has written nothing
        assert written == [], "written while another review held the lease"
        assert status is JobStatus.deferred
        assert await signal_versions(deps, scope) == [(1, "open")]
        assert (await lease_of(deps).current()).run_id == held.run.run_id  # type: ignore[union-attr]

        # the ordinary review runs to its end and gives the lease back
        done = await execute(
            other,
            WORKER,
            held.run.run_id,
            held.owner,
            held.token,
            gateway=OfflineModelGateway(),
        )
        assert done == RunStatus.COMPLETED.value
        await worker
    finally:
        for task in (worker, alive):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    # then the answer is written, once, by the review of the conversation
    run_id = f"sup-{cid}-m{line}"
    [event] = await events_of(deps, scope)
    assert (event["title"], event["by"]) == ("前端部分已提测", f"run:{run_id}")
    assert event["refs"] == [[f"concern-{cid}", f"lines:{line}-{line}"]]
    assert await signal_versions(deps, scope) == [(1, "open"), (2, "kept")]
    assert (await runs_of(deps).get(run_id)).run.status is RunStatus.COMPLETED
    assert await lease_of(deps).current() is None
