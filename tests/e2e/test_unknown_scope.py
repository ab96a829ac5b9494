"""A read of a scope with nothing recorded says so: `scopeKnown` is false on storyGraph and
graphView (the empty lists then mean an unknown, perhaps mistyped, scope), true once anything
is recorded in it; no read falls back to another scope (docs/scopes.md)."""

from __future__ import annotations

import uuid

from tests.support.processes import Server

KNOWN_Q = """query($s: String!) {
  storyGraph(scope: $s) { scopeKnown entities { name } }
  graphView(scope: $s) { scopeKnown nodes { id } } }"""
PUBLISH = """mutation($input: PublishResultInput!) { publishResult(input: $input) { repeat } }"""


def test_a_scope_with_nothing_recorded_reads_as_unknown_until_something_is(api: Server) -> None:
    scope = f"p-{uuid.uuid4().hex[:10]}"
    typo = scope + "x"
    body = api.graphql(KNOWN_Q, {"s": scope}).json()
    assert "errors" not in body, body
    assert body["data"]["storyGraph"] == {"scopeKnown": False, "entities": []}
    assert body["data"]["graphView"] == {"scopeKnown": False, "nodes": []}

    entity = {"ref": "a", "name": "审计模块"}
    done = api.graphql(PUBLISH, {"input": {"scope": scope, "key": "k1", "entities": [entity]}})
    assert "errors" not in done.json(), done.text
    known = api.graphql(KNOWN_Q, {"s": scope}).json()["data"]
    assert known["storyGraph"] == {"scopeKnown": True, "entities": [{"name": "审计模块"}]}
    assert known["graphView"]["scopeKnown"] is True
    # the mistyped scope still reads as unknown: nothing of the other scope is shown
    mistyped = api.graphql(KNOWN_Q, {"s": typo}).json()["data"]
    assert mistyped["storyGraph"] == {"scopeKnown": False, "entities": []}
