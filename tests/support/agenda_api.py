"""GraphQL helpers for the loop's e2e tests: the agenda policy, a Monday
conversation pushed with its speakers, a review over that Monday, signals and concerns; the
loop's two chains up to the moment the person is asked (a promise, a difference)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from engine.clock import utcnow
from tests.support.concern_api import ConcernClient
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


# --- the loop's chains over HTTP (tests/e2e/test_loop_seed_example.py, test_signal_answers.py)

# API tokens of the loop's stack (`offline_open`): the operator who sets it up, the person who
# confirms what the graph holds, an editor who accepts a proposal, and a reader
OPS, CONFIRMER, EDITOR, READER = "loop-ops", "loop-wangwu", "loop-wang", "loop-reader"
LOOP_TOKENS = [
    {"token": OPS, "name": "ops", "scopes": ["*"], "roles": ["admin"]},
    {"token": CONFIRMER, "name": "wangwu", "scopes": ["*"], "roles": ["reader", "editor"]},
    {"token": EDITOR, "name": "wang", "scopes": ["*"], "roles": ["reader", "editor"]},
    {"token": READER, "name": "li", "scopes": ["*"], "roles": ["reader"]},
]
QUESTION = "李四，前端部分周四提测了吗？"
DIFFERENCE_QUESTION = "张三，支付模块现在由谁负责：张三还是李四？"
GRAPH = """query($s: String!, $at: DateTime) { storyGraph(scope: $s, asOf: $at) {
  entities { id name kind }
  events { id title at by { kind id } viaConcern resultId }
  relations { id fromId toId type confirmation seq by { kind id } viaConcern }
  suggestions { id kind status seq }
  references { ownerId sourceId locator excerpt { available text } } } }"""
TURN = "query($id: ID!) { concern(id: $id) { status revision nextAction { when } } }"


def story(api: Server, scope: str, at: datetime | str | None = None) -> dict[str, Any]:
    """The scope's story graph as of `at` (now when None)."""
    moment = at.isoformat() if isinstance(at, datetime) else at
    found: dict[str, Any] = gql(api, GRAPH, s=scope, at=moment)["storyGraph"]
    return found


def turned(api: Server, cid: str, recorded: int) -> dict[str, Any]:
    """Until the loop turn a reply triggered has saved its decision (the concern's revision
    past the reply's `recorded`); the concern then."""
    got: dict[str, Any] = until(
        lambda: gql(api, TURN, id=cid)["concern"],
        lambda c: c["revision"] > recorded,
        f"the turn after revision {recorded}",
    )
    return got


def promise_raised(api: Server, scope: str) -> tuple[dict[str, Any], str, dict[str, Any]]:
    """李四 (pushed as the speaker p_lisi on feishu) promises on MONDAY "前端部分周四能提测";
    the scope's loop is on (owner 王五, p_wangwu on feishu); a review reads it: one
    commitment signal, and the agenda raises its follow-up. (the signal, its concern's id,
    the concern)"""
    gql(api, POLICY, s=scope)
    push(api, scope, SPEAKERS)
    review(api, scope)
    [signal] = signals(api, scope)
    cid = f"con-{signal['id']}"
    assert signal["decision"]["label"] == f"raised {cid}"
    concern = wait_for(lambda: gql(api, CONCERN, id=cid)["concern"], bool, "raised")
    return signal, cid, concern


def promised_and_asked(api: Server, scope: str) -> tuple[dict[str, Any], str, datetime]:
    """`promise_raised` with every sending window open (`offline_open`): the signal due
    Thursday 18:00 and its follow-up first due at that time, when the scheduler asks 李四:
    he is asked before anyone answers. (the signal, its concern's id, the time he was asked)"""
    signal, cid, concern = promise_raised(api, scope)
    first = datetime.fromisoformat(concern["nextAction"]["when"])
    assert first == datetime.fromisoformat(signal["due"]) == THURSDAY + timedelta(hours=8)
    people = ConcernClient(api, scope, MONDAY)
    people.scheduler((first - MONDAY).total_seconds() / 60)
    [asked] = people.wait_for("p_lisi", 1)
    assert (asked["text"], asked["status"]) == (QUESTION, "sent")
    return signal, cid, datetime.fromisoformat(asked["deliverAt"])


# the difference: 王五 states on BASE (yesterday) who is responsible for 支付模块, then changes it
BASE = datetime.now(SHANGHAI).replace(microsecond=0) - timedelta(days=1)
STATED = f"[{BASE.isoformat()}] 王五: 张三负责支付模块\n"
CHANGED = f"[{(BASE + timedelta(hours=2)).isoformat()}] 王五: 支付模块改由李四负责\n"
CONFIRM = """mutation($s: String!, $id: ID!) { confirmRelation(scope: $s, id: $id, why: "对") {
  seq by { kind id } } }"""
BIND_ZHANGSAN = """mutation($s: String!, $e: String!) { bindPerson(scope: $s, entityId: $e,
  personId: "p_zhangsan", displayName: "张三", channel: "feishu") { id } }"""


def holders(g: dict[str, Any]) -> list[tuple[str, str]]:
    """Who is responsible for what, by name, in a story graph."""
    names = {e["id"]: e["name"] for e in g["entities"]}
    return sorted(
        (names[r["fromId"]], names[r["toId"]])
        for r in g["relations"]
        if r["type"] == "responsible_for"
    )


def difference_asked(api: Server, scope: str) -> tuple[dict[str, Any], str, dict[str, Any]]:
    """A person (王五, the CONFIRMER token) confirms the reviewed "张三负责支付模块"; an operator
    binds the person entity 张三 to p_zhangsan; a later review of "支付模块改由李四负责" yields a
    pending difference, its signal raises a concern to 张三, who is asked naming the module and
    both values (every window open: now). (the signal, the concern's id, the confirmed
    relation)"""
    gql(api, POLICY, s=scope)
    push_chat(api, scope, "v1", STATED)
    review_window(api, scope, BASE - timedelta(minutes=30))
    [rel] = story(api, scope)["relations"]
    body = api.graphql(CONFIRM, {"s": scope, "id": rel["id"]}, token=CONFIRMER).json()
    assert body["data"]["confirmRelation"]["by"] == {"kind": "USER", "id": "wangwu"}, body
    [zhang] = [e for e in story(api, scope)["entities"] if e["name"] == "张三"]
    gql(api, BIND_ZHANGSAN, s=scope, e=zhang["id"])

    push_chat(api, scope, "v2", STATED + CHANGED)
    review_window(api, scope, BASE + timedelta(hours=1, minutes=30))
    [signal] = [s for s in signals(api, scope) if s["kind"] == "DIFFERENCE"]
    cid = f"con-{signal['id']}"
    assert signal["decision"]["label"] == f"raised {cid}"
    concern = wait_for(lambda: gql(api, CONCERN, id=cid)["concern"], bool, "raised")
    assert concern["goal"] == "确认负责人是张三还是李四"
    assert "p_zhangsan" in [p["personId"] for p in concern["people"]]
    [confirmed] = story(api, scope)["relations"]
    assert holders(story(api, scope)) == [("张三", "支付模块")]  # nothing asserted yet
    # 张三 is asked first: the question naming the module and both values reached him
    [asked] = ConcernClient(api, scope, BASE).wait_for("p_zhangsan", 1)
    assert (asked["text"], asked["status"]) == (DIFFERENCE_QUESTION, "sent")
    return signal, cid, confirmed
