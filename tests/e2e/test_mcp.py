"""Agents over MCP: the SDK's own client against the real API (`/mcp`, streamable
HTTP) and worker, and `storygraph mcp` over stdio. Same tokens, scopes and roles as GraphQL."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import partial
from typing import Any

import httpx
import pytest
from mcp.shared.exceptions import MCPError
from neo4j import AsyncDriver

from engine.settings import Settings
from jobs.deps import Deps
from tests.support.concern_api import register_people
from tests.support.mcp import all_pages, body, error_code, http_client, stdio_client
from tests.support.polling import until_async
from tests.support.processes import Server, process_env
from tests.support.signal_chain import SHANGHAI, build_chain

FULL, READER, OUTSIDER = "mcp-full-token", "mcp-reader-token", "mcp-outsider-token"
ADMIN = "mcp-admin-token"
TOKENS = [
    {"token": ADMIN, "name": "ops", "scopes": ["*"], "roles": ["admin"]},
    {
        "token": FULL,
        "name": "agent",
        "scopes": ["*"],
        "roles": ["reader", "editor", "agenda", "operator"],  # operator: speakers bind persons
    },
    {"token": READER, "name": "looker", "scopes": ["*"], "roles": ["reader"]},
    {
        "token": OUTSIDER,
        "name": "elsewhere",
        "scopes": ["elsewhere"],
        "roles": ["reader", "agenda", "operator"],
    },
]
STORY_TOOLS = {
    "story_graph",
    "story_diff",
    "list_entities",
    "list_relations",
    "list_events",
    "get_entity",
    "get_result",
}
CONCERN_TOOLS = {"raise_concern", "advance_concern", "check_concerns", "change_concern_priority"}
REVIEW_TOOLS = {"start_review", "review_status"}
SEARCH_TOOLS = {"search"}
SIGNAL_TOOLS = {"list_signals"}
SOURCE_TOOLS = {"upsert_source"}

PUBLISH = """mutation($input: PublishResultInput!) {
  publishResult(input: $input, runId: "run-mcp") { result { id } } }"""
UPSERT = """mutation($input: UpsertSourceInput!) { upsertSource(input: $input) { id } }"""
CONFIRM = """mutation($scope: String!, $id: ID!) {
  confirmRelation(scope: $scope, id: $id, why: "checked") { confirmation } }"""
RAISE_GQL = """mutation($input: RaiseConcernInput!) { raiseConcern(input: $input) { id } }"""
AGENDA_GQL = (
    """query($scope: String!) { agenda(scope: $scope) { concernRefs { concernId priority } } }"""
)
CONCERN_GQL = """query($id: ID!) { concern(id: $id) { status revision
  conversation { direction personId text } timeline { type detail } } }"""


@pytest.fixture(scope="module")
def api(start_server: Callable[..., Server]) -> Server:
    return start_server(API_TOKENS=json.dumps(TOKENS))


def gql(api: Server, query: str, **variables: Any) -> dict[str, Any]:
    got = api.graphql(query, variables, token=FULL).json()
    assert "errors" not in got, got["errors"]
    return got["data"]  # type: ignore[no-any-return]


def publish_story(api: Server, scope: str) -> str:
    """A small story; the callback entity cites v0, a version the app no longer has."""
    gql(
        api,
        UPSERT,
        input={
            "scope": scope,
            "id": "chat",
            "kind": "CONVERSATION",
            "version": "v1",
            "text": "张三: 支付模块卡在第三方回调",
            "previous": [{"version": "v0"}],
        },
    )
    result = gql(
        api,
        PUBLISH,
        input={
            "scope": scope,
            "key": "k1",
            "decisions": ["先用 mock 跑通"],
            "events": [
                {
                    "ref": "e1",
                    "title": "张三：支付模块卡在第三方回调",
                    "at": "2026-03-17T13:20:00+08:00",
                }
            ],
            "entities": [
                {
                    "ref": "pay",
                    "name": "支付模块",
                    "status": "MAIN",
                    "description": "后端支付",
                    "references": [
                        {"sourceId": "chat", "sourceVersion": "v1", "locator": "chars:4-8"}
                    ],
                },
                {
                    "ref": "cb",
                    "name": "第三方回调接口",
                    "status": "MAIN",
                    "references": [
                        {"sourceId": "chat", "sourceVersion": "v0", "locator": "chars:0-2"}
                    ],
                },
            ],
            "changes": [{"event": "e1", "entity": "pay", "kind": "REVISED"}],
            "relations": [
                {"ref": "r1", "from": "pay", "to": "cb", "type": "blocked_by", "reason": "沙箱未到"}
            ],
        },
    )
    return str(result["publishResult"]["result"]["id"])


async def test_tools_are_listed_without_resolve_concern_or_as_of(api: Server) -> None:
    async with http_client(api.url, FULL) as client:
        tools = (await client.list_tools()).tools
        templates = (await client.list_resource_templates()).resource_templates
    names = {t.name for t in tools}
    assert names == (
        STORY_TOOLS | CONCERN_TOOLS | REVIEW_TOOLS | SEARCH_TOOLS | SIGNAL_TOOLS | SOURCE_TOOLS
    )
    assert "resolve_concern" not in names
    for tool in tools:
        schema = json.dumps(tool.input_schema).lower()
        assert "as_of" not in schema and "asof" not in schema, tool.name
    for name in (STORY_TOOLS | SEARCH_TOOLS) - {"get_result", "list_events"}:
        described = next(t.description for t in tools if t.name == name) or ""
        assert "suggested" in described and "never state it as fact" in described, name
    raise_schema = next(t.input_schema for t in tools if t.name == "raise_concern")
    assert {"scope", "title", "goal"} <= set(raise_schema["required"])
    assert [t.uri_template for t in templates] == [
        "storygraph://{scope}/people/{person_id}/context",
        "storygraph://{scope}/sessions/{session_id}/watch-handoffs",
    ]


async def test_agent_reads_a_published_story_and_sees_what_is_only_suggested(
    api: Server, scope: str
) -> None:
    result_id = publish_story(api, scope)
    async with http_client(api.url, FULL) as client:
        graph = body(await client.call_tool("story_graph", {"scope": scope}))
        assert graph["counts"]["entities"] == 2 and graph["counts"]["events"] == 1
        assert {e["name"] for e in graph["entities"]} == {"支付模块", "第三方回调接口"}
        assert all(e["standing"] == "suggested" for e in graph["entities"])
        (rel,) = graph["relations"]
        assert (rel["from_name"], rel["type"], rel["to_name"]) == (
            "支付模块",
            "blocked_by",
            "第三方回调接口",
        )
        assert rel["standing"] == "suggested"
        assert graph["next"] == {
            "entities": None,
            "relations": None,
            "events": None,
            "open_signals": None,
        }

        gql(api, CONFIRM, scope=scope, id=rel["id"])
        confirmed = body(await client.call_tool("list_relations", {"scope": scope}))
        assert [r["standing"] for r in confirmed["items"]] == ["confirmed"]

        outside = body(
            await client.call_tool(
                "story_graph",
                {
                    "scope": scope,
                    "from_time": "2026-03-18T00:00:00+08:00",
                    "to_time": "2026-03-19T00:00:00+08:00",
                },
            )
        )
        assert outside["counts"]["events"] == 0 and outside["entities"] == []
        naive = await client.call_tool(
            "story_graph", {"scope": scope, "from_time": "2026-03-17T00:00:00"}
        )
        assert error_code(naive) == "INVALID_INPUT"

        pay = next(e for e in graph["entities"] if e["name"] == "支付模块")
        cb = next(e for e in graph["entities"] if e["name"] == "第三方回调接口")
        detail = body(
            await client.call_tool("get_entity", {"scope": scope, "entity_id": pay["id"]})
        )
        assert [v["version"] for v in detail["history"]] == [1]
        assert [r["standing"] for r in detail["relations"]] == ["confirmed"]
        (ref,) = [r for r in detail["references"] if r["cites"] == f"entity:{pay['id']}"]
        assert (ref["availability"], ref["excerpt"]) == ("available", "支付模块")
        gone = body(await client.call_tool("get_entity", {"scope": scope, "entity_id": cb["id"]}))
        (missing,) = gone["references"]
        assert missing["availability"] == "unavailable" and missing["excerpt"] is None
        assert missing["warning"]
        assert "张三" not in json.dumps(missing, ensure_ascii=False)  # never today's text

        recap = body(await client.call_tool("get_result", {"scope": scope, "result_id": result_id}))
        assert recap["result"]["decisions"] == ["先用 mock 跑通"]
        assert recap["counts"]["entities"] == 2
        unknown = await client.call_tool("get_entity", {"scope": scope, "entity_id": "ent_nope"})
        assert error_code(unknown) == "NOT_FOUND"


async def test_agent_pages_through_entities_with_the_next_cursor(api: Server, scope: str) -> None:
    names = [f"模块{i:02d}" for i in range(27)]
    gql(
        api,
        PUBLISH,
        input={
            "scope": scope,
            "key": "many",
            "entities": [
                {"ref": f"m{i}", "name": n, "status": "MAIN"} for i, n in enumerate(names)
            ],
        },
    )
    async with http_client(api.url, FULL) as client:
        pages = await all_pages(client, "list_entities", {"scope": scope, "first": 10})
        assert all(p["total"] == 27 and len(p["items"]) <= 10 for p in pages)
        assert (len(pages), [e["name"] for p in pages for e in p["items"]]) == (3, names)
        default = body(await client.call_tool("story_graph", {"scope": scope}))
        assert len(default["entities"]) == 20 and default["next"]["entities"]
        too_big = await client.call_tool("list_entities", {"scope": scope, "first": 51})
        assert error_code(too_big) == "INVALID_INPUT"
        bad_cursor = await client.call_tool("list_entities", {"scope": scope, "after": "nope"})
        assert error_code(bad_cursor) == "INVALID_INPUT"


async def test_events_are_paged_in_time_order_from_the_story_graph_s_next_cursor(
    api: Server, scope: str
) -> None:
    titles = [f"第{i:02d}次站会" for i in range(27)]
    gql(
        api,
        PUBLISH,
        input={
            "scope": scope,
            "key": "standups",
            "events": [
                {"ref": f"e{i}", "title": t, "at": f"2026-03-{1 + i:02d}T01:00:00Z"}
                for i, t in enumerate(reversed(titles))
            ],
        },
    )
    in_time = list(reversed(titles))
    async with http_client(api.url, FULL) as client:
        graph = body(await client.call_tool("story_graph", {"scope": scope}))
        assert [e["title"] for e in graph["events"]] == in_time[:20]
        rest = body(
            await client.call_tool(
                "list_events", {"scope": scope, "after": graph["next"]["events"]}
            )
        )
        assert [e["title"] for e in rest["items"]] == in_time[20:] and rest["next"] is None
        pages = await all_pages(client, "list_events", {"scope": scope, "first": 10})
        assert all(p["total"] == 27 for p in pages) and len(pages) == 3
        assert [e["title"] for p in pages for e in p["items"]] == in_time
        window = body(
            await client.call_tool(
                "list_events",
                {"scope": scope, "from_time": "2026-03-05T00:00Z", "to_time": "2026-03-08T00:00Z"},
            )
        )
        assert [e["title"] for e in window["items"]] == in_time[4:7]
        bad_cursor = await client.call_tool("list_events", {"scope": scope, "after": "nope"})
        assert error_code(bad_cursor) == "INVALID_INPUT"


async def test_a_whole_scope_too_large_for_one_read_is_refused_with_how_to_narrow_it(
    start_server: Callable[..., Server], scope: str
) -> None:
    small = start_server(API_TOKENS=json.dumps(TOKENS), STORY_MAX_UNBOUNDED_OBJECTS="5")
    gql(
        small,
        PUBLISH,
        input={
            "scope": scope,
            "key": "seven",
            "entities": [{"ref": f"m{i}", "name": f"模块{i}", "status": "MAIN"} for i in range(7)],
        },
    )
    async with http_client(small.url, FULL) as client:
        whole = await client.call_tool("story_graph", {"scope": scope})
        assert error_code(whole) == "INVALID_INPUT"
        assert "more than 5 entities" in whole.content[0].text  # type: ignore[union-attr]
        paged = body(await client.call_tool("list_events", {"scope": scope}))
        assert paged["total"] == 0  # the list tools still answer


UPDATE_ENTITY = """mutation($scope: String!, $id: ID!, $seen: Int!, $d: String!) {
  updateEntity(scope: $scope, id: $id, seenVersion: $seen, edit: {description: $d}) { seq } }"""


async def test_the_list_tools_page_a_scope_over_the_cap_and_a_window_in_the_database(
    start_server: Callable[..., Server], scope: str
) -> None:
    """Past the whole-scope cap the list tools still page every entity and relation (each
    page is read in the database, by name or type), a window keeps what its events touch,
    the story graph's cursors continue in the list tools, and a page carries its entities'
    pending suggestions and its relations' end names."""
    small = start_server(API_TOKENS=json.dumps(TOKENS), STORY_MAX_UNBOUNDED_OBJECTS="5")
    names = [f"模块{i}" for i in range(8)]
    events = [("march", "2026-03-10T02:00:00Z", [0, 1, 2]), ("may", "2026-05-10T02:00:00Z", [5])]
    gql(
        small,
        PUBLISH,
        input={
            "scope": scope,
            "key": "eight",
            "entities": [
                {"ref": f"m{i}", "name": n, "status": "MAIN"} for i, n in enumerate(names)
            ],
            "events": [{"ref": r, "title": r, "at": at} for r, at, _ in events],
            "changes": [
                {"event": r, "entity": f"m{i}", "kind": "REVISED"}
                for r, _, ids in events
                for i in ids
            ],
            "relations": [
                {"ref": f"r{i}", "from": f"m{i}", "to": f"m{i + 1}", "type": f"t{i}"}
                for i in range(7)
            ],
        },
    )
    march = {"scope": scope, "from_time": "2026-03-01T00:00Z", "to_time": "2026-03-31T00:00Z"}
    async with http_client(small.url, FULL) as client:
        assert (
            error_code(await client.call_tool("story_graph", {"scope": scope})) == "INVALID_INPUT"
        )
        pages = await all_pages(client, "list_entities", {"scope": scope, "first": 3})
        assert [e["name"] for p in pages for e in p["items"]] == names and len(pages) == 3
        assert all(p["total"] == 8 for p in pages)
        rels = await all_pages(client, "list_relations", {"scope": scope, "first": 3})
        assert [(r["from_name"], r["type"], r["to_name"]) for p in rels for r in p["items"]] == [
            (names[i], f"t{i}", names[i + 1]) for i in range(7)
        ]
        in_march = body(await client.call_tool("list_entities", march))
        assert [e["name"] for e in in_march["items"]] == names[:3] and in_march["total"] == 3
        among = body(await client.call_tool("list_relations", march))
        assert [r["type"] for r in among["items"]] == ["t0", "t1"] and among["total"] == 2
        graph = body(
            await client.call_tool("story_graph", {**march, "to_time": "2026-06-01T00:00Z"})
        )
        assert graph["counts"]["entities"] == 4
        first = body(await client.call_tool("list_entities", {**march, "first": 2}))
        rest = body(await client.call_tool("list_entities", {**march, "after": first["next"]}))
        assert [e["name"] for e in first["items"] + rest["items"]] == names[:3]
        assert rest["next"] is None

        entity = in_march["items"][1]
        gql(small, UPDATE_ENTITY, scope=scope, id=entity["id"], seen=entity["version"], d="人写的")
        gql(
            small,
            PUBLISH,
            input={
                "scope": scope,
                "key": "again",
                "entities": [
                    {
                        "ref": "x",
                        "id": entity["id"],
                        "name": entity["name"],
                        "description": "模型的",
                    }
                ],
            },
        )
        again = body(await client.call_tool("list_entities", march))
        pending = {e["name"]: e["pending_suggestions"] for e in again["items"]}
        assert [s["proposed_value"] for s in pending[entity["name"]]] == ["模型的"]
        assert pending[names[0]] == [] and pending[names[2]] == []


