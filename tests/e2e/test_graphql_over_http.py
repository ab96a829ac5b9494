"""GraphQL over HTTP per the spec: graphql-http's own audit against the real API
with a token, the spec's media type, request errors without `data` and with a code, and a
subscription sent as a plain request refused clearly."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import pytest

from tests.support.js_clients import run_node
from tests.support.processes import Server

TOKEN = "http-spec-token"
TOKENS = [{"token": TOKEN, "name": "spec", "scopes": ["*"], "roles": ["reader"]}]
SPEC = "application/graphql-response+json"
AUTH = {"authorization": f"Bearer {TOKEN}"}


@pytest.fixture(scope="module")
def api(start_server: Callable[..., Server]) -> Server:
    return start_server(API_TOKENS=json.dumps(TOKENS))


def post(api: Server, body: object, accept: str | None = None) -> httpx.Response:
    headers = {**AUTH, **({"accept": accept} if accept else {})}
    return httpx.post(f"{api.url}/graphql", json=body, headers=headers, timeout=30)


def test_graphql_http_audit_passes_every_check_without_a_warning(api: Server) -> None:
    lines = run_node("audit.mjs", f"{api.url}/graphql", TOKEN)
    summary = lines[-1]
    not_ok = [line for line in lines[:-1] if line["status"] != "ok"]
    assert not_ok == [], json.dumps(not_ok, ensure_ascii=False, indent=1)
    assert summary["summary"] == {"ok": summary["total"], "warn": 0, "error": 0}
    assert summary["total"] >= 61


def test_the_audit_without_a_token_is_refused_everywhere(api: Server) -> None:
    """The audit passes because of the token, not because the API is open: without one,
    every request of it is a 401 with a code."""
    r = httpx.post(
        f"{api.url}/graphql",
        json={"query": "{ __typename }"},
        headers={"accept": SPEC},
        timeout=30,
    )
    assert r.status_code == 401
    assert r.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"


def test_spec_media_type_answers_request_errors_400_without_data_and_with_a_code(
    api: Server,
) -> None:
    ok = post(api, {"query": "{ __typename }"}, SPEC)
    assert ok.status_code == 200
    assert ok.headers["content-type"].startswith(SPEC)
    assert ok.json() == {"data": {"__typename": "Query"}}

    syntax = post(api, {"query": "{ __typename "}, SPEC)
    assert syntax.status_code == 400
    assert syntax.headers["content-type"].startswith(SPEC)
    assert "data" not in syntax.json()
    assert syntax.json()["errors"][0]["extensions"]["code"] == "INVALID_INPUT"

    invalid = post(api, {"query": "{ noSuchField }"}, SPEC)
    assert invalid.status_code == 400 and "data" not in invalid.json()
    assert invalid.json()["errors"][0]["extensions"]["code"] == "INVALID_INPUT"


def test_legacy_json_keeps_200_but_a_syntax_error_still_has_a_code(api: Server) -> None:
    r = post(api, {"query": "{ __typename "}, "application/json")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("application/json")
    assert "data" not in r.json()
    assert r.json()["errors"][0]["extensions"]["code"] == "INVALID_INPUT"


def test_an_accept_header_naming_nothing_we_speak_is_406(api: Server) -> None:
    r = post(api, {"query": "{ __typename }"}, "text/plain")
    assert r.status_code == 406
    assert r.json()["errors"][0]["extensions"]["code"] == "NOT_ACCEPTABLE"


def test_a_subscription_sent_as_a_plain_post_is_a_clear_400(api: Server) -> None:
    doc = 'subscription { graphChanged(scope: "p1") { scope } }'
    for accept in (None, SPEC):
        r = post(api, {"query": doc}, accept)
        assert r.status_code == 400
        error = r.json()["errors"][0]
        assert error["extensions"]["code"] == "BAD_REQUEST"
        assert "text/event-stream" in error["message"]
        assert "INTERNAL" not in r.text
