"""Answers come back into the graph, end to end with the DEFAULT offline
model: the real API and worker processes over HTTP, real Neo4j and Redis, a moved clock (the
API's own time arguments, in 2035 so no wall-clock scheduler touches them).

A commitment signal ("李四：前端部分周四能提测", said on a Monday, due Thursday) is recorded and
its follow-up concern raised for it, as the agenda does (`signal_id`); the scheduler's clock
moved to Thursday follows up; 李四 answers over `advanceConcern`. What the user then sees over
GraphQL: the concern resolved, the back-flow at the initiator, the event "前端部分已提测" by
person:p_lisi citing 李四's line in the concern's conversation (a source version, one line per
message), absent as of Wednesday and present as of Friday, the signal `kept`. A moved
commitment leaves an event and a new commitment signal; a dropped concern asserts nothing;
a difference answered becomes that person's accept or dismissal.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import pytest_asyncio
from neo4j import AsyncDriver

from engine.concern.model import (
    ConcernType,
    Initiator,
    PersonRef,
    Priority,
    RaiseConcernInput,
)
from engine.errors import Forbidden
from engine.principal import OPEN_PRINCIPAL, Principal
from engine.settings import Settings
from engine.signal.derive import from_difference, from_fact
from engine.signal.model import Passage, SignalDraft
from engine.signal.policy import goal_of
from engine.story.models import Actor
from jobs.concern.commands import raise_concern
from jobs.deps import Deps
from jobs.queue import open_pool
from jobs.signal.record import signal_store
from jobs.story.writes import resolve_suggestion
from tests.support.concern_api import ADVANCE, ConcernClient
from tests.support.concern_jobs import upsert_people_of
from tests.support.polling import until
from tests.support.processes import Server, process_env, spawn, stop
from tests.support.story_api import data

SH = ZoneInfo("Asia/Shanghai")
MONDAY = datetime(2035, 4, 16, 10, 0, tzinfo=SH)
WEDNESDAY = datetime(2035, 4, 18, 12, 0, tzinfo=SH)
THURSDAY = datetime(2035, 4, 19, 9, 0, tzinfo=SH)
FRIDAY = datetime(2035, 4, 20, 12, 0, tzinfo=SH)
LINE = f"[{MONDAY.isoformat()}] 李四: 前端部分周四能提测"
OWNER = Initiator(name="老板", channel="telegram", channel_user_id="123", person_id="p_owner")

SIGNALS = """query($s: String!, $at: DateTime) {
  signals(scope: $s, asOf: $at, first: 10) { edges { node {
    id kind status seq by { kind id } why who what due sourceId sourceVersion locator
    decision { kind label } } } } }"""
GRAPH = """query($s: String!, $at: DateTime) { storyGraph(scope: $s, asOf: $at) {
  events { id title at by { kind id } resultId }
  relations { id confirmation by { kind id } }
  suggestions { id seq status why by { kind id } }
  references { ownerId sourceId sourceVersion locator excerpt { available text } } } }"""


@pytest.fixture
def stack(services: Settings, start_server: Callable[..., Server]) -> Iterator[tuple[Server, str]]:
    """Our own API and worker on a queue of their own, with no model endpoint at all."""
    queue = f"{services.queue_name}:answers:{uuid.uuid4().hex[:6]}"
    api = start_server(QUEUE_NAME=queue)
    worker = spawn(["worker"], process_env(services, QUEUE_NAME=queue, MODEL_BASE_URL=""))
    yield api, queue
    stop(worker)


@pytest_asyncio.fixture
async def agenda(
    services: Settings, neo4j_driver: AsyncDriver, stack: tuple[Server, str]
) -> AsyncIterator[Deps]:
    """What the agenda does in process: record a signal, raise its concern (`signal_id`)."""
    settings = services.model_copy(update={"queue_name": stack[1], "model_base_url": None})
    pool = await open_pool(settings)
    yield Deps(settings=settings, driver=neo4j_driver, pool=pool, worker_id="test-agenda")
    await pool.aclose()


def minutes(at: datetime, t0: datetime = MONDAY) -> float:
    return (at - t0).total_seconds() / 60


async def record(deps: Deps, scope: str, draft: SignalDraft) -> str:
    store = signal_store(deps)

    async def work(tx):  # type: ignore[no-untyped-def]
        return await store.record_in(
            tx, [draft], scope=scope, run_id="run-review", result_id="res-review", now=MONDAY
        )

    [signal] = await store.write(work)
    return signal.id


async def raise_for(deps: Deps, scope: str, sid: str, draft: SignalDraft, person: PersonRef) -> str:
    goal = goal_of(draft)
    request = RaiseConcernInput(
        type=ConcernType.FOLLOWUP,
        priority=Priority.MEDIUM,
        title=goal,
        goal=goal,
        source_detail=draft.text,
        initiator=OWNER,
        people=[person],
        agenda_role="signal",
        signal_id=sid,
    )
    await upsert_people_of(deps, scope, request)
    concern = await raise_concern(
        deps,
        OPEN_PRINCIPAL,
        request,
        scope=scope,
        at=MONDAY + timedelta(minutes=5),
    )
    return concern.concern_id


def push_chat(api: ConcernClient, source_id: str, text: str) -> None:
    api.gql(
        "mutation($i: UpsertSourceInput!) { upsertSource(input: $i) { id } }",
        i={
            "scope": api.scope,
            "id": source_id,
            "kind": "CONVERSATION",
            "version": "v1",
            "text": text,
        },
    )


async def commitment(deps: Deps, api: ConcernClient) -> tuple[str, str]:
    """李四's promise recorded as a signal and its follow-up concern raised and contacted."""
    push_chat(api, "chat-1", LINE)
    start = LINE.index("前端部分")
    draft = from_fact(
        "commitment",
        "李四：前端部分周四能提测",
        Passage(source_id="chat-1", source_version="v1", locator=f"chars:{start}-{len(LINE)}"),
        MONDAY,
        "Asia/Shanghai",
    )
    assert draft is not None and draft.due == datetime(2035, 4, 19, 18, 0, tzinfo=SH)
    sid = await record(deps, api.scope, draft)
    lisi = PersonRef(person_id="p_lisi", display_name="李四", last_channel="feishu")
    cid = await raise_for(deps, api.scope, sid, draft, lisi)
    api.wait_for("p_lisi", 1)  # the first contact
    api.scheduler(minutes(THURSDAY))  # Thursday: the follow-up is due
    api.wait_for("p_lisi", 2)
    return sid, cid