def concern_input(scope: str) -> dict[str, Any]:
    return {
        "scope": scope,
        "title": "问张三 v2.0 提测时间",
        "goal": "拿到张三 v2.0 的提测时间",
        "priority": "high",
        "initiator": {"name": "老板", "channel": "feishu", "person_id": "p_owner"},
        "people": [{"person_id": "p_zhangsan", "display_name": "张三"}],
    }


async def wait_concern(api: Server, cid: str, done: Callable[[dict[str, Any]], bool]) -> Any:
    return await until_async(
        lambda: asyncio.to_thread(lambda: gql(api, CONCERN_GQL, id=cid)["concern"]),
        done,
        "the worker acting on the concern",
    )


async def test_agent_raises_and_advances_a_concern_and_the_worker_acts(
    api: Server, worker: Any, scope: str
) -> None:
    register_concern_people(api, scope)
    async with http_client(api.url, FULL) as client:
        raised = body(await client.call_tool("raise_concern", concern_input(scope)))["concern"]
        cid = raised["concern_id"]
        assert raised["status"] == "pending" and raised["goal"] == "拿到张三 v2.0 的提测时间"

        listed = body(await client.call_tool("check_concerns", {"scope": scope}))
        assert [c["concern_id"] for c in listed["items"]] == [cid]

        # docs/rules/concerns.md priority 变化: the agenda entry follows, the timeline records it
        changed = body(
            await client.call_tool(
                "change_concern_priority",
                {"scope": scope, "concern_id": cid, "priority": "critical"},
            )
        )["concern"]
        assert changed["priority"] == "critical"
        assert changed["recent_timeline"][-1]["type"] == "priority_changed"
        assert changed["recent_timeline"][-1]["detail"].startswith("优先级 high → critical")
        refs = gql(api, AGENDA_GQL, scope=scope)["agenda"]["concernRefs"]
        assert [(r["concernId"], r["priority"]) for r in refs] == [(cid, "CRITICAL")]

        advanced = body(
            await client.call_tool(
                "advance_concern",
                {
                    "scope": scope,
                    "concern_id": cid,
                    "person_id": "p_zhangsan",
                    "text": "v2.0 周五可以提测",
                    "channel": "feishu",
                    "message_id": "m-1",
                },
            )
        )
        assert advanced["enqueued"] is True
        seen = advanced["concern"]["revision"]

        after = await wait_concern(api, cid, lambda c: c["revision"] > seen)
        assert any(
            e["direction"] == "INBOUND" and e["text"] == "v2.0 周五可以提测"
            for e in after["conversation"]
        )
        # the loop's judgement is visible to the agent through check_concerns as well
        mine = body(
            await client.call_tool(
                "check_concerns",
                {"scope": scope, "person_id": "p_zhangsan", "status": after["status"].lower()},
            )
        )
        (item,) = [c for c in mine["items"] if c["concern_id"] == cid]
        assert item["revision"] == after["revision"] and item["revision"] > seen

        missing_goal = await client.call_tool("raise_concern", {**concern_input(scope), "goal": ""})
        gql_answer = api.graphql(
            RAISE_GQL, {"input": {**gql_concern(scope), "goal": ""}}, token=FULL
        ).json()
        assert error_code(missing_goal) == gql_answer["errors"][0]["extensions"]["code"]
        assert error_code(missing_goal) == "INVALID_INPUT"
        unknown = await client.call_tool(
            "advance_concern",
            {"scope": scope, "concern_id": "con_nope", "person_id": "p", "text": "hi"},
        )
        assert error_code(unknown) == "NOT_FOUND"


