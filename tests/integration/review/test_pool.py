"""The supervision FIFO pool on real Redis (docs/rules/reviews.md: 报告、监督叶子与导航整理共用
监督专用 FIFO 并发池，普通聊天不入池 … 监督超时在 run 创建时保存，节点获槽 … 后计时)."""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack
from dataclasses import replace
from datetime import timedelta

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from engine.llm.messages import ChatMessage, ChatRequest
from engine.principal import WORKER
from engine.review import lifecycle as lc
from engine.review import pool as pl
from engine.review.pool import DEFAULT_SLOTS
from engine.review.types import Scope
from engine.settings import Settings
from jobs.deps import Deps
from jobs.llm.gateway import HttpModelGateway
from jobs.review.common import lease_of, review_pool, runs_of
from jobs.review.execution import Execution
from jobs.review.model import Gateway
from jobs.review.pool import ReviewPool, StageTimedOut, pool_key
from jobs.review.runs import Opened, cancel_review, open_run
from tests.support.grounded_review import sent_texts
from tests.support.polling import until_async
from tests.support.review_jobs import (
    BASE,
    conversation,
    leaf_reply,
    nav_reply,
    push_conversation,
    run_worker,
)
from tests.support.scripted_model import ScriptedModelServer, text


@pytest_asyncio.fixture
async def two_workers(services: Settings) -> AsyncIterator[tuple[Redis, Redis, str]]:
    """Two separate Redis connections (as two worker processes have) on a fresh pool."""
    queue = f"pool-test-{uuid.uuid4().hex[:8]}"
    a = Redis.from_url(services.effective_redis_url)
    b = Redis.from_url(services.effective_redis_url)
    yield a, b, queue
    await a.delete(pool_key(queue))
    await a.aclose()
    await b.aclose()


async def until(
    holds: Callable[[pl.PoolState], bool], pool: ReviewPool, within_s: float = 10
) -> pl.PoolState:
    """The pool's state once `holds` is true of it (polled, with a deadline)."""
    return await until_async(pool.state, holds, "the pool state wanted", within_s)


async def fill(deps: Deps) -> AsyncExitStack:
    """Every slot of the review pool held by other holders, renewed while they hold it (a
    slow worker start must not outlive their leases); `aclose()` releases them."""
    full = AsyncExitStack()
    for i in range(DEFAULT_SLOTS):
        await full.enter_async_context(review_pool(deps).hold(f"other:{i}"))
    return full


def timings(slots: int, slot_ttl: float = 15.0) -> pl.PoolTimings:
    return pl.PoolTimings(slots=slots, slot_ttl=timedelta(seconds=slot_ttl))


async def test_slots_go_first_in_first_out_across_two_workers(
    two_workers: tuple[Redis, Redis, str],
) -> None:
    a, b, queue = two_workers
    on_a = ReviewPool(a, queue, timings=timings(1), poll=0.05)
    on_b = ReviewPool(b, queue, timings=timings(1), poll=0.05)
    first = await on_a.acquire("busy")
    order = ["a1", "b1", "a2", "b2", "a3"]
    granted: list[str] = []

    async def wait_then_work(pool: ReviewPool, holder: str) -> None:
        async with pool.hold(holder):
            granted.append(holder)
            await asyncio.sleep(0.05)

    tasks = []
    for holder in order:  # tickets are taken in this order, alternating workers
        pool = on_a if holder.startswith("a") else on_b
        tasks.append(asyncio.create_task(wait_then_work(pool, holder)))
        await until(lambda s, h=holder: s.ticket_of(h) is not None, on_a)  # type: ignore[misc]
    assert [t.holder for t in (await on_b.state()).waiting] == order
    await on_a.release(first.slot.holder)
    await asyncio.gather(*tasks)
    assert granted == order
    assert await on_b.state() == pl.PoolState(next_number=len(order) + 2)


async def test_the_bound_holds_under_concurrency(two_workers: tuple[Redis, Redis, str]) -> None:
    a, b, queue = two_workers
    pools = [ReviewPool(r, queue, timings=timings(2), poll=0.02) for r in (a, b)]
    workers = 12
    inside = 0
    done = 0
    most = 0

    async def company() -> tuple[int, int]:
        return inside, done

    async def work(i: int) -> None:
        nonlocal inside, done, most
        async with pools[i % 2].hold(f"w{i}"):
            inside += 1
            most = max(most, inside)
            # each holder stays until a second one is in (or nobody is left to come): the
            # bound is met every round, and a pool that let a third in would show it here
            await until_async(company, lambda got: got[0] >= 2 or sum(got) == workers, "two in")
            inside -= 1
            done += 1

    await asyncio.gather(*(work(i) for i in range(workers)))
    assert most == 2
    assert (await pools[0].state()).held == ()


async def test_an_expired_slot_of_a_crashed_holder_is_reclaimed(
    two_workers: tuple[Redis, Redis, str],
) -> None:
    a, b, queue = two_workers
    crashed = ReviewPool(a, queue, timings=timings(1, slot_ttl=0.6), poll=0.05)
    lost = await crashed.acquire("crashed")  # granted, then never renewed nor released
    alive = ReviewPool(b, queue, timings=timings(1, slot_ttl=0.6), poll=0.05)
    held = await alive.acquire("next")
    # granted once the crashed holder's lease had run out, by the pool's own records
    assert held.slot.granted_at >= lost.slot.expires_at
    state = await alive.state()
    assert [s.holder for s in state.held] == ["next"] and held.slot.number == 2


