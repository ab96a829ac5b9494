"""Export for other graph tools: a real API with tokens serves a scope's
graph as GraphML (opened here with networkx, as Gephi or yEd would read it) and as Cytoscape
JSON, as of a moment or for a window, with the same tokens and scopes as GraphQL; the
`scopes` query over the same API lists only the token's scopes."""

from __future__ import annotations

import io
import json
import uuid
from datetime import UTC, datetime
from typing import Any

import httpx
import networkx as nx
import pytest

from tests.support.processes import Server
from tests.support.story_api import PUBLISH, UPSERT, data, error_code, result_input

ADMIN, LIMITED, OTHER = "exp-admin", "exp-limited", "exp-other"


@pytest.fixture(scope="module")
def stack(start_server) -> tuple[Server, str]:  # type: ignore[no-untyped-def]
    scope = f"exp-{uuid.uuid4().hex[:8]}"
    tokens = [
        {"token": ADMIN, "name": "ops", "scopes": ["*"], "roles": ["admin"]},
        {"token": LIMITED, "name": "app", "scopes": [scope], "roles": ["reader", "editor"]},
        {"token": OTHER, "name": "else", "scopes": ["elsewhere"], "roles": ["reader"]},
    ]
    return start_server(API_TOKENS=json.dumps(tokens)), scope


def get(api: Server, path: str, token: str | None, **params: str) -> httpx.Response:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    return httpx.get(f"{api.url}{path}", params=params, headers=headers, timeout=30)


def seed(api: Server, scope: str) -> tuple[str, str]:
    """A source, then a result (2 entities, 1 relation, 1 event, 1 change); the time before
    the publish and after it."""
    src = {"scope": scope, "id": "chat", "kind": "CONVERSATION", "version": "v1",
           "text": "张三: 卡在第三方回调"}  # fmt: skip
    data(api.graphql(UPSERT, {"input": src}, token=LIMITED))
    before = datetime.now(UTC).isoformat()
    data(api.graphql(PUBLISH, {"input": result_input(scope, "k1")}, token=LIMITED))
    return before, datetime.now(UTC).isoformat()


def test_graphml_and_cytoscape_downloads(stack: tuple[Server, str]) -> None:
    api, scope = stack
    before, after = seed(api, scope)

    got = get(api, f"/export/{scope}.graphml", LIMITED, asOf=after)
    assert got.status_code == 200, got.text
    assert got.headers["content-type"].startswith("application/graphml+xml")
    g = nx.read_graphml(io.BytesIO(got.content))
    assert isinstance(g, nx.DiGraph)
    assert g.graph["scope"] == scope
    names = {a["label"]: a for _, a in g.nodes(data=True)}
    assert set(names) == {"支付模块", "第三方回调接口", "张三：支付模块卡在第三方回调"}
    pay = names["支付模块"]
    assert (pay["kind"], pay["status"], pay["seq"]) == ("entity", "main", 1)
    assert pay["recorded_at"].endswith("Z")
    assert names["张三：支付模块卡在第三方回调"]["kind"] == "event"
    assert names["张三：支付模块卡在第三方回调"]["at"] == "2026-03-17T05:20:00Z"
    edges = {a["kind"]: (u, v, a) for u, v, a in g.edges(data=True)}
    u, v, rel = edges["relation"]
    assert (g.nodes[u]["label"], g.nodes[v]["label"]) == ("支付模块", "第三方回调接口")
    assert (rel["label"], rel["confirmation"], rel["removed"]) == ("blocked_by", "suggested", False)
    u, v, change = edges["change"]
    assert (g.nodes[u]["kind"], g.nodes[v]["label"], change["label"]) == (
        "event",
        "支付模块",
        "revised",
    )

    cy = get(api, f"/export/{scope}.cyjs", LIMITED, asOf=after)
    assert cy.status_code == 200, cy.text
    doc: dict[str, Any] = json.loads(cy.content)
    nodes, links = doc["elements"]["nodes"], doc["elements"]["edges"]
    assert {n["data"]["label"] for n in nodes} == set(names)
    assert {e["data"]["kind"] for e in links} == {"relation", "change"}
    ids = {n["data"]["id"] for n in nodes}
    assert all(e["data"]["source"] in ids and e["data"]["target"] in ids for e in links)

    # as of before the publish: the scope exists (it holds data now) but was empty then
    then = get(api, f"/export/{scope}.cyjs", LIMITED, asOf=before)
    assert then.status_code == 200 and json.loads(then.content)["elements"]["nodes"] == []
    # a window: the events in it and the entities they touch (storyGraph's window rule)
    window = get(api, f"/export/{scope}.graphml", ADMIN, **{"from": "2026-03-17T00:00:00Z",
                 "to": "2026-03-18T00:00:00Z"})  # fmt: skip
    assert window.status_code == 200
    w = nx.read_graphml(io.BytesIO(window.content))
    assert sorted(a["label"] for _, a in w.nodes(data=True)) == sorted(
        ["支付模块", "张三：支付模块卡在第三方回调"]
    )
    empty = get(api, f"/export/{scope}.graphml", ADMIN, **{"from": "2020-01-01T00:00:00Z",
                "to": "2020-01-02T00:00:00Z"})  # fmt: skip
    assert nx.read_graphml(io.BytesIO(empty.content)).number_of_nodes() == 0


def test_same_tokens_and_scopes_as_graphql(stack: tuple[Server, str]) -> None:
    api, scope = stack
    seed(api, scope)
    assert get(api, f"/export/{scope}.graphml", None).status_code == 401
    assert get(api, f"/export/{scope}.graphml", "not-a-token").status_code == 401
    refused = get(api, f"/export/{scope}.graphml", OTHER)
    missing = get(api, "/export/no-such-scope-here.graphml", ADMIN)
    assert refused.status_code == missing.status_code == 404
    assert refused.json() == missing.json()
    assert scope not in refused.text
    assert get(api, f"/export/{scope}.pdf", LIMITED).status_code == 404
    bad = get(api, f"/export/{scope}.graphml", LIMITED, asOf="2026-01-01T00:00:00")
    assert bad.status_code == 400 and bad.json()["code"] == "INVALID_INPUT"


def test_scopes_query_over_http(stack: tuple[Server, str]) -> None:
    api, scope = stack
    seed(api, scope)
    q = "{ scopes { scope events entities relations sources concerns watches } }"
    (mine,) = data(api.graphql(q, token=LIMITED))["scopes"]
    assert mine["scope"] == scope and mine["entities"] == 2 and mine["relations"] == 1
    assert mine["sources"] == 1 and mine["events"] >= 1
    everything = {s["scope"] for s in data(api.graphql(q, token=ADMIN))["scopes"]}
    assert scope in everything
    assert data(api.graphql(q, token=OTHER))["scopes"] == [
        {"scope": "elsewhere", "events": 0, "entities": 0, "relations": 0, "sources": 0,
         "concerns": 0, "watches": 0}
    ]  # fmt: skip
    delete = "mutation($s: String!) { deleteScope(scope: $s) { deletedNodes } }"
    assert error_code(api.graphql(delete, {"s": scope}, token=LIMITED)) == "FORBIDDEN"
    done = data(api.graphql(delete, {"s": scope}, token=ADMIN))["deleteScope"]
    assert done["deletedNodes"] > 0
    assert get(api, f"/export/{scope}.graphml", LIMITED).status_code == 404
