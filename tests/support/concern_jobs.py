"""Concern helpers for tests over real Neo4j and Redis: a moved clock far from the wall
clock, a delegation to raise, a gateway that counts its turns, a loopback chat webhook.

Times are in March 2035 so no real scheduler run ever finds these concerns due; every scan
and job gets its `now` (and scope) explicitly. (Engine unit tests use tests/support/concern.py,
whose clock is in 2026.)
"""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from arq.connections import ArqRedis
from neo4j import AsyncDriver

from engine.concern.model import (
    ConcernType,
    DelegationSettings,
    Initiator,
    PersonRef,
    Priority,
    RaiseConcernInput,
)
from engine.concern.policy import ConcernPolicy
from engine.principal import WORKER
from engine.settings import Settings
from jobs.concern.commands import upsert_person
from jobs.deps import Deps
from jobs.llm.gateway import OfflineModelGateway

TZ = ZoneInfo("Asia/Shanghai")
T0 = datetime(2035, 3, 19, 10, 0, tzinfo=TZ)  # a Monday, inside working hours
POLICY = ConcernPolicy()
BOSS = Initiator(name="老板", channel="telegram", channel_user_id="123", person_id="p_owner")


def concern_deps(
    driver: AsyncDriver, settings: Settings, pool: ArqRedis | None, queue_name: str
) -> Deps:
    """The deps a concern use case gets in a test: the test's own arq queue."""
    return Deps(
        settings=settings.model_copy(update={"queue_name": queue_name}), driver=driver, pool=pool
    )


def at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def delegation(
    *,
    people: list[tuple[str, str]] | None = None,
    priority: Priority = Priority.HIGH,
    title: str = "联系张三确认提测时间",
    goal: str = "拿到张三的具体提测时间点",
) -> RaiseConcernInput:
    refs = [
        PersonRef(person_id=pid, display_name=name, last_channel="feishu")
        for pid, name in (people or [("p_zhangsan", "张三")])
    ]
    return RaiseConcernInput(
        type=ConcernType.DELEGATION,
        priority=priority,
        title=title,
        goal=goal,
        source_detail="帮我问问张三提测什么时候能给",
        initiator=BOSS,
        people=refs,
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


async def upsert_people_of(deps: Deps, scope: str, data: RaiseConcernInput) -> None:
    """Register (upsertPerson's use case) every person a raise names, its people and its
    initiator: a concern messages only people its scope knows (engine/concern/recipients.py)."""
    people = {p.person_id: p.display_name for p in data.people}
    if data.initiator is not None and data.initiator.person_id:
        people.setdefault(data.initiator.person_id, data.initiator.name)
    for pid, name in people.items():
        await upsert_person(deps, WORKER, scope, {"person_id": pid, "display_name": name})
