"""search over HTTP GraphQL: hits with passage, highlights and standing, as of a
past moment, and bad text answered INVALID_INPUT (never a Lucene error or INTERNAL)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.support.processes import Server
from tests.support.story_api import PUBLISH, UPSERT, data, error_code, result_input

SEARCH = """
query($scope: String!, $text: String!, $asOf: DateTime, $kinds: [SearchKind!], $first: Int,
      $after: String) {
  search(scope: $scope, text: $text, asOf: $asOf, kinds: $kinds, first: $first, after: $after) {
    mode totalCount asOf
    pageInfo { hasNextPage endCursor }
    edges { cursor node {
      kind id version standing current field passage highlights { start end } score rank
      entity { name seq } event { title } sourcePassage { sourceId sourceVersion locator }
    } }
  }
}"""
RENAME = """mutation($scope: String!, $id: ID!, $seen: Int!) {
  updateEntity(scope: $scope, id: $id, seenVersion: $seen, edit: {name: "结算服务"}) { seq } }"""


def test_a_person_searches_now_and_as_of_before_a_rename(api: Server, scope: str) -> None:
    src = {
        "scope": scope,
        "id": "chat",
        "kind": "CONVERSATION",
        "version": "v1",
        "text": "张三: 支付模块卡在第三方回调\n李四: the sandbox callback is down",
    }
    data(api.graphql(UPSERT, {"input": src}))
    data(api.graphql(PUBLISH, {"input": result_input(scope, "k1", description="后端负责")}))
    found = data(api.graphql(SEARCH, {"scope": scope, "text": "支付模块"}))["search"]
    assert found["mode"] == "LEXICAL"
    # the entity, the event and the passage all match; their order follows Lucene's scores,
    # which depend on everything else in the index (other scopes' text too): take the entity
    assert {e["node"]["kind"] for e in found["edges"]} >= {"ENTITY", "EVENT", "PASSAGE"}
    first = next(e["node"] for e in found["edges"] if e["node"]["kind"] == "ENTITY")
    assert (first["kind"], first["entity"]["name"], first["standing"]) == (
        "ENTITY",
        "支付模块",
        "SUGGESTED",
    )
    spans = [first["passage"][h["start"] : h["end"]] for h in first["highlights"]]
    assert spans == ["支付模块"]
    line = data(
        api.graphql(SEARCH, {"scope": scope, "text": "sandbox callbac", "kinds": ["PASSAGE"]})
    )["search"]["edges"]
    assert [e["node"]["sourcePassage"] for e in line] == [
        {"sourceId": "chat", "sourceVersion": "v1", "locator": "lines:2-2"}
    ]

    before = datetime.now(UTC).isoformat()  # the rename below is recorded after it
    pay = first
    data(api.graphql(RENAME, {"scope": scope, "id": pay["id"], "seen": pay["version"]}))
    now = data(api.graphql(SEARCH, {"scope": scope, "text": "支付模块", "kinds": ["ENTITY"]}))
    [hit] = [e["node"] for e in now["search"]["edges"]]
    assert (hit["entity"]["name"], hit["current"], hit["field"]) == (
        "结算服务",
        False,
        "earlier_name",
    )
    assert hit["standing"] == "PERSON_EDITED"
    then = data(
        api.graphql(
            SEARCH, {"scope": scope, "text": "支付模块", "kinds": ["ENTITY"], "asOf": before}
        )
    )
    [old] = [e["node"] for e in then["search"]["edges"]]
    assert (old["entity"]["name"], old["current"], old["version"]) == ("支付模块", True, 1)
    assert (
        data(api.graphql(SEARCH, {"scope": scope, "text": "结算", "asOf": before}))["search"][
            "edges"
        ]
        == []
    )


@pytest.mark.parametrize("text", ["", "   ", "x" * 201, '"*~:()', ":*~^"])
def test_bad_text_is_invalid_input(api: Server, scope: str, text: str) -> None:
    got = api.graphql(SEARCH, {"scope": scope, "text": text})
    assert error_code(got) == "INVALID_INPUT"


@pytest.mark.parametrize("text", ['支付 AND "回调', "callb* ~2", "title:(支付", "a OR b)", "NOT x"])
def test_lucene_syntax_is_searched_as_words(api: Server, scope: str, text: str) -> None:
    got = api.graphql(SEARCH, {"scope": scope, "text": text}).json()
    assert "errors" not in got, got
    assert got["data"]["search"]["mode"] == "LEXICAL"


def test_a_time_without_a_zone_is_invalid_input(api: Server, scope: str) -> None:
    got = api.graphql(SEARCH, {"scope": scope, "text": "x", "asOf": "2026-03-17T10:00:00"})
    assert error_code(got) == "INVALID_INPUT"
