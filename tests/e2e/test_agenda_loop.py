"""The agenda raises what a review learns, over HTTP with a real worker and the default offline
model (and 完整示例; docs/rules/loop.md, docs/rules/story-graph.md).

An app pushes a Monday conversation with its speakers (李四 = concern person p_lisi on feishu);
李四 says "前端部分周四能提测". A review finds one commitment due that Thursday; the scope's
agenda policy (owner 王五) decides `raised con-…`, and the worker raises that follow-up: 李四
the counterpart, goal "确认前端部分提测是否已完成", initiator 王五, first contact at or after
the promise (Thursday 18:00: Friday at nine). Reviewing the same conversation again
raises nothing new.
Without speakers nobody is reachable. An operator binds a person entity to a concern person
(versioned: as of before a rebinding the old one shows); bad input writes nothing.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from engine.clock import utcnow
from tests.support.agenda_api import (
    BIND,
    BINDINGS,
    CONCERN,
    CONCERNS,
    MONDAY,
    POLICY,
    SHANGHAI,
    SPEAKERS,
    THURSDAY,
    UNBIND,
    UPSERT,
    code,
    push,
    push_chat,
    review,
    signals,
    wait_for,
)
from tests.support.processes import Server
from tests.support.review_api import gql
from tests.support.story_api import PUBLISH, result_input


def test_a_bound_speakers_promise_becomes_one_follow_up_on_the_due_day(
    offline: Server, scope: str
) -> None:
    api = offline
    assert gql(api, POLICY, s=scope)["saveAgendaPolicy"]["version"] == 2
    push(api, scope, SPEAKERS)
    review(api, scope)

    [signal] = signals(api, scope)
    assert signal["kind"] == "COMMITMENT" and signal["who"] == "李四"
    assert datetime.fromisoformat(signal["due"]) == THURSDAY.replace(hour=18)
    cid = f"con-{signal['id']}"
    assert signal["decision"] == {
        "kind": "RAISED",
        "concernId": cid,
        "policyVersion": 2,
        "label": f"raised {cid}",
    }
    concern = wait_for(
        lambda: gql(api, CONCERN, id=cid)["concern"], bool, "the worker raises the concern"
    )
    assert concern["type"] == "FOLLOWUP" and concern["status"] == "PENDING"
    assert concern["goal"] == "确认前端部分提测是否已完成"
    assert concern["source"]["initiator"] == {"personId": "p_wangwu", "name": "王五"}
    lisi = [p for p in concern["people"] if p["personId"] == "p_lisi"]
    assert lisi == [
        {
            "personId": "p_lisi",
            "displayName": "李四",
            "roleInConcern": "当事人",
            "lastChannel": "feishu",
        }
    ]
    first = datetime.fromisoformat(concern["nextAction"]["when"]).astimezone(SHANGHAI)
    due = datetime.fromisoformat(signal["due"])
    # never before the promise (Thursday 18:00, the window's end): the next opening, Friday
    assert first >= due and first.date() == THURSDAY.date() + timedelta(days=1), first
    assert first.hour == 9, first
    assert concern["conversation"] == []  # not contacted at once

    review(api, scope)  # the same conversation again: nothing new
    assert [s["id"] for s in signals(api, scope)] == [signal["id"]]
    ids = [e["node"]["id"] for e in gql(api, CONCERNS, s=scope)["concerns"]["edges"]]
    assert ids == [cid]

    # the speaker's binding is versioned and readable; 李四 in another source is nobody
    [bound] = [e["node"] for e in gql(api, BINDINGS, s=scope)["personBindings"]["edges"]]
    assert (bound["kind"], bound["sourceId"], bound["speaker"], bound["personId"]) == (
        "SPEAKER",
        "chat-1",
        "李四",
        "p_lisi",
    )


def test_without_speakers_the_promise_is_ignored_as_unreachable(
    offline: Server, scope: str
) -> None:
    api = offline
    gql(api, POLICY, s=scope)
    push(api, scope, None)
    review(api, scope)
    [signal] = signals(api, scope)
    assert signal["decision"]["label"] == "ignored: no reachable person"
    assert gql(api, CONCERNS, s=scope)["concerns"]["edges"] == []


def test_an_operator_binds_a_person_entity_versioned_and_bad_input_writes_nothing(
    offline: Server, scope: str
) -> None:
    api = offline
    push(api, scope, None)
    review(api, scope)  # 李四 becomes a person entity of the scope
    entities = gql(
        api, "query($s: String!) { storyGraph(scope: $s) { entities { id name kind } } }", s=scope
    )  # noqa: E501
    [lisi] = [e for e in entities["storyGraph"]["entities"] if e["name"] == "李四"]
    assert lisi["kind"] == "person"
    gql(api, UPSERT, i={"scope": scope, "id": "chat", "kind": "CONVERSATION", "version": "v1",
                        "text": "张三: 支付模块卡在第三方回调"})  # fmt: skip
    gql(api, PUBLISH, input=result_input(scope, "k1"))
    graph = gql(
        api, "query($s: String!) { storyGraph(scope: $s) { entities { id name } } }", s=scope
    )  # noqa: E501
    [module] = [e for e in graph["storyGraph"]["entities"] if e["name"] == "支付模块"]

    # bad input: NOT_FOUND / INVALID_INPUT, and nothing written
    assert code(api, BIND, s=scope, e="ent-missing", p="p_lisi", c="feishu") == "NOT_FOUND"
    assert code(api, BIND, s=scope, e=module["id"], p="p_lisi", c="feishu") == "INVALID_INPUT"
    assert code(api, BIND, s=scope, e=lisi["id"], p="  ", c="feishu") == "INVALID_INPUT"
    assert code(api, BINDINGS, s=scope, at="2030-01-01T00:00:00") == "INVALID_INPUT"
    assert code(api, UNBIND, s=scope, e=lisi["id"]) == "NOT_FOUND"
    assert gql(api, BINDINGS, s=scope)["personBindings"]["edges"] == []

    first = gql(api, BIND, s=scope, e=lisi["id"], p="p_lisi", c="feishu")["bindPerson"]
    assert (first["seq"], first["kind"], first["displayName"]) == (1, "ENTITY", "李四")
    same = gql(api, BIND, s=scope, e=lisi["id"], p="p_lisi", c="feishu")["bindPerson"]
    assert same == first  # binding what is bound writes nothing
    between = utcnow().isoformat()
    second = gql(api, BIND, s=scope, e=lisi["id"], p="p_lisi", c="wecom")["bindPerson"]
    assert (second["id"], second["seq"], second["channel"]) == (first["id"], 2, "wecom")

    def channels(at: str | None = None) -> list[str]:
        page = gql(api, BINDINGS, s=scope, at=at)["personBindings"]["edges"]
        return [e["node"]["channel"] for e in page]

    assert channels() == ["wecom"] and channels(between) == ["feishu"]
    gql(api, UNBIND, s=scope, e=lisi["id"])
    assert channels() == [] and channels(between) == ["feishu"]


REPORTING = """mutation($s: String!) { saveAgendaPolicy(scope: $s, seenVersion: 1, policy: {
  loopEnabled: true, actOn: [COMMITMENT, DIFFERENCE, BLOCKER], ownerPersonId: "p_wangwu",
  ownerName: "王五", ownerChannel: "feishu"}) { version } }"""
OWNER_MESSAGES = """query($s: String!) { concernMessages(scope: $s, personId: "p_wangwu") {
  edges { node { key kind concernId signalId text } } } }"""


def test_an_agenda_report_row_names_its_signal_and_no_concern(offline: Server, scope: str) -> None:
    """A blocker the agenda reports to the owner raised no concern: the owner's message row
    carries the signal in `signalId`, and `concernId` is empty, never the signal's id."""
    api = offline
    gql(api, REPORTING, s=scope)
    push_chat(api, scope, "v1", f"[{MONDAY.isoformat()}] 张三: 支付模块卡在第三方回调接口\n")
    review(api, scope)
    [signal] = signals(api, scope)
    assert signal["kind"] == "BLOCKER" and signal["decision"]["kind"] == "REPORTED"
    rows = wait_for(
        lambda: gql(api, OWNER_MESSAGES, s=scope)["concernMessages"]["edges"],
        bool,
        "the worker records the owner's report",
    )
    [row] = [e["node"] for e in rows]
    assert (row["kind"], row["concernId"], row["signalId"]) == ("report", None, signal["id"])
    assert "支付模块" in row["text"]
