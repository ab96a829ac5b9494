"""The supervision FIFO pool, as pure decisions (docs/rules/reviews.md).

"报告、监督叶子与导航整理共用监督专用 FIFO 并发池，普通聊天不入池；监督服务外层 run 仍串行。
报告在排队前冻结超时，获槽后领取，实际模型请求前校验并刷新租约；报告提交或无变化后先释放槽位，
再执行监督。监督超时在 run 创建时保存，节点获槽并解析 Runtime 后计时。"

- One pool per deployment (the shell keys it by the arq queue name), shared by every worker;
  at most `slots` holders at once. Only review model work enters it: heartbeat reports, leaf
  batches and navigation nodes. Ordinary chat calls the gateway directly and never waits here.
- First in, first out: `request` hands out ticket numbers in arrival order; a slot goes to a
  waiter only when fewer waiters are ahead of it than there are free slots, so a later
  arrival never overtakes an earlier one that is still waiting.
- Nothing is held forever: a slot is a lease (`expires_at`) its holder renews while it works;
  a waiter's ticket lapses (`seen_until`) when it stops asking. Both are dropped by the next
  decision after they expire, so a crashed worker frees its slot and its place in line.
- The stage timeout is fixed when the run (or heartbeat) is created and counts from the
  slot's `granted_at`, never from when the ticket was taken (`deadline`).
- Release after commit or no_change, before downstream supervision (the shell performs the
  `ReleaseSlot` effect first).

The shell stores `PoolState` with a compare-and-set and retries when another worker wrote
in between; every function here is deterministic in `now`.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from pydantic import Field

from engine.errors import Conflict, InvalidInput
from engine.review.types import ReviewModel

DEFAULT_SLOTS = 2


class Ticket(ReviewModel):
    """A place in line."""

    holder: str
    number: int = Field(ge=1)
    enqueued_at: datetime
    seen_until: datetime  # the waiter asked recently; after this it has left the line


class Slot(ReviewModel):
    """A granted slot: a lease its holder renews until it releases it."""

    holder: str
    number: int = Field(ge=1)
    enqueued_at: datetime
    granted_at: datetime
    expires_at: datetime


class PoolState(ReviewModel):
    next_number: int = 1
    waiting: tuple[Ticket, ...] = ()
    held: tuple[Slot, ...] = ()

    def slot_of(self, holder: str) -> Slot | None:
        return next((s for s in self.held if s.holder == holder), None)

    def ticket_of(self, holder: str) -> Ticket | None:
        return next((t for t in self.waiting if t.holder == holder), None)


class Granted(ReviewModel):
    slot: Slot
    reclaimed: tuple[str, ...] = ()  # holders whose expired slots this decision freed


class Queued(ReviewModel):
    ticket: Ticket
    ahead: int  # waiters in front of this one
    reclaimed: tuple[str, ...] = ()


class PoolTimings(ReviewModel):
    slots: int = Field(default=DEFAULT_SLOTS, ge=1)
    slot_ttl: timedelta = timedelta(seconds=15)  # renewed by the holder while it works
    wait_ttl: timedelta = timedelta(seconds=10)  # renewed by each request while waiting


def reclaim(state: PoolState, *, now: datetime) -> tuple[PoolState, tuple[str, ...]]:
    """Drop expired slots and lapsed tickets: a crashed holder or waiter keeps nothing."""
    held = tuple(s for s in state.held if s.expires_at > now)
    waiting = tuple(t for t in state.waiting if t.seen_until > now)
    gone = tuple(s.holder for s in state.held if s.expires_at <= now)
    return state.model_copy(update={"held": held, "waiting": waiting}), gone


def request(
    state: PoolState, holder: str, *, now: datetime, timings: PoolTimings
) -> tuple[PoolState, Granted | Queued]:
    """Take a ticket (or keep the one already taken) and get a slot if it is this one's turn.

    Idempotent: asking again while waiting refreshes the ticket and keeps its place; asking
    again while holding returns the same slot, renewed.
    """
    if not holder.strip():
        raise InvalidInput("a pool holder needs a name")
    state, gone = reclaim(state, now=now)
    slot = state.slot_of(holder)
    if slot is not None:
        renewed = slot.model_copy(update={"expires_at": now + timings.slot_ttl})
        return _put_slot(state, renewed), Granted(slot=renewed, reclaimed=gone)
    ticket = state.ticket_of(holder)
    if ticket is None:
        ticket = Ticket(
            holder=holder,
            number=state.next_number,
            enqueued_at=now,
            seen_until=now + timings.wait_ttl,
        )
        state = state.model_copy(
            update={"next_number": state.next_number + 1, "waiting": state.waiting + (ticket,)}
        )
    line = sorted(state.waiting, key=lambda t: t.number)
    ahead = next(i for i, t in enumerate(line) if t.holder == holder)
    free = timings.slots - len(state.held)
    if ahead < free:
        granted = Slot(
            holder=holder,
            number=ticket.number,
            enqueued_at=ticket.enqueued_at,
            granted_at=now,
            expires_at=now + timings.slot_ttl,
        )
        state = state.model_copy(
            update={
                "waiting": tuple(t for t in state.waiting if t.holder != holder),
                "held": state.held + (granted,),
            }
        )
        return state, Granted(slot=granted, reclaimed=gone)
    seen = ticket.model_copy(update={"seen_until": now + timings.wait_ttl})
    state = state.model_copy(
        update={"waiting": tuple(seen if t.holder == holder else t for t in state.waiting)}
    )
    return state, Queued(ticket=seen, ahead=ahead, reclaimed=gone)


def _put_slot(state: PoolState, slot: Slot) -> PoolState:
    held = tuple(slot if s.holder == slot.holder else s for s in state.held)
    return state.model_copy(update={"held": held})


def renew(state: PoolState, holder: str, *, now: datetime, timings: PoolTimings) -> PoolState:
    """The holder is still working: push its slot's expiry out. `Conflict` once it was lost
    (expired and reclaimed), so the holder stops instead of running over the bound."""
    state, _ = reclaim(state, now=now)
    slot = state.slot_of(holder)
    if slot is None:
        raise Conflict("the pool slot was lost", holder=holder)
    return _put_slot(state, slot.model_copy(update={"expires_at": now + timings.slot_ttl}))


def release(state: PoolState, holder: str) -> PoolState:
    """Give the slot back, or leave the line. Releasing twice is harmless."""
    return state.model_copy(
        update={
            "held": tuple(s for s in state.held if s.holder != holder),
            "waiting": tuple(t for t in state.waiting if t.holder != holder),
        }
    )


def deadline(slot: Slot, timeout: timedelta) -> datetime:
    """When the work holding `slot` must be done: the frozen timeout, from the grant."""
    if timeout <= timedelta(0):
        raise InvalidInput("a stage timeout must be positive", timeout=str(timeout))
    return slot.granted_at + timeout


def remaining(slot: Slot, timeout: timedelta, *, now: datetime) -> timedelta:
    """Time left before `deadline`; never negative."""
    return max(deadline(slot, timeout) - now, timedelta(0))
