"""One supervision review at a time: the lease, as pure decisions (docs/rules/reviews.md).

"同一时刻只允许一个监督回顾执行，包括停止清理阶段；不同 scope 也共用此限制。手动新建或继续遇到
占用时立即提示，不排队；自动回顾等待占用释放，再检查未完成运行和增量来源。"

- One lease for every scope and every worker (`LOCK_KEY`), held from start until the run has
  stopped, cleanup included (the shell releases it on `ReleaseLease`).
- A lease has an owner (worker), the run it serves, an expiry and a fencing token. A holder
  that crashed cannot keep it: once expired, anyone may take it over, and the token grows so
  the old holder's late writes can be told apart and refused.
- Busy: a manual start or continue is refused at once with `Busy`; an automatic one gets
  `Wait` and tries again when the lease may be free.
- Before each model request the holder checks and refreshes the lease (`renew`); a lost
  lease raises `Conflict` and the worker stops without writing.

The storage (Neo4j or Redis compare-and-set keyed by `LOCK_KEY`) lives in the shell; it
stores what these functions return, conditioned on the token it read.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from pydantic import Field

from engine.errors import Busy, Conflict
from engine.review.types import ReviewModel, Trigger

LOCK_KEY = "supervision-review"


class Lease(ReviewModel):
    owner: str
    run_id: str
    token: int = Field(ge=1)
    acquired_at: datetime
    expires_at: datetime

    def expired(self, now: datetime) -> bool:
        return now >= self.expires_at


class Acquired(ReviewModel):
    lease: Lease
    took_over: Lease | None = None  # the expired lease this one replaced


class Wait(ReviewModel):
    """Automatic work waits: try again at `retry_at` (or when told the lease was released)."""

    retry_at: datetime
    holder_run_id: str


def acquire(
    current: Lease | None,
    *,
    owner: str,
    run_id: str,
    trigger: Trigger,
    now: datetime,
    ttl: timedelta,
) -> Acquired | Wait:
    if ttl <= timedelta(0):
        raise Conflict("a lease needs a positive time to live")
    if current is not None and not current.expired(now):
        if current.owner == owner and current.run_id == run_id:
            return Acquired(lease=current.model_copy(update={"expires_at": now + ttl}))
        if trigger is Trigger.MANUAL:
            raise Busy(
                "another supervision review is running or stopping",
                holder_run_id=current.run_id,
                retry_at=current.expires_at.isoformat(),
            )
        return Wait(retry_at=current.expires_at, holder_run_id=current.run_id)
    token = current.token + 1 if current is not None else 1
    lease = Lease(owner=owner, run_id=run_id, token=token, acquired_at=now, expires_at=now + ttl)
    return Acquired(lease=lease, took_over=current)


def _lost(current: Lease | None, owner: str, token: int, now: datetime) -> bool:
    return (
        current is None or current.owner != owner or current.token != token or current.expired(now)
    )


def renew(current: Lease | None, *, owner: str, token: int, now: datetime, ttl: timedelta) -> Lease:
    """Check and refresh before a model request; `Conflict` when the lease is lost."""
    if _lost(current, owner, token, now):
        raise Conflict(
            "the review lease was lost; stop without writing",
            owner=owner,
            token=token,
            holder=current.owner if current else None,
        )
    assert current is not None
    return current.model_copy(update={"expires_at": now + ttl})


def release(current: Lease | None, *, owner: str, token: int) -> Lease | None:
    """Give the lease back. A holder that lost it releases nothing (the new lease stays)."""
    if current is not None and current.owner == owner and current.token == token:
        return None
    return current
