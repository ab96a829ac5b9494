"""A reader cannot make an API process parse or keep an oversized document: a text longer
than GRAPHQL_MAX_DOCUMENT_BYTES is refused before it is parsed, cached or stored as a
persisted query (the process's memory under such requests: `bench/document_memory.py`)."""

from __future__ import annotations

import hashlib
import json
import uuid

import httpx

from tests.support.processes import Server


def past_query(padding: int, n: int) -> str:
    return (
        f'query {{ storyGraph(scope: "p{n}", asOf: "2020-01-01T00:00:00Z") '
        f"{{ events {{ id }} }} }} # {'a ' * (padding // 2)}"
    )


def test_an_oversized_past_read_is_refused_before_it_is_parsed(api: Server) -> None:
    for n in range(3):
        response = api.graphql(past_query(964_000, n))
        body = response.json()
        assert "data" not in body, body
        error = body["errors"][0]
        assert error["extensions"]["code"] == "INVALID_INPUT", error
        assert "bytes long; at most 100000" in error["message"], error
        assert "x-past-cache" not in response.headers


def test_an_oversized_persisted_query_is_refused_and_not_kept(api: Server) -> None:
    text = past_query(200_000, 7) + uuid.uuid4().hex  # never sent before
    digest = hashlib.sha256(text.encode()).hexdigest()
    ext = {"persistedQuery": {"version": 1, "sha256Hash": digest}}
    sent = httpx.post(f"{api.url}/graphql", json={"query": text, "extensions": ext}, timeout=30)
    assert sent.json()["errors"][0]["extensions"]["code"] == "INVALID_INPUT", sent.text
    by_hash = httpx.get(
        f"{api.url}/graphql", params={"extensions": json.dumps(ext)}, timeout=30
    ).json()
    assert by_hash["errors"][0]["extensions"]["code"] == "PERSISTED_QUERY_NOT_FOUND", by_hash
