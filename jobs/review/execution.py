"""The staged supervision run: collect → leaves → navigation → publish (seed 004 整体逻辑架构).

`execute(svc, run_id, owner, token)` (arq job `jobs.tasks.review.supervise`) executes one run
from its stored records: each loop reads the run back, asks `runner.next_step`, performs
that one step and commits it in its own transaction. So:
- a leaf batch's output and offsets are committed together, one transaction per batch;
  a worker killed mid-batch loses only that batch, and a continued run redoes only it;
- pause and cancel are stored by the API at once and seen here between batches; a batch
  in flight when the run was cancelled is refused by the engine, so nothing of it lands;
- every model request (leaf batch, navigation node) waits for a slot of the supervision
  FIFO pool shared by all workers; the stage timeout frozen at creation counts from the
  grant; the slot is released once the node's output is committed;
- the lease is checked and refreshed before every model request (and while waiting in the
  pool); a lost lease stops the job without writing;
- model output is validated against the stage's contract; an invalid answer fails the run
  with the raw output kept; a 429 defers the job with arq `Retry(defer=...)` and marks the
  run queued, so another worker's start-up recovery leaves it for the deferred job;
- the run becomes completed only inside the publish transaction, which also writes the
  result (through the story use case `jobs.story.writes.publish_run_result`, which tells
  graphChanged subscribers) and advances the checkpoint; it reads completed once the next
  step has recorded it stopped in a transaction of its own, begun after the result
  transaction returned, so a client that reads `completed` always finds the result.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from arq import Retry
from neo4j import AsyncManagedTransaction

from engine.errors import Conflict, StorygraphError
from engine.model.errors import ModelError, ModelOutputInvalid, ModelRateLimited
from engine.review import lifecycle as lc
from engine.review.checkpoints import (
    InputBudget,
    Selection,
    SourceState,
    interval_segments,
    pending_segments,
)
from engine.review.compose import compose_result, earlier_entities, story_scope
from engine.review.known import relevant_earlier
from engine.review.manifest import BatchState, ManifestPage, NavigationNode
from engine.review.navigation import ROOT, next_node, plan_tree
from engine.review.outputs import (
    InvalidModelOutput,
    parse_leaf_output,
    parse_navigation_output,
)
from engine.review.runner import StepKind, next_step
from engine.review.types import Segment, StageName
from engine.story.inputs import PublishResultInput, parse_input
from engine.story.publish import PublishPlan
from graph.review.codec import StoredRun
from graph.review.runs import RunChange
from jobs.review.lifecycle import checkpoint_key
from jobs.review.model import leaf_answer, merge_answer, navigation_answer
from jobs.review.pool import LeftLine, StageTimedOut
from jobs.review.services import DEFAULT_WINDOW, QUEUED, ReviewServices
from jobs.story import writes

log = logging.getLogger("storygraph.review")

PAGE_SIZE = 200  # manifest entries per collect page


class LeaseLost(Exception):
    """The lease is no longer ours: stop without writing anything more."""


def segment_times(
    states: Sequence[SourceState], segments: Sequence[Segment]
) -> dict[tuple[str, str, int], datetime]:
    """When the text at each segment's start was written (the span containing it)."""
    spans = {(s.source_id, s.version): s.spans for s in states}
    times: dict[tuple[str, str, int], datetime] = {}
    for seg in segments:
        for span in spans.get(seg.source_key, ()):
            if span.start <= seg.start < span.end:
                times[(seg.source_id, seg.version, seg.start)] = span.at
                break
    return times


