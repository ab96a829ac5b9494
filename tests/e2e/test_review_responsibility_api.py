"""A change of the responsible person over HTTP with a real worker and the default offline
model (docs/rules/story-graph.md: 新增证据与已确认结论冲突时显示待核对
差异，不能自动断言旧观点失效).

A person pushes "王五: 张三负责支付模块", reviews it and confirms the responsibility relation;
a later message "支付模块改由李四负责" is reviewed: the relation still says 张三, one pending
DIFFERENCE waits on it (张三 → 李四) with one difference signal that reads "支付模块 负责人: 张三 →
李四"; reviewing the message again adds nothing. Accepting the suggestion (acceptSuggestion,
as the person would) moves the responsibility: storyGraph as of before shows 张三, after 李四.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from tests.support.polling import until
from tests.support.processes import Server

BASE = datetime.now(UTC).replace(microsecond=0) - timedelta(days=1)
STATED = f"[{BASE.isoformat()}] 王五: 张三负责支付模块\n"
CHANGED = f"[{(BASE + timedelta(hours=2)).isoformat()}] 王五: 支付模块改由李四负责\n"
GRAPH = """query($s: String!, $at: DateTime) { storyGraph(scope: $s, asOf: $at) {
  entities { id name kind } relations { id fromId toId type confirmation seq }
  suggestions { id kind status targetId field currentValue proposedValue currentLabel
                proposedLabel } } }"""
SIGNALS = """query($s: String!) { signals(scope: $s, kind: DIFFERENCE) {
  edges { node { id targetId field confirmedValue proposedValue suggestionId sourceId
                 locator text decision { label } } } } }"""


def gql(api: Server, query: str, **variables: Any) -> dict[str, Any]:
    body = api.graphql(query, variables).json()
    assert "errors" not in body, body
    return body["data"]  # type: ignore[no-any-return]


def push(api: Server, scope: str, version: str, text: str) -> None:
    gql(
        api,
        "mutation($s: UpsertSourceInput!) { upsertSource(input: $s) { id } }",
        s={"scope": scope, "id": "chat", "kind": "CONVERSATION", "version": version, "text": text},
    )


def review(api: Server, scope: str, start: datetime) -> None:
    """startReview over [start, start + 1 hour]; waits (with a deadline) until it completes."""
    run_id = gql(
        api,
        "mutation($sc: ReviewScopeInput!, $f: DateTime!, $t: DateTime!) {"
        " startReview(scope: $sc, from: $f, to: $t) { id } }",
        sc={"projectIds": [scope]},
        f=start.isoformat(),
        t=(start + timedelta(hours=1)).isoformat(),
    )["startReview"]["id"]
    run = until(
        lambda: gql(
            api,
            "query($id: String!) { supervisionRun(id: $id) { status error { message } } }",
            id=run_id,
        )["supervisionRun"],
        lambda r: r["status"] in ("completed", "failed", "cancelled"),
        f"review run {run_id} ending",
        timeout=90,
    )
    assert run["status"] == "completed", run


def graph(api: Server, scope: str, at: str | None = None) -> dict[str, Any]:
    found: dict[str, Any] = gql(api, GRAPH, s=scope, at=at)["storyGraph"]
    return found


def responsible(g: dict[str, Any]) -> list[tuple[str, str]]:
    names = {e["id"]: e["name"] for e in g["entities"]}
    return sorted(
        (names[r["fromId"]], names[r["toId"]])
        for r in g["relations"]
        if r["type"] == "responsible_for"
    )


def test_a_new_responsible_person_waits_as_a_difference_until_a_person_accepts_it(
    offline: Server, scope: str
) -> None:
    api = offline
    push(api, scope, "v1", STATED)
    review(api, scope, BASE - timedelta(minutes=30))
    [rel] = graph(api, scope)["relations"]
    confirmed = gql(
        api,
        'mutation($s: String!, $id: ID!) { confirmRelation(scope: $s, id: $id, why: "对") {'
        " confirmation seq } }",
        s=scope,
        id=rel["id"],
    )["confirmRelation"]
    assert confirmed == {"confirmation": "CONFIRMED", "seq": 2}

    push(api, scope, "v2", STATED + CHANGED)
    review(api, scope, BASE + timedelta(hours=1, minutes=30))
    g = graph(api, scope)
    assert responsible(g) == [("张三", "支付模块")]  # no overwrite, no parallel relation
    assert [(r["id"], r["seq"]) for r in g["relations"]] == [(rel["id"], 2)]
    [sug] = g["suggestions"]
    assert (sug["kind"], sug["status"], sug["targetId"], sug["field"]) == (
        "DIFFERENCE",
        "PENDING",
        rel["id"],
        "from_id",
    )
    assert (sug["currentLabel"], sug["proposedLabel"]) == ("张三", "李四")
    signals = gql(api, SIGNALS, s=scope)["signals"]
    [edge] = signals["edges"]
    signal = edge["node"]
    assert (signal["field"], signal["confirmedValue"], signal["proposedValue"]) == (
        "负责人",
        "张三",
        "李四",
    )
    assert signal["targetId"] == rel["id"] and signal["suggestionId"] == sug["id"]
    assert signal["sourceId"] == "chat" and signal["text"] == "支付模块 负责人：张三 → 李四"
    start = len(STATED) + CHANGED.index("支付模块改由李四负责")
    assert signal["locator"] == f"chars:{start}-{start + len('支付模块改由李四负责')}"

    review(api, scope, BASE + timedelta(hours=1, minutes=30))  # the same message again
    assert [s["id"] for s in graph(api, scope)["suggestions"]] == [sug["id"]]
    assert [e["node"]["id"] for e in gql(api, SIGNALS, s=scope)["signals"]["edges"]] == [
        signal["id"]
    ]

    before = datetime.now(UTC).isoformat()
    accepted = gql(
        api,
        "mutation($s: String!, $id: ID!) { acceptSuggestion(scope: $s, id: $id,"
        ' why: "对，已经交给李四了") { status } }',
        s=scope,
        id=sug["id"],
    )["acceptSuggestion"]
    assert accepted == {"status": "ACCEPTED"}
    assert responsible(graph(api, scope, before)) == [("张三", "支付模块")]
    after = graph(api, scope)
    assert responsible(after) == [("李四", "支付模块")]
    assert [(r["id"], r["seq"], r["confirmation"]) for r in after["relations"]] == [
        (rel["id"], 3, "CONFIRMED")
    ]
