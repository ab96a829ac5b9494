"""The agenda's effects, queued once (，再创建或补充; docs/rules/loop.md).

The decision is recorded on the signal in the review's publish transaction, with the effect
it asks for; after that transaction commits, one arq job per signal
(`perform_signal_effect`, job id `signal-effect:<signal id>`) performs it. Queuing is the
signal domain's; performing it (raising, supplementing or reporting through the concern
loop) is a concern use case, `jobs/concern/agenda.py`: the signal use cases know no concern,
so the jobs packages stand in one order (jobs/README.md).
"""

from __future__ import annotations

from collections.abc import Iterable

from arq.connections import ArqRedis

from engine.signal.stored import Signal
from jobs.deps import Deps

EFFECT_JOB = "perform_signal_effect"


def effect_job_id(signal_id: str) -> str:
    return f"signal-effect:{signal_id}"


async def enqueue_effect(pool: ArqRedis, queue: str, *, scope: str, signal_id: str) -> bool:
    job = await pool.enqueue_job(
        EFFECT_JOB,
        scope=scope,
        signal_id=signal_id,
        _job_id=effect_job_id(signal_id),
        _queue_name=queue,
    )
    return job is not None


async def enqueue_effects(deps: Deps, signals: Iterable[Signal]) -> int:
    """After the publish committed: one job per signal whose decision asks for an effect
    (a lost enqueue of a raise is found by the reconciler, jobs/reconcile.py)."""
    if deps.pool is None:
        return 0
    n = 0
    for s in signals:
        if s.decision_effect:
            queue = deps.settings.queue_name
            n += await enqueue_effect(deps.pool, queue, scope=s.scope, signal_id=s.id)
    return n
