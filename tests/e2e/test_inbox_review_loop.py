"""The inbox with real reviews: over HTTP, a real worker, real Neo4j and
Redis and the DEFAULT offline model (no scripted answers).

A person confirms that 张三 is responsible for 支付模块; a review of "支付模块改由李四负责"
leaves a pending difference in the inbox, quoting the message. The person dismisses it. A
review of the same text again proposes the same change on the same passage: it is recorded
as a repeat of the dismissed one and the inbox stays empty, while the cost ledger shows the
second run's model calls. A new message making the same claim brings the item back, citing
both passages."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from tests.support.agenda_api import push_chat, review_window
from tests.support.processes import Server
from tests.support.review_api import gql

BASE = datetime.now(UTC).replace(microsecond=0) - timedelta(days=1)
STATED = f"[{BASE.isoformat()}] 王五: 张三负责支付模块\n"
CHANGED = f"[{(BASE + timedelta(hours=2)).isoformat()}] 王五: 支付模块改由李四负责\n"
AGAIN = f"[{(BASE + timedelta(hours=4)).isoformat()}] 赵六: 支付模块改由李四负责了\n"
INBOX = """query($s: String!) {
  inbox(scope: $s) { totalCount edges { node {
    kind currentValue proposedValue currentLabel proposedLabel repeatOf proposedBy { kind id }
    suggestion { id status } evidence { locator excerpt { available text } } } } }
  inboxCounts(scope: $s) { difference total } }"""
DISMISS = """mutation($s: String!, $id: ID!) {
  dismissSuggestion(scope: $s, id: $id) { status } }"""
LEDGER = """query($s: String!, $from: DateTime!) { costLedger(scope: $s, from: $from) {
  byRun { id cost { calls tokens estimatedCalls } } } }"""
SUGGESTIONS = """query($s: String!) { storyGraph(scope: $s) {
  suggestions { id kind status repeatOf } } }"""


def inbox(api: Server, scope: str) -> tuple[list[dict[str, Any]], dict[str, int]]:
    got = gql(api, INBOX, s=scope)
    return [e["node"] for e in got["inbox"]["edges"]], got["inboxCounts"]


def excerpts(item: dict[str, Any]) -> list[str]:
    return [e["excerpt"]["text"] for e in item["evidence"]]


def test_a_dismissed_difference_stays_out_until_a_new_message_makes_the_claim(
    offline: Server, scope: str
) -> None:
    api = offline
    started = datetime.now(UTC)
    push_chat(api, scope, "v1", STATED)
    review_window(api, scope, BASE - timedelta(minutes=30))
    [rel] = gql(api, "query($s: String!) { storyGraph(scope: $s) { relations { id } } }", s=scope)[
        "storyGraph"
    ]["relations"]
    gql(
        api,
        'mutation($s: String!, $id: ID!) { confirmRelation(scope: $s, id: $id, why: "对") {'
        " seq } }",
        s=scope,
        id=rel["id"],
    )

    push_chat(api, scope, "v2", STATED + CHANGED)
    window = BASE + timedelta(hours=1, minutes=30)
    second = review_window(api, scope, window)
    (item,), counts = inbox(api, scope)
    assert counts == {"difference": 1, "total": 1}
    assert item["kind"] == "DIFFERENCE" and item["suggestion"]["status"] == "PENDING"
    assert item["proposedBy"] == {"kind": "RUN", "id": second}
    # the relation's holder: its value is an entity id, read by a person as a name
    assert (item["currentLabel"], item["proposedLabel"]) == ("张三", "李四")
    assert item["currentValue"].startswith("ent_") and item["proposedValue"].startswith("ent_")
    assert excerpts(item) == ["支付模块改由李四负责"]  # the clause the review read it from
    first = item["suggestion"]["id"]
    gql(api, DISMISS, s=scope, id=first)
    assert inbox(api, scope) == ([], {"difference": 0, "total": 0})

    # the same text reviewed again: the same change on the same passage stays out
    third = review_window(api, scope, window)
    assert inbox(api, scope) == ([], {"difference": 0, "total": 0})
    repeats = [
        s
        for s in gql(api, SUGGESTIONS, s=scope)["storyGraph"]["suggestions"]
        if s["repeatOf"] == first
    ]
    assert [s["status"] for s in repeats] == ["DISMISSED"]
    # ... and the ledger shows what the second review of it cost
    runs = {
        r["id"]: r["cost"]
        for r in gql(api, LEDGER, s=scope, **{"from": started.isoformat()})["costLedger"]["byRun"]
    }
    assert runs[third]["calls"] >= 1 and runs[third]["tokens"] > 0
    assert runs[third]["estimatedCalls"] == runs[third]["calls"]  # the offline model's
    assert {second, third} <= set(runs)

    # a new message making the same claim: back in the inbox, citing both passages
    push_chat(api, scope, "v3", STATED + CHANGED + AGAIN)
    review_window(api, scope, BASE + timedelta(hours=3, minutes=30))
    (back,), counts = inbox(api, scope)
    assert counts["total"] == 1 and back["repeatOf"] == first
    assert excerpts(back) == ["支付模块改由李四负责"] * 2  # 王五's line and 赵六's
    old, new = (e["locator"] for e in back["evidence"])
    assert old == item["evidence"][0]["locator"] and new != old
