"""The concern lists page in Cypher after a keyset cursor, and the use cases
check the caller first: concerns newest first, a person's messages in delivery
order, the count only when asked; another scope's token is refused before anything is read;
only an admin moves the scheduler's clock."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import pytest
from arq.connections import ArqRedis
from neo4j import AsyncDriver

from engine.errors import Forbidden
from engine.principal import WORKER, Principal
from engine.settings import Settings
from jobs.concern import commands
from tests.support.concern_jobs import at, concern_deps

OPERATOR = Principal("op", frozenset({"p1"}), frozenset({"reader", "operator"}))


async def test_concerns_page_newest_first_after_a_keyset_cursor(
    raise_one: Any, neo4j_driver: AsyncDriver, settings: Settings, scope: str
) -> None:
    raised = [await raise_one(now=at(minute)) for minute in (0, 1, 2)]
    deps = concern_deps(neo4j_driver, settings, None, settings.queue_name)
    first = await commands.list_concerns(deps, WORKER, scope, first=2)
    assert [c.concern_id for c in first.items] == [raised[2].concern_id, raised[1].concern_id]
    assert first.has_next and first.total is None
    last = first.items[-1]
    rest = await commands.list_concerns(
        deps, WORKER, scope, first=2, after=(last.created_at, last.concern_id), with_total=True
    )
    assert [c.concern_id for c in rest.items] == [raised[0].concern_id]
    assert not rest.has_next and rest.total == 3


async def test_messages_of_a_person_page_in_delivery_order(
    raise_one: Any, neo4j_driver: AsyncDriver, settings: Settings, scope: str
) -> None:
    for minute in (0, 1, 2):
        await raise_one(now=at(minute))
    deps = concern_deps(neo4j_driver, settings, None, settings.queue_name)
    whole = await commands.concern_messages(deps, WORKER, scope, "p_owner", first=10)
    assert len(whole.items) == 3 and not whole.has_next
    head = await commands.concern_messages(deps, WORKER, scope, "p_owner", first=1)
    r = head.items[0]
    tail = await commands.concern_messages(
        deps,
        WORKER,
        scope,
        "p_owner",
        first=10,
        after=(r.deliver_at, r.seq, r.key),
        with_total=True,
    )
    assert [x.key for x in head.items + tail.items] == [x.key for x in whole.items]
    assert tail.total == 3 and head.has_next


async def test_only_an_admin_runs_the_scheduler_over_every_scope_or_at_a_moved_clock(
    neo4j_driver: AsyncDriver, settings: Settings, pool: ArqRedis, queue_name: str
) -> None:
    deps = concern_deps(neo4j_driver, settings, pool, queue_name)
    with pytest.raises(Forbidden):
        await commands.request_scheduler_run(deps, OPERATOR, now=at(30), scope="p1")
    with pytest.raises(Forbidden):
        await commands.request_scheduler_run(deps, OPERATOR)
    with pytest.raises(Forbidden):
        await commands.request_scheduler_run(deps, OPERATOR, scope="p2")
    assert await commands.request_scheduler_run(deps, OPERATOR, scope="p1")
    # arq keeps a job id across queues: a clock of its own, so a rerun enqueues afresh
    moved = at(30) + timedelta(microseconds=uuid.uuid4().int % 1_000_000)
    assert await commands.request_scheduler_run(deps, WORKER, now=moved)
