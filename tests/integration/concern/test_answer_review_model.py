"""A reply to a signal's follow-up is read once, by the turn, and the review of the concern's
conversation reuses that reading (docs/rules/loop-standing.md): a real arq worker on Redis,
real Neo4j, and the prompt-grounded scripted model (tests/support/grounded_concern.py), which
can say a reply met the promise only when the request carries the promise and the question
asked. Per reply, exactly the turn's one request reaches the model; the event the review
writes is by its run and cites the reply's line in the concern's conversation."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from arq.connections import ArqRedis
from neo4j import AsyncDriver

from engine.concern.advance import InboundMessage
from engine.concern.model import (
    ConcernStatus,
    ConcernType,
    Initiator,
    PersonRef,
    Priority,
    RaiseConcernInput,
)
from engine.principal import WORKER
from engine.settings import Settings
from engine.signal.derive import from_fact
from engine.signal.model import Passage
from engine.signal.policy import goal_of
from engine.signal.stored import Signal
from engine.story.inputs import SourceInput
from engine.story.models import SourceKind
from graph.concern.outbox import Outbox
from graph.concern.repository import ConcernRepository
from graph.story.sources import StorySources
from jobs.concern.commands import advance_concern, raise_concern
from jobs.deps import Deps
from jobs.signal.record import signal_store
from jobs.tasks.concern_scheduler import run_concern_scheduler
from tests.support.concern_jobs import T0, TZ, concern_deps, upsert_people_of
from tests.support.grounded_concern import concern_loop_responder
from tests.support.scripted_model import ScriptedModelServer

PROMISE = "李四：前端部分周四能提测"  # said on Monday T0, due Thursday 18:00
DUE = datetime(2035, 3, 22, 18, 0, tzinfo=TZ)
OWNER = Initiator(name="老板", channel="telegram", channel_user_id="123", person_id="p_owner")


async def promised(deps: Deps, scope: str) -> Signal:
    """李四's promise as an open commitment signal, citing the chat line it was said in."""
    await StorySources(deps.driver, deps.database).upsert_source(
        SourceInput(
            scope=scope, id="chat-1", kind=SourceKind.CONVERSATION, version="v1", text=PROMISE
        ),
        now=T0,
    )
    passage = Passage(source_id="chat-1", source_version="v1", locator="chars:3-12")
    draft = from_fact("commitment", PROMISE, passage, T0, "Asia/Shanghai")
    assert draft is not None and draft.due == DUE
    store = signal_store(deps)

    async def work(tx):  # type: ignore[no-untyped-def]
        return await store.record_in(
            tx, [draft], scope=scope, run_id="run-1", result_id="res-1", now=T0
        )

    [signal] = await store.write(work)
    return signal


async def follow_up(deps: Deps, scope: str, signal: Signal) -> str:
    """The follow-up concern the agenda raises for the signal, first due at the promised time."""
    goal = goal_of(signal)
    request = RaiseConcernInput(
        type=ConcernType.FOLLOWUP,
        priority=Priority.MEDIUM,
        title=goal,
        goal=goal,
        source_detail=signal.text,
        initiator=OWNER,
        people=[PersonRef(person_id="p_lisi", display_name="李四", last_channel="feishu")],
        agenda_role="signal",
        signal_id=signal.id,
    )
    await upsert_people_of(deps, scope, request)
    raised = await raise_concern(
        deps, WORKER, request, scope=scope, at=T0 + timedelta(minutes=5), first_at=DUE
    )
    return raised.concern_id


async def asked(deps: Deps, cid: str) -> list[str]:
    rows = await Outbox(deps.driver, deps.database).of_concern(cid)
    return [r.text for r in rows if r.kind == "send_message"]


async def events_of(deps: Deps, scope: str) -> list[dict[str, Any]]:
    records, _, _ = await deps.driver.execute_query(
        """MATCH (e:EventVersion {scope: $scope})
           OPTIONAL MATCH (r:Reference {scope: $scope, owner_id: e.id})
           RETURN e.title AS title, e.by AS by, collect([r.source_id, r.locator]) AS refs""",
        scope=scope,
        database_=deps.database,
    )
    return [dict(r) for r in records]


async def test_the_review_of_a_reply_reuses_the_turns_reading_and_asks_the_model_nothing(
    neo4j_driver: AsyncDriver,
    settings: Settings,
    pool: ArqRedis,
    queue_name: str,
    scope: str,
    job_ctx: dict[str, Any],
    drain: Any,
    model_server: ScriptedModelServer,
) -> None:
    model_server.answer_with(concern_loop_responder)
    deps = concern_deps(neo4j_driver, settings, pool, queue_name)
    signal = await promised(deps, scope)
    cid = await follow_up(deps, scope, signal)

    # at the promised time (moved into the sending window): 李四 is asked
    await run_concern_scheduler(job_ctx, now=(DUE + timedelta(minutes=1)).isoformat(), scope=scope)
    await drain(model_base_url=model_server.base_url, model_name="scripted")
    [question] = await asked(deps, cid)
    concerns = ConcernRepository(neo4j_driver, settings.neo4j_database)
    [sent_at] = [e.ts for e in (await concerns.load(cid)).concern.conversation_log]

    for text, minute in (("嗯", 10), ("已经提测了", 20)):
        before = model_server.calls
        reply_at = sent_at + timedelta(minutes=minute)
        message = InboundMessage(
            person_id="p_lisi", text=text, ts=reply_at, channel="feishu", message_id=f"ls@{minute}"
        )
        await advance_concern(deps, WORKER, cid, message, now=reply_at)
        await drain(model_base_url=model_server.base_url, model_name="scripted")
        # the turn's reading is the one request of this reply: its review asks nothing more
        assert model_server.calls - before == 1, [r.user_text for r in model_server.requests]
        [reading] = model_server.requests[before:]
        sent = reading.user_json()
        subject = sent.get("subject") or {}  # the promise the reply is read against
        assert (subject.get("kind"), subject.get("what"), subject.get("text")) == (
            "commitment",
            "前端部分提测",
            PROMISE,
        ), sent
        log = sent["conversation_log"]
        assert [e["text"] for e in log if e["direction"] == "outbound"][-1] == question
        assert log[-1]["text"] == text, log

    concern = (await concerns.load(cid)).concern
    assert concern.status is ConcernStatus.RESOLVED
    line = len(concern.conversation_log)  # asked, "嗯", "已经提测了"
    [event] = await events_of(deps, scope)
    assert event["title"] == "前端部分已提测"
    assert event["by"] == f"run:sup-{cid}-m{line}"  # the review's run, not 李四
    assert event["refs"] == [[f"concern-{cid}", f"lines:{line}-{line}"]]
