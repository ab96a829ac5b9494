"""A reply to a signal's follow-up is read once, by the turn, and the review of the concern's
conversation reuses that reading (docs/rules/loop-standing.md): a real arq worker on Redis,
real Neo4j, and the prompt-grounded scripted model (tests/support/grounded_concern.py), which
can say a reply met the promise only when the request carries the promise and the question
asked. Per reply, exactly the turn's one request reaches the model; the event the review
writes is by its run and cites the reply's line in the concern's conversation."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from arq.connections import ArqRedis
from neo4j import AsyncDriver

from engine.concern.advance import InboundMessage
from engine.concern.model import ConcernStatus
from engine.principal import WORKER
from engine.settings import Settings
from graph.concern.repository import ConcernRepository
from jobs.concern.commands import advance_concern
from tests.support.answer_review import PROMISE, ask_when_due, events_of, follow_up, promised
from tests.support.concern_jobs import concern_deps
from tests.support.grounded_concern import concern_loop_responder
from tests.support.scripted_model import ScriptedModelServer


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
    model = {"model_base_url": model_server.base_url, "model_name": "scripted"}
    question, sent_at = await ask_when_due(deps, job_ctx, drain, scope, cid, **model)

    for text, minute in (("嗯", 10), ("已经提测了", 20)):
        before = model_server.calls
        reply_at = sent_at + timedelta(minutes=minute)
        message = InboundMessage(
            person_id="p_lisi", text=text, ts=reply_at, channel="feishu", message_id=f"ls@{minute}"
        )
        await advance_concern(deps, WORKER, cid, message, now=reply_at)
        await drain(**model)
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

    concern = (await ConcernRepository(neo4j_driver, settings.neo4j_database).load(cid)).concern
    assert concern.status is ConcernStatus.RESOLVED
    line = len(concern.conversation_log)  # asked, "嗯", "已经提测了"
    [event] = await events_of(deps, scope)
    assert event["title"] == "前端部分已提测"
    assert event["by"] == f"run:sup-{cid}-m{line}"  # the review's run, not 李四
    assert event["refs"] == [[f"concern-{cid}", f"lines:{line}-{line}"]]
