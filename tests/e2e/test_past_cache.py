"""The past computed once: answers as of a settled past moment are cached per
scope counter, equal fresh reads, are served as GET with an ETag (If-None-Match: 304), and
stop being served once a source version is withdrawn or the scope is deleted.

Two real API processes on the same Neo4j and Redis: one caching (settle 1 s, so the test
need not wait a minute for "past"), one with the cache off (PAST_CACHE_BYTES=0): the fresh
read every cached answer is held against."""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.polling import until
from tests.support.processes import Server

ADMIN, READER, OTHER = "past-admin", "past-reader", "past-other"
WINDOW = """query($s: String!, $a: DateTime!, $f: DateTime, $t: DateTime) {
  storyGraph(scope: $s, asOf: $a, from: $f, to: $t) {
    events { id title at } entities { id name } relations { id type }
    references { sourceId sourceVersion excerpt { available text withdrawnAt } } } }"""
VIEW = """query($s: String!, $a: DateTime!) { graphView(scope: $s, asOf: $a) {
  nodes { id label } edges { id } } }"""
EVENT_DAYS = [1, 5, 9, 14, 20]


@dataclass
class World:
    cached: Server
    fresh: Server
    scope: str
    marks: list[datetime]  # record times between the publishes


def gql(api: Server, query: str, token: str = ADMIN, **variables: Any) -> dict[str, Any]:
    body = api.graphql(query, variables, token=token).json()
    assert "errors" not in body, body["errors"]
    return body  # type: ignore[no-any-return]


def publish(api: Server, scope: str, day: int) -> None:
    gql(
        api,
        """mutation($i: PublishResultInput!) { publishResult(input: $i, runId: "past") {
        result { id } } }""",
        i={
            "scope": scope,
            "key": f"k{day}",
            "events": [
                {
                    "ref": "e",
                    "title": f"第{day}天 提测",
                    "at": f"2026-03-{day:02d}T10:00:00Z",
                    "references": [
                        {"sourceId": "chat", "sourceVersion": "v1", "locator": "chars:0-4"}
                    ],
                }
            ],
            "entities": [{"ref": "pay", "name": f"支付模块{day}", "status": "MAIN"}],
            "changes": [{"event": "e", "entity": "pay", "kind": "PROPOSED"}],
        },
    )


def settled(moment: datetime) -> None:
    """Wait (polling the clock, with a deadline) until `moment` is past the 1 s settle."""
    until(lambda: datetime.now(UTC) - moment >= timedelta(seconds=1.2), what="settled", timeout=10)


@pytest.fixture(scope="module")
def world(start_server: Callable[..., Server]) -> World:
    scope = f"past-{uuid.uuid4().hex[:8]}"
    tokens = json.dumps(
        [
            {"token": ADMIN, "name": "past-admin", "scopes": ["*"], "roles": ["admin"]},
            {"token": READER, "name": "past-reader", "scopes": [scope], "roles": ["reader"]},
            {"token": OTHER, "name": "past-other", "scopes": ["elsewhere"], "roles": ["reader"]},
        ]
    )
    cached = start_server(API_TOKENS=tokens, PAST_CACHE_SETTLE_SECONDS="1")
    fresh = start_server(API_TOKENS=tokens, PAST_CACHE_SETTLE_SECONDS="1", PAST_CACHE_BYTES="0")
    gql(
        cached,
        "mutation($i: UpsertSourceInput!) { upsertSource(input: $i) { id } }",
        i={"scope": scope, "id": "chat", "kind": "CONVERSATION", "version": "v1",
           "text": "张三: 支付模块卡在第三方回调"},
    )  # fmt: skip
    marks = [datetime.now(UTC)]
    for day in EVENT_DAYS:
        publish(cached, scope, day)
        marks.append(datetime.now(UTC))
    settled(marks[-1])
    return World(cached, fresh, scope, marks)


def get(api: Server, query: str, token: str = ADMIN, **headers: str) -> httpx.Response:
    return httpx.get(
        f"{api.url}/graphql",
        params={"query": query, "variables": json.dumps(headers.pop("variables", {}))},
        headers={"authorization": f"Bearer {token}", **headers},
        timeout=30,
    )


def window(world: World, server: Server, token: str = ADMIN, **v: Any) -> httpx.Response:
    return httpx.get(
        f"{server.url}/graphql",
        params={"query": WINDOW, "variables": json.dumps(v)},
        headers={"authorization": f"Bearer {token}"},
        timeout=30,
    )


