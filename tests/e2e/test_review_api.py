"""Review reads over real HTTP and websockets (docs/rules/reviews.md): `activity` joins heartbeat
and supervision by saved run ids, filters before paging, says "无执行记录", shows old records
apart; `runProgress` streams stage progress until the run ends; an invalid model answer is
readable, verbatim, on the failed run."""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest_asyncio
import redis
import websockets
from neo4j import AsyncDriver

from engine.review import heartbeat as hb
from engine.review import lifecycle as lc
from engine.review.types import Scope, StageName, Trigger
from engine.settings import Settings
from graph.review.codec import RunOptions
from graph.review.heartbeats import HeartbeatRuns
from graph.review.runs import SupervisionRuns
from tests.support.grounded_review import sent_texts
from tests.support.processes import Server, forget_queue, process_env, spawn, stop
from tests.support.review_api import gql, leaf, wait_run
from tests.support.scripted_model import ScriptedModelServer, text

BASE = datetime.now(UTC).replace(microsecond=0) - timedelta(days=1)
T0 = datetime(2026, 9, 1, 8, 0, tzinfo=UTC)


@pytest_asyncio.fixture
async def deployment(
    services: Settings,
    start_server,  # type: ignore[no-untyped-def]
    model_server: ScriptedModelServer,
    neo4j_driver: AsyncDriver,
) -> AsyncIterator[tuple[Server, dict[str, str], str]]:
    """An API and a worker on a queue (= deployment) of their own, app switched on."""
    queue = f"{services.queue_name}:review-api-{uuid.uuid4().hex[:6]}"
    api = start_server(QUEUE_NAME=queue)
    env = process_env(services, QUEUE_NAME=queue, MODEL_BASE_URL=model_server.base_url)
    worker = spawn(["worker"], env)
    await asyncio.to_thread(
        gql, api, "mutation { setHeartbeatEnabled(enabled: true) { heartbeatEnabled } }"
    )
    try:
        yield api, env, queue
    finally:
        stop(worker)
        r = redis.Redis.from_url(services.effective_redis_url)
        forget_queue(r, queue)
        r.close()
        await neo4j_driver.execute_query(
            "MATCH (n {deployment: $q}) DETACH DELETE n", q=queue, database_=services.neo4j_database
        )


def heartbeat(
    run_id: str, scope: Scope | None, state: hb.HeartbeatState, at: datetime, **kw: Any
) -> hb.HeartbeatRun:
    return hb.HeartbeatRun(
        run_id=run_id,
        config_id="cfg-1" if scope else None,
        scope=scope,
        trigger=Trigger.AUTOMATIC,
        state=state,
        claimed_at=at,
        ended_at=at + timedelta(seconds=5),
        **kw,
    )


def supervision(
    run_id: str, scope: Scope, at: datetime, status: lc.RunStatus, **kw: Any
) -> lc.SupervisionRun:
    run = lc.create_run(
        run_id=run_id,
        scope=scope,
        trigger=Trigger.AUTOMATIC,
        mode=lc.ReviewMode.INCREMENTAL,
        worker_id="gone",
        per_batch=100,
        stage_timeout=timedelta(seconds=60),
        now=at,
    )
    return run.model_copy(update={"status": status, "stopped": True, "ended_at": at, **kw})


ACTIVITY = """
query($statuses: [String!], $first: Int!, $after: String) {
  activity(statuses: $statuses, first: $first, after: $after) {
    totalCount
    pageInfo { hasNextPage endCursor }
    edges { cursor node {
      id status label heartbeatRunId supervisionRunId resultId unlinked scope report supervision
    } }
  }
}"""


