"""Fault injection on the real services: the worker is SIGKILLed at random
moments while concern turns, outbox sends, watch checks, heartbeat reports and review
batches are in flight, and Redis is restarted with jobs queued; afterwards nothing is lost
and nothing is doubled.

One API and a succession of workers on the shared test Neo4j and an OWN redis-server (free
port, AOF on, so restarting it never touches the shared one), the default offline model, and
a webhook receiver on loopback that answers slowly (so kills land mid-send too) and logs every
POST by its Idempotency-Key. Each round asks for one piece of every kind of work, waits a
random moment and kills the worker; a fresh worker starts at once. Then the last worker is
left to finish, and:

The audit counts what the test STARTED (its tickets), not what it finds:
- every concern raised told its owner once that it was raised (`created`) — unless the
  daily report cap withheld it, which its timeline then names while the owner has had the
  cap's worth of reports, never more (20 concerns raise 40 created and contacted reports
  for one owner on one day: the cap of 20 withholds half) — and asked both people; every outbox row is `sent` and reached the receiver; a message is never sent under
  two keys (same concern, person, kind and text): `duplicated`; a POST repeated under ONE
  key (a kill between the POST and its bookkeeping) is a re-post the receiver drops by that
  key (printed);
- every watch check requested has exactly one watch run, completed or failed;
- every heartbeat report started has exactly one heartbeat run, in a final state; every
  supervision review started completes, or is failed and completes on continueReview (or is
  refused continuation because its sources changed since); no entity name or event is
  stored twice, no result belongs to two runs;
- every job a kill interrupted (its arq in-progress key outlived the killed worker) ran
  again to its end on a later worker: `redelivered` equals the jobs interrupted.

`make test` runs CHAOS_KILLS=4 with the fixed seed `DEFAULT_SEED` (about two minutes);
`make chaos` runs CHAOS_KILLS=20 with a random seed and restarts Neo4j mid-review as well
(CHAOS_NEO4J=1), printing seed, kills, restarts, jobs, lost and duplicated. Either replays a
run with CHAOS_SEED=<seed>. The audit's judging parts are tests/support/chaos_audit.py, held
to known cases by tests/unit/platform/test_chaos_audit.py.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from functools import partial

import httpx
import pytest
from arq.constants import in_progress_key_prefix, job_key_prefix
from arq.jobs import Job, JobStatus, deserialize_job
from neo4j import AsyncDriver
from redis.asyncio import Redis

from engine.review.pool import DEFAULT_SLOTS
from engine.settings import PROJECT_ROOT, Settings
from jobs.queue import open_pool
from jobs.review.pool import ReviewPool
from jobs.serialization import deserialize
from jobs.worker import CRON_JOBS
from local.redis_server import LocalRedis
from tests.support.chaos_audit import (
    BASE,
    RAISE,
    RUN_CHECK,
    RUN_PLAN,
    SCHEDULER,
    SETTLE_S,
    START_REVIEW,
    T0,
    UPSERT,
    Tally,
    Tickets,
    attempt,
    audit,
    chat,
    gql,
    ran_again,
    settle,
    wait_until,
)
from tests.support.concern_api import register_people
from tests.support.polling import reached_async, until_async
from tests.support.processes import (
    Server,
    free_port,
    own_redis,
    process_env,
    spawn,
    start_worker,
    stop,
    wait_http,
)
from tests.support.webhook import Webhook

KILLS = int(os.environ.get("CHAOS_KILLS", "4"))
RESTART_NEO4J = os.environ.get("CHAOS_NEO4J") == "1"
DEFAULT_SEED = 20261207  # `make test`: one fixed run; `make chaos` passes CHAOS_SEED=random
_seed = os.environ.get("CHAOS_SEED", str(DEFAULT_SEED))
SEED = random.randrange(1 << 30) if _seed == "random" else int(_seed)


@pytest.fixture
def receiver() -> Iterator[Webhook]:
    """The people's side of the concern webhook: every POST logged, answered slowly."""
    with Webhook(failing=False, delay_s=0.3) as hook:
        yield hook


@pytest.fixture(name="own_redis")
def own_redis_fixture(services: Settings) -> Iterator[tuple[Settings, LocalRedis]]:
    with own_redis(services, "chaos") as pair:
        yield pair


