"""A persisted query is kept only after it passed the limits and validation, and each token
may have only so many new ones kept an hour."""

from __future__ import annotations

import hashlib
import json
import uuid
from typing import Any

import httpx

from tests.support.processes import Server


def ext(text: str) -> dict[str, Any]:
    digest = hashlib.sha256(text.encode()).hexdigest()
    return {"persistedQuery": {"version": 1, "sha256Hash": digest}}


def send_pair(api: Server, text: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    body = {"query": text, "extensions": ext(text)}
    answer = httpx.post(f"{api.url}/graphql", json=body, headers=headers, timeout=30)
    return answer.json()  # type: ignore[no-any-return]


def by_hash(api: Server, text: str) -> dict[str, Any]:
    return httpx.get(  # type: ignore[no-any-return]
        f"{api.url}/graphql", params={"extensions": json.dumps(ext(text))}, timeout=30
    ).json()


def code(body: dict[str, Any]) -> str:
    return str(body["errors"][0]["extensions"]["code"])


def test_a_refused_pair_is_not_kept_and_an_accepted_one_is(api: Server) -> None:
    marker = uuid.uuid4().hex
    # ~84 KB of 4,000+ tokens: refused by the token limit
    many = "query { " + " ".join(["__typename"] * 9000) + f" }} # {marker}"
    assert code(send_pair(api, many)) == "INVALID_INPUT"
    assert code(by_hash(api, many)) == "PERSISTED_QUERY_NOT_FOUND"
    # a document that does not validate
    wrong = f"query {{ noSuchField }} # {marker}"
    assert "errors" in send_pair(api, wrong)
    assert code(by_hash(api, wrong)) == "PERSISTED_QUERY_NOT_FOUND"
    # an argument over the input limits (a resolver never saw it)
    long_note = f'mutation {{ enqueueProbe(note: "{"x" * 501}") {{ id }} }} # {marker}'
    assert code(send_pair(api, long_note)) == "INVALID_INPUT"
    assert code(by_hash(api, long_note)) == "PERSISTED_QUERY_NOT_FOUND"
    # a good one is kept and runs by its hash alone
    good = f"query {{ __typename }} # {marker}"
    assert send_pair(api, good)["data"] == {"__typename": "Query"}
    assert by_hash(api, good)["data"] == {"__typename": "Query"}


def test_a_token_has_a_quota_of_new_persisted_queries(start_server) -> None:  # type: ignore[no-untyped-def]
    name = f"pq-{uuid.uuid4().hex[:8]}"  # a quota of its own in the shared Redis
    tokens = [{"token": "t-pq", "name": name, "scopes": ["*"], "roles": ["reader"]}]
    api = start_server(PERSISTED_QUERIES_PER_HOUR="2", API_TOKENS=json.dumps(tokens))
    auth = {"authorization": "Bearer t-pq"}
    texts = [f"query {{ __typename }} # {uuid.uuid4().hex}" for _ in range(3)]
    assert "data" in send_pair(api, texts[0], auth) and "data" in send_pair(api, texts[1], auth)
    refused = send_pair(api, texts[2], auth)
    assert code(refused) == "RATE_LIMITED", refused
    assert "at most 2" in refused["errors"][0]["message"]
    # sending a pair already kept is no new one
    assert "data" in send_pair(api, texts[0], auth)