def signals(api: ConcernClient, at: datetime = FRIDAY) -> dict[str, dict[str, Any]]:
    """The signals as of `at` (the test's clock is in 2035: as of Friday by default)."""
    data = api.gql(SIGNALS, s=api.scope, at=at.isoformat())
    return {e["node"]["id"]: e["node"] for e in data["signals"]["edges"]}


REVIEW_RUN = """query($id: String!) { supervisionRun(id: $id) {
  status resultId covered { sourceId } } }"""


def graph(api: ConcernClient, at: datetime = FRIDAY) -> dict[str, Any]:
    return api.gql(GRAPH, s=api.scope, at=at.isoformat())["storyGraph"]  # type: ignore[no-any-return]


def wait_status(api: ConcernClient, sid: str, status: str) -> dict[str, Any]:
    got: dict[str, Any] = until(
        lambda: signals(api).get(sid),
        lambda s: s is not None and s["status"] == status,
        f"signal {sid} {status}",
    )
    return got


def concern_of(api: ConcernClient, cid: str) -> dict[str, Any]:
    """Until the concern exists (the agenda's effect job raises it after the answer's write)."""
    query = (
        "query($id: ID!) { concern(id: $id) { id status source { signalId } people { personId }"
        " nextAction { when } } }"
    )
    body = until(
        lambda: api.api.graphql(query, {"id": cid}).json(),
        lambda b: b.get("data") and b["data"]["concern"],
        f"concern {cid} raised",
    )
    return body["data"]["concern"]  # type: ignore[no-any-return]


def turned(api: ConcernClient, cid: str, recorded: int) -> None:
    """Until the loop turn a reply triggered has saved its decision (one turn at a time)."""
    revision = "query($id: ID!) { concern(id: $id) { status revision } }"
    got = until(
        lambda: api.gql(revision, id=cid)["concern"],
        lambda c: c["revision"] > recorded,
        f"the turn after revision {recorded}",
    )
    assert got["status"] != "RESOLVED", got


async def via_concern(deps: Deps, label: str, object_id: str) -> list[Any]:
    records, _, _ = await deps.driver.execute_query(
        f"MATCH (v:{label} {{id: $id}}) RETURN v.via_concern AS c ORDER BY v.seq",
        id=object_id,
        database_=deps.settings.neo4j_database,
    )
    return [r["c"] for r in records]


