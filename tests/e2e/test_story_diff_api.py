"""`storyGraphDiff` over HTTP GraphQL: what changed between two record times, with
before/after values, who made it and the cited passage; paged by a keyset; bad bounds are
INVALID_INPUT."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from tests.support.processes import Server
from tests.support.story_api import PUBLISH, UPSERT, data, error_code, result_input

DIFF = """
query($scope: String!, $since: DateTime!, $until: DateTime, $first: Int, $after: String) {
  storyGraphDiff(scope: $scope, since: $since, until: $until, first: $first, after: $after) {
    edges { cursor node {
      objectKind objectId change changedAt why resultId
      by { kind id }
      fields { field before after }
      references { sourceId sourceVersion locator excerpt { available text } }
    } }
    pageInfo { hasNextPage endCursor }
  }
}"""
GRAPH = """query($scope: String!) { storyGraph(scope: $scope) {
  entities { id name seq } relations { id seq } } }"""


def diff(api: Server, scope: str, since: str, until: str | None = None) -> list[dict[str, Any]]:
    """Every entry, one per page (first: 1), following the cursors."""
    nodes: list[dict[str, Any]] = []
    after = None
    while True:
        variables = {"scope": scope, "since": since, "until": until, "first": 1, "after": after}
        page = data(api.graphql(DIFF, variables))["storyGraphDiff"]
        nodes.extend(e["node"] for e in page["edges"])
        if not page["pageInfo"]["hasNextPage"]:
            return nodes
        after = page["pageInfo"]["endCursor"]


def test_a_person_sees_what_changed_since_a_moment_by_whom_and_citing_what(
    api: Server, scope: str
) -> None:
    src = {
        "scope": scope,
        "id": "chat",
        "kind": "CONVERSATION",
        "version": "v1",
        "text": "张三: 卡在第三方回调",
    }
    data(api.graphql(UPSERT, {"input": src}))
    before_publish = datetime.now(UTC).isoformat()
    data(api.graphql(PUBLISH, {"input": result_input(scope, "k1")}))
    after_publish = datetime.now(UTC).isoformat()

    added = diff(api, scope, before_publish)
    assert sorted((n["objectKind"], n["change"]) for n in added) == [
        ("entity", "ADDED"),
        ("entity", "ADDED"),
        ("event", "ADDED"),
        ("relation", "ADDED"),
    ]
    event = next(n for n in added if n["objectKind"] == "event")
    assert {"field": "title", "before": None, "after": "张三：支付模块卡在第三方回调"} in event[
        "fields"
    ]
    assert event["by"]["kind"] == "RUN" and event["resultId"]
    assert event["references"] == [
        {
            "sourceId": "chat",
            "sourceVersion": "v1",
            "locator": "lines:1-1",
            "excerpt": {"available": True, "text": "张三: 卡在第三方回调"},
        }
    ]

    graph = data(api.graphql(GRAPH, {"scope": scope}))["storyGraph"]
    pay = next(e for e in graph["entities"] if e["name"] == "支付模块")
    edit = """mutation($scope: String!, $id: ID!, $seen: Int!) {
      updateEntity(scope: $scope, id: $id, seenVersion: $seen,
                   edit: {description: "支付模块（人工修订）"}, userId: "boss") { seq } }"""
    data(api.graphql(edit, {"scope": scope, "id": pay["id"], "seen": pay["seq"]}))
    reject = (
        """mutation($scope: String!, $id: ID!) { rejectRelation(scope: $scope, id: $id) { seq } }"""
    )
    data(api.graphql(reject, {"scope": scope, "id": graph["relations"][0]["id"]}))
    removal = (
        """mutation($scope: String!, $id: ID!) { removeRelation(scope: $scope, id: $id) { seq } }"""
    )
    data(api.graphql(removal, {"scope": scope, "id": graph["relations"][0]["id"]}))

    since_publish = diff(api, scope, after_publish)
    changes = {n["objectId"]: n for n in since_publish}
    assert set(changes) == {pay["id"], graph["relations"][0]["id"]}
    revised = changes[pay["id"]]
    assert revised["change"] == "REVISED"
    assert {
        "field": "description",
        "before": "后端支付模块",
        "after": "支付模块（人工修订）",
    } in revised["fields"]
    assert revised["by"] == {"kind": "USER", "id": "boss"}
    relation = changes[graph["relations"][0]["id"]]
    assert relation["change"] == "REMOVED"  # rejected, then removed: removal is what shows
    assert {"field": "removed", "before": "false", "after": "true"} in relation["fields"]

    # Only the window's changes: the publish is before it, the corrections after it.
    publish_only = diff(api, scope, before_publish, after_publish)
    assert all(n["change"] == "ADDED" for n in publish_only) and len(publish_only) == 4
    assert diff(api, scope, datetime.now(UTC).isoformat()) == []


def test_bad_bounds_and_cursors_are_invalid_input(api: Server, scope: str) -> None:
    inverted = {"scope": scope, "since": "2030-01-01T00:00:00Z", "until": "2029-01-01T00:00:00Z"}
    assert error_code(api.graphql(DIFF, inverted)) == "INVALID_INPUT"
    no_zone = {"scope": scope, "since": "2030-01-01T00:00:00"}
    assert error_code(api.graphql(DIFF, no_zone)) == "INVALID_INPUT"
    forged = {"scope": scope, "since": "2030-01-01T00:00:00Z", "after": "bm90LWEtY3Vyc29y"}
    assert error_code(api.graphql(DIFF, forged)) == "INVALID_INPUT"
    assert error_code(api.graphql(DIFF, {"scope": "bad scope!", "since": "2030-01-01T00:00Z"})) == (
        "INVALID_INPUT"
    )
