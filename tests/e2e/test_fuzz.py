"""Operations generated from the schema, sent over HTTP to a real API with a scoped token:
no 5xx, no INTERNAL, every error with `extensions.code`, nothing of another scope."""

from __future__ import annotations

import json
import os
import uuid

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_graphql import from_schema

from engine.settings import PROJECT_ROOT
from tests.support.fuzz import OTHER_SCOPE, SCOPE, Tally, realistic_scalars
from tests.support.processes import Server

TOKEN = "t-fuzz"
TOKENS = json.dumps(
    [{"token": TOKEN, "name": "fuzzer", "scopes": ["p1"],
      "roles": ["reader", "editor", "agenda", "operator"]}]
)  # fmt: skip
SCHEMA = (PROJECT_ROOT / "schema.graphql").read_text(encoding="utf-8")
PUBLISH = """mutation($i: PublishResultInput!) { publishResult(input: $i) {
  result { id } } }"""
READ_IDS = """query($s: String!) { storyGraph(scope: $s) {
  events { id } entities { id } relations { id } } }"""
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "150"))


def seed(admin: Server, scope: str) -> list[str]:
    """One result with an event, two entities and a relation; their ids."""
    result = {
        "scope": scope,
        "key": f"fuzz-{uuid.uuid4().hex[:8]}",
        "events": [{"ref": "e", "title": scope, "at": "2026-03-16T10:00:00Z"}],
        "entities": [{"ref": "a", "name": f"{scope} 张三"}, {"ref": "b", "name": "v2.0"}],
        "relations": [{"ref": "r", "from": "a", "to": "b", "type": "works_on"}],
    }
    published = admin.graphql(PUBLISH, {"i": result}).json()
    assert published.get("data"), published
    graph = admin.graphql(READ_IDS, {"s": scope}).json()["data"]["storyGraph"]
    ids = [published["data"]["publishResult"]["result"]["id"]]
    return ids + [o["id"] for kind in ("events", "entities", "relations") for o in graph[kind]]


@pytest.fixture(scope="module")
def fuzzed(start_server) -> tuple[Server, list[str]]:  # type: ignore[no-untyped-def]
    server = start_server(API_TOKENS=TOKENS)
    admin = start_server()
    known = seed(admin, SCOPE)
    # data of a scope the token cannot use, which must never show in an answer
    seed(admin, OTHER_SCOPE)
    return server, known


def fuzz(server: Server, operations: st.SearchStrategy[str], examples: int) -> Tally:
    """Send `examples` generated operations with the scoped token; the tally of answers."""
    tally = Tally()
    with httpx.Client(
        base_url=server.url, headers={"authorization": f"Bearer {TOKEN}"}, timeout=30
    ) as client:

        @settings(
            max_examples=examples,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            database=None,
        )
        @given(operations)
        def run(query: str) -> None:
            tally.check(query, client.post("/graphql", json={"query": query}))

        run()
    print(tally.figures())
    return tally


def test_generated_operations_get_coded_answers_and_no_other_scope(
    fuzzed: tuple[Server, list[str]],
) -> None:
    server, known = fuzzed
    tally = fuzz(server, from_schema(SCHEMA, custom_scalars=realistic_scalars(known)), EXAMPLES)
    assert not tally.problems, "\n".join(tally.problems[:20])


def test_search_with_lucene_syntax_gets_coded_answers_and_no_other_scope(
    fuzzed: tuple[Server, list[str]],
) -> None:
    """search: quotes, wildcards, fuzzy marks, operators, fields and unbalanced
    parentheses in the text are searched as words or refused with INVALID_INPUT."""
    server, known = fuzzed
    search = from_schema(SCHEMA, fields=["search"], custom_scalars=realistic_scalars(known))
    tally = fuzz(server, search, EXAMPLES // 3)
    assert not tally.problems, "\n".join(tally.problems[:20])
    assert tally.reached > 0
