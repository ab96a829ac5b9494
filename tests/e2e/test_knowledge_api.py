"""Save to knowledge and continue the discussion (docs/rules/story-graph.md) over HTTP GraphQL."""

from __future__ import annotations

from typing import Any

from tests.support.processes import Server
from tests.support.story_api import PUBLISH, UPSERT, data, error_code, result_input

PREVIEW_SAVE = """
mutation($scope: String!, $objects: [ObjectRefInput!], $resultId: ID) {
  previewSaveToKnowledge(scope: $scope, objects: $objects, resultId: $resultId) {
    previewId
    entries {
      sourceId action baseVersion version text
      link { scope sourceId version } objects { kind id }
    }
    readOnly { sourceId kind }
  }
}"""
CONFIRM_SAVE = """
mutation($id: ID!) {
  confirmSaveToKnowledge(previewId: $id) { repeat entries { id kind currentVersion } }
}"""
OPEN = """
query($scope: String!, $id: ID!, $version: String) {
  knowledgeEntry(scope: $scope, id: $id, version: $version) {
    version available text source { kind }
  }
}"""
PREVIEW_TALK = """
mutation($scope: String!, $objects: [ObjectRefInput!]) {
  previewContinueDiscussion(scope: $scope, objects: $objects, title: "接着聊") {
    previewId objects { kind id seq } excerpts { ownerId excerpt { version available text } } text
  }
}"""
CONFIRM_TALK = """
mutation($id: ID!) {
  confirmContinueDiscussion(previewId: $id) { repeat conversation { id kind currentVersion } }
}"""
GRAPH = """
query($scope: String!) {
  storyGraph(scope: $scope) { entities { id name seq } relations { id seq } events { id } }
}"""


def _setup(api: Server, scope: str) -> dict[str, Any]:
    for src in (
        {"id": "chat", "kind": "CONVERSATION", "version": "v1", "text": "张三: 卡在第三方回调"},
        {"id": "wiki", "kind": "KNOWLEDGE", "version": "v1", "text": "# 支付\n\n旧说明"},
        {"id": "web", "kind": "EXTERNAL", "version": "v1", "text": "外部文章"},
    ):
        data(api.graphql(UPSERT, {"input": {"scope": scope, **src}}))
    payload = result_input(scope, "k1")
    payload["entities"][0]["references"] = [
        {"sourceId": "wiki", "sourceVersion": "v1", "locator": "lines:1-1"},
        {"sourceId": "web", "sourceVersion": "v1", "locator": "chars:0-2"},
    ]
    return data(api.graphql(PUBLISH, {"input": payload}))["publishResult"]["result"]


def test_save_to_knowledge_previews_confirms_and_keeps_external_read_only(
    api: Server, scope: str
) -> None:
    result = _setup(api, scope)
    graph = data(api.graphql(GRAPH, {"scope": scope}))["storyGraph"]
    pay = next(e for e in graph["entities"] if e["name"] == "支付模块")
    preview = data(api.graphql(PREVIEW_SAVE, {"scope": scope, "resultId": result["id"]}))[
        "previewSaveToKnowledge"
    ]
    wiki = next(e for e in preview["entries"] if e["sourceId"] == "wiki")
    assert wiki["action"] == "SUPPLEMENT" and wiki["link"] == {
        "scope": scope,
        "sourceId": "wiki",
        "version": "v1",
    }
    assert {"kind": "ENTITY", "id": pay["id"]} in wiki["objects"]
    assert preview["readOnly"] == [{"sourceId": "web", "kind": "EXTERNAL"}]
    assert data(api.graphql(OPEN, {"scope": scope, "id": "wiki"}))["knowledgeEntry"]["text"] == (
        "# 支付\n\n旧说明"
    )  # the preview wrote nothing

    saved = data(api.graphql(CONFIRM_SAVE, {"id": preview["previewId"]}))["confirmSaveToKnowledge"]
    assert saved["repeat"] is False
    assert {e["kind"] for e in saved["entries"]} == {"KNOWLEDGE"}
    opened = data(api.graphql(OPEN, {"scope": scope, "id": "wiki"}))["knowledgeEntry"]
    assert opened["version"] == wiki["version"] and opened["text"] == wiki["text"]
    again = data(api.graphql(CONFIRM_SAVE, {"id": preview["previewId"]}))["confirmSaveToKnowledge"]
    assert again["repeat"] is True

    external = [{"kind": "ENTITY", "id": pay["id"], "entry": "web"}]
    denied = api.graphql(PREVIEW_SAVE, {"scope": scope, "objects": external})
    assert error_code(denied) == "FORBIDDEN"
    assert error_code(api.graphql(CONFIRM_SAVE, {"id": "pv1.garbage"})) == "INVALID_INPUT"


def test_continue_discussion_creates_only_a_conversation(api: Server, scope: str) -> None:
    _setup(api, scope)
    before = data(api.graphql(GRAPH, {"scope": scope}))["storyGraph"]
    objects = [{"kind": "RELATION", "id": before["relations"][0]["id"]}]
    preview = data(api.graphql(PREVIEW_TALK, {"scope": scope, "objects": objects}))[
        "previewContinueDiscussion"
    ]
    assert preview["objects"] == [{**objects[0], "seq": 1}]
    assert preview["text"].startswith("# 接着聊")
    made = data(api.graphql(CONFIRM_TALK, {"id": preview["previewId"]}))[
        "confirmContinueDiscussion"
    ]
    conv = made["conversation"]
    assert made["repeat"] is False and conv["kind"] == "CONVERSATION"
    opened = data(api.graphql(OPEN, {"scope": scope, "id": conv["id"]}))["knowledgeEntry"]
    assert opened["text"] == preview["text"]
    assert data(api.graphql(GRAPH, {"scope": scope}))["storyGraph"] == before
