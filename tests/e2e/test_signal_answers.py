"""Answers that do not settle what they were asked, end to end with the DEFAULT offline
model: the real API and worker processes over HTTP, real Neo4j and Redis. Every signal comes
from a review of a pushed conversation and every concern is raised by the agenda, as the
product does (`tests/support/agenda_api.py`): 李四 promises on a Monday "前端部分周四能提测",
the follow-up is due Thursday 18:00 and the scheduler at that time asks him
("李四，前端部分周四提测了吗？"); for a difference, 张三 is asked who is responsible for
支付模块 now. Each test shows the question sent before anyone answers, in words a person
writes. (The kept promise and the accepted difference are the seed's chains,
tests/e2e/test_loop_seed_example.py.)

- a moved promise ("推迟到周五") moves the same concern's next action and the signal's due
  to Friday, by the review of the concern's conversation, with the event saying so;
- an unclear reply ("嗯", "提测了吗？") writes nothing, tells the owner nothing, and 李四 is
  asked again when the follow-up comes; the answer that follows is read and cited at its
  line of the whole conversation;
- the owner dropping the concern leaves its signal unresolved and asserts nothing;
- a reply about a difference that chooses nothing ("对", "张三已经不负责了") writes nothing:
  the difference stays pending as the review proposed it, and 张三 is asked again.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from tests.support.agenda_api import (
    MONDAY,
    SHANGHAI,
    THURSDAY,
    difference_asked,
    promised_and_asked,
    story,
    turned,
    wait_for,
)
from tests.support.concern_api import ConcernClient
from tests.support.processes import Server
from tests.support.review_api import gql

FRIDAY = MONDAY + timedelta(days=4, hours=8)  # Friday 18:00, the moved promise
LATER = MONDAY + timedelta(days=7)  # as of then, everything the replies brought is known
SIGNALS = """query($s: String!, $at: DateTime) {
  signals(scope: $s, asOf: $at, first: 10) { edges { node {
    id kind status seq by { kind id } why due viaConcern } } } }"""
CONCERNS = "query($s: String!) { concerns(scope: $s) { totalCount } }"


def minutes(at: datetime) -> float:
    return (at - MONDAY).total_seconds() / 60


def signals_of(api: Server, scope: str, at: datetime = LATER) -> dict[str, dict[str, Any]]:
    """The scope's signals as of `at` (the moved clock's answers are recorded then)."""
    edges = gql(api, SIGNALS, s=scope, at=at.isoformat())["signals"]["edges"]
    return {e["node"]["id"]: e["node"] for e in edges}


def brought(api: Server, scope: str, cid: str) -> list[dict[str, Any]]:
    """The events the concern's answers brought, as of LATER."""
    return [e for e in story(api, scope, LATER)["events"] if e["viaConcern"] == cid]


def backflow(people: ConcernClient) -> list[dict[str, Any]]:
    return [m for m in people.sent_to("p_wangwu") if m["kind"] == "backflow"]


def asked_again(people: ConcernClient, api: Server, cid: str, person: str, count: int) -> str:
    """The scheduler at the concern's next action: `person` receives message `count`."""
    concern = gql(api, "query($id: ID!) { concern(id: $id) { nextAction { when } } }", id=cid)
    when = datetime.fromisoformat(concern["concern"]["nextAction"]["when"])
    people.scheduler((when - people.t0).total_seconds() / 60 + 1)
    return str(people.wait_for(person, count)[count - 1]["text"])


def test_a_moved_promise_moves_the_same_concern_and_the_signals_due(
    offline_open: Server, scope: str
) -> None:
    api = offline_open
    signal, cid, asked_at = promised_and_asked(api, scope)
    people = ConcernClient(api, scope, MONDAY)
    turn = people.reply(cid, "p_lisi", "推迟到周五", minutes(asked_at + timedelta(minutes=30)))
    turned(api, cid, turn["concern"]["revision"])
    moved = wait_for(
        lambda: signals_of(api, scope),
        lambda got: (
            got[signal["id"]]["due"] is not None
            and datetime.fromisoformat(got[signal["id"]]["due"]) == FRIDAY
        ),
        "the signal's due moved to Friday",
    )
    [(sid, now)] = moved.items()  # no second signal
    assert sid == signal["id"] and now["status"] == "OPEN" and now["viaConcern"] == cid
    # by the review of the concern's conversation, not as 李四's own act
    assert now["by"]["kind"] == "RUN" and now["by"]["id"].startswith(f"sup-{cid}-m")
    same = people.concern(cid)
    assert same["status"] in ("IN_PROGRESS", "WAITING_REPLY")  # the same concern goes on
    assert datetime.fromisoformat(same["nextAction"]["when"]) == FRIDAY
    [event] = brought(api, scope, cid)
    assert event["title"] == "前端部分提测推迟到周五" and event["by"] == now["by"]
    assert gql(api, CONCERNS, s=scope)["concerns"]["totalCount"] == 1  # not a second concern
    assert backflow(people) == []