CRONS = {job.name for job in CRON_JOBS}


async def jobs_in_progress(redis: Redis) -> list[str]:
    """Job ids whose arq in-progress key exists (after a SIGKILL: the jobs it interrupted),
    the crons' ticks left out: a tick cut short is not run again but superseded by the next
    one (the first chaos runs found every worker's start-up heartbeat_tick among them)."""
    found = []
    async for key in redis.scan_iter(match=f"{in_progress_key_prefix}*"):
        job_id = key.decode().removeprefix(in_progress_key_prefix)
        data = await redis.get(job_key_prefix + job_id)
        function = (
            deserialize_job(data, deserializer=deserialize).function
            if data is not None
            else job_id.split(":", 1)[0]
        )
        if function not in CRONS:
            found.append(job_id)
    return found


async def api_sees_neo4j(api: Server) -> None:
    """Poll the API's health until it reaches Neo4j again after a restart (a request that
    times out on a cold server is one more poll)."""

    def healthy() -> bool:
        try:
            body = api.graphql("{ health { neo4j } }").json()
        except httpx.TimeoutException:
            return False
        return bool((body.get("data") or {}).get("health", {}).get("neo4j"))

    await until_async(lambda: asyncio.to_thread(healthy), what="the API reaching Neo4j", within=180)


def neo4j_restart(services: Settings) -> None:
    """The test's own Neo4j (the one on `services`' ports, never another's), stopped and
    started again with the CLI (make chaos only)."""
    assert services.manages_neo4j, "CHAOS_NEO4J restarts only a Neo4j the tests started"
    cli = [sys.executable, "-m", "api.cli", "neo4j"]
    env = dict(
        os.environ,
        NEO4J_BOLT_PORT=str(services.neo4j_bolt_port),
        NEO4J_HTTP_PORT=str(services.neo4j_http_port),
    )
    for step in ("stop", "start"):
        subprocess.run([*cli, step], cwd=PROJECT_ROOT, env=env, check=True, capture_output=True)


