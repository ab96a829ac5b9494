"""The loop end to end: what a review learns reaches the person who can
settle it, and the answer comes back into the story graph. Over HTTP, a real worker, real
Neo4j and Redis, the DEFAULT offline model (no scripted answers).

1. The worked example of docs/rules/loop.md, started by a review instead of a person: on a Monday 李四 (pushed as the
   speaker p_lisi on feishu) says "前端部分周四能提测" → one commitment signal due Thursday →
   the agenda raises a follow-up to 李四, first asked at or after the promised time (Thursday
   18:00 closes the working window: Friday's opening) as a question naming the thing
   ("李四，前端部分周四提测了吗？") → 李四 answers "已经提测了" → the concern resolves, the
   back-flow reaches the owner 王五, and the story graph holds the event "前端部分已提测" by
   the loop's run, citing 李四's line in the concern's conversation: absent as of Wednesday,
   present as of Friday.
2. A difference: a person confirms that 张三 is responsible for 支付模块; an operator binds the
   person entity 张三 to the concern person p_zhangsan; a later review of "支付模块改由李四负责"
   yields a pending difference → a concern to 张三, who is asked "张三，支付模块现在由谁负责：
   张三还是李四？" and then answers "对，已经交给李四了" → the relation is
   untouched; the inbox's first item is the difference quoting 张三's answer → a user accepts
   it over HTTP → the relation is 李四 by that user (as of before the acceptance: 张三).
   Reviewing the same message again raises nothing new.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from tests.support.agenda_api import (
    CONCERN,
    MONDAY,
    POLICY,
    SHANGHAI,
    SIGNALS,
    push,
    push_chat,
    review,
    review_window,
    signals,
    wait_for,
)
from tests.support.concern_api import ConcernClient
from tests.support.processes import Server
from tests.support.review_api import gql

WEDNESDAY = MONDAY + timedelta(days=2)
FRIDAY = MONDAY + timedelta(days=4, hours=2)
GRAPH = """query($s: String!, $at: DateTime) { storyGraph(scope: $s, asOf: $at) {
  entities { id name kind }
  events { id title at by { kind id } viaConcern resultId }
  relations { id fromId toId type confirmation seq by { kind id } viaConcern }
  suggestions { id kind status }
  references { ownerId sourceId locator excerpt { available text } } } }"""
INBOX = """query($s: String!) { inbox(scope: $s) { edges { node {
  kind reason seenVersion suggestion { id status viaConcern }
  evidence { sourceId excerpt { text } } } } } }"""
ACCEPT = """mutation($s: String!, $id: ID!, $seen: Int) {
  acceptSuggestion(scope: $s, id: $id, seenVersion: $seen) { status } }"""
RUN = """query($id: String!) { supervisionRun(id: $id) {
  id trigger status resultId covered { sourceId version start end } } }"""
CHAIN = """query($s: String!, $id: ID!, $at: DateTime) { signal(scope: $s, id: $id, asOf: $at) {
  id status concern { id status signal { id } } } }"""


def story(api: Server, scope: str, at: datetime | str | None = None) -> dict[str, Any]:
    moment = at.isoformat() if isinstance(at, datetime) else at
    found: dict[str, Any] = gql(api, GRAPH, s=scope, at=moment)["storyGraph"]
    return found


def minutes(at: datetime) -> float:
    return (at - MONDAY).total_seconds() / 60


def test_seed_complete_example_started_by_a_review(offline: Server, scope: str) -> None:
    api = offline
    people = ConcernClient(api, scope, MONDAY)
    gql(api, POLICY, s=scope)  # owner 王五 (p_wangwu on feishu), the loop on
    push(api, scope, [{"name": "李四", "personId": "p_lisi", "channel": "feishu"}])
    review(api, scope)

    [signal] = signals(api, scope)
    cid = f"con-{signal['id']}"
    assert signal["decision"]["label"] == f"raised {cid}"
    concern = wait_for(lambda: gql(api, CONCERN, id=cid)["concern"], bool, "raised")
    first = datetime.fromisoformat(concern["nextAction"]["when"])
    due = datetime.fromisoformat(signal["due"])
    assert due.astimezone(SHANGHAI).weekday() == 3  # promised for Thursday (18:00)
    assert first >= due  # never asked before the promised time (不提前追问)
    assert first.astimezone(SHANGHAI).weekday() == 4 and first.astimezone(SHANGHAI).hour == 9

    # at the window's opening the question goes out
    people.scheduler(minutes(first) + 1)
    [asked] = people.wait_for("p_lisi", 1)
    assert asked["text"] == "李四，前端部分周四提测了吗？"

    answered_at = first + timedelta(minutes=20)
    people.reply(cid, "p_lisi", "已经提测了", minutes(answered_at))
    resolved = people.wait_revision(cid, lambda c: c["status"] == "RESOLVED")
    assert resolved["status"] == "RESOLVED"
    backflow = wait_for(
        lambda: [m for m in people.sent_to("p_wangwu") if m["kind"] == "backflow"],
        bool,
        "the back-flow reaches the owner",
    )
    assert "已经提测了" in backflow[0]["text"]
    chain = wait_for(
        # as of Friday: the answer is recorded at the moved clock's Thursday
        lambda: gql(api, CHAIN, s=scope, id=signal["id"], at=FRIDAY.isoformat())["signal"],
        lambda s: s["status"] == "KEPT",
        "the signal is kept",
    )
    assert chain["concern"] == {"id": cid, "status": "RESOLVED", "signal": {"id": signal["id"]}}

    assert [e for e in story(api, scope, WEDNESDAY)["events"] if "已提测" in e["title"]] == []
    friday = story(api, scope, FRIDAY)
    [event] = [e for e in friday["events"] if e["title"] == "前端部分已提测"]
    # proposed by the review of the concern's conversation, by its run (never stamped as
    # 李四's own act), under the run's result: no other path writes the answer
    assert event["by"]["kind"] == "RUN" and event["viaConcern"] == cid
    run = gql(api, RUN, id=event["by"]["id"])["supervisionRun"]
    assert run["status"] == "completed" and run["trigger"] == "automatic"
    assert run["resultId"] == event["resultId"]
    assert {c["sourceId"] for c in run["covered"]} == {f"concern-{cid}"}
    [ref] = [r for r in friday["references"] if r["ownerId"] == event["id"]]
    assert ref["sourceId"] == f"concern-{cid}" and ref["locator"] == "lines:2-2"
    assert ref["excerpt"]["available"] and ref["excerpt"]["text"].endswith("李四: 已经提测了")

    # an ordinary review of the scope over the same hours: the loop's conversation is not
    # news (no "跟进→李四" person, the answer not stated again)
    review_window(api, scope, answered_at - timedelta(hours=1), hours=3)
    later = story(api, scope, FRIDAY + timedelta(days=1))
    assert [e["name"] for e in later["entities"] if "跟进" in e["name"]] == []
    assert sorted(e["name"] for e in later["entities"]) == sorted(
        e["name"] for e in friday["entities"]
    )
    assert sorted(e["title"] for e in later["events"]) == sorted(
        e["title"] for e in friday["events"]
    )


BASE = datetime.now(UTC).replace(microsecond=0) - timedelta(days=1)
STATED = f"[{BASE.isoformat()}] 王五: 张三负责支付模块\n"
CHANGED = f"[{(BASE + timedelta(hours=2)).isoformat()}] 王五: 支付模块改由李四负责\n"
BIND = """mutation($s: String!, $e: String!) { bindPerson(scope: $s, entityId: $e,
  personId: "p_zhangsan", displayName: "张三", channel: "feishu") { id } }"""


def holders(g: dict[str, Any]) -> list[tuple[str, str]]:
    names = {e["id"]: e["name"] for e in g["entities"]}
    return sorted(
        (names[r["fromId"]], names[r["toId"]])
        for r in g["relations"]
        if r["type"] == "responsible_for"
    )


def test_a_difference_is_settled_by_the_responsible_person_through_a_concern(
    offline_open: Server, scope: str
) -> None:
    api = offline_open
    gql(api, POLICY, s=scope)
    push_chat(api, scope, "v1", STATED)
    review_window(api, scope, BASE - timedelta(minutes=30))
    [rel] = story(api, scope)["relations"]
    gql(
        api,
        'mutation($s: String!, $id: ID!) { confirmRelation(scope: $s, id: $id, why: "对") {'
        " seq } }",
        s=scope,
        id=rel["id"],
    )
    [zhang] = [e for e in story(api, scope)["entities"] if e["name"] == "张三"]
    gql(api, BIND, s=scope, e=zhang["id"])

    push_chat(api, scope, "v2", STATED + CHANGED)
    review_window(api, scope, BASE + timedelta(hours=1, minutes=30))
    [signal] = [s for s in signals(api, scope) if s["kind"] == "DIFFERENCE"]
    cid = f"con-{signal['id']}"
    assert signal["decision"]["label"] == f"raised {cid}"
    concern = wait_for(lambda: gql(api, CONCERN, id=cid)["concern"], bool, "raised")
    assert concern["goal"] == "确认负责人是张三还是李四"
    assert [p["personId"] for p in concern["people"] if p["personId"] == "p_zhangsan"] == [
        "p_zhangsan"
    ]
    assert holders(story(api, scope)) == [("张三", "支付模块")]  # nothing asserted yet

    before = datetime.now(UTC)
    people = ConcernClient(api, scope, before)
    # 张三 is asked first: the question naming the module and both values reached him
    [asked] = people.wait_for("p_zhangsan", 1)
    assert asked["text"] == "张三，支付模块现在由谁负责：张三还是李四？"
    assert asked["status"] == "sent"
    asked_at = datetime.fromisoformat(asked["deliverAt"])
    # and answers it, in his own words, after it reached him (now: an answer is never
    # recorded later than the acceptance that follows it)
    answered = (max(asked_at, datetime.now(UTC)) - before).total_seconds() / 60
    people.reply(cid, "p_zhangsan", "对，已经交给李四了", answered)
    people.wait_revision(cid, lambda c: c["status"] == "RESOLVED")
    first = wait_for(
        lambda: gql(api, INBOX, s=scope)["inbox"]["edges"][0]["node"],
        lambda n: n["reason"] is not None,
        "the inbox quotes 张三's answer on the pending difference",
    )
    assert first["kind"] == "DIFFERENCE" and first["suggestion"]["status"] == "PENDING"
    assert first["reason"] == "张三 在跟进中答复：对，已经交给李四了"
    assert first["suggestion"]["viaConcern"] == cid
    assert [
        e["excerpt"]["text"].endswith("张三: 对，已经交给李四了")
        for e in first["evidence"]
        if e["sourceId"] == f"concern-{cid}"
    ] == [True]
    # a reply never overrules the person who confirmed: still 张三
    assert holders(story(api, scope)) == [("张三", "支付模块")]

    accepting = datetime.now(UTC)
    accepted = gql(api, ACCEPT, s=scope, id=first["suggestion"]["id"], seen=first["seenVersion"])
    assert accepted["acceptSuggestion"]["status"] == "ACCEPTED"
    after = story(api, scope)
    assert holders(after) == [("李四", "支付模块")]
    [moved] = [r for r in after["relations"] if r["type"] == "responsible_for"]
    assert moved["by"]["kind"] == "USER"  # the user who accepted, through the API
    assert holders(story(api, scope, accepting)) == [("张三", "支付模块")]
    assert holders(story(api, scope, before)) == [("张三", "支付模块")]

    # the same message reviewed again raises nothing new
    review_window(api, scope, BASE + timedelta(hours=1, minutes=30))
    edges = gql(api, SIGNALS, s=scope)["signals"]["edges"]
    assert [e["node"]["id"] for e in edges if e["node"]["kind"] == "DIFFERENCE"] == [signal["id"]]
    listed = gql(
        api, "query($s: String!) { concerns(scope: $s) { edges { node { id } } } }", s=scope
    )
    assert [e["node"]["id"] for e in listed["concerns"]["edges"]] == [cid]