def test_an_unclear_reply_writes_nothing_and_is_asked_again_until_answered(
    offline_open: Server, scope: str
) -> None:
    api = offline_open
    signal, cid, asked_at = promised_and_asked(api, scope)
    people = ConcernClient(api, scope, MONDAY)
    at = asked_at
    for count, reply in enumerate(("嗯", "提测了吗？"), start=2):
        at += timedelta(minutes=10)
        turn = people.reply(cid, "p_lisi", reply, minutes(at))["concern"]
        after = turned(api, cid, turn["revision"])
        assert after["status"] in ("IN_PROGRESS", "WAITING_REPLY"), (reply, after)
        # nothing written: the signal as the review recorded it, no event, no report
        now = signals_of(api, scope)[signal["id"]]
        assert (now["status"], now["seq"], now["viaConcern"]) == ("OPEN", 1, None), reply
        assert brought(api, scope, cid) == [] and backflow(people) == []
        # asked again when the follow-up comes, about the same promise
        again = asked_again(people, api, cid, "p_lisi", count)
        assert "前端部分周四提测了吗？" in again, again
        at = datetime.fromisoformat(people.sent_to("p_lisi")[-1]["deliverAt"])

    # the answer that follows is read, and cited at its own line of the whole conversation
    # (asked, "嗯", asked again, "提测了吗？", asked again, answered)
    answered_at = (at + timedelta(minutes=10)).astimezone(SHANGHAI)  # as the source writes it
    people.reply(cid, "p_lisi", "已经提测了", minutes(answered_at))
    people.wait_revision(cid, lambda c: c["status"] == "RESOLVED")
    [event] = wait_for(lambda: brought(api, scope, cid), bool, "the answer's event")
    [ref] = [r for r in story(api, scope, LATER)["references"] if r["ownerId"] == event["id"]]
    assert (event["title"], ref["locator"]) == ("前端部分已提测", "lines:6-6")
    assert ref["excerpt"]["text"] == f"[{answered_at.isoformat()}] 李四: 已经提测了"


def test_the_owner_dropping_the_concern_leaves_its_signal_unresolved(
    offline_open: Server, scope: str
) -> None:
    api = offline_open
    signal, cid, asked_at = promised_and_asked(api, scope)
    people = ConcernClient(api, scope, MONDAY)
    people.reply(cid, "p_wangwu", "算了不用问了", minutes(asked_at + timedelta(minutes=30)))
    unresolved = wait_for(
        lambda: signals_of(api, scope)[signal["id"]],
        lambda s: s["status"] == "UNRESOLVED",
        "the signal unresolved",
    )
    assert people.concern(cid)["status"] == "DROPPED"
    assert cid in unresolved["why"] and unresolved["viaConcern"] == cid
    assert unresolved["by"] == {"kind": "RUN", "id": f"concern:{cid}"}  # the loop, not 王五
    assert brought(api, scope, cid) == [] and backflow(people) == []
    assert story(api, scope, THURSDAY)["events"] == story(api, scope, LATER)["events"]


def test_a_reply_choosing_nothing_leaves_the_difference_pending_and_is_asked_again(
    offline_open: Server, scope: str
) -> None:
    api = offline_open
    signal, cid, confirmed = difference_asked(api, scope)  # 张三 asked first
    people = ConcernClient(api, scope, datetime.now(UTC))  # after the question reached him
    pending = story(api, scope)["suggestions"]
    assert [(s["status"], s["seq"]) for s in pending] == [("PENDING", 1)]
    for reply in ("对", "张三已经不负责了"):
        turn = people.reply(cid, "p_zhangsan", reply, elapsed(people))["concern"]
        after = turned(api, cid, turn["revision"])
        assert after["status"] in ("IN_PROGRESS", "WAITING_REPLY"), (reply, after)
        now = story(api, scope)
        # nothing written: the difference as the review proposed it, the confirmed relation
        assert now["suggestions"] == pending and now["relations"] == [confirmed], reply
        read = gql(api, SIGNALS, s=scope, at=None)["signals"]["edges"]
        assert [(e["node"]["status"], e["node"]["seq"]) for e in read] == [("OPEN", 1)], reply
    # asked again when the follow-up comes, naming the module and both values
    again = asked_again(people, api, cid, "p_zhangsan", 2)
    assert "支付模块" in again and "张三" in again and "李四" in again, again


def elapsed(people: ConcernClient) -> float:
    """Minutes from the client's t0 to now: a reply recorded as it arrives."""
    return (datetime.now(UTC) - people.t0).total_seconds() / 60
