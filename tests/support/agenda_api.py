"""GraphQL helpers for the loop's e2e tests: the agenda policy, a Monday
conversation pushed with its speakers, a review over that Monday, signals and concerns."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from engine.clock import utcnow
from tests.support.polling import until
from tests.support.processes import Server
from tests.support.review_api import gql, wait_run

SHANGHAI = ZoneInfo("Asia/Shanghai")


def next_monday() -> datetime:
    today = utcnow().astimezone(SHANGHAI).date()
    monday = today + timedelta(days=7 - today.weekday())
    return datetime(monday.year, monday.month, monday.day, 10, 0, tzinfo=SHANGHAI)


MONDAY = next_monday()  # still ahead, so its Thursday's follow-up is too
THURSDAY = MONDAY + timedelta(days=3)
LINE = f"[{MONDAY.isoformat()}] 李四: 前端部分周四能提测\n"
SPEAKERS = [{"name": "李四", "personId": "p_lisi", "channel": "feishu"}]

POLICY = """mutation($s: String!) { saveAgendaPolicy(scope: $s, seenVersion: 1, policy: {
  loopEnabled: true, actOn: [COMMITMENT, DIFFERENCE], ownerPersonId: "p_wangwu",
  ownerName: "王五", ownerChannel: "feishu"}) { version } }"""
UPSERT = "mutation($i: UpsertSourceInput!) { upsertSource(input: $i) { id } }"
SIGNALS = """query($s: String!) { signals(scope: $s) { edges { node {
  id kind who due decision { kind concernId policyVersion label } } } } }"""
CONCERN = """query($id: ID!) { concern(id: $id) {
  id type goal status source { initiator { personId name } }
  people { personId displayName roleInConcern lastChannel }
  nextAction { when } conversation { text } } }"""
CONCERNS = "query($s: String!) { concerns(scope: $s) { edges { node { id } } } }"
BINDINGS = """query($s: String!, $at: DateTime) { personBindings(scope: $s, asOf: $at) {
  edges { node { id seq kind sourceId speaker entityId personId displayName channel } } } }"""
BIND = """mutation($s: String!, $e: String!, $p: String!, $c: String!) {
  bindPerson(scope: $s, entityId: $e, personId: $p, channel: $c) {
    id seq kind entityId personId displayName channel } }"""
UNBIND = "mutation($s: String!, $e: String!) { unbindPerson(scope: $s, entityId: $e) { id } }"


def code(api: Server, query: str, **variables: Any) -> str:
    body = api.graphql(query, variables).json()
    assert body.get("errors"), body
    return str(body["errors"][0]["extensions"]["code"])


def wait_for(read: Any, ok: Any, what: str, within: float = 60) -> Any:
    return until(read, ok, what, within)


def push(api: Server, scope: str, speakers: list[dict[str, str]] | None) -> None:
    source = {"scope": scope, "id": "chat-1", "kind": "CONVERSATION", "version": "v1"}
    gql(api, UPSERT, i={**source, "text": LINE, "speakers": speakers})


def review(api: Server, scope: str) -> None:
    review_window(api, scope, MONDAY - timedelta(hours=1), hours=2)


def review_window(api: Server, scope: str, start: datetime, hours: float = 1) -> str:
    """A review of the scope's sources over [start, start + hours), run to completion: its id."""
    run_id: str = gql(
        api,
        "mutation($sc: ReviewScopeInput!, $f: DateTime!, $t: DateTime!) {"
        " startReview(scope: $sc, from: $f, to: $t) { id } }",
        sc={"projectIds": [scope]},
        f=start.isoformat(),
        t=(start + timedelta(hours=hours)).isoformat(),
    )["startReview"]["id"]
    wait_run(api, run_id, "completed", timeout=120)
    return run_id


def push_chat(api: Server, scope: str, version: str, text: str) -> None:
    """Version `version` of the scope's conversation "chat", holding `text`."""
    source = {"scope": scope, "id": "chat", "kind": "CONVERSATION", "version": version}
    gql(api, UPSERT, i={**source, "text": text})


def signals(api: Server, scope: str) -> list[dict[str, Any]]:
    return [e["node"] for e in gql(api, SIGNALS, s=scope)["signals"]["edges"]]
