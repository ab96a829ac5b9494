"""docs/rules/concerns.md, end to end: HTTP API, a real worker process, the scripted model
server and a moved clock.

老板: 帮我问一下张三李四，v2.0 什么时候能提测. Every message the boss receives is read back
over GraphQL in order and wording: created, contacted, partial + timeout_retry, the
owner_update, and the final back-flow with its four fields. The clock is moved through the
API's own time arguments (`at` of a request or reply, `now` of a scheduler run), which the
jobs carry as their `now`; the times are in 2035 so no wall-clock scheduler touches them.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from functools import partial
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from engine.settings import Settings
from tests.support.concern_api import register_people
from tests.support.polling import until
from tests.support.processes import Server, process_env, spawn, stop
from tests.support.scripted_model import ScriptedModelServer, text

T0 = datetime(2035, 3, 19, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
OWNER_UPDATE = (
    "张三回复了：后端支付模块卡在第三方回调接口，他提了个临时方案——先用 mock 跑通主流程，"
    "上线后第一周人工对账。需要你决定：接受临时方案赶周五，还是等沙箱到了再上。"
)
ASK = "你好，老板想了解 v2.0 什么时候能提测？"
GOAL = "拿到张三和李四各自 v2.0 的提测时间"
ZHANG_REPLY = (
    "后端支付模块卡在第三方回调，沙箱还没到。临时方案：先用 mock 跑通主流程，上线后第一周人工对账。"
)


def at(minutes: float) -> str:
    return (T0 + timedelta(minutes=minutes)).isoformat()


def turn(**output: Any) -> Any:
    return text(json.dumps({"goal_met": False, **output}, ensure_ascii=False))


@pytest.fixture
def stack(
    services: Settings, start_server: Callable[..., Server], model_server: ScriptedModelServer
) -> Iterator[Server]:
    """Our own API and worker on a queue of their own, the worker talking to the model."""
    queue = f"{services.queue_name}:concern-e2e:{uuid.uuid4().hex[:6]}"
    api = start_server(QUEUE_NAME=queue)
    worker = spawn(
        ["worker"],
        process_env(
            services, QUEUE_NAME=queue, MODEL_BASE_URL=model_server.base_url, MODEL_NAME="scripted"
        ),
    )
    yield api
    stop(worker)


def gql(api: Server, query: str, **variables: Any) -> dict[str, Any]:
    body = api.graphql(query, variables).json()
    assert "errors" not in body, body["errors"]
    return body["data"]  # type: ignore[no-any-return]


MESSAGES = """query($scope: String!, $person: String!) {
  concernMessages(scope: $scope, personId: $person, status: ["sent"]) {
    totalCount edges { node { kind reportKinds text deliverAt status attempts channel } } } }"""

ADVANCE = """mutation($input: AdvanceConcernInput!) {
  advanceConcern(input: $input) { jobId enqueued concern { status revision } } }"""


def sent_to(api: Server, scope: str, person: str) -> list[dict[str, Any]]:
    data = gql(api, MESSAGES, scope=scope, person=person)["concernMessages"]
    return [e["node"] for e in data["edges"]]


def wait_for(api: Server, scope: str, person: str, count: int, timeout: float = 60) -> list[Any]:
    return until(
        lambda: sent_to(api, scope, person),
        lambda got: len(got) >= count,
        f"{count} messages to {person}",
        timeout,
    )


def reply(api: Server, cid: str, person: str, words: str, minute: float) -> dict[str, Any]:
    return gql(
        api,
        ADVANCE,
        input={  # type: ignore[no-any-return]
            "concernId": cid,
            "personId": person,
            "text": words,
            "at": at(minute),
            "channel": "feishu",
            "messageId": f"{person}@{minute}",
        },
    )["advanceConcern"]


async def test_seed_complete_example_over_http_with_worker_and_model(
    stack: Server, model_server: ScriptedModelServer, scope: str
) -> None:
    api = stack
    model_server.script(
        turn(
            step="follow_up",
            messages=[
                {"person_id": "p_zhangsan", "text": ASK},
                {"person_id": "p_lisi", "text": ASK},
            ],
        ),
        turn(
            step="follow_up",
            messages=[{"person_id": "p_zhangsan", "text": "张三，v2.0 后端什么时候能提测？"}],
            done_person_ids=["p_lisi"],
            findings={"p_lisi": "前端部分周四能提测"},
        ),
        turn(
            step="wait",
            owner_update=OWNER_UPDATE,
            next_action={"what": "等待老板决定", "who_person_id": "p_owner"},
        ),
        turn(
            step="follow_up",
            messages=[
                {"person_id": "p_zhangsan", "text": "老板同意先用 mock 方案，周五能提测吗？"}
            ],
        ),
        turn(
            goal_met=True,
            step="resolve",
            conclusion="v2.0 周五提测（前端周四，后端先用 mock 方案）",
            key_information="李四：前端部分周四能提测；张三：后端先用 mock 跑通主流程，周五提测",
            done_person_ids=["p_zhangsan"],
        ),
    )
    ask = {
        "scope": scope,
        "type": "DELEGATION",
        "priority": "HIGH",
        "title": "问张三和李四 v2.0 提测时间",
        "goal": GOAL,
        "sourceDetail": "帮我问一下张三李四，v2.0 什么时候能提测",
        "initiator": {
            "name": "老板",
            "channel": "telegram",
            "channelUserId": "123",
            "personId": "p_owner",
        },
        "people": [
            {"personId": "p_zhangsan", "displayName": "张三", "lastChannel": "feishu"},
            {"personId": "p_lisi", "displayName": "李四", "lastChannel": "feishu"},
        ],
        "at": at(0),
    }
    register_people(partial(gql, api), ask)
    raised = gql(
        api,
        """mutation($input: RaiseConcernInput!) {
      raiseConcern(input: $input) { id status nextAction { when } } }""",
        input=ask,
    )["raiseConcern"]
    cid = raised["id"]
    assert raised["status"] == "PENDING"
    wait_for(api, scope, "p_owner", 1)

    # ... 30 分钟后: the scheduler (run at the moved clock) finds it due; the loop contacts both
    assert gql(
        api,
        "mutation($now: DateTime!, $scope: String!) { "
        "runConcernScheduler(now: $now, scope: $scope) }",
        now=at(30),
        scope=scope,
    )
    wait_for(api, scope, "p_owner", 2)
    assert [m["text"] for m in wait_for(api, scope, "p_lisi", 1)] == [ASK]

    # ... 2 小时后，李四回复了
    first = reply(api, cid, "p_lisi", "前端部分周四能提测", 150)
    assert first["enqueued"] is True
    wait_for(api, scope, "p_owner", 3)
    twice = reply(api, cid, "p_lisi", "前端部分周四能提测", 150)  # the channel delivers it again
    assert (twice["jobId"], twice["enqueued"]) == (first["jobId"], False)

    # ... 又过了 1 小时，张三回复了复杂内容
    reply(api, cid, "p_zhangsan", ZHANG_REPLY, 210)
    wait_for(api, scope, "p_owner", 4)
    reply(api, cid, "p_owner", "接受临时方案，赶周五", 240)
    wait_for(api, scope, "p_zhangsan", 3)
    reply(api, cid, "p_zhangsan", "好的，按临时方案周五提测", 260)
    boss = wait_for(api, scope, "p_owner", 5)

    assert [(m["kind"], "+".join(m["reportKinds"]), m["text"]) for m in boss] == [
        ("report", "created", "好的，我来联系张三和李四，有进展及时同步给你。"),
        ("report", "contacted", "已经联系张三和李四了，等他们回复。"),
        ("report", "partial+timeout_retry", "李四说前端部分周四能提测。张三还没回复，我再跟一下。"),
        ("report", "owner_update", OWNER_UPDATE),
        (
            "backflow",
            "",
            "[回流] 问张三和李四 v2.0 提测时间\n"
            "结果：v2.0 周五提测（前端周四，后端先用 mock 方案）\n"
            "关键信息：李四：前端部分周四能提测；张三：后端先用 mock 跑通主流程，周五提测\n"
            "耗时：4小时20分钟",
        ),
    ]
    assert [datetime.fromisoformat(m["deliverAt"]) for m in boss] == [
        datetime.fromisoformat(at(x)) for x in (0, 30, 150, 210, 260)
    ]
    assert {(m["status"], m["attempts"], m["channel"]) for m in boss} == {("sent", 1, "telegram")}
    assert model_server.calls == 5, "one model turn per trigger; the repeated reply ran nothing"
    # every scripted turn answered a request that carried what it answers from: the goal,
    # both counterparts, and each reply heard so far (the repeated one once)
    contexts = [r.user_json() for r in model_server.requests]
    assert [c["goal"] for c in contexts] == [GOAL] * 5
    assert [sorted(p["person_id"] for p in c["counterparts"]) for c in contexts] == [
        ["p_lisi", "p_zhangsan"]
    ] * 5
    heard = [
        [(e["person_id"], e["text"]) for e in c["conversation_log"] if e["direction"] == "inbound"]
        for c in contexts
    ]
    replies = [
        ("p_lisi", "前端部分周四能提测"),
        ("p_zhangsan", ZHANG_REPLY),
        ("p_owner", "接受临时方案，赶周五"),
        ("p_zhangsan", "好的，按临时方案周五提测"),
    ]
    assert heard == [replies[:n] for n in range(5)]

    final = gql(
        api,
        """query($id: ID!, $scope: String!) {
      concern(id: $id) { status conversation { direction personId text } }
      agenda(scope: $scope) { concernRefs { concernId } recentDecisions { concernId outcome } }
    }""",
        id=cid,
        scope=scope,
    )
    assert final["concern"]["status"] == "RESOLVED"
    assert [(e["direction"], e["personId"]) for e in final["concern"]["conversation"]] == [
        ("OUTBOUND", "p_zhangsan"),
        ("OUTBOUND", "p_lisi"),
        ("INBOUND", "p_lisi"),
        ("OUTBOUND", "p_zhangsan"),
        ("INBOUND", "p_zhangsan"),
        ("INBOUND", "p_owner"),
        ("OUTBOUND", "p_zhangsan"),
        ("INBOUND", "p_zhangsan"),
    ]
    assert final["agenda"] == {
        "concernRefs": [],
        "recentDecisions": [{"concernId": cid, "outcome": "resolved"}],
    }
