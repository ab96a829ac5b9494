"""Operations generated from the schema, sent over HTTP to a real API with a scoped token:
no 5xx, no INTERNAL, every error with `extensions.code`, nothing of another scope."""

from __future__ import annotations

import json
import os

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_graphql import from_schema, nodes

from engine.settings import PROJECT_ROOT
from tests.support.fuzz import OTHER_SCOPE, Tally
from tests.support.processes import Server

TOKEN = "t-fuzz"
TOKENS = json.dumps(
    [{"token": TOKEN, "name": "fuzzer", "scopes": ["p1"],
      "roles": ["reader", "editor", "agenda", "operator"]}]
)  # fmt: skip
SCHEMA = (PROJECT_ROOT / "schema.graphql").read_text(encoding="utf-8")
# valid instants, one without a zone, one reversed-looking, garbage
TIMES = ["2026-03-16T10:00:00Z", "2026-03-16T10:00:00+08:00", "2026-03-16T10:00:00",
         "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "garbage", ""]  # fmt: skip
CUSTOM = {
    "DateTime": st.sampled_from(TIMES).map(nodes.String),
    "JSON": st.text(max_size=20).map(nodes.String),
}
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "150"))


@pytest.fixture(scope="module")
def fuzzed(start_server) -> Server:  # type: ignore[no-untyped-def]
    server = start_server(API_TOKENS=TOKENS)
    # data of a scope the token cannot use, which must never show in an answer
    admin = start_server()
    admin.graphql(
        "mutation($i: PublishResultInput!) { publishResult(input: $i) { repeat } }",
        {"i": {"scope": OTHER_SCOPE, "key": "fuzz", "events": [
            {"ref": "e", "title": OTHER_SCOPE, "at": "2026-03-16T10:00:00Z"}]}},
    )  # fmt: skip
    return server


def test_generated_operations_get_coded_answers_and_no_other_scope(fuzzed: Server) -> None:
    tally = Tally()
    with httpx.Client(
        base_url=fuzzed.url, headers={"authorization": f"Bearer {TOKEN}"}, timeout=30
    ) as client:

        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            database=None,
        )
        @given(from_schema(SCHEMA, custom_scalars=CUSTOM))
        def run(query: str) -> None:
            tally.check(query, client.post("/graphql", json={"query": query}))

        run()
    print(tally.figures())
    assert not tally.problems, "\n".join(tally.problems[:20])
