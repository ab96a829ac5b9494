"""Binding a speaker to a concern person through upsertSource needs what bindPerson needs
(operator): an editor pushes text, not who concerns may message."""

from __future__ import annotations

import json
import uuid

from tests.support.processes import Server

UPSERT = "mutation($i: UpsertSourceInput!) { upsertSource(input: $i) { id } }"
BINDINGS = """query($s: String!) { personBindings(scope: $s, first: 10) {
  edges { node { personId } } } }"""


def test_an_editor_cannot_bind_speakers_and_an_operator_can(start_server) -> None:  # type: ignore[no-untyped-def]
    tokens = [
        {"token": "t-ed", "name": "writer", "scopes": ["*"], "roles": ["reader", "editor"]},
        {"token": "t-op", "name": "ops", "scopes": ["*"], "roles": ["editor", "operator"]},
    ]
    api: Server = start_server(API_TOKENS=json.dumps(tokens))
    scope = f"bind-{uuid.uuid4().hex[:8]}"
    source = {
        "scope": scope,
        "id": "chat",
        "kind": "CONVERSATION",
        "version": "v1",
        "text": "[2035-03-19T10:00:00+08:00] 李四: 好的\n",
        "speakers": [{"name": "李四", "personId": "sms:+15550100", "channel": "sms"}],
    }
    refused = api.graphql(UPSERT, {"i": source}, token="t-ed").json()
    assert refused["errors"][0]["extensions"]["code"] == "FORBIDDEN", refused
    bound = api.graphql(BINDINGS, {"s": scope}, token="t-ed").json()
    assert bound["data"]["personBindings"]["edges"] == [], bound
    plain = {**source, "speakers": None}
    assert "errors" not in api.graphql(UPSERT, {"i": plain}, token="t-ed").json()
    assert "errors" not in api.graphql(UPSERT, {"i": source}, token="t-op").json()
    bound = api.graphql(BINDINGS, {"s": scope}, token="t-ed").json()
    assert bound["data"]["personBindings"]["edges"] == [{"node": {"personId": "sms:+15550100"}}]
