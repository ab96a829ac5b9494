"""docs/rules/concerns.md with the default offline rule model, on real Neo4j and a real arq worker:
what the initiator and the counterpart receive, and when (the `make run` experience)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from arq.connections import ArqRedis
from neo4j import AsyncDriver

from engine.concern.advance import InboundMessage
from engine.concern.model import ConcernStatus, Priority
from engine.principal import WORKER
from engine.settings import Settings
from graph.concern.outbox import Outbox
from graph.concern.repository import ConcernRepository
from jobs.concern.commands import advance_concern
from jobs.tasks.concern_scheduler import run_concern_scheduler
from tests.support.concern_jobs import T0, at, concern_deps, delegation

H = timedelta(hours=1)


class Flow:
    def __init__(
        self,
        driver: AsyncDriver,
        settings: Settings,
        pool: ArqRedis,
        queue: str,
        job_ctx: dict[str, Any],
        drain: Any,
        scope: str,
    ) -> None:
        self.driver, self.db, self.pool, self.queue = driver, settings.neo4j_database, pool, queue
        self.job_ctx, self.drain, self.scope = job_ctx, drain, scope
        self.deps = concern_deps(driver, settings, pool, queue)

    async def tick(self, when: Any) -> None:
        await run_concern_scheduler(self.job_ctx, now=when.isoformat(), scope=self.scope)
        await self.drain(model_base_url=None)

    async def reply(self, cid: str, words: str, when: Any) -> None:
        await advance_concern(
            self.deps,
            WORKER,
            cid,
            InboundMessage(
                person_id="p_zhangsan",
                text=words,
                ts=when,
                channel="feishu",
                message_id=f"zs@{when.isoformat()}",
            ),
            now=when,
        )
        await self.drain(model_base_url=None)

    async def state(self, cid: str) -> Any:
        return (await ConcernRepository(self.driver, self.db).load(cid)).concern

    async def texts(self, cid: str, kind: str) -> list[str]:
        rows = await Outbox(self.driver, self.db).of_concern(cid)
        return [r.text for r in sorted(rows, key=lambda r: r.deliver_at) if r.kind == kind]


@pytest.fixture
def flow(
    neo4j_driver: AsyncDriver,
    settings: Settings,
    pool: ArqRedis,
    queue_name: str,
    job_ctx: dict[str, Any],
    drain: Any,
    scope: str,
) -> Flow:
    return Flow(neo4j_driver, settings, pool, queue_name, job_ctx, drain, scope)


async def contacted(flow: Flow, raise_one: Any, priority: Priority) -> str:
    raised = await raise_one(delegation(priority=priority))
    await flow.tick(T0)
    assert await flow.texts(raised.concern_id, "send_message") == [
        "你好，老板想了解一下提测什么时候能给？"
    ]
    return raised.concern_id  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("words", "wait", "chase"),
    [
        ("我看看", 4 * H, "再跟你确认一下，提测什么时候能给？方便的时候回我一下。"),
        ("别催了，已经在做了", 8 * H, "不着急，你忙完了告诉我一声就行：提测什么时候能给？"),
    ],
)
async def test_a_reply_sets_the_next_follow_up_by_its_attitude_not_at_once(
    flow: Flow, raise_one: Any, words: str, wait: timedelta, chase: str
) -> None:
    cid = await contacted(flow, raise_one, Priority.MEDIUM)
    await flow.reply(cid, words, at(60))
    c = await flow.state(cid)
    assert c.next_action.when == at(60) + wait
    assert len(await flow.texts(cid, "send_message")) == 1
    await flow.tick(at(60) + wait - timedelta(minutes=1))
    assert len(await flow.texts(cid, "send_message")) == 1, "not chased early"
    await flow.tick(at(60) + wait)
    assert (await flow.texts(cid, "send_message"))[1:] == [chase]
    assert (await flow.state(cid)).followup_count == 1


async def test_a_vague_time_keeps_being_asked_for_a_date_while_the_person_answers(
    flow: Flow, raise_one: Any
) -> None:
    cid = await contacted(flow, raise_one, Priority.LOW)  # low: 2 follow-ups at most
    for minute in (60, 120, 180, 240):
        await flow.reply(cid, "大概这两天", at(minute))
    c = await flow.state(cid)
    assert c.status == ConcernStatus.WAITING_REPLY and c.followup_count == 0
    assert (await flow.texts(cid, "send_message"))[1:] == [
        "好的，能给个具体日期吗？比如周几或几号。"
    ] * 4


async def test_silence_after_our_question_reports_the_timeout_to_the_initiator(
    flow: Flow, raise_one: Any
) -> None:
    cid = await contacted(flow, raise_one, Priority.MEDIUM)
    await flow.reply(cid, "大概这两天", at(60))
    await flow.tick(at(60) + 4 * H)
    reports = await flow.texts(cid, "report")
    assert reports[-1] == "张三还没回复，我再跟一下。"


async def test_a_silent_low_concern_is_dropped_with_a_readable_message(
    flow: Flow, raise_one: Any, pool: ArqRedis
) -> None:
    cid = await contacted(flow, raise_one, Priority.LOW)
    for hours in (24, 72, 120):  # 24 h, then 48 h, then the final 48 h wait
        await flow.tick(T0 + hours * H)
    c = await flow.state(cid)
    assert c.status == ConcernStatus.DROPPED
    assert await flow.texts(cid, "escalate") == []
    reports = await flow.texts(cid, "report")
    assert reports[-1] == (
        "追问了张三2次都没回复，「联系张三确认提测时间」我先不跟了，有需要再叫我。"
    )
    assert all("unanswered" not in r and "【升级】" not in r for r in reports)