def register_concern_people(api: Server, scope: str) -> None:
    """The people concern_input names, registered: a concern messages only known people."""
    register_people(partial(gql, api), gql_concern(scope))


def gql_concern(scope: str) -> dict[str, Any]:
    data = concern_input(scope)
    return {
        **data,
        "priority": "HIGH",
        "people": [{"personId": "p_zhangsan", "displayName": "张三"}],
        "initiator": {"name": "老板", "channel": "feishu", "personId": "p_owner"},
    }


async def test_conversation_context_resource_lists_concerns_awaiting_the_persons_reply(
    api: Server, scope: str
) -> None:
    register_concern_people(api, scope)  # before 张三's own profile, which it would reset
    upsert = """mutation($input: PersonInput!) { upsertPerson(input: $input) { personId } }"""
    gql(
        api,
        upsert,
        input={
            "scope": scope,
            "personId": "p_zhangsan",
            "displayName": "张三",
            "preferredChannel": "feishu",
        },
    )
    async with http_client(api.url, FULL) as client:
        cid = body(await client.call_tool("raise_concern", concern_input(scope)))["concern"][
            "concern_id"
        ]
        uri = f"storygraph://{scope}/people/p_zhangsan/context"
        got = json.loads((await client.read_resource(uri)).contents[0].text)  # type: ignore[union-attr]
        assert got["person"]["display_name"] == "张三"
        assert [c["concern_id"] for c in got["concerns"]] == [cid]
    async with http_client(api.url, OUTSIDER) as outsider:
        with pytest.raises(MCPError) as refused:
            await outsider.read_resource(uri)
        assert "NOT_FOUND" in str(refused.value) and "张三" not in str(refused.value)