class Execution:
    def __init__(self, svc: ReviewServices, run_id: str, owner: str, token: int) -> None:
        self.svc = svc
        self.run_id = run_id
        self.owner = owner
        self.token = token
        self._states: list[SourceState] | None = None

    # --- plumbing -------------------------------------------------------------------

    async def mutate(self, decide: Any) -> RunChange:
        return await self.svc.runs.mutate(self.run_id, decide)

    async def renew(self) -> None:
        try:
            await self.svc.lease.renew(
                owner=self.owner, token=self.token, now=self.svc.now(), ttl=self.svc.lease_ttl
            )
        except Conflict as exc:
            raise LeaseLost(str(exc)) from None

    async def release(self) -> None:
        await self.svc.lease.release(owner=self.owner, token=self.token)

    async def stop_requested(self) -> bool:
        """Asked while waiting for a pool slot: a paused or cancelled run leaves the line
        instead of taking a slot it will not use (seed 004 取消立即持久化)."""
        stored = await self.svc.runs.get(self.run_id)
        return next_step(stored.run).kind is StepKind.STOP

    async def states(self, stored: StoredRun) -> list[SourceState]:
        if self._states is None:
            self._states = await self.svc.sources.states(stored.run.scope)
        return self._states

    # --- steps ----------------------------------------------------------------------

    async def selection(self, stored: StoredRun) -> Selection:
        run, now = stored.run, self.svc.now()
        states = await self.states(stored)
        budget = InputBudget(per_batch=run.per_batch, per_run=stored.options.per_run)
        if run.mode is lc.ReviewMode.INTERVAL:
            assert run.interval_start is not None and run.interval_end is not None
            return interval_segments(
                states,
                scope=run.scope,
                start=run.interval_start,
                end=run.interval_end,
                budget=budget,
            )
        checkpoint = await self.svc.checkpoints.get(checkpoint_key(run.scope))
        return pending_segments(
            checkpoint,
            states,
            scope=run.scope,
            window=stored.options.window or DEFAULT_WINDOW,
            budget=budget,
            now=now,
        )

    async def collect_page(self, stored: StoredRun, cursor: str | None) -> None:
        included = (await self.selection(stored)).included
        start = int(cursor or 0)
        end = start + PAGE_SIZE
        page = ManifestPage(
            segments=included[start:end], next_cursor=str(end) if end < len(included) else None
        )
        await self.mutate(
            lambda s: RunChange(lc.add_manifest_page(s.run, page, now=self.svc.now()))
        )

    async def leaf(self, stored: StoredRun, index: int) -> None:
        batch = stored.run.ledger.batches[index]
        texts = await self.svc.sources.texts(
            stored.run.scope, [s.source_key for s in batch.segments]
        )
        times = segment_times(await self.states(stored), batch.segments)
        said = [texts.get(s.source_key, "")[s.start : s.end] for s in batch.segments]
        known = await self.svc.known.lookup(story_scope(stored.run.scope), said)
        known_events = await self.svc.known_events.lookup(
            story_scope(stored.run.scope), [s.source_id for s in batch.segments], said
        )
        leaf_raw, _ = await self.svc.runs.outputs(self.run_id)
        earlier = relevant_earlier(
            earlier_entities([(i, parse_leaf_output(r)) for i, r in leaf_raw.items() if i < index]),
            said,
        )
        assert self.svc.gateway is not None
        output_id = f"{self.run_id}:leaf:{index}"
        async with self.svc.review_pool.hold(
            output_id, on_wait=self.renew, leave_if=self.stop_requested
        ) as held:
            await self.renew()
            raw = await held.within(
                stored.run.stage_timeout,
                leaf_answer(
                    self.svc.gateway,
                    batch.segments,
                    texts,
                    times=times,
                    known_entities=known,
                    earlier_entities=earlier,
                    known_events=known_events,
                ),
            )
            parse_leaf_output(raw)  # the contract: a facts array, or the stage fails
            await self.mutate(
                lambda s: RunChange(
                    lc.commit_leaf(s.run, index, output_id, now=self.svc.now()),
                    leaf_outputs={index: raw},
                )
            )

    async def navigate(self, stored: StoredRun) -> None:
        """Build and commit the next missing node of the navigation tree (one model request
        and one commit per node; committed nodes are kept when a run is continued)."""
        run = stored.run
        plan = plan_tree([b.index for b in run.ledger.batches], self.svc.nav_fanout)
        node_plan = next_node(plan, {n.node_id for n in run.ledger.nodes})
        if node_plan is None:
            return
        leaf_raw, node_raw = await self.svc.runs.outputs(self.run_id)
        assert self.svc.gateway is not None
        if node_plan.children:
            children = [(c, parse_navigation_output(node_raw[c][0])) for c in node_plan.children]
            known = await self.svc.known.lookup(
                story_scope(run.scope), [out.summary for _, out in children]
            )
            request = functools.partial(merge_answer, self.svc.gateway, children, known)
        else:
            leaves = [(i, parse_leaf_output(leaf_raw[i])) for i in sorted(node_plan.leaves)]
            known = await self.svc.known.lookup(
                story_scope(run.scope),
                [f.text for _, out in leaves for f in out.facts] + [o.summary for _, o in leaves],
            )
            request = functools.partial(navigation_answer, self.svc.gateway, leaves, known)
        output_id = f"{self.run_id}:navigation:{node_plan.node_id}"
        async with self.svc.review_pool.hold(
            output_id, on_wait=self.renew, leave_if=self.stop_requested
        ) as held:
            await self.renew()
            raw = await held.within(run.stage_timeout, request())
            parse_navigation_output(raw)
            node = NavigationNode(
                node_id=node_plan.node_id,
                leaves=node_plan.leaves,
                output_id=output_id,
                committed_at=self.svc.now(),
                is_root=node_plan.is_root,
            )
            await self.mutate(
                lambda s: RunChange(
                    lc.commit_navigation_node(s.run, node, now=self.svc.now()),
                    node_outputs={node.node_id: raw},
                )
            )

    async def publish(self, stored: StoredRun) -> None:
        run = stored.run
        leaf_raw, node_raw = await self.svc.runs.outputs(self.run_id)
        committed = [b for b in run.ledger.batches if b.state is BatchState.COMMITTED]
        leaves = [(b, parse_leaf_output(leaf_raw[b.index])) for b in committed]
        root = parse_navigation_output(node_raw[ROOT][0])
        segments = [s for b in committed for s in b.segments]
        data = compose_result(
            run_id=self.run_id,
            scope=run.scope,
            leaves=leaves,
            root=root,
            segment_times=segment_times(await self.states(stored), segments),
            now=self.svc.now(),
        )
        inp = parse_input(PublishResultInput, data)
        now = self.svc.now()

        async def within(tx: AsyncManagedTransaction, plan: PublishPlan) -> None:
            current = await self.svc.runs.locked(tx, self.run_id)
            checkpoint = None
            expected = 0
            if current.run.mode is lc.ReviewMode.INCREMENTAL:
                checkpoint = await self.svc.checkpoints.get_in(tx, checkpoint_key(run.scope))
                expected = checkpoint.revision
            published = lc.publish(
                current.run, result_id=plan.result.id, checkpoint=checkpoint, now=now
            )
            await self.svc.runs.write_run(tx, published.run, current.options)
            if published.checkpoint is not None:
                await self.svc.checkpoints.put_in(
                    tx, published.checkpoint, expected=expected, scope_tag=story_scope(run.scope)
                )

        await writes.publish_run_result(self.svc.deps, inp, run_id=self.run_id, within=within)

    async def requeue(self) -> None:
        """Deferred by a 429: the run waits for whichever worker picks the job up again, so
        worker-start recovery must not take it for a dead worker's run."""

        def queued(s: StoredRun) -> RunChange:
            return RunChange(s.run.model_copy(update={"worker_id": QUEUED}))

        await self.mutate(queued)
        await self.svc.lease.acquire_worker(owner=self.owner, token=self.token, worker_id=QUEUED)

    async def fail(self, error: lc.RunError) -> None:
        try:
            await self.mutate(lambda s: RunChange(lc.fail(s.run, error, now=self.svc.now()).state))
        except Conflict:
            pass  # stopped or finished meanwhile: its own record stands

    # --- the loop -------------------------------------------------------------------

    async def step(self, stored: StoredRun) -> bool:
        """Do the next step; False when execution is over."""
        step = next_step(stored.run)
        kind = step.kind
        if kind is StepKind.DONE:
            return False
        if kind is StepKind.STOP:
            change = await self.mutate(
                lambda s: RunChange(lc.mark_stopped(s.run, now=self.svc.now()).state)
            )
            log.info(
                "review stopped",
                extra={"fields": {"run_id": self.run_id, "status": change.run.status.value}},
            )
            return False
        if kind is StepKind.COLLECT_PAGE:
            await self.collect_page(stored, step.cursor)
        elif kind is StepKind.FINISH_COLLECT:
            await self.mutate(
                lambda s: RunChange(lc.finish_collect(s.run, now=self.svc.now()).state)
            )
        elif kind is StepKind.LEAF:
            assert step.batch_index is not None
            await self.leaf(stored, step.batch_index)
        elif kind is StepKind.FINISH_LEAVES:
            await self.mutate(lambda s: RunChange(lc.finish_leaves(s.run, now=self.svc.now())))
        elif kind is StepKind.NAVIGATE:
            await self.navigate(stored)
        elif kind is StepKind.FINISH_NAVIGATION:
            await self.mutate(lambda s: RunChange(lc.finish_navigation(s.run, now=self.svc.now())))
        elif kind is StepKind.PUBLISH:
            await self.publish(stored)
        return True

    async def run(self) -> str:
        try:
            while True:
                stored = await self.svc.runs.get(self.run_id)
                stage = stored.run.stages.current
                try:
                    if not await self.step(stored):
                        break
                except (InvalidModelOutput, ModelOutputInvalid) as exc:
                    raw = getattr(exc, "raw_output", None) or getattr(exc, "raw_text", "")
                    at = (
                        exc.stage
                        if isinstance(exc, InvalidModelOutput)
                        else (stage.stage if stage else StageName.LEAVES)
                    )
                    await self.fail(
                        lc.RunError(
                            stage=at,
                            kind=lc.ErrorKind.VALIDATION,
                            message=exc.message,
                            raw_output=raw,
                        )
                    )
                except LeftLine:
                    continue  # the next step reads the stop and records it
                except ModelRateLimited as exc:
                    await self.requeue()
                    raise Retry(defer=timedelta(seconds=exc_retry_after(exc))) from None
                except StageTimedOut as exc:
                    await self.fail(self._error(stored, lc.ErrorKind.TIMEOUT, str(exc)))
                except ModelError as exc:
                    await self.fail(self._error(stored, lc.ErrorKind.MODEL, exc.message))
                except Conflict as exc:
                    # the run changed under us (paused, cancelled, failed): re-read and see
                    latest = await self.svc.runs.get(self.run_id)
                    if latest.run.updated_at == stored.run.updated_at:
                        await self.fail(self._error(stored, lc.ErrorKind.SAVE, exc.message))
                except StorygraphError as exc:
                    await self.fail(self._error(stored, lc.ErrorKind.SAVE, exc.message))
        except LeaseLost as exc:
            log.warning(
                "review lease lost", extra={"fields": {"run_id": self.run_id, "error": str(exc)}}
            )
            return "lease_lost"
        final = (await self.svc.runs.get(self.run_id)).run
        if final.stopped:
            await self.svc.lease.release_run(self.run_id)
        return final.display_status.value

    def _error(self, stored: StoredRun, kind: lc.ErrorKind, message: str) -> lc.RunError:
        current = stored.run.stages.current
        stage = current.stage if current else StageName.COLLECT
        if kind is lc.ErrorKind.SAVE and stage is StageName.COLLECT:
            kind = lc.ErrorKind.COLLECT
        return lc.RunError(stage=stage, kind=kind, message=message)


def exc_retry_after(exc: ModelRateLimited) -> float:
    retry_after = getattr(exc, "retry_after", None)
    return float(retry_after) if retry_after else 5.0


async def claim_execution(svc: ReviewServices, run_id: str) -> None:
    """The worker that picks a queued run up writes its id on it (for worker-start recovery)."""

    def claim(s: StoredRun) -> RunChange:
        return RunChange(s.run.model_copy(update={"worker_id": svc.worker_id}))

    await svc.runs.mutate(run_id, claim)


async def execute(svc: ReviewServices, run_id: str, owner: str, token: int) -> str:
    """Execute a supervision run from its stored records (idempotent: a repeat of a finished
    run does nothing).

    An execution whose lease is no longer current stops before it writes anything: a job
    redelivered after its worker was killed, while the run was recovered and continued under
    a new lease. Had it written its worker id on the run, the run would be held by a live
    worker that never executes it: `running` for good, out of the reconciler's reach."""
    if not await svc.lease.acquire_worker(owner=owner, token=token, worker_id=svc.worker_id):
        log.warning("review lease lost", extra={"fields": {"run_id": run_id, "owner": owner}})
        return "lease_lost"
    await claim_execution(svc, run_id)
    return await Execution(svc, run_id, owner, token).run()