async def test_activity_over_http_joins_by_run_id_filters_before_paging(
    deployment: tuple[Server, dict[str, str], str],
    neo4j_driver: AsyncDriver,
    services: Settings,
    scope: str,
) -> None:
    api, _, queue = deployment
    mine = Scope.projects(scope)
    heartbeats = HeartbeatRuns(neo4j_driver, services.neo4j_database, deployment=queue)
    runs = SupervisionRuns(neo4j_driver, services.neo4j_database, deployment=queue)
    done = hb.HeartbeatState.COMPLETED
    minute = timedelta(minutes=1)
    # run ids are unique across deployments: clear what an interrupted earlier run left
    await neo4j_driver.execute_query(
        "UNWIND $ids AS id MATCH (n {id: id}) WHERE n:HeartbeatRun OR n:SupervisionRun "
        "DETACH DELETE n",
        ids=["hb-old", "hb-a", "hb-b", "hb-c", "hb-d", "sup-old", "sup-a", "sup-c", "sup-d"],
        database_=services.neo4j_database,
    )
    # an old heartbeat with no saved link or scope, and an old run right after it
    await heartbeats.claim(heartbeat("hb-old", None, done, T0, link_saved=False), f"k:{scope}:old")
    await runs.create(
        supervision(
            "sup-old",
            mine,
            T0 + timedelta(seconds=30),
            lc.RunStatus.COMPLETED,
            outcome=lc.RunOutcome.NO_CHANGE,
        ),
        RunOptions(),
    )
    # linked pairs, newest last: completed (link on the heartbeat), no downstream record,
    # completed (link only on the run), failed
    await heartbeats.claim(
        heartbeat("hb-a", mine, done, T0 + minute, supervision_run_id="sup-a"), f"k:{scope}:a"
    )
    await runs.create(
        supervision(
            "sup-a",
            mine,
            T0 + minute,
            lc.RunStatus.COMPLETED,
            outcome=lc.RunOutcome.NEW_RESULT,
            result_id="res-a",
        ),
        RunOptions(),
    )
    await heartbeats.claim(
        heartbeat("hb-b", mine, hb.HeartbeatState.NO_CHANGE, T0 + 2 * minute), f"k:{scope}:b"
    )
    await heartbeats.claim(heartbeat("hb-d", mine, done, T0 + 3 * minute), f"k:{scope}:d")
    await runs.create(
        supervision(
            "sup-d",
            mine,
            T0 + 3 * minute,
            lc.RunStatus.COMPLETED,
            outcome=lc.RunOutcome.NEW_RESULT,
            result_id="res-d",
            heartbeat_run_id="hb-d",
        ),
        RunOptions(),
    )
    await heartbeats.claim(
        heartbeat("hb-c", mine, done, T0 + 4 * minute, supervision_run_id="sup-c"), f"k:{scope}:c"
    )
    error = lc.RunError(stage=StageName.NAVIGATION, kind=lc.ErrorKind.MODEL, message="down")
    await runs.create(
        supervision("sup-c", mine, T0 + 4 * minute, lc.RunStatus.FAILED, error=error),
        RunOptions(),
    )

    def page(**variables: Any) -> dict[str, Any]:
        return gql(api, ACTIVITY, **variables)["activity"]  # type: ignore[no-any-return]

    everything = await asyncio.to_thread(page, first=50)
    rows = {e["node"]["id"]: e["node"] for e in everything["edges"]}
    assert everything["totalCount"] == 6
    assert [e["node"]["id"] for e in everything["edges"]] == [
        "heartbeat:hb-c", "heartbeat:hb-d", "heartbeat:hb-b", "heartbeat:hb-a",
        "supervision:sup-old", "heartbeat:hb-old",
    ]  # fmt: skip
    assert rows["heartbeat:hb-c"]["status"] == "failed"
    assert rows["heartbeat:hb-c"]["supervisionRunId"] == "sup-c"
    assert rows["heartbeat:hb-a"]["resultId"] == "res-a"  # joined by the saved id
    assert rows["heartbeat:hb-d"]["supervisionRunId"] == "sup-d"
    assert rows["heartbeat:hb-b"]["status"] == "no_record"
    assert rows["heartbeat:hb-b"]["label"] == "无执行记录"
    old = rows["heartbeat:hb-old"]
    assert old["unlinked"] and old["supervisionRunId"] is None  # never joined by time
    assert old["scope"] == "不可用"
    assert rows["supervision:sup-old"]["unlinked"]
    assert rows["supervision:sup-old"]["label"] == "无变化（未调用模型）"

    # filters apply before paging: the newest row (failed) never uses up the page
    first = await asyncio.to_thread(page, statuses=["completed"], first=1)
    assert first["totalCount"] == 3 and first["pageInfo"]["hasNextPage"]  # hb-old too
    assert [e["node"]["resultId"] for e in first["edges"]] == ["res-d"]
    second = await asyncio.to_thread(
        page, statuses=["completed"], first=1, after=first["pageInfo"]["endCursor"]
    )
    assert [e["node"]["resultId"] for e in second["edges"]] == ["res-a"]
    third = await asyncio.to_thread(
        page, statuses=["completed"], first=5, after=second["pageInfo"]["endCursor"]
    )
    assert [e["node"]["id"] for e in third["edges"]] == ["heartbeat:hb-old"]
    assert not third["pageInfo"]["hasNextPage"]


