"""The inbox over HTTP: a run's proposal against a person's edit waits in the
inbox with its evidence; a dismissal is remembered, so the same proposal on the same passage
by a later run stays out; another passage brings it back citing both passages."""

from __future__ import annotations

from typing import Any

from tests.support.processes import Server
from tests.support.story_api import data, error_code

UPSERT = """
mutation($input: UpsertSourceInput!) { upsertSource(input: $input) { id currentVersion } }"""
PUBLISH = """
mutation($input: PublishResultInput!, $run: String!) {
  publishResult(input: $input, runId: $run) { repeat result { id } }
}"""
INBOX = """
query($scope: String!) {
  inbox(scope: $scope) { edges { node {
    kind currentValue proposedValue seenVersion repeatOf proposedAt proposedBy { kind id }
    suggestion { id status }
    evidence { locator excerpt { available text } } } } }
  inboxCounts(scope: $scope) { field difference total }
}"""
ACT = """
mutation($scope: String!, $id: ID!, $seen: Int, $value: String) {
  %s(scope: $scope, id: $id, seenVersion: $seen, value: $value) { status repeatOf }
}"""
GRAPH = """
query($scope: String!) { storyGraph(scope: $scope) {
  entities { id name description seq } suggestions { id status repeatOf } } }"""


def _publish(api: Server, scope: str, key: str, run: str, locator: str, **kw: Any) -> None:
    entity = {
        "ref": "pay",
        "name": "支付模块",
        "references": [{"sourceId": "chat", "sourceVersion": "v1", "locator": locator}],
        **kw,
    }
    answer = api.graphql(
        PUBLISH, {"input": {"scope": scope, "key": key, "entities": [entity]}, "run": run}
    )
    assert data(answer)["publishResult"]["repeat"] is False


def _inbox(api: Server, scope: str) -> tuple[list[dict[str, Any]], dict[str, int]]:
    got = data(api.graphql(INBOX, {"scope": scope}))
    return [e["node"] for e in got["inbox"]["edges"]], got["inboxCounts"]


def test_dismissed_proposals_stay_out_until_new_evidence(api: Server, scope: str) -> None:
    text = "张三: 支付模块由开发负责\n李四: 支付模块开发负责，已确认"
    src = {"scope": scope, "id": "chat", "kind": "CONVERSATION", "version": "v1", "text": text}
    data(api.graphql(UPSERT, {"input": src}))
    _publish(api, scope, "k1", "run-1", "lines:1-1", description="后端", status="MAIN")
    pay = data(api.graphql(GRAPH, {"scope": scope}))["storyGraph"]["entities"][0]
    edit = """mutation($scope: String!, $id: ID!, $seen: Int!) {
      updateEntity(scope: $scope, id: $id, seenVersion: $seen, edit: {description: "测试"}) { seq } }"""
    data(api.graphql(edit, {"scope": scope, "id": pay["id"], "seen": pay["seq"]}))

    # a run proposes a change to the person's field: it waits in the inbox
    _publish(api, scope, "k2", "run-2", "lines:1-1", id=pay["id"], description="开发")
    (item,), counts = _inbox(api, scope)
    assert counts == {"field": 1, "difference": 0, "total": 1}
    assert item["kind"] == "FIELD" and item["currentValue"] == "测试"
    assert item["proposedValue"] == "开发" and item["proposedBy"] == {"kind": "RUN", "id": "run-2"}
    assert item["evidence"] == [
        {"locator": "lines:1-1", "excerpt": {"available": True, "text": "张三: 支付模块由开发负责"}}
    ]
    first = item["suggestion"]["id"]
    stale = api.graphql(ACT % "acceptSuggestion", {"scope": scope, "id": first, "seen": 1})
    assert error_code(stale) == "CONFLICT"
    dismissed = data(api.graphql(ACT % "dismissSuggestion", {"scope": scope, "id": first}))
    assert dismissed["dismissSuggestion"]["status"] == "DISMISSED"
    again = api.graphql(ACT % "acceptSuggestion", {"scope": scope, "id": first})
    assert error_code(again) == "CONFLICT"

    # the same proposal on the same passage by a later run: recorded, not in the inbox
    _publish(api, scope, "k3", "run-3", "lines:1-1", id=pay["id"], description="开发")
    assert _inbox(api, scope) == ([], {"field": 0, "difference": 0, "total": 0})
    suggestions = data(api.graphql(GRAPH, {"scope": scope}))["storyGraph"]["suggestions"]
    repeat = next(s for s in suggestions if s["id"] != first)
    assert repeat == {"id": repeat["id"], "status": "DISMISSED", "repeatOf": first}

    # another passage making the same claim: back, citing both passages
    _publish(api, scope, "k4", "run-4", "lines:2-2", id=pay["id"], description="开发")
    (back,), counts = _inbox(api, scope)
    assert counts["total"] == 1 and back["repeatOf"] == first
    assert [e["excerpt"]["text"] for e in back["evidence"]] == [
        "张三: 支付模块由开发负责",
        "李四: 支付模块开发负责，已确认",
    ]
    # edit and then accept, against the version seen
    accepted = api.graphql(
        ACT % "acceptSuggestion",
        {
            "scope": scope,
            "id": back["suggestion"]["id"],
            "seen": back["seenVersion"],
            "value": "开发（张三）",
        },
    )
    assert data(accepted)["acceptSuggestion"]["status"] == "ACCEPTED"
    pay = data(api.graphql(GRAPH, {"scope": scope}))["storyGraph"]["entities"][0]
    assert pay["description"] == "开发（张三）"
    assert _inbox(api, scope)[1]["total"] == 0
    unknown = api.graphql(
        'query($s: String!) { inbox(scope: $s, kinds: ["GOSSIP"]) { edges { cursor } } }',
        {"s": scope},
    )
    assert error_code(unknown) == "INVALID_INPUT"
