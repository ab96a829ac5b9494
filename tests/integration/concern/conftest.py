"""Concern integration fixtures: a moved clock far from the wall clock, a per-test arq
queue and pool, and a job ctx like the worker's (driver, settings, redis, gateway, http).

Times are in March 2035 so no real scheduler run ever finds these concerns due; every scan
and job here gets its `now` (and scope) explicitly.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
import pytest_asyncio
from arq.connections import ArqRedis
from neo4j import AsyncDriver

from engine.concern.model import (
    Concern,
    ConcernType,
    DelegationSettings,
    Initiator,
    PersonRef,
    Priority,
    RaiseConcernInput,
)
from engine.concern.policy import ConcernPolicy
from engine.model.gateway import OfflineModelGateway
from engine.settings import Settings
from jobs.queue import open_pool
from jobs.tasks.concern_commands import raise_new_concern

TZ = ZoneInfo("Asia/Shanghai")
T0 = datetime(2035, 3, 19, 10, 0, tzinfo=TZ)  # a Monday, inside working hours
POLICY = ConcernPolicy()
BOSS = Initiator(name="老板", channel="telegram", channel_user_id="123", person_id="p_owner")


def at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def delegation(
    *, people: list[tuple[str, str]] | None = None, priority: Priority = Priority.HIGH,
    title: str = "联系张三确认提测时间", goal: str = "拿到张三的具体提测时间点",
) -> RaiseConcernInput:
    refs = [PersonRef(person_id=pid, display_name=name, last_channel="feishu")
            for pid, name in (people or [("p_zhangsan", "张三")])]
    return RaiseConcernInput(
        type=ConcernType.DELEGATION, priority=priority, title=title, goal=goal,
        source_detail="帮我问问张三提测什么时候能给", initiator=BOSS, people=refs,
        delegation=DelegationSettings(expects_reply_from=[p.person_id for p in refs]),
    )


class CountingGateway(OfflineModelGateway):
    """The offline rule model, counting its turns (a real gateway, not a patched function)."""

    def __init__(self) -> None:
        super().__init__()
        self.turns = 0

    async def judge_loop(self, ctx):  # type: ignore[no-untyped-def]
        self.turns += 1
        return await super().judge_loop(ctx)


@pytest.fixture
def queue_name(settings: Settings) -> str:
    return f"{settings.queue_name}:concern:{uuid.uuid4().hex[:8]}"


@pytest_asyncio.fixture
async def pool(services: Settings) -> AsyncIterator[ArqRedis]:
    redis = await open_pool(services)
    yield redis
    await redis.aclose()


@pytest_asyncio.fixture
async def job_ctx(
    neo4j_driver: AsyncDriver, settings: Settings, pool: ArqRedis, queue_name: str
) -> AsyncIterator[dict[str, Any]]:
    async with httpx.AsyncClient() as http:
        yield {
            "driver": neo4j_driver,
            "settings": settings.model_copy(update={"queue_name": queue_name}),
            "worker_id": f"test-{uuid.uuid4().hex[:6]}",
            "redis": pool,
            "http": http,
            "gateway": CountingGateway(),
        }


@pytest.fixture
def raise_one(
    neo4j_driver: AsyncDriver, settings: Settings, pool: ArqRedis, queue_name: str, scope: str
):  # type: ignore[no-untyped-def]
    async def go(data: RaiseConcernInput | None = None, *, now: datetime = T0) -> Concern:
        return await raise_new_concern(
            neo4j_driver, settings.neo4j_database, pool, queue_name, data or delegation(),
            scope=scope, now=now, policy=POLICY,
        )

    return go


@pytest.fixture
def drain(settings: Settings, queue_name: str):  # type: ignore[no-untyped-def]
    """Run a real arq worker in burst mode over this test's queue until it is empty; the
    worker builds its own gateway from the settings (offline, or `model_base_url`)."""
    from arq.worker import Worker

    from jobs.worker import create_worker

    async def go(**overrides: Any) -> Worker:
        worker_settings = settings.model_copy(update={"queue_name": queue_name, **overrides})
        worker = create_worker(worker_settings, burst=True, crons=False)
        try:
            await worker.main()
        finally:
            await worker.close()
        assert worker.jobs_failed == 0
        return worker

    return go
