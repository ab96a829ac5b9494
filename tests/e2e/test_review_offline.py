"""The default `make run` experience: `storygraph serve` and `storygraph worker` with no model
configured (the offline rule model), driven over HTTP as a person would (seed 004).

A conversation is reviewed; a person corrects 张三's description; new messages about 张三
arrive and are reviewed: the stored 张三 is reused (one 张三, same id), the person's text
stays and the automatic proposal waits as a Suggestion (L5: 后续自动整理提出补充或修订建议，
不静默覆盖用户内容); event titles read as the event, never as "[time] name:".
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import redis

from engine.settings import Settings
from tests.e2e.conftest import Server, process_env, spawn, stop

BASE = datetime.now(UTC).replace(microsecond=0) - timedelta(days=1)
FIRST = [(0, "张三", "v2.0 的接口今天联调"), (3, "李四", "前端部分周四能提测")]
LATER = [
    (20, "张三", "回归测试明天开始"),
    (23, "王五", "文档已更新"),
    (26, "张三", "发布窗口定在周五"),
]
HEADER = re.compile(r"^\s*\[\d{4}-")


def chat(rows: list[tuple[int, str, str]]) -> str:
    return "".join(
        f"[{(BASE + timedelta(minutes=m)).isoformat()}] {who}: {said}\n" for m, who, said in rows
    )


def gql(api: Server, query: str, **variables: Any) -> dict[str, Any]:
    body = api.graphql(query, variables).json()
    assert "errors" not in body, body
    return body["data"]  # type: ignore[no-any-return]


@pytest.fixture
def offline_deployment(
    services: Settings,
    start_server,  # type: ignore[no-untyped-def]
) -> Iterator[Server]:
    """An API and a worker on a queue of their own, no model configured, app switched on."""
    queue = f"{services.queue_name}:review-offline-{uuid.uuid4().hex[:6]}"
    api = start_server(QUEUE_NAME=queue, MODEL_BASE_URL="")
    env = process_env(services, QUEUE_NAME=queue, MODEL_BASE_URL="")
    worker = spawn(["worker"], env)
    gql(api, "mutation { setHeartbeatEnabled(enabled: true) { heartbeatEnabled } }")
    try:
        yield api
    finally:
        stop(worker)
        r = redis.Redis.from_url(services.effective_redis_url)
        r.delete(f"arq:queue:{queue}", f"storygraph:pool:{queue}")
        r.close()


def push(api: Server, scope: str, version: str, text: str) -> None:
    gql(
        api,
        "mutation($s: UpsertSourceInput!) { upsertSource(input: $s) { id } }",
        s={"scope": scope, "id": "chat", "kind": "CONVERSATION", "version": version, "text": text},
    )


def review(api: Server, scope: str, start: datetime) -> str:
    """startReview over [start, BASE + 1 day]; waits for the run and returns its result id."""
    run_id = gql(
        api,
        "mutation($sc: ReviewScopeInput!, $f: DateTime!, $t: DateTime!) {"
        " startReview(scope: $sc, from: $f, to: $t) { id } }",
        sc={"projectIds": [scope]},
        f=start.isoformat(),
        t=(BASE + timedelta(days=1)).isoformat(),
    )["startReview"]["id"]
    deadline = time.monotonic() + 90
    run: dict[str, Any] = {}
    while time.monotonic() < deadline:
        run = gql(
            api,
            "query($id: String!) { supervisionRun(id: $id) { status resultId error { message } } }",
            id=run_id,
        )["supervisionRun"]
        if run["status"] in ("completed", "failed", "cancelled"):
            break
        time.sleep(0.3)
    assert run.get("status") == "completed", run
    return str(run["resultId"])


GRAPH = (
    "query($s: String!) { storyGraph(scope: $s) {"
    " events { title } entities { id seq name description } } }"
)
ENTITY = (
    "query($s: String!, $id: ID!) { entity(scope: $s, id: $id) {"
    " entity { description } pendingSuggestions { field currentValue proposedValue } } }"
)


def test_offline_review_reuses_corrected_person_as_suggestion_with_clean_titles(
    offline_deployment: Server, scope: str
) -> None:
    api = offline_deployment
    push(api, scope, "v1", chat(FIRST))
    review(api, scope, BASE - timedelta(hours=1))
    graph = gql(api, GRAPH, s=scope)["storyGraph"]
    [zhang] = [e for e in graph["entities"] if e["name"] == "张三"]
    gql(
        api,
        "mutation($s: String!, $id: ID!, $v: Int!, $e: EntityEditInput!) {"
        " updateEntity(scope: $s, id: $id, seenVersion: $v, edit: $e) { id } }",
        s=scope,
        id=zhang["id"],
        v=zhang["seq"],
        e={"description": "发布经理（用户修正）"},
    )

    push(api, scope, "v2", chat(FIRST + LATER))
    review(api, scope, BASE + timedelta(minutes=10))

    graph = gql(api, GRAPH, s=scope)["storyGraph"]
    assert [e["id"] for e in graph["entities"] if e["name"] == "张三"] == [zhang["id"]]
    titles = [e["title"] for e in graph["events"]]
    assert "张三：回归测试明天开始" in titles and "李四：前端部分周四能提测" in titles
    assert not [t for t in titles if HEADER.match(t)], titles
    seen = gql(api, ENTITY, s=scope, id=zhang["id"])["entity"]
    assert seen["entity"]["description"] == "发布经理（用户修正）"
    [proposal] = [s for s in seen["pendingSuggestions"] if s["field"] == "description"]
    assert proposal["currentValue"] == "发布经理（用户修正）"
    assert "回归测试明天开始" in proposal["proposedValue"]