async def test_a_partner_sessions_hand_offs_are_not_readable_from_another_scope(
    api: Server, scope: str
) -> None:
    uri = f"storygraph://{scope}/sessions/s-1/watch-handoffs"
    async with http_client(api.url, READER) as client:
        got = json.loads((await client.read_resource(uri)).contents[0].text)  # type: ignore[union-attr]
        assert got == {"scope": scope, "session_id": "s-1", "handoffs": []}
    async with http_client(api.url, OUTSIDER) as outsider:
        with pytest.raises(MCPError) as refused:
            await outsider.read_resource(uri)
        assert "NOT_FOUND" in str(refused.value)


async def test_a_token_of_another_scope_gets_nothing(api: Server, scope: str) -> None:
    publish_story(api, scope)
    register_concern_people(api, scope)
    cid = gql(api, RAISE_GQL, input=gql_concern(scope))["raiseConcern"]["id"]
    async with http_client(api.url, FULL) as client:
        entity_id = body(await client.call_tool("list_entities", {"scope": scope}))["items"][0][
            "id"
        ]
    async with http_client(api.url, OUTSIDER) as client:
        calls = [
            ("story_graph", {"scope": scope}),
            ("list_entities", {"scope": scope}),
            ("list_events", {"scope": scope}),
            ("search", {"scope": scope, "text": "支付模块"}),
            ("list_signals", {"scope": scope}),
            ("get_entity", {"scope": scope, "entity_id": entity_id}),
            ("check_concerns", {"scope": scope}),
            ("raise_concern", concern_input(scope)),
            (
                "advance_concern",
                {"scope": scope, "concern_id": cid, "person_id": "p_zhangsan", "text": "周五"},
            ),
            (
                "change_concern_priority",
                {"scope": scope, "concern_id": cid, "priority": "critical"},
            ),
            (
                "advance_concern",
                {
                    "scope": "elsewhere",
                    "concern_id": cid,
                    "person_id": "p_zhangsan",
                    "text": "周五",
                },
            ),
        ]
        for name, args in calls:
            got = await client.call_tool(name, args)
            assert error_code(got) == "NOT_FOUND", name
            text = json.dumps(got.model_dump(mode="json"), ensure_ascii=False)
            assert "支付模块" not in text and scope not in text, name
        own = body(await client.call_tool("story_graph", {"scope": "elsewhere"}))
        assert own["counts"]["entities"] == 0
        mine = body(await client.call_tool("list_signals", {"scope": "elsewhere"}))
        assert mine == {"scope": "elsewhere", "items": [], "next": None}
    concern = gql(api, CONCERN_GQL, id=cid)["concern"]
    # the outsider's reply was never recorded (the package's worker may meanwhile have made
    # the concern's first contact: an outbound message is the product working, not a leak)
    inbound = [m for m in concern["conversation"] if m["direction"] != "OUTBOUND"]
    assert inbound == [] and not any("周五" in m["text"] for m in concern["conversation"])