@pytest.mark.timeout(600 + 30 * KILLS)
async def test_killed_workers_and_a_redis_restart_lose_and_double_nothing(
    services: Settings,
    own_redis: tuple[Settings, LocalRedis],
    receiver: Webhook,
    neo4j_driver: AsyncDriver,
    scope: str,
) -> None:
    settings, redis_server = own_redis
    rng = random.Random(SEED)
    tally = Tally(seed=SEED)
    print(f"\nchaos seed={SEED} (replay with CHAOS_SEED={SEED})")
    port = free_port()
    env = process_env(settings, MODEL_BASE_URL="", CONCERN_WEBHOOK_URL=receiver.url)
    api_proc = spawn(["serve"], dict(env, API_PORT=str(port)))
    api = Server(f"http://127.0.0.1:{port}", api_proc, env)
    worker = None
    queue = Redis.from_url(settings.effective_redis_url)
    try:
        wait_http(api.url, api_proc)
        worker = start_worker(settings, env)
        gql(api, "mutation { setHeartbeatEnabled(enabled: true) { heartbeatEnabled } }")
        gql(
            api,
            UPSERT,
            i={
                "scope": scope,
                "id": "n1",
                "kind": "NOTE",
                "version": "r1",
                "text": "每周检查发布页。",
            },
        )
        gql(api, UPSERT, i={"scope": scope, "id": "chat", "kind": "CONVERSATION",
                            "version": "v0", "text": chat(4)})  # fmt: skip
        watch_id = gql(
            api,
            "mutation($i: CreateWatchInput!) { createWatch(input: $i) { id } }",
            i={"scope": scope, "sessionId": "chaos", "title": "发布检查",
               "bindings": [{"kind": "note", "noteId": "n1", "title": "笔记"}]},
        )["createWatch"]["id"]  # fmt: skip
        plan = gql(
            api,
            "mutation($p: PlanInput!) { savePlan(plan: $p) { configId } }",
            p={"name": "chaos", "scope": {"projectIds": [scope]}, "everySeconds": 86400.0,
               "anchor": (BASE + timedelta(days=30)).isoformat(), "windowSeconds": 86400.0},
        )["savePlan"]["configId"]  # fmt: skip

        tickets = Tickets()
        for i in range(KILLS):
            # one piece of every kind of work
            ask = {
                "scope": scope,
                "at": (T0 + timedelta(minutes=i)).isoformat(),
                "type": "DELEGATION",
                "priority": "HIGH",
                "title": f"问提测时间 {i}",
                "goal": f"拿到张三和李四的提测时间 {i}",
                "initiator": {"name": "老板", "channel": "telegram", "personId": "p_owner"},
                "people": [
                    {
                        "personId": "p_zhangsan",
                        "displayName": "张三",
                        "lastChannel": "feishu",
                    },
                    {"personId": "p_lisi", "displayName": "李四", "lastChannel": "feishu"},
                ],
            }
            register_people(partial(gql, api), ask)
            tickets.concerns.append(gql(api, RAISE, i=ask)["raiseConcern"]["id"])
            tally.jobs["concern"] += 1
            gql(api, SCHEDULER, now=(T0 + timedelta(minutes=30 + i)).isoformat(), s=scope)
            tally.jobs["scheduler"] += 1
            ticket = gql(api, RUN_CHECK, s=scope, id=watch_id, r=f"chaos-{scope}-{i}")[
                "runWatchNow"
            ]
            tickets.checks.append(ticket["runId"])
            tally.jobs["watch check"] += 1
            gql(api, UPSERT, i={"scope": scope, "id": "chat", "kind": "CONVERSATION",
                                "version": f"v{i + 1}", "text": chat(6 + 3 * i)})  # fmt: skip
            if i % 2 == 0:
                started = attempt(
                    api, START_REVIEW, sc={"projectIds": [scope]},
                    f=(BASE - timedelta(hours=1)).isoformat(),
                    t=(BASE + timedelta(days=1)).isoformat(),
                )  # fmt: skip
                if started is not None:
                    tally.jobs["review"] += 1
                    tickets.reviews.append(started["startReview"]["id"])
            else:
                beat = attempt(api, RUN_PLAN, id=plan)
                if beat is not None:
                    tally.jobs["heartbeat report"] += 1
                    tickets.heartbeats.append(beat["runPlanNow"]["id"])
            if i == KILLS // 2:
                # Redis restarts with this round's jobs queued: AOF keeps them
                redis_server.stop()
                await asyncio.sleep(1)
                redis_server.start()
                tally.restarts.append("redis")
            if RESTART_NEO4J and i == KILLS // 3:
                neo4j_restart(services)
                tally.restarts.append("neo4j")
                await api_sees_neo4j(api)  # the next round's requests go to a warm server
            await asyncio.sleep(rng.uniform(0.2, 3.0))
            worker.send_signal(signal.SIGKILL)
            worker.wait()
            tally.record_kill(await jobs_in_progress(queue), datetime.now(UTC))
            worker = start_worker(settings, env)

        await settle(api, scope, tally, watch_id, tickets, neo4j_driver, settings)
        worker = await kill_a_review_mid_leaf(api, scope, tally, tickets, settings, env, worker)
        await audit(api, scope, tally, receiver, neo4j_driver, settings, watch_id, tickets)
        await audit_redelivery(queue, settings.queue_name, tally)
    finally:
        print("\n" + tally.line())
        if worker is not None and worker.poll() is None:
            stop(worker)
        stop(api_proc)
        await queue.aclose()
        await neo4j_driver.execute_query(
            "MATCH (n) WHERE n.deployment = $q DETACH DELETE n",
            q=settings.queue_name,
            database_=settings.neo4j_database,
        )
    assert tally.kills == KILLS + 1  # and the one that lands mid-leaf
    assert tally.lost == [], tally.lost
    assert tally.duplicated == [], tally.duplicated
    assert tally.redelivered == len(tally.interrupted), tally.line()
    assert tally.jobs["review killed mid-leaf, continued to completion"] == 1, tally.line()


