"""Redis failover under load: the primary is SIGKILLed while concern turns, outbox sends,
watch checks, heartbeat reports and reviews are queued or running and clients hold
graphChanged subscriptions; the sentinels promote a replica and the work goes on there.

One API and two workers on the shared test Neo4j and a replicated Redis of the test's own (a
primary, two replicas, three sentinels; the clients know only REDIS_SENTINELS), the default
offline model and a webhook receiver on loopback. Each failover asks for one piece of every
kind of work (each acknowledged by the API, so replicated), kills the current primary,
measures the time from the kill to the first new job run (an `enqueueProbe`, retried while
the API answers UNAVAILABLE, until the worker has written it), and starts the killed node
again, which joins as a replica of the promoted one. Then the chaos audit's ticket rules
(tests/e2e/test_chaos.py) count what the test started: nothing lost, nothing doubled; the
review lease is free and a review after the faults completes; a subscription held through
the failover hears a change made after it.

`make test` runs one failover; `make chaos` runs FAILOVERS=3 (each primary in turn).
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import time
import uuid
from collections.abc import Iterator
from contextlib import AsyncExitStack
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import websockets
from neo4j import AsyncDriver

from engine.settings import Settings
from graph.probes import ProbeStore
from jobs.liveness import alive_key
from local.redis_ha import LocalRedisHA
from tests.support.chaos_audit import (
    BASE,
    RAISE,
    RUN_CHECK,
    RUN_PLAN,
    SCHEDULER,
    START_REVIEW,
    T0,
    UPSERT,
    Tally,
    Tickets,
    attempt,
    audit,
    chat,
    gql,
    settle,
)
from tests.support.concern_api import register_people
from tests.support.polling import until, until_async
from tests.support.processes import (
    Server,
    free_port,
    log_of,
    process_env,
    spawn,
    stop,
    wait_http,
)
from tests.support.redis_ha import env_for, kill_node, on_node, own_redis_ha, promoted
from tests.support.story_api import PUBLISH, first_changes
from tests.support.webhook import Webhook

FAILOVERS = int(os.environ.get("FAILOVERS", "1"))
PORTS = [6423, 6424, 6425]
SENTINELS = [26423, 26424, 26425]
PROBE = 'mutation($id: ID!) { enqueueProbe(id: $id, note: "failover") { enqueued } }'
CHANGED = "subscription($s: String!) { graphChanged(scope: $s) { scope kind } }"


@pytest.fixture
def receiver() -> Iterator[Webhook]:
    with Webhook(failing=False, delay_s=0.3) as hook:
        yield hook


@pytest.fixture(name="ha")
def ha_fixture(services: Settings, tmp_path: Path) -> Iterator[tuple[Settings, LocalRedisHA]]:
    with own_redis_ha(
        services, tmp_path, ports=PORTS, sentinel_ports=SENTINELS, queue_prefix="failover"
    ) as pair:
        yield pair


async def subscribe(stack: AsyncExitStack, api: Server, scope: str) -> Any:
    """A graphql-transport-ws socket subscribed to the scope's graphChanged."""
    url = api.url.replace("http://", "ws://") + "/graphql"
    ws = await stack.enter_async_context(
        websockets.connect(url, subprotocols=["graphql-transport-ws"])  # type: ignore[list-item]
    )
    await ws.send(json.dumps({"type": "connection_init", "payload": {}}))
    assert json.loads(await ws.recv())["type"] == "connection_ack"
    payload = {"query": CHANGED, "variables": {"s": scope}}
    await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
    return ws


def start_worker_on(settings: Settings, server: LocalRedisHA, env: dict[str, str]) -> Any:
    """A worker started (its own liveness key is on the set's primary) when this returns."""
    proc = spawn(["worker"], env)
    key = alive_key(settings.queue_name, f"{socket.gethostname()}:{proc.pid}")

    def started() -> bool:
        assert proc.poll() is None, f"the worker exited: {log_of(proc)[-2000:]}"
        primary = server.current_primary()
        return primary is not None and on_node(server, primary[1], "EXISTS", key) == 1

    until(started, what="the worker's liveness key")
    return proc