def instants(world: World) -> st.SearchStrategy[datetime]:
    first, last = world.marks[0] - timedelta(minutes=5), world.marks[-1]
    span = (last - first).total_seconds()
    return st.one_of(
        st.sampled_from(world.marks),
        st.floats(0, span).map(lambda s: first + timedelta(seconds=s)),
    )


def test_cached_past_answers_equal_fresh_reads(world: World) -> None:
    days = st.sampled_from([None, *(f"2026-03-{d:02d}T00:00:00Z" for d in range(1, 25))])

    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
    @given(as_of=instants(world), start=days, end=days)
    def check(as_of: datetime, start: str | None, end: str | None) -> None:
        v = {"s": world.scope, "a": as_of.isoformat(), "f": start, "t": end}
        first = window(world, world.cached, **v)
        again = window(world, world.cached, **v)
        fresh = window(world, world.fresh, **v)
        assert "x-past-cache" not in fresh.headers  # the cache is off there
        assert first.json() == again.json() == fresh.json()
        if "errors" in fresh.json():  # a refused window (from after to) is never kept
            assert "x-past-cache" not in again.headers
            return
        assert again.headers["x-past-cache"] == "hit"
        assert again.headers["etag"] == first.headers["etag"]

    check()


def test_get_with_the_etag_is_304_and_only_for_a_caller_of_the_scope(world: World) -> None:
    v = {"s": world.scope, "a": world.marks[3].isoformat()}
    first = get(world.cached, VIEW, variables=v)
    assert first.status_code == 200 and first.headers["cache-control"] == "private, no-cache"
    tag = first.headers["etag"]
    again = get(world.cached, VIEW, variables=v, **{"if-none-match": tag})
    assert again.status_code == 304 and again.content == b""
    as_reader = get(world.cached, VIEW, READER, variables=v, **{"if-none-match": tag})
    assert as_reader.status_code == 304  # the scope's reader may hold it too
    outsider = get(world.cached, VIEW, OTHER, variables=v, **{"if-none-match": tag})
    assert outsider.status_code == 200
    assert outsider.json()["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    assert "etag" not in outsider.headers and "支付" not in outsider.text
    forged = get(world.cached, VIEW, "forged", variables=v, **{"if-none-match": tag})
    assert forged.status_code == 401


def test_a_present_read_is_never_cached(world: World) -> None:
    now = get(world.cached, VIEW, variables={"s": world.scope, "a": datetime.now(UTC).isoformat()})
    plain = world.cached.graphql(
        "query($s: String!) { graphView(scope: $s) { nodes { id } } }", {"s": world.scope}, ADMIN
    )
    assert "etag" not in now.headers and "etag" not in plain.headers


def test_an_if_none_match_of_10_kb_and_hostile_keys_get_clear_answers(world: World) -> None:
    v = {"s": world.scope, "a": world.marks[2].isoformat()}
    huge = get(world.cached, VIEW, variables=v, **{"if-none-match": '"' + "x" * 10_240 + '"'})
    assert huge.status_code == 431
    assert huge.json()["errors"][0]["extensions"]["code"] == "BAD_REQUEST"
    # a scope made to look like another key, glob characters, a newline: hashed, never a key
    for scope in (f"{world.scope}\n*", "storygraph:past:answer:*", "*"):
        r = get(world.cached, VIEW, READER, variables={**v, "s": scope})
        assert r.status_code == 200
        assert r.json()["errors"][0]["extensions"]["code"] in ("FORBIDDEN", "INVALID_INPUT")
        assert "etag" not in r.headers
    stale = get(world.cached, VIEW, variables=v, **{"if-none-match": '"past-forged", W/"x"'})
    assert stale.status_code == 200 and stale.json()["data"]["graphView"]["nodes"]


def test_metrics_report_size_hits_and_evictions(world: World) -> None:
    v = {"s": world.scope, "a": world.marks[1].isoformat()}
    get(world.cached, VIEW, variables=v)
    get(world.cached, VIEW, variables=v)
    admin = {"authorization": f"Bearer {ADMIN}"}  # with tokens, /metrics needs one
    text = httpx.get(f"{world.cached.url}/metrics", headers=admin, timeout=10).text
    lines = {ln.split(" ")[0]: float(ln.split(" ")[1]) for ln in text.splitlines() if ln[:1] != "#"}
    assert lines['storygraph_past_cache_lookups_total{found="memory"}'] >= 1
    assert lines['storygraph_past_cache_lookups_total{found="miss"}'] >= 1
    assert lines["storygraph_past_cache_bytes"] > 0
    assert "storygraph_past_cache_evictions_total" in lines


def test_a_persisted_query_travels_as_its_hash_and_gets_the_same_etag(world: World) -> None:
    v = json.dumps({"s": world.scope, "a": world.marks[4].isoformat()})
    digest = hashlib.sha256(VIEW.encode()).hexdigest()
    ext = json.dumps({"persistedQuery": {"version": 1, "sha256Hash": digest}})
    auth = {"authorization": f"Bearer {ADMIN}", "accept": "application/json"}

    def by_hash(**headers: str) -> httpx.Response:
        params = {"extensions": ext, "variables": v}
        return httpx.get(f"{world.cached.url}/graphql", params=params,
                         headers={**auth, **headers}, timeout=30)  # fmt: skip

    unknown = by_hash()
    if unknown.json().get("data") is None:  # a first run: the hash is not kept yet
        assert unknown.json()["errors"][0]["extensions"]["code"] == "PERSISTED_QUERY_NOT_FOUND"
        pair = {"query": VIEW, "variables": json.loads(v), "extensions": json.loads(ext)}
        kept = httpx.post(f"{world.cached.url}/graphql", json=pair, headers=auth, timeout=30)
        assert kept.json()["data"]["graphView"]["nodes"], kept.text
    answer = by_hash()
    assert answer.status_code == 200 and answer.json()["data"]["graphView"]["nodes"]
    full = get(world.cached, VIEW, variables=json.loads(v))
    assert answer.headers["etag"] == full.headers["etag"]
    assert by_hash(**{"if-none-match": answer.headers["etag"]}).status_code == 304

    # the GraphiQL page loads without a token; a hash-only GET that looks like a page is a read
    as_page = httpx.get(f"{world.cached.url}/graphql", params={"extensions": ext, "variables": v},
                        headers={"accept": "text/html"}, timeout=30)  # fmt: skip
    assert as_page.status_code == 401 and "支付" not in as_page.text

    wrong = {"query": "{ __typename }", "extensions": json.loads(ext)}
    r = httpx.post(f"{world.cached.url}/graphql", json=wrong, headers=auth, timeout=30)
    assert r.status_code == 400 and r.json()["errors"][0]["extensions"]["code"] == "BAD_REQUEST"
    for hostile in ("../../etc", "*", "a" * 65, 7):
        bad = json.dumps({"persistedQuery": {"version": 1, "sha256Hash": hostile}})
        r = httpx.get(f"{world.cached.url}/graphql", params={"extensions": bad}, headers=auth,
                      timeout=30)  # fmt: skip
        assert r.status_code == 400, r.text
        assert r.json()["errors"][0]["extensions"]["code"] == "BAD_REQUEST"


def test_a_withdrawal_then_a_deletion_stop_the_cached_answers(world: World) -> None:
    v = {"s": world.scope, "a": world.marks[-1].isoformat(), "f": None, "t": None}
    before = window(world, world.cached, **v)
    assert window(world, world.cached, **v).headers["x-past-cache"] == "hit"
    refs = before.json()["data"]["storyGraph"]["references"]
    assert refs and all(r["excerpt"]["available"] for r in refs)
    gql(
        world.cached,
        """mutation($s: String!) { withdrawSource(scope: $s, sourceId: "chat", version: "v1",
        reason: "redacted") { version } }""",
        s=world.scope,
    )
    after = window(world, world.cached, **v)
    assert after.headers["x-past-cache"] == "miss"  # the counter moved
    assert after.headers["etag"] != before.headers["etag"]
    assert after.json() == window(world, world.fresh, **v).json()
    refs = after.json()["data"]["storyGraph"]["references"]
    assert refs and not any(r["excerpt"]["available"] for r in refs)
    assert window(world, world.cached, **v).headers["x-past-cache"] == "hit"

    gql(world.cached, "mutation($s: String!) { deleteScope(scope: $s) { id } }", s=world.scope)
    gone = window(world, world.cached, **v)
    assert gone.headers.get("x-past-cache") != "hit"
    assert gone.json() == window(world, world.fresh, **v).json()
    assert "提测" not in gone.text