async def test_agent_searches_what_is_known_now_and_gets_the_line_it_came_from(
    api: Server, scope: str
) -> None:
    publish_story(api, scope)
    async with http_client(api.url, FULL) as client:
        found = body(await client.call_tool("search", {"scope": scope, "text": "第三方回调"}))
        lines = body(
            await client.call_tool("search", {"scope": scope, "text": "回调", "kinds": ["passage"]})
        )
        syntax = await client.call_tool("search", {"scope": scope, "text": '"*~:()'})
        empty = await client.call_tool("search", {"scope": scope, "text": "  "})
        quoted = body(await client.call_tool("search", {"scope": scope, "text": '支付 AND "回调'}))
    assert found["mode"] == "lexical" and found["total"] >= 2
    kinds = {item["kind"] for item in found["items"]}
    assert {"entity", "event", "passage"} <= kinds
    entity = next(i for i in found["items"] if i["kind"] == "entity")
    assert entity["name"] == "第三方回调接口" and entity["standing"] == "suggested"
    assert [entity["passage"][a:b] for a, b in entity["highlights"]] == ["第三方回调"]
    [line] = lines["items"]
    assert line["source"] == {"source_id": "chat", "version": "v1", "locator": "lines:1-1"}
    assert line["passage"] == "张三: 支付模块卡在第三方回调"
    assert error_code(syntax) == "INVALID_INPUT" and error_code(empty) == "INVALID_INPUT"
    assert quoted["total"] >= 1