async def first_job_after(
    api: Server, driver: AsyncDriver, settings: Settings, killed_at: float, codes: set[str]
) -> float:
    """Seconds from the kill until a job enqueued after it has run; every refusal on the way
    is recorded by its code (UNAVAILABLE, never INTERNAL)."""
    probe = f"failover-{uuid.uuid4().hex[:8]}"
    store = ProbeStore(driver, settings.neo4j_database)
    enqueued = False

    async def ran() -> bool:
        nonlocal enqueued
        if not enqueued:
            answer = (await asyncio.to_thread(api.graphql, PROBE, {"id": probe})).json()
            if answer.get("errors"):
                codes.update(e["extensions"]["code"] for e in answer["errors"])
            else:
                enqueued = True
        return enqueued and await store.get(probe) is not None

    await until_async(ran, what=f"a job run after the kill (refusals: {codes})", within=120)
    return time.monotonic() - killed_at


def one_of_each(api: Server, scope: str, i: int, watch_id: str, plan: str, tally: Tally,
                tickets: Tickets) -> None:  # fmt: skip
    ask = {
        "scope": scope,
        "at": (T0 + timedelta(minutes=i)).isoformat(),
        "type": "DELEGATION",
        "priority": "HIGH",
        "title": f"问提测时间 {i}",
        "goal": f"拿到张三和李四的提测时间 {i}",
        "initiator": {"name": "老板", "channel": "telegram", "personId": "p_owner"},
        "people": [
            {"personId": "p_zhangsan", "displayName": "张三", "lastChannel": "feishu"},
            {"personId": "p_lisi", "displayName": "李四", "lastChannel": "feishu"},
        ],
    }
    register_people(partial(gql, api), ask)
    tickets.concerns.append(gql(api, RAISE, i=ask)["raiseConcern"]["id"])
    tally.jobs["concern"] += 1
    gql(api, SCHEDULER, now=(T0 + timedelta(minutes=30 + i)).isoformat(), s=scope)
    tally.jobs["scheduler"] += 1
    ticket = gql(api, RUN_CHECK, s=scope, id=watch_id, r=f"failover-{scope}-{i}")["runWatchNow"]
    tickets.checks.append(ticket["runId"])
    tally.jobs["watch check"] += 1
    gql(api, UPSERT, i={"scope": scope, "id": "chat", "kind": "CONVERSATION",
                        "version": f"v{i + 1}", "text": chat(6 + 3 * i)})  # fmt: skip
    started = attempt(api, START_REVIEW, sc={"projectIds": [scope]},
                      f=(BASE - timedelta(hours=1)).isoformat(),
                      t=(BASE + timedelta(days=1)).isoformat())  # fmt: skip
    if started is not None:  # else BUSY: one review at a time
        tally.jobs["review"] += 1
        tickets.reviews.append(started["startReview"]["id"])
    beat = attempt(api, RUN_PLAN, id=plan)
    if beat is not None:
        tally.jobs["heartbeat report"] += 1
        tickets.heartbeats.append(beat["runPlanNow"]["id"])


