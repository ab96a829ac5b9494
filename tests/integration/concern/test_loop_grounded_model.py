"""The agent loop through the HTTP model path (/ 部分达成判定; docs/rules/concerns.md):
a real arq worker on Redis, real Neo4j, and the scripted model answering with the
prompt-grounded concern responder, which reads the reply ONLY from the conversation_log the
product sent. The requests are checked for the context a real model needs: the goal, what
was asked, the conversation with the reply, and the person slice."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from arq.connections import ArqRedis
from neo4j import AsyncDriver

from engine.concern.advance import InboundMessage
from engine.concern.model import ConcernStatus, Priority
from engine.principal import WORKER
from engine.settings import Settings
from graph.concern.outbox import Outbox
from graph.concern.persons import PersonStore
from graph.concern.repository import ConcernRepository
from graph.llm.ledger import CostLedger
from jobs.concern.commands import advance_concern
from jobs.tasks.concern_scheduler import run_concern_scheduler
from tests.support.concern_jobs import at, concern_deps, delegation
from tests.support.grounded_concern import ASK_DATE, concern_loop_responder
from tests.support.scripted_model import ScriptedModelServer


@pytest.fixture
def model(model_server: ScriptedModelServer) -> ScriptedModelServer:
    model_server.answer_with(concern_loop_responder)
    return model_server


@pytest.fixture
def setup(
    raise_one: Any,
    neo4j_driver: AsyncDriver,
    settings: Settings,
    scope: str,
    job_ctx: dict[str, Any],
    drain: Any,
    model: ScriptedModelServer,
):  # type: ignore[no-untyped-def]
    """Raise a concern and let the worker contact 张三 through the scripted model."""

    async def go(priority: Priority = Priority.HIGH) -> str:
        await PersonStore(neo4j_driver, settings.neo4j_database).upsert(
            scope,
            {
                "person_id": "p_zhangsan",
                "display_name": "张三",
                "preferred_channel": "feishu",
                "channels": ["feishu", "wechat"],
                "team": "后端",
            },
        )
        raised = await raise_one(delegation(priority=priority))
        await run_concern_scheduler(job_ctx, now=at(30).isoformat(), scope=scope)
        await drain(model_base_url=model.base_url, model_name="scripted")
        return raised.concern_id

    return go


async def reply(
    neo4j_driver: AsyncDriver,
    settings: Settings,
    pool: ArqRedis,
    queue: str,
    cid: str,
    words: str,
    minute: float,
) -> None:
    await advance_concern(
        concern_deps(neo4j_driver, settings, pool, queue),
        WORKER,
        cid,
        InboundMessage(
            person_id="p_zhangsan",
            text=words,
            ts=at(minute),
            channel="feishu",
            message_id=f"zs@{minute}",
        ),
        now=at(minute),
    )


async def sends_to_zhangsan(neo4j_driver: AsyncDriver, settings: Settings, cid: str) -> list[str]:
    rows = await Outbox(neo4j_driver, settings.neo4j_database).of_concern(cid)
    return [r.text for r in rows if r.kind == "send_message"]


@pytest.mark.parametrize(
    ("words", "wait"),
    [
        ("我看看", timedelta(hours=2)),  # vague: the normal (high, first) interval
        ("别催了，已经在做了", timedelta(hours=4)),  # resistant but working: doubled
    ],
)
async def test_the_model_reads_the_reply_from_the_log_and_the_interval_follows_the_attitude(
    setup: Any,
    drain: Any,
    model: ScriptedModelServer,
    neo4j_driver: AsyncDriver,
    settings: Settings,
    pool: ArqRedis,
    queue_name: str,
    words: str,
    wait: timedelta,
) -> None:
    cid = await setup()
    assert len(await sends_to_zhangsan(neo4j_driver, settings, cid)) == 1
    await reply(neo4j_driver, settings, pool, queue_name, cid, words, 90)
    await drain(model_base_url=model.base_url, model_name="scripted")

    stored = (await ConcernRepository(neo4j_driver, settings.neo4j_database).load(cid)).concern
    assert len(await sends_to_zhangsan(neo4j_driver, settings, cid)) == 1, "not chased at once"
    assert stored.next_action is not None and stored.next_action.when == at(90) + wait
    assert stored.followup_count == 0

    seen = model.requests[-1].user_json()
    assert seen["goal"] == "拿到张三的具体提测时间点"
    assert seen["request"] == "帮我问问张三提测什么时候能给"
    assert seen["trigger"] == "reply" and seen["replied_by"] == "p_zhangsan"
    assert [(e["direction"], e["person_id"], e["text"]) for e in seen["conversation_log"]][-1] == (
        "inbound",
        "p_zhangsan",
        words,
    )
    (zs,) = seen["counterparts"]
    assert (zs["display_name"], zs["preferred_channel"], zs["channels"], zs["context"]["team"]) == (
        "张三",
        "feishu",
        ["feishu", "wechat"],
        "后端",
    )


async def test_a_vague_time_is_answered_with_a_date_question_and_never_exhausts_the_limit(
    setup: Any,
    drain: Any,
    model: ScriptedModelServer,
    neo4j_driver: AsyncDriver,
    settings: Settings,
    pool: ArqRedis,
    queue_name: str,
) -> None:
    cid = await setup(Priority.LOW)  # low: at most 2 follow-ups
    for minute in (60, 90, 120, 150):
        await reply(neo4j_driver, settings, pool, queue_name, cid, "大概这两天", minute)
        await drain(model_base_url=model.base_url, model_name="scripted")
    stored = (await ConcernRepository(neo4j_driver, settings.neo4j_database).load(cid)).concern
    assert stored.status == ConcernStatus.WAITING_REPLY and stored.followup_count == 0
    assert (await sends_to_zhangsan(neo4j_driver, settings, cid))[1:] == [ASK_DATE] * 4

    await reply(neo4j_driver, settings, pool, queue_name, cid, "好的，周四能提测", 180)
    await drain(model_base_url=model.base_url, model_name="scripted")
    done = (await ConcernRepository(neo4j_driver, settings.neo4j_database).load(cid)).concern
    assert done.status == ConcernStatus.RESOLVED
    assert "好的，周四能提测" in model.requests[-1].user_text


async def test_every_loop_call_is_in_the_ledger_charged_to_the_concern(
    setup: Any,
    drain: Any,
    model: ScriptedModelServer,
    neo4j_driver: AsyncDriver,
    settings: Settings,
    pool: ArqRedis,
    queue_name: str,
    scope: str,
) -> None:
    """each loop turn's model request is a cost-ledger entry (stage
    concern_loop) written with the turn's decision; the stand-in's request count equals the
    concern's ledger calls after every turn. A call is in the ledger when it was paid (the
    wall clock), not at the turn's own time (here T0, a scheduled moment): a scope's
    ledger up to now holds it."""
    ledger = CostLedger(neo4j_driver, settings.neo4j_database)
    paid_from = datetime.now(UTC)
    cid = await setup()
    (cost,) = await ledger.of_concerns([cid])
    assert cost.calls == model.calls >= 1 and cost.prompt_tokens > 0
    await reply(neo4j_driver, settings, pool, queue_name, cid, "我看看", 90)
    await drain(model_base_url=model.base_url, model_name="scripted")
    (cost,) = await ledger.of_concerns([cid])
    assert cost.calls == model.calls >= 2
    lines = await ledger.in_scope(scope, paid_from, datetime.now(UTC))
    assert {(x.stage, x.concern_id) for x in lines} == {("concern_loop", cid)}
    assert sum(x.cost.calls for x in lines) == model.calls
    assert await ledger.in_scope(scope, at(0), at(24 * 60)) == []  # not at the turns' time