async def test_a_kept_commitment_becomes_an_event_citing_the_answer_in_the_concern(
    stack: tuple[Server, str], agenda: Deps, scope: str
) -> None:
    api = ConcernClient(stack[0], scope, MONDAY)
    sid, cid = await commitment(agenda, api)

    # "嗯" says nothing: the concern is not resolved and nothing is written (asked again)
    vague = api.reply(cid, "p_lisi", "嗯", minutes(THURSDAY) + 10)["concern"]["revision"]
    turned(api, cid, vague)
    answered_at = THURSDAY + timedelta(minutes=30)
    api.reply(cid, "p_lisi", "已经提测了", minutes(answered_at))
    assert api.wait_revision(cid, lambda c: c["status"] == "RESOLVED")["status"] == "RESOLVED"
    kept = wait_status(api, sid, "KEPT")
    # a machine's reading of 李四's words: the review of the concern's conversation
    reader = kept["by"]
    assert kept["seq"] == 2 and reader["kind"] == "RUN"
    assert reader["id"].startswith(f"sup-{cid}-m")

    # the back-flow still reaches the initiator (docs/rules/concerns.md)
    backflow = [m for m in api.sent_to("p_owner") if m["kind"] == "backflow"]
    assert len(backflow) == 1 and "已经提测了" in backflow[0]["text"]

    after = graph(api, FRIDAY)
    [event] = [e for e in after["events"] if e["title"] == "前端部分已提测"]
    assert event["by"] == reader
    # the run's record shows it: completed, its result the event's, its input the reply
    run = api.gql(REVIEW_RUN, id=reader["id"])["supervisionRun"]
    assert (run["status"], run["resultId"]) == ("completed", event["resultId"])
    assert [c["sourceId"] for c in run["covered"]] == [f"concern-{cid}"]
    assert datetime.fromisoformat(event["at"]) == answered_at
    [ref] = [r for r in after["references"] if r["ownerId"] == event["id"]]
    assert ref["sourceId"] == f"concern-{cid}" and ref["excerpt"]["available"]
    assert ref["locator"] == "lines:4-4"  # asked, followed up, "嗯", answered
    assert ref["excerpt"]["text"] == f"[{answered_at.isoformat()}] 李四: 已经提测了"
    assert await via_concern(agenda, "EventVersion", event["id"]) == [cid]
    assert await via_concern(agenda, "SignalVersion", sid) == [None, cid]

    # as of Wednesday nobody had answered: no event, the signal still open
    before = graph(api, WEDNESDAY)
    assert [e for e in before["events"] if e["title"] == "前端部分已提测"] == []
    assert signals(api, WEDNESDAY)[sid]["status"] == "OPEN"

    # the same answer delivered again is refused (the concern is closed): nothing more written
    again = api.api.graphql(
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
    assert len([e for e in graph(api, FRIDAY)["events"] if e["title"] == "前端部分已提测"]) == 1
    assert signals(api)[sid]["seq"] == 2


async def test_a_moved_commitment_moves_the_same_concern_and_the_signals_due(
    stack: tuple[Server, str], agenda: Deps, scope: str
) -> None:
    api = ConcernClient(stack[0], scope, MONDAY)
    sid, cid = await commitment(agenda, api)
    turn = api.reply(cid, "p_lisi", "推迟到周五", minutes(THURSDAY) + 30)["concern"]
    turned(api, cid, turn["revision"])
    friday = datetime(2035, 4, 20, 18, 0, tzinfo=SH)
    moved = until(
        lambda: signals(api),
        lambda got: (
            got[sid]["due"] is not None and datetime.fromisoformat(got[sid]["due"]) == friday
        ),
        "the signal's due moved to Friday",
    )
    assert moved[sid]["status"] == "OPEN" and len(moved) == 1  # no second signal
    assert moved[sid]["by"]["kind"] == "RUN"  # by the review of the conversation
    assert moved[sid]["by"]["id"].startswith(f"sup-{cid}-m")
    same = concern_of(api, cid)
    assert same["status"] in ("IN_PROGRESS", "WAITING_REPLY")  # the same concern goes on
    assert datetime.fromisoformat(same["nextAction"]["when"]) == friday
    [event] = [e for e in graph(api, FRIDAY)["events"] if "推迟" in e["title"]]
    assert event["title"] == "前端部分提测推迟到周五"
    listed = api.api.graphql(
        "query($s: String!) { concerns(scope: $s) { totalCount } }", {"s": scope}
    ).json()
    assert listed["data"]["concerns"]["totalCount"] == 1  # the same concern, not a second


async def test_a_question_back_writes_nothing_and_is_asked_again(
    stack: tuple[Server, str], agenda: Deps, scope: str
) -> None:
    api = ConcernClient(stack[0], scope, MONDAY)
    sid, cid = await commitment(agenda, api)
    turn = api.reply(cid, "p_lisi", "提测了吗？", minutes(THURSDAY) + 30)["concern"]
    turned(api, cid, turn["revision"])
    assert api.concern(cid)["status"] in ("IN_PROGRESS", "WAITING_REPLY")
    assert signals(api)[sid]["status"] == "OPEN" and signals(api)[sid]["seq"] == 1
    assert graph(api, FRIDAY)["events"] == []
    assert [m for m in api.sent_to("p_owner") if m["kind"] == "backflow"] == []


async def test_a_dropped_concern_leaves_its_signal_unresolved_and_asserts_nothing(
    stack: tuple[Server, str], agenda: Deps, scope: str
) -> None:
    api = ConcernClient(stack[0], scope, MONDAY)
    sid, cid = await commitment(agenda, api)
    api.reply(cid, "p_owner", "算了不用问了", minutes(THURSDAY) + 30)
    unresolved = wait_status(api, sid, "UNRESOLVED")
    assert api.concern(cid)["status"] == "DROPPED"
    assert cid in unresolved["why"]
    assert graph(api, FRIDAY)["events"] == []
    assert [m for m in api.sent_to("p_owner") if m["kind"] == "backflow"] == []


async def difference(deps: Deps, api: ConcernClient) -> tuple[str, str, str]:
    """张三 -负责-> 支付模块 confirmed by a person; a later result contradicts it (a pending
    difference); its signal recorded and its question raised to 张三."""
    push_chat(api, "chat-1", "[2035-04-09T10:00:00+08:00] 老板: 支付模块由张三负责")
    push_chat(api, "chat-2", "[2035-04-16T10:00:00+08:00] 王五: 支付模块改由李四负责")
    publish = """mutation($i: PublishResultInput!) { publishResult(input: $i) { repeat } }"""
    ref1 = [{"sourceId": "chat-1", "sourceVersion": "v1", "locator": "lines:1-1"}]
    api.gql(
        publish,
        i={
            "scope": api.scope,
            "key": "r1",
            "entities": [
                {"ref": "zs", "name": "张三", "kind": "person", "status": "MAIN"},
                {"ref": "pay", "name": "支付模块", "kind": "project", "status": "MAIN"},
            ],
            "relations": [
                {"ref": "own", "from": "zs", "to": "pay", "type": "负责", "references": ref1}
            ],
        },
    )
    [rel] = graph(api)["relations"]
    api.gql(
        "mutation($s: String!, $id: ID!) { confirmRelation(scope: $s, id: $id) { seq } }",
        s=api.scope,
        id=rel["id"],
    )
    ids = {
        e["node"]["name"]: e["node"]["id"]
        for e in api.gql(
            "query($s: String!) { entities(scope: $s, first: 10) { edges { node { id name } } } }",
            s=api.scope,
        )["entities"]["edges"]
    }
    ref2 = [{"sourceId": "chat-2", "sourceVersion": "v1", "locator": "lines:1-1"}]
    api.gql(
        publish,
        i={
            "scope": api.scope,
            "key": "r2",
            "entities": [
                {"ref": "zs", "name": "张三", "id": ids["张三"]},
                {"ref": "pay", "name": "支付模块", "id": ids["支付模块"]},
            ],
            "relations": [
                {
                    "ref": "own",
                    "from": "zs",
                    "to": "pay",
                    "type": "负责",
                    "stance": "CONTRADICTS",
                    "reason": "支付模块改由李四负责",
                    "references": ref2,
                }
            ],
        },
    )
    [sugg] = [s for s in graph(api)["suggestions"] if s["status"] == "PENDING"]
    draft = from_difference(
        target_kind="relation",
        target_id=rel["id"],
        field="负责人",
        confirmed_value="张三",
        proposed_value="李四",
        text="支付模块 负责人：张三 → 李四",  # as a review words it
        suggestion_id=sugg["id"],  # the pending difference it stands for, as a review names it
        passage=Passage(source_id="chat-2", source_version="v1", locator="lines:1-1"),
        said_at=MONDAY,
    )
    sid = await record(deps, api.scope, draft)
    zs = PersonRef(person_id="p_zs", display_name="张三", last_channel="feishu")
    cid = await raise_for(deps, api.scope, sid, draft, zs)
    [asked] = api.wait_for("p_zs", 1)  # 张三 is asked first, naming both values he can answer
    assert "张三" in asked["text"] and "李四" in asked["text"]
    return sid, cid, rel["id"]


INBOX = """
query($scope: String!) { inbox(scope: $scope) { edges { node {
  kind reason seenVersion proposedValue suggestion { id status viaConcern }
  evidence { sourceId locator excerpt { text } } } } } }"""


async def test_a_difference_answer_is_quoted_evidence_and_only_an_editor_accepts_it(
    stack: tuple[Server, str], agenda: Deps, scope: str
) -> None:
    api = ConcernClient(stack[0], scope, MONDAY)
    sid, cid, rel = await difference(agenda, api)
    bare = api.reply(cid, "p_zs", "对", minutes(THURSDAY))["concern"]["revision"]
    turned(api, cid, bare)  # a bare yes chooses nothing: the turn waits and asks again
    answer = "对，已经交给李四了"
    api.reply(cid, "p_zs", answer, minutes(THURSDAY) + 10)
    settled = wait_status(api, sid, "SETTLED")
    reader = settled["by"]  # the review's reading, never stamped as 张三's act
    assert reader["kind"] == "RUN" and reader["id"].startswith(f"sup-{cid}-m")

    # the person-confirmed relation is untouched; the difference still waits for an editor
    after = graph(api, FRIDAY)
    [still] = after["relations"]
    assert still["confirmation"] == "CONFIRMED" and still["by"] != reader
    [pending] = after["suggestions"]
    assert pending["status"] == "PENDING"
    first = data(api.api.graphql(INBOX, {"scope": scope}))["inbox"]["edges"][0]["node"]
    assert first["kind"] == "DIFFERENCE" and first["suggestion"]["status"] == "PENDING"
    assert first["reason"] == f"张三 在跟进中答复：{answer}"
    assert first["suggestion"]["viaConcern"] == cid
    quoted = [e for e in first["evidence"] if e["sourceId"] == f"concern-{cid}"]
    assert [e["excerpt"]["text"].endswith(f"张三: {answer}") for e in quoted] == [True]

    # one action by a user with the editor role moves it, recorded by that user (the use
    # case the acceptSuggestion mutation calls, on this test's 2035 clock)
    later = replace(agenda, clock=lambda: FRIDAY)
    sug = first["suggestion"]["id"]
    reader_only = Principal("li-reader", frozenset({scope}), frozenset({"reader"}))
    with pytest.raises(Forbidden):
        await resolve_suggestion(later, reader_only, "accept", scope, sug)
    editor = Principal("wang", frozenset({scope}), frozenset({"editor"}))
    accepted = await resolve_suggestion(
        later, editor, "accept", scope, sug, seen_version=first["seenVersion"]
    )
    assert accepted.status.value == "accepted" and accepted.by == Actor.user("wang")
    [now] = graph(api, FRIDAY + timedelta(minutes=1))["relations"]
    assert now["confirmation"] == "REJECTED" and now["by"] == {"kind": "USER", "id": "wang"}
    [before] = graph(api, FRIDAY - timedelta(minutes=1))["relations"]
    assert before["confirmation"] == "CONFIRMED"


async def test_a_reply_choosing_nothing_writes_nothing_and_is_asked_again(
    stack: tuple[Server, str], agenda: Deps, scope: str
) -> None:
    api = ConcernClient(stack[0], scope, MONDAY)
    sid, cid, _ = await difference(agenda, api)
    turn = api.reply(cid, "p_zs", "张三已经不负责了", minutes(THURSDAY))["concern"]
    turned(api, cid, turn["revision"])
    assert api.concern(cid)["status"] != "RESOLVED"
    assert signals(api)[sid]["status"] == "OPEN"
    [pending] = graph(api, FRIDAY)["suggestions"]
    assert pending["status"] == "PENDING" and pending["seq"] == 1