@pytest.mark.timeout(900 + 120 * FAILOVERS)
async def test_a_killed_primary_loses_no_acknowledged_job_and_work_goes_on(
    ha: tuple[Settings, LocalRedisHA],
    receiver: Webhook,
    neo4j_driver: AsyncDriver,
    scope: str,
) -> None:
    settings, server = ha
    tally = Tally(label="failover")
    port = free_port()
    env = process_env(
        settings, MODEL_BASE_URL="", CONCERN_WEBHOOK_URL=receiver.url, **env_for(settings)
    )
    api_proc = spawn(["serve"], dict(env, API_PORT=str(port)))
    api = Server(f"http://127.0.0.1:{port}", api_proc, env)
    workers: list[Any] = []
    refusals: set[str] = set()
    times: list[float] = []
    try:
        wait_http(api.url, api_proc)
        workers = [start_worker_on(settings, server, env) for _ in range(2)]
        gql(api, "mutation { setHeartbeatEnabled(enabled: true) { heartbeatEnabled } }")
        gql(api, UPSERT, i={"scope": scope, "id": "n1", "kind": "NOTE", "version": "r1",
                            "text": "每周检查发布页。"})  # fmt: skip
        gql(api, UPSERT, i={"scope": scope, "id": "chat", "kind": "CONVERSATION",
                            "version": "v0", "text": chat(4)})  # fmt: skip
        watch_id = gql(
            api,
            "mutation($i: CreateWatchInput!) { createWatch(input: $i) { id } }",
            i={"scope": scope, "sessionId": "failover", "title": "发布检查",
               "bindings": [{"kind": "note", "noteId": "n1", "title": "笔记"}]},
        )["createWatch"]["id"]  # fmt: skip
        plan = gql(
            api,
            "mutation($p: PlanInput!) { savePlan(plan: $p) { configId } }",
            p={"name": "failover", "scope": {"projectIds": [scope]}, "everySeconds": 86400.0,
               "anchor": (BASE + timedelta(days=30)).isoformat(), "windowSeconds": 86400.0},
        )["savePlan"]["configId"]  # fmt: skip

        async with AsyncExitStack() as stack:
            subscriber = await subscribe(stack, api, scope)
            tickets = Tickets()
            for i in range(FAILOVERS):
                one_of_each(api, scope, i, watch_id, plan, tally, tickets)
                current = server.current_primary()
                assert current is not None
                # the workers have taken some of it: a job has begun (arq marks it in progress)
                # or finished (its result kept) on the primary about to be killed
                port = current[1]
                until(
                    lambda: on_node(server, port, "KEYS", "arq:*"),  # noqa: B023 (read at once)
                    lambda keys: any("in-progress" in str(k) or "result" in str(k) for k in keys),
                    what="a job of this round taken by a worker",
                )
                kill_node(server, current[1])
                killed_at = time.monotonic()
                tally.restarts.append(f"primary {current[1]}")
                promoted(server, current[1])
                times.append(await first_job_after(api, neo4j_driver, settings, killed_at,
                                                   refusals))  # fmt: skip
                server.start_node(current[1])  # back, as a replica of the promoted one
                tally.kills += 1

            # a subscription held through the failovers hears a change made after them
            async def publish(n: int) -> None:
                event = {"ref": "e", "title": "提测", "at": "2026-03-16T10:00:00Z"}
                body = {"scope": scope, "key": f"after-{n}", "events": [event]}
                await asyncio.to_thread(gql, api, PUBLISH, input=body)

            while True:  # what it heard before the last kill does not count
                try:
                    await asyncio.wait_for(subscriber.recv(), timeout=0.5)
                except TimeoutError:
                    break
            [message] = await first_changes([subscriber], publish)
            assert message["payload"]["data"]["graphChanged"]["scope"] == scope

        await settle(api, scope, tally, watch_id, tickets, neo4j_driver, settings)
        await audit(api, scope, tally, receiver, neo4j_driver, settings, watch_id, tickets)
        for w in workers:
            assert w.poll() is None, f"a worker exited: {log_of(w)[-3000:]}"
    finally:
        print(
            "\n"
            + tally.line()
            + f" | kill to first job run: {', '.join(f'{t:.1f} s' for t in times) or '-'}"
            + f" | refusals meanwhile: {sorted(refusals) or '-'}"
        )
        for w in workers:
            if w.poll() is None:
                stop(w)
        stop(api_proc)
        await neo4j_driver.execute_query(
            "MATCH (n) WHERE n.deployment = $q DETACH DELETE n",
            q=settings.queue_name,
            database_=settings.neo4j_database,
        )
    assert tally.kills == FAILOVERS
    assert refusals <= {"UNAVAILABLE"}, refusals
    assert tally.lost == [], tally.lost
    assert tally.duplicated == [], tally.duplicated
