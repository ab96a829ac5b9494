"""graphReplay without from/to is bounded like storyGraph: a scope above
STORY_MAX_UNBOUNDED_OBJECTS is refused with INVALID_INPUT saying how to narrow it, and a
window still answers."""

from __future__ import annotations

import uuid

from tests.support.processes import Server
from tests.support.story_api import PUBLISH

REPLAY = """query($s: String!, $f: DateTime, $t: DateTime) {
  graphReplay(scope: $s, from: $f, to: $t) { scope } }"""


def test_an_unwindowed_replay_of_a_large_scope_is_refused(start_server) -> None:  # type: ignore[no-untyped-def]
    api: Server = start_server(STORY_MAX_UNBOUNDED_OBJECTS="1")
    scope = f"replay-{uuid.uuid4().hex[:8]}"
    published = api.graphql(
        PUBLISH,
        {
            "input": {
                "scope": scope,
                "key": "k",
                "entities": [
                    {"ref": "a", "name": "支付模块", "status": "MAIN"},
                    {"ref": "b", "name": "对账模块", "status": "MAIN"},
                ],
            }
        },
    ).json()
    assert "errors" not in published, published
    refused = api.graphql(REPLAY, {"s": scope}).json()
    assert refused["errors"][0]["extensions"]["code"] == "INVALID_INPUT", refused
    window = {"s": scope, "f": "2020-01-01T00:00:00Z", "t": "2040-01-01T00:00:00Z"}
    assert api.graphql(REPLAY, window).json()["data"]["graphReplay"]["scope"] == scope