async def test_roles_are_checked_like_graphql(api: Server, scope: str) -> None:
    async with http_client(api.url, READER) as client:
        refused = await client.call_tool("raise_concern", concern_input(scope))
        assert body(await client.call_tool("story_graph", {"scope": scope}))["counts"]
    answered = api.graphql(RAISE_GQL, {"input": gql_concern(scope)}, token=READER).json()
    assert error_code(refused) == answered["errors"][0]["extensions"]["code"] == "FORBIDDEN"


async def test_without_a_valid_token_mcp_is_refused(api: Server) -> None:
    init = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"accept": "application/json, text/event-stream"}
    for auth in ({}, {"authorization": "Bearer wrong"}):
        async with httpx.AsyncClient(timeout=10) as http:
            got = await http.post(f"{api.url}/mcp", json=init, headers={**headers, **auth})
        assert got.status_code == 401
        assert "tools" not in got.text
    listed: list[str] = []
    with pytest.raises(Exception):  # noqa: B017 - the SDK's client fails to connect (401)
        async with http_client(api.url, None) as client:
            listed += [t.name for t in (await client.list_tools()).tools]
    assert listed == []


async def test_storygraph_mcp_over_stdio_lists_tools_and_reads(
    services: Settings, scope: str, api: Server
) -> None:
    publish_story(api, scope)
    async with stdio_client(process_env(services)) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        graph = body(await client.call_tool("story_graph", {"scope": scope}))
    assert names == (
        STORY_TOOLS | CONCERN_TOOLS | REVIEW_TOOLS | SEARCH_TOOLS | SIGNAL_TOOLS | SOURCE_TOOLS
    )
    assert graph["counts"]["entities"] == 2
    env = process_env(services, API_TOKENS=json.dumps(TOKENS))
    async with stdio_client(env, "--token", OUTSIDER) as client:
        assert error_code(await client.call_tool("story_graph", {"scope": scope})) == "NOT_FOUND"


SWITCH = """mutation($on: Boolean!) { setHeartbeatEnabled(enabled: $on) { heartbeatEnabled } }"""


async def test_review_tools_follow_the_app_switch_and_scopes(
    api: Server, worker: Any, scope: str
) -> None:
    """docs/rules/reviews.md: with the heartbeat app off a review is refused (DISABLED, as in
    GraphQL); on, an agent starts one and follows it to its result; an outsider neither
    starts one in this scope nor sees the run."""
    gql(
        api,
        UPSERT,
        input={
            "scope": scope,
            "id": "chat",
            "kind": "CONVERSATION",
            "version": "v1",
            "text": "[2026-11-30T09:00:00+08:00] 张三: 支付模块卡在第三方回调接口\n",
        },
    )
    window = {
        "scope": scope,
        "from_time": "2026-11-30T00:00:00+08:00",
        "to_time": "2026-12-01T00:00:00+08:00",
    }

    def switch(on: bool) -> None:
        got = api.graphql(SWITCH, {"on": on}, token=ADMIN).json()
        assert got["data"]["setHeartbeatEnabled"]["heartbeatEnabled"] is on, got

    switch(False)
    try:
        async with http_client(api.url, ADMIN) as client:
            refused = await client.call_tool("start_review", window)
            assert error_code(refused) == "DISABLED"
            switch(True)
            async with http_client(api.url, OUTSIDER) as outsider:
                assert error_code(await outsider.call_tool("start_review", window)) == "NOT_FOUND"
            run = body(await client.call_tool("start_review", window))
            run_id = run["id"]
            ended = await until_async(
                lambda: client.call_tool("review_status", {"run_id": run_id}),
                lambda answer: body(answer)["status"] in ("completed", "failed"),
                "the review to end",
                90,
            )
            run = body(ended)
            assert run["status"] == "completed", run
            assert run["result_id"] and run["fraction"] == 1.0
            async with http_client(api.url, OUTSIDER) as outsider:
                hidden = await outsider.call_tool("review_status", {"run_id": run["id"]})
                missing = await outsider.call_tool("review_status", {"run_id": "no-such-run"})
            assert error_code(hidden) == error_code(missing) == "NOT_FOUND"
            assert scope not in json.dumps(hidden.model_dump(mode="json"), ensure_ascii=False)
            result = body(
                await client.call_tool(
                    "get_result", {"scope": scope, "result_id": run["result_id"]}
                )
            )
            assert "张三" in json.dumps(result, ensure_ascii=False)
    finally:
        switch(False)