async def test_stage_timeout_counts_from_the_slot_grant(
    two_workers: tuple[Redis, Redis, str],
) -> None:
    a, b, queue = two_workers
    other = ReviewPool(a, queue, timings=timings(1), poll=0.05)
    mine = ReviewPool(b, queue, timings=timings(1), poll=0.05)
    timeout = timedelta(seconds=1)

    async def occupy() -> None:
        async with other.hold("other"):
            state = await until(lambda s: s.ticket_of("leaf") is not None, other)
            ticket = state.ticket_of("leaf")
            assert ticket is not None
            # the other holder works until "leaf" has waited in line past the timeout, by the
            # pool's own clock (the Redis server's)
            await until_async(other.now, lambda now: now - ticket.enqueued_at > timeout)

    blocker = asyncio.create_task(occupy())
    await until(lambda s: s.slot_of("other") is not None, mine)
    async with mine.hold("leaf") as held:  # in line for longer than the timeout
        assert held.slot.granted_at - held.slot.enqueued_at > timeout  # the pool's records
        assert held.remaining(timeout) == timeout  # the whole timeout is left at the grant
        finished = asyncio.get_running_loop().create_future()
        finished.set_result("done")
        assert await held.within(timeout, finished) == "done"
    await blocker

    async with mine.hold("slow") as held:
        with pytest.raises(StageTimedOut):  # work that never ends is cut at the timeout
            await held.within(timeout, asyncio.Event().wait())
    assert (await mine.state()).held == ()


@pytest.mark.timeout(300)  # a worker starting and reaching the leaf on two busy cores
async def test_review_leaves_wait_for_a_slot_and_ordinary_chat_does_not(
    deps: Deps, gateway: Gateway, model_server: ScriptedModelServer, scope: str
) -> None:
    await push_conversation(deps, scope, "chat-1", conversation(6))
    model_server.script(
        text("普通聊天", grounded_in=("你好",)),
        leaf_reply("批a", grounded_in=("第1条：", "第6条：")),
        nav_reply(grounded_in=("批a",)),
    )
    full = await fill(deps)
    got = await open_run(
        deps, Scope.projects(scope), interval=(BASE - timedelta(hours=1), BASE + timedelta(days=1))
    )
    assert isinstance(got, Opened)
    worker = asyncio.create_task(run_worker(deps.settings))
    # the worker starts and reaches the leaf (minutes on a loaded machine)
    waiting = (await until(lambda s: bool(s.waiting), review_pool(deps), within_s=240)).waiting
    assert model_server.calls == 0  # the leaf is in line behind the two holders
    assert [t.holder for t in waiting] == [f"{got.run.run_id}:leaf:0"]
    assert isinstance(gateway, HttpModelGateway)
    chat = await gateway.chat(ChatRequest(messages=[ChatMessage.user("你好")]))
    assert chat.text == "普通聊天"  # ordinary chat never enters the pool
    await full.aclose()
    await worker
    done = (await runs_of(deps).get(got.run.run_id)).run
    assert done.status is lc.RunStatus.COMPLETED, done.error
    assert (await review_pool(deps).state()).held == ()
    assert sent_texts(model_server) == [conversation(6)]  # what the leaf answer stood for


async def test_a_run_keeps_the_timeout_it_was_created_with(
    deps: Deps, gateway: Gateway, model_server: ScriptedModelServer, scope: str
) -> None:
    """The run is created with a 1 s stage timeout; the worker's own settings allow 180 s."""
    await push_conversation(deps, scope, "chat-1", conversation(4))
    short = replace(deps, settings=deps.settings.model_copy(update={"model_deadline_seconds": 1.0}))
    got = await open_run(
        short,
        Scope.projects(scope),
        interval=(BASE - timedelta(hours=1), BASE + timedelta(days=1)),
        enqueue=False,
    )
    assert isinstance(got, Opened)
    run, owner, token = got.run, got.owner, got.token
    assert run.stage_timeout == timedelta(seconds=1)
    never = threading.Event()  # the model never answers: only the stage timeout ends the leaf
    model_server.script(replace(leaf_reply("slow", grounded_in=("第1条：", "第4条：")), hold=never))
    try:
        assert await Execution(deps, run.run_id, owner, token, gateway=gateway).run() == "failed"
    finally:
        never.set()
    failed = (await runs_of(deps).get(run.run_id)).run
    assert failed.error is not None and failed.error.kind is lc.ErrorKind.TIMEOUT
    assert failed.error.stage.value == "leaves"
    assert (await review_pool(deps).state()).held == ()


@pytest.mark.timeout(300)  # a worker starting and reaching the leaf on two busy cores
async def test_a_run_cancelled_while_waiting_for_a_slot_leaves_the_line(
    deps: Deps, model_server: ScriptedModelServer, scope: str
) -> None:

    await push_conversation(deps, scope, "chat-1", conversation(6))
    full = await fill(deps)
    got = await open_run(
        deps, Scope.projects(scope), interval=(BASE - timedelta(hours=1), BASE + timedelta(days=1))
    )
    assert isinstance(got, Opened)
    worker = asyncio.create_task(run_worker(deps.settings))
    try:
        state = await until(lambda s: bool(s.waiting), review_pool(deps), within_s=240)
        assert [t.holder for t in state.waiting] == [f"{got.run.run_id}:leaf:0"]
        await cancel_review(deps, WORKER, got.run.run_id)
        await asyncio.wait_for(worker, timeout=30)  # the pool is still full: it left the line
    finally:
        await full.aclose()
    stopped = (await runs_of(deps).get(got.run.run_id)).run
    assert stopped.status is lc.RunStatus.CANCELLED and stopped.stopped
    assert model_server.calls == 0, "a cancelled run never asks the model"
    state = await review_pool(deps).state()
    assert state.waiting == () and state.held == ()
    assert await lease_of(deps).current() is None
