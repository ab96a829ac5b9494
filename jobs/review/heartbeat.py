"""Heartbeat plans on the worker (docs/rules/reviews.md); the arq entry
points are `jobs.tasks.heartbeat`, which act as `WORKER`.

- `claim_due` (the cron tick, every minute, on every worker): while the app is on, find due
  enabled plans and queue each slot's report with its timeout frozen, under the slot's claim
  key as arq job id (arq refuses a second copy of an id that is queued, running or kept, so
  two workers queue one report). Nothing is claimed yet.
- `report`: waits for a slot of the supervision FIFO pool, and only then claims a scheduled
  beat (MERGE on its claim key: two workers never claim the same run; 获槽后领取) — a beat
  still in line is no run at all, and one whose job was lost is simply due again at the next
  tick. Its timeout (frozen when it was queued) counts from the grant. It checks input
  before any model call — nothing pending is no_change with no model request; otherwise one
  report request,
  then run and report checkpoint are committed in one transaction. The slot is released
  first (the `ReleaseSlot` effect); then, only if the app is on at that moment, the
  downstream supervision check is queued (also after no_change, so an earlier failed
  supervision can be retried).
- `automatic`: waits for the lease (arq `Retry`), continues a failed automatic
  run or starts a new one, links it to the heartbeat by its real run id, executes it. The
  same check delivered again (its worker was killed) keeps to the run it linked: that run
  is failed `worker_lost` if its worker is gone, then continued when its sources are
  unchanged, else left failed and visible; a heartbeat never leads to a second run.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from arq import Retry
from neo4j import AsyncManagedTransaction

from engine.errors import NotFound, StorygraphError
from engine.llm.errors import ModelError, ModelRateLimited
from engine.llm.ledger import Attribution, Stage
from engine.principal import Principal
from engine.review import heartbeat as hb
from engine.review import lock
from engine.review.checkpoints import CheckpointKey, Track, pending_segments
from engine.review.compose import ledger_scope, story_scope
from engine.review.effects import ReleaseSlot, StartSupervision
from engine.review.lifecycle import SupervisionRun
from engine.review.plans import DEFAULT_RETENTION, due_plans
from engine.review.settings import Work, admit
from engine.review.types import Scope
from graph.review.codec import RunOptions
from jobs.deps import Deps
from jobs.liveness import live_workers
from jobs.llm.ledger import Meter, metering, settle
from jobs.review.common import (
    DEFAULT_WINDOW,
    HEARTBEAT_REPORT,
    SUPERVISE_AUTOMATIC,
    app_of,
    checkpoints_of,
    enqueue_execution,
    heartbeats_of,
    plans_of,
    review_pool,
    sources_of,
    stage_timeout,
)
from jobs.review.execution import Execution
from jobs.review.model import Gateway, report_answer, retry_after_seconds
from jobs.review.pool import StageTimedOut
from jobs.review.recovery import recover_run
from jobs.review.runs import Opened, automatic_supervision, claim_execution, wait_seconds

log = logging.getLogger("storygraph.heartbeat")


async def claim_due(deps: Deps, principal: Principal) -> list[hb.HeartbeatRun]:
    """Queue every due plan slot's report once, of every scope (`admin`: the worker's cron);
    the beats this worker queued (not stored: each is claimed by its report once it holds a
    pool slot)."""
    principal.require("admin")
    if deps.pool is None:
        raise RuntimeError("queueing heartbeat reports needs the worker's Redis connection")
    settings = await app_of(deps).get()
    now = deps.clock()
    heartbeats = heartbeats_of(deps)
    due = due_plans(await plans_of(deps).saved(), await heartbeats.last_slots(), settings, now)
    queued: list[hb.HeartbeatRun] = []
    for item in due:
        run = hb.claim_scheduled(
            item,
            settings,
            run_id=deps.ids("hb", 20),
            worker_id=deps.worker_id,
            now=now,
            timeout=stage_timeout(deps),
        )
        if run is None:
            continue
        job = await deps.pool.enqueue_job(
            HEARTBEAT_REPORT,
            run_id=run.run_id,
            queued=run.model_dump(mode="json"),
            claim_key=item.claim_key,
            _job_id=item.claim_key,
            _queue_name=deps.settings.queue_name,
        )
        if job is not None:
            queued.append(run)
    return queued


async def report(
    deps: Deps,
    principal: Principal,
    run_id: str,
    *,
    gateway: Gateway,
    queued: dict[str, Any] | None = None,
    claim_key: str | None = None,
) -> str:
    """One heartbeat report (the worker's job, as `WORKER`; a person's `runPlanNow` was
    checked and claimed when it was enqueued). `queued`/`claim_key`: a scheduled beat, not
    claimed until this job holds a pool slot."""
    principal.require("admin")
    heartbeats = heartbeats_of(deps)
    try:
        run = await heartbeats.get(run_id)
    except NotFound:
        if queued is None or claim_key is None:
            return "gone"  # its records were removed before the job ran
        run = hb.HeartbeatRun.model_validate(queued)  # still to be claimed
        claim_key_left: str | None = claim_key
    else:
        claim_key_left = None
    if run.finished:
        return run.state.value
    plan = await plans_of(deps).get(run.config_id) if run.config_id else None
    now = deps.clock()
    if plan is None or run.scope is None or (run.slot is not None and not plan.enabled):
        if claim_key_left is not None:
            return hb.HeartbeatState.SKIPPED.value  # never claimed: nothing to record
        await heartbeats.mutate(
            run_id, lambda r: hb.skip_report(r, "plan gone or disabled", now=now).state
        )
        return hb.HeartbeatState.SKIPPED.value
    # docs/rules/reviews.md: 报告在排队前冻结超时，获槽后领取 …
    # 报告提交或无变化后先释放槽位，再执行监督
    scope = run.scope
    slots = review_pool(deps)
    holder = f"report:{run_id}"
    timeout = run.timeout or stage_timeout(deps)
    sources = sources_of(deps)
    async with slots.hold(holder) as held:
        settings = await app_of(deps).get()
        if claim_key_left is not None:
            granted = hb.claim_granted(run, settings, now=deps.clock())
            if granted is None or not await heartbeats.claim(granted, claim_key_left):
                return "not claimed"  # the app went off meanwhile, or another worker has it
            run = granted
        key = CheckpointKey.of(Track.REPORT, scope)
        checkpoint = await checkpoints_of(deps).get(key)
        pending = pending_segments(
            checkpoint,
            await sources.states(scope, now=now),
            scope=scope,
            window=plan.window,
            budget=plan.budget,
            now=now,
        )
        decision = hb.start_report(run, pending, settings, now=now)
        if decision.state.finished:  # no_change: no model call
            done = await heartbeats.mutate(
                run_id, lambda r: hb.start_report(r, pending, settings, now=now).state
            )
            effects = decision.effects
        else:
            meter = Meter(Attribution(stage=Stage.REPORT, scope=ledger_scope(scope), run_id=run_id))
            try:
                texts = await sources.texts(scope, [s.source_key for s in pending.included])
                with metering(meter):
                    text = await held.within(
                        timeout, report_answer(gateway, pending.included, texts)
                    )
            except ModelRateLimited as exc:
                await settle(deps.driver, deps.database, meter)
                raise Retry(defer=timedelta(seconds=retry_after_seconds(exc))) from None
            except (ModelError, StageTimedOut) as exc:
                message = exc.message if isinstance(exc, ModelError) else str(exc)
                failed_at = deps.clock()
                await settle(deps.driver, deps.database, meter)
                await heartbeats.mutate(
                    run_id, lambda r: hb.fail_report(r, message, now=failed_at).state
                )
                return hb.HeartbeatState.FAILED.value
            done, effects = await _commit_report(deps, run_id, key, pending, text, scope, meter)
        for effect in effects:
            if isinstance(effect, ReleaseSlot):
                await slots.release(holder)  # before the downstream supervision is queued
            elif isinstance(effect, StartSupervision) and deps.pool is not None:
                await deps.pool.enqueue_job(
                    SUPERVISE_AUTOMATIC,
                    heartbeat_run_id=run_id,
                    scope=effect.scope.model_dump(mode="json"),
                    window_s=plan.window.total_seconds(),
                    per_run=plan.budget.per_run,
                    _job_id=f"{SUPERVISE_AUTOMATIC}:{run_id}",
                    _queue_name=deps.settings.queue_name,
                )
    return done.state.value


async def _commit_report(
    deps: Deps,
    run_id: str,
    key: CheckpointKey,
    pending: Any,
    text: str,
    scope: Scope,
    meter: Meter,
) -> tuple[hb.HeartbeatRun, tuple[Any, ...]]:
    """Run, report checkpoint and the report's model calls (cost ledger, stage
    heartbeat_report) in one transaction (the checkpoint compare-and-set)."""
    settings = await app_of(deps).get()
    now = deps.clock()
    calls = meter.entries()
    heartbeats, checkpoints = heartbeats_of(deps), checkpoints_of(deps)

    async def work(tx: AsyncManagedTransaction) -> tuple[hb.HeartbeatRun, tuple[Any, ...]]:
        run = await heartbeats.locked(tx, run_id)
        checkpoint = await checkpoints.get_in(tx, key)
        decision = hb.complete_report(
            run,
            report_id=f"report:{run_id}",
            taken=pending,
            checkpoint=checkpoint,
            settings=settings,
            now=now,
        )
        await heartbeats.put_in(tx, decision.state.run, report=text, calls=calls)
        await checkpoints.put_in(
            tx,
            decision.state.checkpoint,
            expected=checkpoint.revision,
            scope_tag=story_scope(scope),
        )
        return decision.state.run, decision.effects

    return await heartbeats.write(work)


async def _linked_run(deps: Deps, heartbeat_run_id: str) -> SupervisionRun | None:
    """The run this heartbeat's check already started, when the check is delivered again (arq
    runs a dead worker's job once more): failed as `worker_lost` first if the worker that
    executed it is gone, so it can be continued. None for a first delivery."""
    beat = await heartbeats_of(deps).get(heartbeat_run_id)
    if beat.supervision_run_id is None:
        return None
    assert deps.pool is not None
    live = await live_workers(deps.pool, deps.settings.queue_name)
    run, _ = await recover_run(deps, beat.supervision_run_id, live)
    return run


async def automatic(
    deps: Deps,
    principal: Principal,
    *,
    heartbeat_run_id: str,
    scope: dict[str, Any],
    window_s: float | None = None,
    per_run: int | None = None,
    gateway: Gateway,
) -> str:
    """The downstream supervision check of a heartbeat (automatic: waits for the lease)."""
    if not admit(await app_of(deps).get(), Work.FOLLOW_UP_SUPERVISION):
        return "disabled"
    options = RunOptions(
        window=timedelta(seconds=window_s) if window_s else DEFAULT_WINDOW, per_run=per_run
    )
    try:
        linked = await _linked_run(deps, heartbeat_run_id)
        got = await automatic_supervision(
            deps,
            principal,
            Scope.model_validate(scope),
            heartbeat_run_id=heartbeat_run_id,
            options=options,
            linked=linked,
        )
    except StorygraphError as exc:
        log.warning("automatic supervision refused", extra={"fields": {"error": exc.message}})
        return "refused"
    if isinstance(got, lock.Wait):
        raise Retry(defer=timedelta(seconds=wait_seconds(got, deps.clock())))
    if isinstance(got, SupervisionRun):
        log.info(
            "automatic supervision delivered again: its run stays as it stands",
            extra={"fields": {"run_id": got.run_id, "status": got.status.value}},
        )
        return got.status.value
    assert isinstance(got, Opened)
    run_id, owner, token = got.run.run_id, got.owner, got.token
    await heartbeats_of(deps).mutate(heartbeat_run_id, lambda r: hb.link_supervision(r, run_id))
    await claim_execution(deps, run_id)
    try:
        return await Execution(deps, run_id, owner, token, gateway=gateway).run()
    except Retry as deferred:
        # A 429 queued this run again. Hand it to the `supervise` job (same run, owner and
        # token), deferred by Retry-After, so the retry resumes this run instead of coming
        # back here and choosing (and waiting for) a new automatic run.
        await enqueue_execution(
            deps,
            run_id,
            owner,
            token,
            defer=timedelta(milliseconds=deferred.defer_score or 0),
        )
        return "deferred"


EXPIRE_BATCH = 500  # heartbeat runs removed per statement


async def expire_history(deps: Deps, principal: Principal) -> int:
    """The retention cron (心跳报告沿用计划的历史保留和删除规则; docs/rules/reviews.md): every
    plan's finished heartbeat runs and their reports older than the plan's retention are removed,
    those of deleted plans after the default retention. Checkpoints, supervision runs and results
    stay (删除报告或计划不重置来源进度). Every scope: `admin` (the worker's cron). Returns how
    many runs were removed."""
    principal.require("admin")
    now = deps.clock()
    heartbeats = heartbeats_of(deps)
    plans = await plans_of(deps).saved()
    kept = [p.config_id for p in plans]
    rules = [(p.config_id, p.expires_before(now)) for p in plans]
    removed = 0
    for config_id, before in [*rules, (None, now - DEFAULT_RETENTION)]:
        while True:
            gone = await heartbeats.expire(
                config_id=config_id, kept=kept, before=before, limit=EXPIRE_BATCH
            )
            removed += gone
            if gone < EXPIRE_BATCH:
                break
    if removed:
        log.info("heartbeat history expired", extra={"fields": {"removed": removed}})
    return removed