async def test_tool_arguments_obey_the_input_limits_and_a_refused_call_writes_nothing(
    start_server: Callable[..., Server], scope: str
) -> None:
    """The limits GraphQL applies to every argument apply to every MCP tool, before it runs."""
    small = start_server(
        API_TOKENS=json.dumps(TOKENS),
        INPUT_MAX_STRING_CHARS="300",
        INPUT_MAX_TEXT_CHARS="1000",
        INPUT_MAX_LIST_ITEMS="100",
    )
    long_title = dict(concern_input(scope), title="问" * 301)
    many_people = dict(
        concern_input(scope),
        people=[{"person_id": f"p{i}", "display_name": f"人{i}"} for i in range(101)],
    )
    register_concern_people(small, scope)
    async with http_client(small.url, FULL) as client:
        for args, argument in ((long_title, "title"), (many_people, "people")):
            refused = await client.call_tool("raise_concern", args)
            assert error_code(refused) == "INVALID_INPUT"
            error = (refused.structured_content or {})["error"]
            assert error["argument"].startswith("raise_concern") and argument in error["argument"]
        assert body(await client.call_tool("check_concerns", {"scope": scope}))["items"] == []
        cid = body(await client.call_tool("raise_concern", concern_input(scope)))["concern"][
            "concern_id"
        ]
        reply = {"scope": scope, "concern_id": cid, "person_id": "p_zhangsan", "channel": "feishu"}
        too_long = await client.call_tool("advance_concern", dict(reply, text="周" * 1001))
        assert error_code(too_long) == "INVALID_INPUT"
        within = await client.call_tool("advance_concern", dict(reply, text="周" * 1000))
        assert not within.is_error, within.content
    answered = small.graphql(
        RAISE_GQL, {"input": dict(gql_concern(scope), title="问" * 301)}, token=FULL
    ).json()
    assert answered["errors"][0]["extensions"]["code"] == "INVALID_INPUT"
    inbound = [
        e
        for e in gql(small, CONCERN_GQL, id=cid)["concern"]["conversation"]
        if e["direction"] == "INBOUND"
    ]
    assert [len(e["text"]) for e in inbound] == [1000]  # the refused reply was never recorded


async def test_agent_reads_what_changed_since_a_moment_with_who_and_the_cited_passage(
    api: Server, scope: str
) -> None:
    since = {"scope": scope, "since": "2000-01-01T00:00:00Z"}
    async with http_client(api.url, FULL) as client:
        assert body(await client.call_tool("story_diff", since))["items"] == []
        publish_story(api, scope)
        first = body(await client.call_tool("story_diff", {**since, "first": 2}))
        pages = await all_pages(client, "story_diff", {**since, "first": 2})
        bad = await client.call_tool(
            "story_diff",
            {"scope": scope, "since": "2030-01-01T00:00:00Z", "until": "2029-01-01T00:00:00Z"},
        )
    assert first["next"] is not None and len(first["items"]) == 2
    items = [i for p in pages for i in p["items"]]
    assert sorted((i["kind"], i["change"]) for i in items) == [
        ("entity", "added"),
        ("entity", "added"),
        ("event", "added"),
        ("relation", "added"),
    ]
    pay = next(
        i
        for i in items
        if any(f["field"] == "name" and f["after"] == "支付模块" for f in i["fields"])
    )
    assert pay["by"].startswith("run:")
    # read as a person reads it: the entity by name, the field in words, the run as a name
    assert pay["name"] == "支付模块" and pay["label"].endswith("新增了实体「支付模块」")
    assert pay["by_name"].startswith("自动整理（")
    (name,) = [f for f in pay["fields"] if f["field"] == "name"]
    assert (name["label"], name["after_label"]) == ("名称", "支付模块")
    relation = next(i for i in items if i["kind"] == "relation")
    assert "rel_" not in relation["name"] and "ent_" not in relation["label"]
    assert {c["source_id"] for c in pay["cites"]} == {"chat"}
    assert "T" in pay["changed_at"] and pay["changed_at"].endswith("+00:00")
    assert error_code(bad) == "INVALID_INPUT"


def test_get_and_delete_on_the_stateless_mcp_endpoint_are_405_at_once(api: Server) -> None:
    """Stateless streamable HTTP offers no SSE stream to GET and no session to DELETE: the
    MCP spec's answer is 405, given at once (before, a GET was held open until the client
    gave up). Without a token it is 401 first."""
    for method in ("GET", "DELETE"):
        r = httpx.request(
            method,
            f"{api.url}/mcp",
            headers={"authorization": f"Bearer {FULL}", "accept": "text/event-stream"},
            timeout=5,
        )
        assert r.status_code == 405, (method, r.text)
        assert r.headers["allow"] == "POST"
        assert r.json()["error"]["code"] == "METHOD_NOT_ALLOWED"
    assert httpx.get(f"{api.url}/mcp", timeout=5).status_code == 401
    forged = httpx.get(f"{api.url}/mcp", headers={"authorization": "Bearer nope"}, timeout=5)
    assert forged.status_code == 401