def conversation(n: int) -> str:
    return "".join(
        f"[{(BASE + timedelta(minutes=i)).isoformat()}] 成员{i % 3}: 第{i}条 提测进展\n"
        for i in range(n)
    )


async def start_review(api: Server, scope: str) -> str:
    def go() -> str:
        gql(
            api,
            "mutation($s: UpsertSourceInput!) { upsertSource(input: $s) { id } }",
            s={"scope": scope, "id": "chat", "kind": "CONVERSATION", "version": "v1"}
            | {"text": conversation(20)},
        )
        started = gql(
            api,
            "mutation($sc: ReviewScopeInput!, $f: DateTime!, $t: DateTime!) {"
            " startReview(scope: $sc, from: $f, to: $t) { id } }",
            sc={"projectIds": [scope]},
            f=(BASE - timedelta(hours=1)).isoformat(),
            t=(BASE + timedelta(days=1)).isoformat(),
        )
        return str(started["startReview"]["id"])

    return await asyncio.to_thread(go)


PROGRESS = (
    "subscription($id: String!) { runProgress(runId: $id) {"
    " runId status fraction stages { stage state done total } } }"
)


async def test_run_progress_streams_stages_over_a_websocket_until_the_run_ends(
    deployment: tuple[Server, dict[str, str], str], model_server: ScriptedModelServer, scope: str
) -> None:
    api, _, _ = deployment
    # the leaf's answer is held until the stream has shown the leaves stage running
    gate = threading.Event()
    model_server.script(
        leaf("批0", hold=gate), text(json.dumps({"summary": "阶段总结"}, ensure_ascii=False))
    )
    run_id = await start_review(api, scope)
    url = api.url.replace("http://", "ws://") + "/graphql"
    seen: list[dict[str, Any]] = []
    try:
        async with websockets.connect(url, subprotocols=["graphql-transport-ws"]) as ws:  # type: ignore[list-item]
            await ws.send(json.dumps({"type": "connection_init"}))
            assert json.loads(await ws.recv())["type"] == "connection_ack"
            payload = {"query": PROGRESS, "variables": {"id": run_id}}
            await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), timeout=60))
                if message["type"] == "complete":
                    break  # the server ends the stream once the run has stopped
                assert message["type"] == "next", message
                seen.append(message["payload"]["data"]["runProgress"])
                stages = {s["stage"]: s["state"] for s in seen[-1]["stages"]}
                if stages.get("leaves") == "running":
                    gate.set()
    finally:
        gate.set()
    assert all(p["runId"] == run_id for p in seen)
    states = [{s["stage"]: s["state"] for s in p["stages"]} for p in seen]
    assert any(s["leaves"] == "running" for s in states)  # seen while the model worked
    assert [s["stage"] for s in seen[-1]["stages"]] == ["collect", "leaves", "navigation",
                                                       "publish"]  # fmt: skip
    assert states[-1] == dict.fromkeys(states[-1], "saved")
    assert seen[-1]["status"] == "completed" and seen[-1]["fraction"] == 1.0
    fractions = [p["fraction"] for p in seen]
    assert fractions == sorted(fractions)
    assert len(seen) == len({json.dumps(p, sort_keys=True) for p in seen})  # changes only
    # the scripted answers stood for what was sent: the conversation, then the leaf summary
    assert sent_texts(model_server) == [conversation(20)]
    assert [b["summary"] for b in model_server.requests[-1].user_json()["batches"]] == ["批0"]


async def test_invalid_model_answer_is_readable_verbatim_on_the_failed_run(
    deployment: tuple[Server, dict[str, str], str], model_server: ScriptedModelServer, scope: str
) -> None:
    api, _, _ = deployment
    raw = "好的，以下是总结：没有 JSON"
    model_server.script(text(raw))
    run_id = await start_review(api, scope)
    await asyncio.to_thread(wait_run, api, run_id, "failed")
    query = (
        "query($id: String!) { supervisionRun(id: $id) { status"
        " error { stage kind message rawOutput } stages { stage state error } } }"
    )
    run = (await asyncio.to_thread(gql, api, query, id=run_id))["supervisionRun"]
    assert run["error"]["stage"] == "leaves" and run["error"]["kind"] == "validation"
    assert run["error"]["rawOutput"] == raw
    assert sent_texts(model_server) == [conversation(20)]  # the answer refused was to these
    leaves = next(s for s in run["stages"] if s["stage"] == "leaves")
    assert leaves["state"] == "failed" and leaves["error"]
