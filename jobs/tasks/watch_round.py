"""The heartbeat round over a scope's candidate watches as an arq job (seed 000 多候选关注).

    run_watch_round(ctx, scope=..., full=False, round_id=None)

loads the active watches with their latest observations, lets
`engine.watch.heartbeat_round.decide_round` close the verified items and choose this
round's check (one, or all with `full`), records the round under a stable id together with
the closures, and enqueues the chosen checks with stable job ids (`run_id =
round:<round id>:<watch id>`). A repeated trigger of the same round changes nothing and
re-enqueues only what arq does not already know (same job ids), so no check runs twice.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from arq.connections import ArqRedis

from engine.settings import Settings
from engine.watch.heartbeat_round import decide_round
from graph.watch.repository import utcnow
from graph.watch.rounds import WatchRounds
from jobs.tasks.watch_check import enqueue_check


def default_round_id(now: datetime, full: bool) -> str:
    """One round per minute slot and mode unless the caller names the round."""
    return now.strftime("%Y%m%dT%H%M") + ("-full" if full else "")


def round_job_id(scope: str, round_id: str) -> str:
    return f"watch-round:{scope}:{round_id}"


def round_run_id(round_id: str, watch_id: str) -> str:
    return f"round:{round_id}:{watch_id}"


async def enqueue_round(pool: ArqRedis, settings: Settings, *, scope: str, full: bool,
                        round_id: str) -> bool:
    job = await pool.enqueue_job(
        "run_watch_round", scope=scope, full=full, round_id=round_id,
        _job_id=round_job_id(scope, round_id), _queue_name=settings.queue_name,
    )
    return job is not None


async def run_watch_round(
    ctx: dict[str, Any], *, scope: str, full: bool = False, round_id: str | None = None,
    now: datetime | None = None, clock: Callable[[], datetime] = utcnow,
) -> dict[str, Any]:
    settings: Settings = ctx["settings"]
    rounds = WatchRounds(ctx["driver"], settings.neo4j_database)
    now = now or clock()
    round_id = round_id or default_round_id(now, full)
    decision = decide_round(await rounds.candidates(scope), full_verification=full)
    run_ids = {w: round_run_id(round_id, w) for w in decision.to_check}
    claim = await rounds.claim(scope, round_id, decision, run_ids=run_ids,
                               planned_by=str(ctx.get("worker_id", "inline")), now=now)
    stored = claim.round
    pool: ArqRedis | None = ctx.get("redis")
    enqueued: list[str] = []
    if pool is not None:
        for watch_id, run_id in zip(stored["checked"], stored["run_ids"], strict=True):
            if await enqueue_check(pool, settings, scope=scope, watch_id=watch_id,
                                   request_id=run_id):
                enqueued.append(run_id)
    return {
        "roundId": round_id, "duplicate": not claim.claimed,
        "closed": list(stored["closed"]), "checked": list(stored["checked"]),
        "later": list(stored["later"]), "enqueued": enqueued,
    }