PY_INSTANT = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d")
ISO_INSTANT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)")


async def test_every_instant_in_an_mcp_answer_is_iso_8601_like_graphql(
    api: Server, scope: str
) -> None:
    publish_story(api, scope)
    async with http_client(api.url, FULL) as client:
        graph = await client.call_tool("story_graph", {"scope": scope})
        entities = await client.call_tool("list_entities", {"scope": scope})
    for result in (graph, entities):
        text = result.content[0].text  # type: ignore[union-attr]
        structured = json.dumps(body(result), ensure_ascii=False)
        for written in (text, structured):
            assert not PY_INSTANT.search(written), written[:400]
            assert ISO_INSTANT.search(written), written[:400]
    event = body(graph)["events"][0]
    gql_at = gql(
        api,
        "query($s: String!) { storyGraph(scope: $s) { events { at } } }",
        s=scope,
    )["storyGraph"]["events"][0]["at"]
    assert event["at"] == gql_at


async def test_story_graph_shows_open_signals_with_their_standing_and_the_concern(
    api: Server, scope: str, neo4j_driver: AsyncDriver, settings: Settings
) -> None:
    """an agent sees the open commitment, what the agenda decided and the concern
    raised for it; the event 李四's answer brought (he moved the promise to Friday) is the
    review's reading of his reply, via the concern, never his own word."""
    deps = Deps(settings=settings, driver=neo4j_driver, pool=None)
    chain = await build_chain(deps, scope, words="推迟到周五")
    async with http_client(api.url, READER) as client:
        graph_result = await client.call_tool("story_graph", {"scope": scope})
        listed = body(await client.call_tool("list_signals", {"scope": scope}))
    graph = body(graph_result)
    [signal] = graph["open_signals"]  # still open: its due moved to the Friday he named
    assert signal["id"] == chain.signal.id and signal["kind"] == "commitment"
    due = datetime.fromisoformat(signal["due"]).astimezone(SHANGHAI)
    assert signal["who"] == "李四" and (due.weekday(), due.hour) == (4, 18)
    assert timedelta(0) < due - chain.answered_at < timedelta(days=7)
    assert signal["decision"] == {
        "kind": "raised",
        "label": f"raised {chain.concern_id}",
        "reason": "default rule for commitment",
        "policy_version": 2,
    }
    assert signal["concern_id"] == chain.concern_id and signal["concern_status"]
    assert graph["next"]["open_signals"] is None
    [row] = listed["items"]
    assert row["concern_id"] == chain.concern_id and row["id"] == chain.signal.id
    assert ISO_INSTANT.search(row["recorded_at"]) and not PY_INSTANT.search(
        graph_result.content[0].text  # type: ignore[union-attr]
    )
    [event] = [e for e in graph["events"] if e["via_concern"]]
    assert event["via_concern"] == chain.concern_id and event["title"] == "前端部分提测推迟到周五"
    # the loop's reading of 李四's answer stands as automation citing him, never as his word
    assert event["standing"] == "read-from-answer"
    assert event["recorded_by"] == f"run:{chain.run_id}"


BINDINGS = """query($s: String!) { personBindings(scope: $s) {
  edges { node { kind sourceId speaker personId channel } } } }"""


async def test_an_agent_pushes_a_conversation_with_its_speakers_bound(
    api: Server, scope: str
) -> None:
    """upsert_source, the MCP twin of upsertSource: the speakers it names are
    bound to concern persons for that source; a token without `editor` may not push; bad
    input writes nothing."""
    push = {
        "scope": scope,
        "source_id": "chat",
        "kind": "conversation",
        "version": "v1",
        "text": "[2035-03-19T10:00:00+08:00] 李四: 前端部分周四能提测\n",
        "speakers": [{"name": "李四", "person_id": "p_lisi", "channel": "feishu"}],
    }
    async with http_client(api.url, READER) as client:
        assert error_code(await client.call_tool("upsert_source", push)) == "FORBIDDEN"
    async with http_client(api.url, FULL) as client:
        twice = {**push, "speakers": [push["speakers"][0], push["speakers"][0]]}
        assert error_code(await client.call_tool("upsert_source", twice)) == "INVALID_INPUT"
        assert gql(api, BINDINGS, s=scope)["personBindings"]["edges"] == []
        assert body(await client.call_tool("upsert_source", push)) == {
            "id": "chat",
            "current_version": "v1",
        }
    [bound] = [e["node"] for e in gql(api, BINDINGS, s=scope)["personBindings"]["edges"]]
    assert bound == {
        "kind": "SPEAKER",
        "sourceId": "chat",
        "speaker": "李四",
        "personId": "p_lisi",
        "channel": "feishu",
    }
