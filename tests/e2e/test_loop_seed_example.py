"""The loop end to end: what a review learns reaches the person who can
settle it, and the answer comes back into the story graph. Over HTTP, a real worker, real
Neo4j and Redis, the DEFAULT offline model (no scripted answers).

1. The worked example of docs/rules/loop.md, started by a review instead of a person: on a Monday 李四 (pushed as the
   speaker p_lisi on feishu) says "前端部分周四能提测" → one commitment signal due Thursday →
   the agenda raises a follow-up to 李四, first asked at or after the promised time (Thursday
   18:00 closes the working window: Friday's opening) as a question naming the thing
   ("李四，前端部分周四提测了吗？") → 李四 answers "已经提测了" → the concern resolves, the
   back-flow reaches the owner 王五 once, and the story graph holds the event "前端部分已提测"
   by the run that reviewed the concern's conversation, citing 李四's line in it, and the
   signal kept by that run via the concern: absent (the signal open) as of Wednesday, present
   as of Friday. The same answer delivered again is refused and writes nothing.
2. A difference: a person (王五's editor token) confirms that 张三 is responsible for 支付模块;
   an operator binds the person entity 张三 to the concern person p_zhangsan; a later review
   of "支付模块改由李四负责" yields a pending difference → a concern to 张三, who is asked
   "张三，支付模块现在由谁负责：张三还是李四？" and then answers "对，已经交给李四了" → the
   signal is settled by the review of the concern's conversation, the confirmed relation is
   untouched and the difference still pending; the inbox's first item is the difference
   quoting 张三's answer → a reader's token cannot accept it; an editor's can, over HTTP →
   the relation is 李四 by that editor (as of before the acceptance: 张三, as 王五 confirmed).
   Reviewing the same message again raises nothing new.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tests.support.agenda_api import (
    BASE,
    EDITOR,
    MONDAY,
    READER,
    SHANGHAI,
    SIGNALS,
    difference_asked,
    holders,
    promise_raised,
    review_window,
    story,
    wait_for,
)
from tests.support.concern_api import ADVANCE, ConcernClient
from tests.support.processes import Server
from tests.support.review_api import gql

WEDNESDAY = MONDAY + timedelta(days=2)
FRIDAY = MONDAY + timedelta(days=4, hours=2)
INBOX = """query($s: String!) { inbox(scope: $s) { edges { node {
  kind reason seenVersion suggestion { id status viaConcern }
  evidence { sourceId excerpt { text } } } } } }"""
ACCEPT = """mutation($s: String!, $id: ID!, $seen: Int) {
  acceptSuggestion(scope: $s, id: $id, seenVersion: $seen) { status } }"""
RUN = """query($id: String!) { supervisionRun(id: $id) {
  id trigger status resultId covered { sourceId version start end } } }"""
CHAIN = """query($s: String!, $id: ID!, $at: DateTime) { signal(scope: $s, id: $id, asOf: $at) {
  id status seq by { kind id } viaConcern concern { id status signal { id } } } }"""


def minutes(at: datetime) -> float:
    return (at - MONDAY).total_seconds() / 60


def test_seed_complete_example_started_by_a_review(offline: Server, scope: str) -> None:
    api = offline
    people = ConcernClient(api, scope, MONDAY)
    signal, cid, concern = promise_raised(api, scope)  # the loop on, owner 王五
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
    wait_for(
        lambda: [m for m in people.sent_to("p_wangwu") if m["kind"] == "backflow"],
        bool,
        "the back-flow reaches the owner",
    )
    chain = wait_for(
        # as of Friday: the answer is recorded at the moved clock's Friday morning
        lambda: gql(api, CHAIN, s=scope, id=signal["id"], at=FRIDAY.isoformat())["signal"],
        lambda s: s["status"] == "KEPT",
        "the signal is kept",
    )
    assert chain["concern"] == {"id": cid, "status": "RESOLVED", "signal": {"id": signal["id"]}}
    # kept by the review of the concern's conversation (never stamped as 李四's own act)
    assert chain["seq"] == 2 and chain["viaConcern"] == cid
    assert chain["by"]["kind"] == "RUN" and chain["by"]["id"].startswith(f"sup-{cid}-m")
    backflow = [m for m in people.sent_to("p_wangwu") if m["kind"] == "backflow"]
    assert len(backflow) == 1 and "已经提测了" in backflow[0]["text"]

    # as of Wednesday nobody had answered: no event, the signal still open
    assert [e for e in story(api, scope, WEDNESDAY)["events"] if "已提测" in e["title"]] == []
    before = gql(api, CHAIN, s=scope, id=signal["id"], at=WEDNESDAY.isoformat())["signal"]
    assert (before["status"], before["seq"], before["viaConcern"]) == ("OPEN", 1, None)
    friday = story(api, scope, FRIDAY)
    [event] = [e for e in friday["events"] if e["title"] == "前端部分已提测"]
    # proposed by the review of the concern's conversation, by its run, under the run's
    # result: no other path writes the answer
    assert event["by"] == chain["by"] and event["viaConcern"] == cid
    assert datetime.fromisoformat(event["at"]) == answered_at
    run = gql(api, RUN, id=event["by"]["id"])["supervisionRun"]
    assert run["status"] == "completed" and run["trigger"] == "automatic"
    assert run["resultId"] == event["resultId"]
    assert {c["sourceId"] for c in run["covered"]} == {f"concern-{cid}"}
    [ref] = [r for r in friday["references"] if r["ownerId"] == event["id"]]
    assert ref["sourceId"] == f"concern-{cid}" and ref["locator"] == "lines:2-2"  # asked, answered
    assert ref["excerpt"] == {
        "available": True,
        "text": f"[{answered_at.isoformat()}] 李四: 已经提测了",
    }

    # the same answer delivered again is refused (the concern is closed): nothing more written
    again = api.graphql(
        ADVANCE,
        {
            "input": {
                "concernId": cid,
                "personId": "p_lisi",
                "text": "已经提测了",
                "at": answered_at.isoformat(),
                "channel": "feishu",
                "messageId": f"p_lisi@{minutes(answered_at)}",
            }
        },
    ).json()
    assert again["errors"][0]["extensions"]["code"] == "CONFLICT"
    later = story(api, scope, FRIDAY)
    assert len([e for e in later["events"] if e["title"] == "前端部分已提测"]) == 1
    assert gql(api, CHAIN, s=scope, id=signal["id"], at=FRIDAY.isoformat())["signal"]["seq"] == 2

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


SETTLED = """query($s: String!, $at: DateTime) { signals(scope: $s, asOf: $at) { edges { node {
  id status seq by { kind id } viaConcern } } } }"""


def test_a_difference_is_settled_by_the_responsible_person_through_a_concern(
    offline_open: Server, scope: str
) -> None:
    api = offline_open
    signal, cid, confirmed = difference_asked(api, scope)  # 张三 asked first

    # he answers in his own words, after the question reached him
    before = datetime.now(UTC)
    people = ConcernClient(api, scope, before)
    people.reply(cid, "p_zhangsan", "对，已经交给李四了", 0)
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
    # the signal is settled by the review of the concern's conversation, not by 张三
    [settled] = [
        e["node"]
        for e in gql(api, SETTLED, s=scope)["signals"]["edges"]
        if e["node"]["id"] == signal["id"]
    ]
    assert (settled["status"], settled["seq"], settled["viaConcern"]) == ("SETTLED", 2, cid)
    assert settled["by"]["kind"] == "RUN" and settled["by"]["id"].startswith(f"sup-{cid}-m")
    # a reply never overrules the person who confirmed: still 张三, as 王五 confirmed it
    answered = story(api, scope)
    assert holders(answered) == [("张三", "支付模块")]
    [still] = answered["relations"]
    assert still == confirmed and still["by"] == {"kind": "USER", "id": "wangwu"}
    assert [s["status"] for s in answered["suggestions"]] == ["PENDING"]

    # only someone with the editor role accepts it: a reader's token is refused, nothing moves
    sug, seen = first["suggestion"]["id"], first["seenVersion"]
    refused = api.graphql(ACCEPT, {"s": scope, "id": sug, "seen": seen}, token=READER).json()
    assert [e["extensions"]["code"] for e in refused.get("errors", [])] == ["FORBIDDEN"], refused
    assert holders(story(api, scope)) == [("张三", "支付模块")]
    accepting = datetime.now(UTC)
    accepted = api.graphql(ACCEPT, {"s": scope, "id": sug, "seen": seen}, token=EDITOR).json()
    assert accepted["data"]["acceptSuggestion"]["status"] == "ACCEPTED", accepted
    after = story(api, scope)
    assert holders(after) == [("李四", "支付模块")]
    [moved] = [r for r in after["relations"] if r["type"] == "responsible_for"]
    assert moved["by"] == {"kind": "USER", "id": "wang"}  # the editor who accepted it
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