async def kill_a_review_mid_leaf(
    api: Server,
    scope: str,
    tally: Tally,
    tickets: Tickets,
    settings: Settings,
    env: dict[str, str],
    worker: subprocess.Popen[bytes],
) -> subprocess.Popen[bytes]:
    """A kill that certainly lands in a review: the pool's slots are held by the test, so
    the review's first leaf waits in line (mid-stage, deterministically); the worker is
    killed there, the slots freed, and once the dead worker's liveness key has lapsed a
    new worker's start-up recovery fails the run (worker_lost). Nothing was uploaded since
    it started, so continueReview must take it up (not refuse it as superseded) and run it
    to completion. Returns the new worker."""
    pool = await open_pool(settings)
    slots = ReviewPool(pool, settings.queue_name)
    held = [await slots.acquire(f"chaos-hold:{i}") for i in range(DEFAULT_SLOTS)]
    run_id = ""
    try:

        async def started() -> bool:
            nonlocal run_id
            answer = attempt(api, START_REVIEW, sc={"projectIds": [scope]},
                             f=(BASE - timedelta(hours=1)).isoformat(),
                             t=(BASE + timedelta(days=1)).isoformat())  # fmt: skip
            run_id = answer["startReview"]["id"] if answer is not None else ""
            return bool(run_id)

        await until_async(started, what="a review to start after the faults", within=SETTLE_S)
        tickets.reviews.append(run_id)
        await until_async(
            slots.state,
            lambda st: any(t.holder.startswith(f"{run_id}:leaf:") for t in st.waiting),
            what="the review's leaf waiting in line for a slot",
            within=SETTLE_S,
        )
        worker.send_signal(signal.SIGKILL)
        worker.wait()
        tally.record_kill(await jobs_in_progress(pool), datetime.now(UTC))
    finally:
        for slot in held:
            await slots.release(slot.slot.holder)
    alive = f"storygraph:alive:{settings.queue_name}:*"

    async def no_one_alive() -> bool:
        return not [k async for k in pool.scan_iter(match=alive)]

    await until_async(no_one_alive, what="the killed worker's liveness lapsed", within=120)
    await pool.aclose()
    worker = start_worker(settings, env)
    status = "query($id: String!) { supervisionRun(id: $id) { status error { kind } } }"
    run = await until_async(
        lambda: asyncio.to_thread(lambda: gql(api, status, id=run_id)["supervisionRun"]),
        lambda r: r["status"] != "running",
        what="the killed review failed by recovery",
        within=SETTLE_S,
    )
    if run["status"] != "failed" or run["error"]["kind"] != "worker_lost":
        tally.lost.append(f"review {run_id} killed mid-leaf ended {run}")
        return worker
    continue_review = "mutation($id: String!) { continueReview(id: $id) { id } }"
    # another run (a heartbeat's automatic supervision) may hold the lease: BUSY, again
    await until_async(
        lambda: asyncio.to_thread(attempt, api, continue_review, id=run_id),
        lambda answer: answer is not None,
        what=f"review {run_id} continued",
        within=SETTLE_S,
    )
    await wait_until(
        f"review {run_id} continued after its kill",
        lambda: gql(api, status, id=run_id)["supervisionRun"]["status"] == "completed",
        tally,
    )
    tally.jobs["review killed mid-leaf, continued to completion"] += 1
    return worker


async def audit_redelivery(queue: Redis, queue_name: str, tally: Tally) -> None:
    """Every job a kill interrupted ran again to its end: arq kept its result with a later
    try or one begun after the kill (a job claimed but not yet begun keeps its first try:
    the killed worker never counted it), or (a job that failed for good) the worker kept its failure. A job may still be on
    its way when the work has settled (a heartbeat's automatic supervision defers itself
    while the review lease is held): each is polled, with a deadline, until it ends."""
    waiting = (JobStatus.deferred, JobStatus.queued, JobStatus.in_progress)
    deadline = time.monotonic() + SETTLE_S
    for job_id in tally.interrupted:
        job = Job(job_id, queue, _queue_name=queue_name, _deserializer=deserialize)
        left = max(0.0, deadline - time.monotonic())
        await reached_async(job.status, lambda st: st not in waiting, within=left, every=0.5)
        info = await job.result_info()
        failed = bool(await queue.exists(f"storygraph:failed:{job_id}"))
        if ran_again(info, failed=failed, killed_at=tally.killed_at[job_id]):
            tally.redelivered += 1
        else:
            tally.lost.append(f"job {job_id} interrupted by a kill never ran again: {info}")
