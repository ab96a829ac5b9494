"""The story graph over HTTP GraphQL: publish, time-sliced reads, corrections, error codes."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from typing import Any

from neo4j import AsyncDriver

from api.demo import load_into
from engine.settings import Settings
from graph.story.repository import StoryRepository
from tests.support.processes import Server
from tests.support.story_api import (
    PUBLISH,
    UPSERT,
    data,
    error_code,
    first_changes,
    result_input,
)

GRAPH = """
query($scope: String!, $asOf: DateTime) {
  storyGraph(scope: $scope, asOf: $asOf) {
    entities { id name description seq userFields }
    relations { id type confirmation removed seq }
    events { title }
    references { sourceVersion excerpt { available text warning } }
  }
}"""


def test_publish_read_correct_and_replay_over_http(api: Server, scope: str) -> None:
    src = {
        "scope": scope,
        "id": "chat",
        "kind": "CONVERSATION",
        "version": "v1",
        "text": "张三: 卡在第三方回调",
    }
    assert data(api.graphql(UPSERT, {"input": src}))["upsertSource"]["currentVersion"] == "v1"

    first = data(api.graphql(PUBLISH, {"input": result_input(scope, "k1")}))["publishResult"]
    assert first["repeat"] is False
    again = data(api.graphql(PUBLISH, {"input": result_input(scope, "k1")}))["publishResult"]
    assert again == {**first, "repeat": True}
    before_edit = datetime.now(UTC).isoformat()  # after the publish, before the edit
    time.sleep(0.05)

    graph = data(api.graphql(GRAPH, {"scope": scope}))["storyGraph"]
    assert [e["title"] for e in graph["events"]] == ["张三：支付模块卡在第三方回调"]
    assert graph["references"][0]["excerpt"] == {
        "available": True,
        "text": "张三: 卡在第三方回调",
        "warning": None,
    }
    pay = next(e for e in graph["entities"] if e["name"] == "支付模块")
    rel = graph["relations"][0]

    edit = """mutation($scope: String!, $id: ID!, $seen: Int!) {
      updateEntity(scope: $scope, id: $id, seenVersion: $seen, edit: {description: "支付模块（人工修订）"}, userId: "boss") {
        seq description userFields by { kind id } } }"""
    edited = data(api.graphql(edit, {"scope": scope, "id": pay["id"], "seen": pay["seq"]}))[
        "updateEntity"
    ]
    assert edited["seq"] == pay["seq"] + 1 and edited["userFields"] == ["description"]
    assert edited["by"] == {"kind": "USER", "id": "boss"}
    stale = api.graphql(edit, {"scope": scope, "id": pay["id"], "seen": pay["seq"]})
    assert error_code(stale) == "CONFLICT"

    removal = """mutation($scope: String!, $id: ID!) { removeRelation(scope: $scope, id: $id) { removed seq } }"""
    assert (
        data(api.graphql(removal, {"scope": scope, "id": rel["id"]}))["removeRelation"]["removed"]
        is True
    )
    assert data(api.graphql(GRAPH, {"scope": scope}))["storyGraph"]["relations"] == []
    restore = """mutation($scope: String!, $id: ID!) { restoreRelation(scope: $scope, id: $id) { removed } }"""
    assert (
        data(api.graphql(restore, {"scope": scope, "id": rel["id"]}))["restoreRelation"]["removed"]
        is False
    )

    past = data(api.graphql(GRAPH, {"scope": scope, "asOf": before_edit}))["storyGraph"]
    assert (
        next(e for e in past["entities"] if e["name"] == "支付模块")["description"]
        == "后端支付模块"
    )

    later = result_input(scope, "k2", description="自动整理的新描述")
    later["entities"][0]["id"] = pay["id"]
    data(api.graphql(PUBLISH, {"input": later}))
    view = """query($scope: String!, $id: ID!) { entity(scope: $scope, id: $id) {
        entity { description } history { seq } pendingSuggestions { field proposedValue } } }"""
    entity = data(api.graphql(view, {"scope": scope, "id": pay["id"]}))["entity"]
    assert entity["entity"]["description"] == "支付模块（人工修订）"
    assert entity["pendingSuggestions"] == [
        {"field": "description", "proposedValue": "自动整理的新描述"}
    ]
    assert [h["seq"] for h in entity["history"]] == [1, 2]


def test_rejected_publish_writes_nothing_and_says_why(api: Server, scope: str) -> None:
    bad_ref = result_input(scope, "k-missing")  # cites source chat@v1, never pushed to this scope
    response = api.graphql(PUBLISH, {"input": bad_ref})
    assert error_code(response) == "INVALID_INPUT"
    assert response.json()["errors"][0]["extensions"]["missing"] == ["chat@v1"]
    dangling = result_input(scope, "k-dangling")
    dangling["relations"][0]["to"] = "nobody"
    assert error_code(api.graphql(PUBLISH, {"input": dangling})) == "INVALID_INPUT"
    graph = data(api.graphql(GRAPH, {"scope": scope}))["storyGraph"]
    assert graph["entities"] == [] and graph["events"] == []


def test_ids_of_another_scope_are_not_found_and_scopes_never_mix(api: Server, scope: str) -> None:
    src = {"scope": scope, "id": "chat", "kind": "CONVERSATION", "version": "v1", "text": "x"}
    data(api.graphql(UPSERT, {"input": src}))
    data(api.graphql(PUBLISH, {"input": result_input(scope, "k1")}))
    pay = data(api.graphql(GRAPH, {"scope": scope}))["storyGraph"]["entities"][0]
    other = f"{scope}-other"
    view = """query($scope: String!, $id: ID!) { entity(scope: $scope, id: $id) { entity { name } } }"""
    missing = api.graphql(view, {"scope": other, "id": pay["id"]})
    assert error_code(missing) == "NOT_FOUND"
    assert data(api.graphql(GRAPH, {"scope": other}))["storyGraph"]["entities"] == []
    assert error_code(api.graphql(GRAPH, {"scope": "bad scope!"})) == "INVALID_INPUT"


def test_token_scopes_limit_reads_and_roles_limit_writes(start_server, scope: str) -> None:  # type: ignore[no-untyped-def]
    tokens = (
        f'[{{"token": "r", "scopes": ["{scope}"], "roles": ["reader"]}},'
        f' {{"token": "w", "scopes": ["{scope}"], "roles": ["editor"]}}]'
    )
    secured = start_server(API_TOKENS=tokens)
    assert "errors" not in secured.graphql(GRAPH, {"scope": scope}, token="r").json()
    assert error_code(secured.graphql(GRAPH, {"scope": "global"}, token="r")) == "FORBIDDEN"
    src = {"scope": scope, "id": "chat", "kind": "CONVERSATION", "version": "v1", "text": "x"}
    assert error_code(secured.graphql(UPSERT, {"input": src}, token="r")) == "FORBIDDEN"
    assert "errors" not in secured.graphql(UPSERT, {"input": src}, token="w").json()


def test_graph_view_and_paged_sidebar_lists(api: Server, scope: str) -> None:
    src = {"scope": scope, "id": "chat", "kind": "CONVERSATION", "version": "v1", "text": "x"}
    data(api.graphql(UPSERT, {"input": src}))
    data(api.graphql(PUBLISH, {"input": result_input(scope, "k1")}))
    view = data(
        api.graphql(
            "query($s: String!) { graphView(scope: $s) { nodes { label } edges { kind label } "
            "timeline { title } recordedRange { first last } } }",
            {"s": scope},
        )
    )["graphView"]
    assert sorted(n["label"] for n in view["nodes"]) == ["支付模块", "第三方回调接口"]
    assert {(e["kind"], e["label"]) for e in view["edges"]} == {
        ("relation", "blocked_by"),
        ("change", "revised"),
    }
    assert view["recordedRange"]["first"] is not None
    page = """query($s: String!, $after: String) { entities(scope: $s, first: 1, after: $after) {
        totalCount pageInfo { hasNextPage endCursor } edges { node { name } } } }"""
    one = data(api.graphql(page, {"s": scope}))["entities"]
    assert one["totalCount"] == 2 and one["pageInfo"]["hasNextPage"] is True
    two = data(api.graphql(page, {"s": scope, "after": one["pageInfo"]["endCursor"]}))["entities"]
    assert two["pageInfo"]["hasNextPage"] is False
    assert {one["edges"][0]["node"]["name"], two["edges"][0]["node"]["name"]} == {
        "支付模块",
        "第三方回调接口",
    }
    assert error_code(api.graphql(page, {"s": scope, "after": "garbage"})) == "INVALID_INPUT"


async def test_graph_changed_subscription_hears_a_publish(api: Server, scope: str) -> None:
    import asyncio
    import json

    import websockets

    url = api.url.replace("http://", "ws://") + "/graphql"
    async with websockets.connect(url, subprotocols=["graphql-transport-ws"]) as ws:  # type: ignore[list-item]
        await ws.send(json.dumps({"type": "connection_init"}))
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        await ws.send(
            json.dumps(
                {
                    "id": "1",
                    "type": "subscribe",
                    "payload": {
                        "query": "subscription($s: String!) { graphChanged(scope: $s) { scope kind ids by } }",
                        "variables": {"s": scope},
                    },
                }
            )
        )

        async def probe(n: int) -> None:  # until the subscription hears: no answer tells when
            note = {
                "scope": scope,
                "id": f"probe-{n}",
                "kind": "NOTE",
                "version": "v1",
                "text": "p",
            }
            await asyncio.to_thread(api.graphql, UPSERT, {"input": note})

        await first_changes([ws], probe)
        src = {"scope": scope, "id": "chat", "kind": "CONVERSATION", "version": "v1", "text": "x"}
        await asyncio.to_thread(api.graphql, UPSERT, {"input": src})
        await asyncio.to_thread(api.graphql, PUBLISH, {"input": result_input(scope, "k1")})
        kinds: list[str] = []
        while "result" not in kinds:
            message = json.loads(await asyncio.wait_for(ws.recv(), timeout=30))
            assert message["type"] == "next", message
            change = message["payload"]["data"]["graphChanged"]
            assert change["scope"] == scope
            if not any("probe-" in str(i) for i in change["ids"]):  # a late probe's echo
                kinds.append(change["kind"])
        assert kinds == ["source", "result"]
        assert change["by"] == "run:run-e2e"


def test_viz_page_is_served_and_its_queries_run_against_the_schema(api: Server, scope: str) -> None:
    import re

    import httpx

    page = httpx.get(f"{api.url}/viz")
    assert page.status_code == 200 and "/viz/viz.js" in page.text
    script = httpx.get(f"{api.url}/viz/viz.js").text
    found = dict(re.findall(r"const (REPLAY_Q|DETAIL_Q) = `(.*?)`;", script, re.S))
    assert set(found) == {"REPLAY_Q", "DETAIL_Q"}, "the page's GraphQL queries"
    src = {"scope": scope, "id": "chat", "kind": "CONVERSATION", "version": "v1", "text": "x"}
    data(api.graphql(UPSERT, {"input": src}))
    data(api.graphql(PUBLISH, {"input": result_input(scope, "k1")}))
    replay = data(api.graphql(found["REPLAY_Q"], {"s": scope, "from": None, "to": None}))
    assert replay["graphReplay"]["tables"]["events"]
    # The page sends moments in UTC (Z); the data may have been written with another offset.
    now = datetime.now(UTC).isoformat().replace("+00:00", "Z")
    tables = replay["graphReplay"]["tables"]
    pay = next(r[0] for r in tables["entities"] if r[2] == "支付模块")
    # a click reads the object clicked with what its details show, not the scope
    detail = data(api.graphql(found["DETAIL_Q"], {"s": scope, "ids": [pay], "a": now}))
    around = detail["storyObjects"]
    assert {e["name"] for e in around["entities"]} == {"支付模块", "第三方回调接口"}
    assert [r["type"] for r in around["relations"]] == ["blocked_by"]
    assert [e["title"] for e in around["events"]] == ["张三：支付模块卡在第三方回调"]
    assert [c["kind"] for c in around["changes"]] == ["REVISED"]
    event = tables["events"][0][0]
    cited = data(api.graphql(found["DETAIL_Q"], {"s": scope, "ids": [event], "a": now}))
    assert cited["storyObjects"]["references"][0]["excerpt"]["available"] is True
    # no ids, or too many, is an input error naming the argument and its form
    for ids in ([], [f"id-{i}" for i in range(101)]):
        refused = api.graphql(found["DETAIL_Q"], {"s": scope, "ids": ids, "a": now})
        assert error_code(refused) == "INVALID_INPUT", refused.json()
        assert "ids takes 1 to 100 object ids" in refused.json()["errors"][0]["message"]


REPLAY = """
query($scope: String!, $asOf: DateTime) {
  storyGraph(scope: $scope, asOf: $asOf) {
    asOf
    events { title recordedAt }
    relations { type confirmation }
  }
  graphView(scope: $scope, asOf: $asOf) { timeline { title } }
}"""


async def test_replay_of_the_demo_at_its_record_instants_written_in_other_offsets(
    api: Server, scope: str, neo4j_driver: AsyncDriver, services: Settings
) -> None:
    """The demo is written in Beijing time (+08:00); the graph view sends Z; others -05:00."""
    await load_into(StoryRepository(neo4j_driver, services.neo4j_database), scope)

    def replay(as_of: str) -> dict[str, Any]:
        return data(api.graphql(REPLAY, {"scope": scope, "asOf": as_of}))

    first = "老板委托询问 v2.0 提测时间"  # the first result, recorded at 2026-03-17 10:10 +08:00
    for moment in ("2026-03-17T02:10:00Z", "2026-03-16T21:10:00-05:00"):
        known = await asyncio.to_thread(replay, moment)
        assert [e["title"] for e in known["storyGraph"]["events"]] == [first], moment
        assert [t["title"] for t in known["graphView"]["timeline"]] == [first], moment
        assert known["storyGraph"]["asOf"] == "2026-03-17T02:10:00+00:00"  # answers in UTC
        assert known["storyGraph"]["events"][0]["recordedAt"] == "2026-03-17T02:10:00+00:00"
    before = await asyncio.to_thread(replay, "2026-03-16T21:09:59-05:00")
    assert before["storyGraph"]["events"] == [] and before["graphView"]["timeline"] == []
    # The person confirmed the blocked_by relation at 15:00 +08:00 = 07:00Z = 02:00-05:00.
    for moment, state in (
        ("2026-03-17T01:59:59-05:00", "SUGGESTED"),
        ("2026-03-17T02:00:00-05:00", "CONFIRMED"),
    ):
        known = await asyncio.to_thread(replay, moment)
        blocked = [
            r["confirmation"] for r in known["storyGraph"]["relations"] if r["type"] == "blocked_by"
        ]
        assert blocked == [state], moment


def test_a_read_time_without_a_zone_is_invalid_input(api: Server, scope: str) -> None:
    for query in (
        'query($s: String!) { storyGraph(scope: $s, asOf: "2026-03-17T10:10:00") { asOf } }',
        'query($s: String!) { storyGraph(scope: $s, validAt: "2026-03-17T10:10:00") { asOf } }',
        'query($s: String!) { events(scope: $s, from: "2026-03-17T10:10:00") { totalCount } }',
        'query($s: String!) { graphView(scope: $s, to: "2026-03-17T10:10:00") { asOf } }',
        'query($s: String!) { entity(scope: $s, id: "x", asOf: "2026-03-17T10:10:00") '
        "{ entity { id } } }",
    ):
        body = api.graphql(query, {"s": scope}).json()
        assert body["errors"][0]["extensions"]["code"] == "INVALID_INPUT", query
        assert "time zone" in body["errors"][0]["message"], body


WITHDRAW = """
mutation($scope: String!, $version: String!) {
  withdrawSource(scope: $scope, sourceId: "chat", version: $version, reason: "用户删除了消息") {
    version available withdrawnAt withdrawalReason
  }
}"""
CITED = """
query($scope: String!, $asOf: DateTime) {
  storyGraph(scope: $scope, asOf: $asOf) {
    events { title }
    entities { name }
    relations { type }
    references { sourceVersion excerpt { available text warning withdrawnAt } }
  }
}"""


async def test_a_withdrawn_source_version_reads_unavailable_and_its_text_is_gone(
    api: Server, scope: str, neo4j_driver: AsyncDriver, services: Settings
) -> None:
    def call(query: str, variables: dict[str, Any]) -> Any:
        return api.graphql(query, {"scope": scope, **variables})

    async def gql(query: str, **variables: Any) -> dict[str, Any]:
        return data(await asyncio.to_thread(call, query, variables))

    src = {
        "scope": scope,
        "id": "chat",
        "kind": "CONVERSATION",
        "version": "v1",
        "text": "张三: 密钥 sk-1",
    }
    await gql(UPSERT, input=src)
    await gql(PUBLISH, input=result_input(scope, "k1"))
    before = datetime.now(UTC).isoformat()
    await asyncio.sleep(0.05)

    gone = (await gql(WITHDRAW, version="v1"))["withdrawSource"]
    assert gone["available"] is False and gone["withdrawnAt"] is not None
    assert gone["withdrawalReason"] == "用户删除了消息"
    again = (await gql(WITHDRAW, version="v1"))["withdrawSource"]
    assert again["withdrawnAt"] == gone["withdrawnAt"]  # a repeat changes nothing
    missing = await asyncio.to_thread(call, WITHDRAW, {"version": "v9"})
    assert error_code(missing) == "NOT_FOUND"

    records, _, _ = await neo4j_driver.execute_query(
        "MATCH (v:SourceVersion {scope: $scope, source_id: 'chat', version: 'v1'}) "
        "RETURN keys(v) AS keys",
        scope=scope,
        database_=services.neo4j_database,
    )
    assert "text" not in records[0]["keys"]

    for as_of in (None, before):  # now, and a replay of a moment before the withdrawal
        graph = (await gql(CITED, asOf=as_of))["storyGraph"]
        assert [e["title"] for e in graph["events"]] == ["张三：支付模块卡在第三方回调"]
        assert sorted(e["name"] for e in graph["entities"]) == ["支付模块", "第三方回调接口"]
        assert [r["type"] for r in graph["relations"]] == ["blocked_by"]
        (ref,) = graph["references"]
        ex = ref["excerpt"]
        assert ref["sourceVersion"] == "v1" and ex["available"] is False and ex["text"] is None
        assert ex["withdrawnAt"] == gone["withdrawnAt"] and "撤回" in ex["warning"]


def test_withdrawing_needs_the_editor_role_in_that_scope(start_server, scope: str) -> None:  # type: ignore[no-untyped-def]
    import json

    tokens = [
        {"token": "reader", "name": "r", "scopes": [scope], "roles": ["reader"]},
        {"token": "other", "name": "o", "scopes": ["elsewhere"], "roles": ["reader", "editor"]},
        {"token": "app", "name": "app", "scopes": [scope], "roles": ["reader", "editor"]},
    ]
    server = start_server(API_TOKENS=json.dumps(tokens))
    src = {"scope": scope, "id": "chat", "kind": "CONVERSATION", "version": "v1", "text": "x"}
    data(server.graphql(UPSERT, {"input": src}, token="app"))
    variables = {"scope": scope, "version": "v1"}
    assert error_code(server.graphql(WITHDRAW, variables, token="reader")) == "FORBIDDEN"
    outside = error_code(server.graphql(WITHDRAW, variables, token="other"))
    assert outside == error_code(server.graphql(UPSERT, {"input": src}, token="other"))
    assert outside in ("FORBIDDEN", "NOT_FOUND")
    assert (
        data(server.graphql(WITHDRAW, variables, token="app"))["withdrawSource"]["available"]
        is False
    )
