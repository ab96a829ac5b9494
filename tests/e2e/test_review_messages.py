"""An app pushes a conversation as structured messages and reviews it, over HTTP, with the
default offline model (docs/conversations.md, docs/rules/precision.md):

- the speaker is a person of every fact, never part of a name or a title;
- 李四's promise, said on Monday for Thursday, is an event on Monday (`validAt` Wednesday
  shows it) and a commitment signal due on Thursday;
- the acknowledgement is nothing; reviewing the same day again adds nothing;
- a bad message is INVALID_INPUT naming its index and records nothing;
- `personBindings { totalCount }` counts the speakers bound.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from neo4j import AsyncDriver

from engine.settings import Settings
from tests.support.agenda_api import SIGNALS
from tests.support.polling import until
from tests.support.processes import Server, offline_stack

SH = timezone(timedelta(hours=8))
MONDAY = datetime(2026, 11, 30, 9, 0, tzinfo=SH)
WEDNESDAY = MONDAY + timedelta(days=2)
MESSAGES = [
    {"speaker": "老板", "at": MONDAY.isoformat(), "text": "张三负责支付模块"},
    {
        "speaker": "李四",
        "at": (MONDAY + timedelta(minutes=2)).isoformat(),
        "text": "前端部分周四能提测",
    },
    {
        "speaker": "张三",
        "at": (MONDAY + timedelta(minutes=4)).isoformat(),
        "text": "支付模块卡在第三方回调接口",
    },
    {"speaker": "王五", "at": (MONDAY + timedelta(minutes=6)).isoformat(), "text": "好的，收到"},
]
UPSERT = "mutation($i: UpsertSourceInput!) { upsertSource(input: $i) { id currentVersion } }"
GRAPH = """query($s: String!, $v: DateTime) { storyGraph(scope: $s, validAt: $v) {
  events { id title at } entities { name kind } relations { type } } }"""
BINDINGS = "query($s: String!) { personBindings(scope: $s) { totalCount } }"


def gql(api: Server, query: str, **variables: Any) -> dict[str, Any]:
    body = api.graphql(query, variables).json()
    assert "errors" not in body, body
    return body["data"]  # type: ignore[no-any-return]


@pytest.fixture
def offline_deployment(
    services: Settings,
    start_server,  # type: ignore[no-untyped-def]
) -> Iterator[Server]:
    with offline_stack(services, start_server, "review-messages") as api:
        yield api


def push(api: Server, scope: str, version: str, messages: list[dict[str, str]]) -> None:
    source = {"scope": scope, "id": "chat", "kind": "CONVERSATION", "version": version}
    lisi = {"name": "李四", "personId": "p_lisi", "channel": "feishu"}
    gql(api, UPSERT, i={**source, "messages": messages, "speakers": [lisi]})


def review_monday(api: Server, scope: str) -> None:
    run_id = gql(
        api,
        "mutation($sc: ReviewScopeInput!, $f: DateTime!, $t: DateTime!) {"
        " startReview(scope: $sc, from: $f, to: $t) { id } }",
        sc={"projectIds": [scope]},
        f=(MONDAY - timedelta(hours=1)).isoformat(),
        t=(MONDAY + timedelta(hours=1)).isoformat(),
    )["startReview"]["id"]
    run = until(
        lambda: gql(
            api,
            "query($id: String!) { supervisionRun(id: $id) { status error { message } } }",
            id=run_id,
        )["supervisionRun"],
        lambda r: r["status"] in ("completed", "failed", "cancelled"),
        what="the review's end",
        timeout=120,
    )
    assert run.get("status") == "completed", run


@pytest.mark.timeout(300)  # two reviews on two busy cores
def test_structured_messages_are_reviewed_once_with_the_promise_on_the_day_it_was_made(
    offline_deployment: Server, scope: str
) -> None:
    api = offline_deployment
    push(api, scope, "v1", MESSAGES)
    review_monday(api, scope)
    graph = gql(api, GRAPH, s=scope)["storyGraph"]
    titles = sorted(e["title"] for e in graph["events"])
    assert titles == sorted(
        ["张三负责支付模块", "前端部分周四能提测", "支付模块卡在第三方回调接口"]
    )
    names = sorted(e["name"] for e in graph["entities"])
    assert names == sorted(["老板", "李四", "张三", "王五", "支付模块"]), names
    assert [r["type"] for r in graph["relations"]] == ["responsible_for"]
    [promise] = [e for e in graph["events"] if e["title"] == "前端部分周四能提测"]
    assert datetime.fromisoformat(promise["at"]) == MONDAY + timedelta(minutes=2)
    by_wednesday = gql(api, GRAPH, s=scope, v=WEDNESDAY.isoformat())["storyGraph"]
    assert promise["id"] in {e["id"] for e in by_wednesday["events"]}
    found = [e["node"] for e in gql(api, SIGNALS, s=scope)["signals"]["edges"]]
    assert sorted(s["kind"] for s in found) == ["BLOCKER", "COMMITMENT"]
    [commitment] = [s for s in found if s["kind"] == "COMMITMENT"]
    assert commitment["who"] == "李四"
    assert (
        datetime.fromisoformat(commitment["due"]).astimezone(SH).date()
        == (MONDAY + timedelta(days=3)).date()
    )
    assert gql(api, BINDINGS, s=scope)["personBindings"]["totalCount"] == 1

    review_monday(api, scope)  # the same day again
    again = gql(api, GRAPH, s=scope)["storyGraph"]
    assert sorted(e["id"] for e in again["events"]) == sorted(e["id"] for e in graph["events"])
    assert len(gql(api, SIGNALS, s=scope)["signals"]["edges"]) == 2


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ({"speaker": "张三", "text": " "}, "text"),
        ({"speaker": "", "text": "提测"}, "speaker"),
        ({"speaker": "张三", "at": "2026-11-30T09:00:00", "text": "提测"}, "at"),
    ],
)
async def test_a_bad_message_is_invalid_input_naming_its_index_and_records_nothing(
    offline_deployment: Server,
    neo4j_driver: AsyncDriver,
    services: Settings,
    scope: str,
    bad: dict[str, str],
    field: str,
) -> None:
    api = offline_deployment
    source = {"scope": scope, "id": "chat", "kind": "CONVERSATION", "version": "v1"}
    body = api.graphql(UPSERT, {"i": {**source, "messages": [MESSAGES[0], bad]}}).json()
    [error] = body["errors"]
    assert error["extensions"]["code"] == "INVALID_INPUT"
    if field == "at":  # a DateTime without a zone is refused with the variable, by path
        assert "messages[1].at" in error["message"], error
    else:
        assert error["extensions"]["index"] == 1 and error["extensions"]["field"] == field
        assert error["message"].startswith("message 1:")
    records, _, _ = await neo4j_driver.execute_query(
        "MATCH (n {scope: $scope}) WHERE n:Source OR n:SourceVersion RETURN count(n) AS n",
        scope=scope,
        database_=services.neo4j_database,
    )
    assert records[0]["n"] == 0
