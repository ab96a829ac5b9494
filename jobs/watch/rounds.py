"""Heartbeat rounds over a scope's watches, and the partner session's reports (docs/rules/watches.md
多候选关注).

- `heartbeat_tick`: every slot, one round per scope that has enabled watches, enqueued under a
  stable job id (`watch-round:<scope>:hb-<slot>`), so several workers running the same cron
  enqueue each round once. The heartbeat app switch governs it (docs/rules/reviews.md).
- `request_round`: a person asks for a round now (enqueued; a repeated round id runs once).
- `run_round`: loads the active watches with their latest observations, lets
  `engine.watch.heartbeat_round.decide_round` close verified items and choose this round's
  check(s), records the round with its closures in one write, and after that enqueues the
  chosen checks under stable run ids (`round:<round id>:<watch id>`). A repeated round
  changes nothing and re-enqueues only what arq does not already know.
- `report_execution`: a hand-off's report, settled against the step list in one write.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from engine.errors import InvalidInput, NotFound
from engine.principal import Principal
from engine.review.settings import Work, admit
from engine.scope import require_scope
from engine.watch.heartbeat_round import decide_round
from engine.watch.report import ExecutionReport
from graph.review.app import AppSettingsStore
from graph.watch.receipts import ReportWrite, WatchReceipts
from graph.watch.records import WatchRecords
from graph.watch.rounds import WatchRounds
from jobs.deps import Deps
from jobs.watch.effects import default_round_id, enqueue_check, enqueue_round, round_run_id

log = logging.getLogger("storygraph.watch.heartbeat")
SLOT = timedelta(minutes=30)
MAX_SCOPES = 1000
MAX_ROUND_ID = 100


@dataclass(frozen=True)
class RoundTicket:
    round_id: str
    enqueued: bool


def slot_id(now: datetime, slot: timedelta = SLOT) -> str:
    """The round id of the slot `now` falls in (UTC), e.g. `hb-20350319T0200`."""
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    start = epoch + ((now.astimezone(UTC) - epoch) // slot) * slot
    return "hb-" + start.strftime("%Y%m%dT%H%M")


def _rounds(deps: Deps) -> WatchRounds:
    return WatchRounds(deps.driver, deps.database)


async def heartbeat_tick(deps: Deps, principal: Principal) -> int:
    """Enqueue this slot's rounds of every scope (an all-scope operation: admin); returns
    how many were new."""
    principal.require("admin")
    settings = deps.settings
    app = await AppSettingsStore(deps.driver, deps.database, deployment=settings.queue_name).get()
    if not admit(app, Work.SCHEDULED_CLAIM) or deps.pool is None:
        return 0
    round_id = slot_id(deps.clock())
    started = 0
    for scope in await _rounds(deps).scopes_with_enabled_watches(MAX_SCOPES):
        if await enqueue_round(deps.pool, settings, scope=scope, full=False, round_id=round_id):
            started += 1
    if started:
        log.info("watch heartbeat", extra={"fields": {"round_id": round_id, "rounds": started}})
    return started


async def request_round(
    deps: Deps, principal: Principal, scope: str, *, full: bool, round_id: str | None
) -> RoundTicket:
    scope = require_scope(principal, "operator", scope)
    if round_id is not None and not (0 < len(round_id) <= MAX_ROUND_ID):
        raise InvalidInput("roundId must be 1 to 100 characters", field="roundId")
    rid = round_id or default_round_id(deps.clock(), full)
    enqueued = False
    if deps.pool is not None:
        enqueued = await enqueue_round(
            deps.pool, deps.settings, scope=scope, full=full, round_id=rid
        )
    return RoundTicket(round_id=rid, enqueued=enqueued)


async def find_round(
    deps: Deps, principal: Principal, scope: str, round_id: str
) -> dict[str, Any] | None:
    scope = require_scope(principal, "reader", scope)
    try:
        return await _rounds(deps).get(scope, round_id)
    except NotFound:
        return None


async def run_round(
    deps: Deps,
    principal: Principal,
    scope: str,
    *,
    full: bool = False,
    round_id: str | None = None,
) -> dict[str, Any]:
    """One round over `scope`'s candidate watches; its report (see the module note)."""
    scope = require_scope(principal, "operator", scope)
    rounds = _rounds(deps)
    now = deps.clock()
    round_id = round_id or default_round_id(now, full)
    decision = decide_round(await rounds.candidates(scope), full_verification=full)
    run_ids = {w: round_run_id(round_id, w) for w in decision.to_check}
    claim = await rounds.claim(
        scope, round_id, decision, run_ids=run_ids, planned_by=deps.worker_id, now=now
    )
    stored = claim.round
    enqueued: list[str] = []
    if deps.pool is not None:
        await WatchRecords(deps.driver, deps.database).record_queued(
            scope,
            dict(zip(stored["run_ids"], stored["checked"], strict=True)),
            deployment=deps.settings.queue_name,
            now=now,
        )
        for watch_id, run_id in zip(stored["checked"], stored["run_ids"], strict=True):
            if await enqueue_check(
                deps.pool, deps.settings, scope=scope, watch_id=watch_id, request_id=run_id
            ):
                enqueued.append(run_id)
    return {
        "roundId": round_id,
        "duplicate": not claim.claimed,
        "closed": list(stored["closed"]),
        "checked": list(stored["checked"]),
        "later": list(stored["later"]),
        "enqueued": enqueued,
    }


async def report_execution(
    deps: Deps, principal: Principal, scope: str, report: ExecutionReport
) -> ReportWrite:
    """The partner session's report on a hand-off; rejected receipts are stored with their
    reason and complete nothing."""
    scope = require_scope(principal, "editor", scope)
    return await WatchReceipts(deps.driver, deps.database).report_execution(
        scope, report, deps.clock()
    )
