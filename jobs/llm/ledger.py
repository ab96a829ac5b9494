"""Where a model call's stats go: the meter of the step that asked.

`metering(Meter(who))` opens a meter for one step (a leaf batch, a navigation node, a report):
every model request finished inside it — the HTTP client's, or an offline rule-model call
the caller records with `record_offline` — is kept there with its attribution. The owner
drains the meter into its own commit (the run's transaction writes the entries with its
records), so recording a call costs no round trip of its own. A call made with no meter
open is counted in the process metrics only.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime
from uuid import uuid4

from neo4j import AsyncDriver

from engine.clock import Clock, utcnow
from engine.llm.accounting import CallStats
from engine.llm.ledger import Attribution, LedgerEntry, entry, offline_stats
from graph.llm.ledger import CostLedger


class StageTokens:
    """Process-wide token counters by (stage, model), exported as Prometheus counters."""

    def __init__(self) -> None:
        self._by: dict[tuple[str, str], list[int]] = {}

    def add(self, stage: str, stats: CallStats) -> None:
        row = self._by.setdefault((stage, stats.model), [0, 0, 0])
        row[0] += stats.prompt_tokens
        row[1] += stats.completion_tokens
        row[2] += 1

    def snapshot(self) -> dict[tuple[str, str], tuple[int, int, int]]:
        """(prompt tokens, completion tokens, calls) per (stage, model)."""
        return {key: (p, c, n) for key, (p, c, n) in self._by.items()}


STAGE_TOKENS = StageTokens()


class Meter:
    """The model calls of one step, each stamped with the wall-clock moment it finished: a
    call is paid when it is made, whatever moment the job runs at (a job's clock may be
    stopped at a scheduled `now`, jobs/deps.py), so a scope's ledger up to now holds it."""

    def __init__(self, who: Attribution, *, clock: Clock = utcnow) -> None:
        self.who = who
        self.clock = clock
        self._stats: list[tuple[str, datetime, CallStats]] = []

    def record(self, stats: CallStats) -> None:
        self._stats.append((uuid4().hex, self.clock(), stats))
        STAGE_TOKENS.add(self.who.stage.value, stats)

    @property
    def calls(self) -> int:
        return len(self._stats)

    def entries(self) -> list[LedgerEntry]:
        """The entries not written yet. Ids and times are fixed at record time, so a retried
        transaction writes each once, at the same moment."""
        return [entry(call_id, self.who, s, at=at) for call_id, at, s in self._stats]

    def paid(self) -> None:
        """The owner's commit wrote them: a later commit must not write them again."""
        self._stats = []


_current: ContextVar[Meter | None] = ContextVar("storygraph_model_meter", default=None)


@contextmanager
def metering(meter: Meter) -> Iterator[Meter]:
    token = _current.set(meter)
    try:
        yield meter
    finally:
        _current.reset(token)


def record(stats: CallStats) -> None:
    """Called by the gateway when a model request finishes (ok or not)."""
    meter = _current.get()
    if meter is not None:
        meter.record(stats)


def record_offline(prompt: str, answer: str) -> None:
    """One offline rule-model call: no HTTP request, tokens estimated from the text."""
    record(offline_stats(len(prompt), len(answer)))


async def settle(driver: AsyncDriver, database: str, meter: Meter | None) -> None:
    """Write what `meter` recorded and its owner's commit did not (a failed call, a turn that
    decided nothing), in a transaction of its own."""
    if meter is not None and meter.calls:
        await CostLedger(driver, database).record(meter.entries())
        meter.paid()
