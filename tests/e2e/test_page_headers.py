"""Every page carries the headers that stop framing, sniffing and foreign scripts, and with
tokens configured `/metrics` answers only a token of every scope."""

from __future__ import annotations

import json

import httpx
import pytest

from tests.support.processes import Server


@pytest.mark.parametrize("path", ["/", "/viz", "/graphql", "/viz/viz.js"])
def test_every_page_forbids_framing_and_sniffing(api: Server, path: str) -> None:
    page = httpx.get(f"{api.url}{path}", headers={"accept": "text/html"}, timeout=30)
    assert page.status_code == 200, page.text[:200]
    assert page.headers["x-frame-options"] == "DENY"
    assert page.headers["x-content-type-options"] == "nosniff"
    csp = page.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in csp and "object-src 'none'" in csp
    assert "'unsafe-inline'" not in csp.split("script-src", 1)[1].split(";", 1)[0]


def test_with_tokens_metrics_needs_a_token_of_every_scope(start_server) -> None:  # type: ignore[no-untyped-def]
    tokens = [
        {"token": "t-ops", "name": "ops", "scopes": ["*"], "roles": ["reader"]},
        {"token": "t-p1", "name": "p1-app", "scopes": ["p1"], "roles": ["admin"]},
    ]
    api = start_server(API_TOKENS=json.dumps(tokens))
    url = f"{api.url}/metrics"
    assert httpx.get(url, timeout=30).status_code == 401
    scoped = httpx.get(url, headers={"authorization": "Bearer t-p1"}, timeout=30)
    assert scoped.status_code == 403
    scraped = httpx.get(url, headers={"authorization": "Bearer t-ops"}, timeout=30)
    assert scraped.status_code == 200 and "storygraph_http_requests_total" in scraped.text
