"""The staged supervision run: collect → leaves → navigation → publish (docs/rules/reviews.md).

`Execution(...).run()` (from `jobs.review.runs.execute`, the `supervise` job) executes one
run from its stored records: each loop reads the run back, asks `runner.next_step`, performs
that one step and commits it in its own transaction (one `deps.clock()` read per step). So:
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

import dataclasses
import functools
import logging
from datetime import timedelta
from typing import Any

from arq import Retry
from neo4j import AsyncManagedTransaction

from engine.errors import Conflict, StorygraphError
from engine.llm.errors import ModelError, ModelOutputInvalid, ModelRateLimited
from engine.llm.ledger import Attribution, Stage, budget_reason, over_budget
from engine.review import lifecycle as lc
from engine.review.checkpoints import SourceState, segment_times
from engine.review.compose import compose_result, earlier_entities, story_scope
from engine.review.known import relevant_earlier
from engine.review.manifest import BatchState, ManifestPage, NavigationNode
from engine.review.navigation import DEFAULT_FANOUT, ROOT, next_node, plan_tree
from engine.review.outputs import (
    InvalidModelOutput,
    Offered,
    check_grounded,
    parse_leaf_output,
    parse_navigation_output,
)
from engine.review.passage import fact_passages
from engine.review.runner import StepKind, next_step, select_input
from engine.review.types import MissedRange, MissReason, StageName
from engine.signal.stored import Signal
from engine.story.inputs import PublishResultInput, parse_input
from engine.story.publish import PublishPlan, adds_nothing
from graph.review.codec import StoredRun
from graph.review.runs import RunChange
from jobs.deps import Deps
from jobs.llm.ledger import Meter, metering
from jobs.review.common import (
    DEFAULT_WINDOW,
    QUEUED,
    checkpoint_key,
    checkpoints_of,
    known_of,
    lease_of,
    lease_ttl,
    review_pool,
    runs_of,
    sources_of,
)
from jobs.review.model import (
    Gateway,
    leaf_answer,
    merge_answer,
    navigation_answer,
    retry_after_seconds,
)
from jobs.review.pool import LeftLine, StageTimedOut
from jobs.signal.effects import enqueue_effects
from jobs.signal.record import record_answered_questions, record_review_signals
from jobs.story import writes

log = logging.getLogger("storygraph.review")

PAGE_SIZE = 200  # manifest entries per collect page
# the leaf output of a batch whose every segment's text was gone: no facts
NOTHING_READ = '{"facts": [], "entities": [], "summary": ""}'


class LeaseLost(Exception):
    """The lease is no longer ours: stop without writing anything more."""


class Execution:
    def __init__(
        self,
        deps: Deps,
        run_id: str,
        owner: str,
        token: int,
        *,
        gateway: Gateway,
        fanout: int = DEFAULT_FANOUT,
    ) -> None:
        self.deps = deps
        self.run_id = run_id
        self.owner = owner
        self.token = token
        self.gateway = gateway
        self.fanout = fanout  # children per navigation node
        self.runs = runs_of(deps)
        self.lease = lease_of(deps)
        self.sources = sources_of(deps)
        self.checkpoints = checkpoints_of(deps)
        self.known, self.known_events = known_of(deps)
        self.pool = review_pool(deps)
        self._states: list[SourceState] | None = None
        self._meter: Meter | None = None  # the model calls of the step in progress
        self.spent = 0  # tokens this execution's calls cost (the per-run budget counts them)

    # --- plumbing -------------------------------------------------------------------

    async def mutate(self, decide: Any) -> RunChange:
        return await self.runs.mutate(self.run_id, decide)

    def metered(self, stored: StoredRun, stage: Stage, batch: str) -> Meter:
        """The meter of this step's model calls (cost ledger); `commit` writes them."""
        who = Attribution(
            stage=stage, scope=story_scope(stored.run.scope), run_id=self.run_id, batch=batch
        )
        self._meter = Meter(who)
        return self._meter

    async def commit(self, decide: Any) -> RunChange:
        """`mutate`, writing in the same transaction the model calls of the step that are
        not written yet (the ledger costs no round trip of its own)."""
        meter = self._meter
        calls = meter.entries() if meter is not None else []
        change = await self.mutate(lambda s: dataclasses.replace(decide(s), calls=calls))
        if meter is not None:
            meter.paid()
        self.spent += sum(c.tokens for c in calls)
        return change

    async def pause_if_over_budget(self) -> bool:
        """Past REVIEW_RUN_TOKEN_BUDGET: pause with the reason (continueReview goes on;
        the batches and nodes committed so far are kept and never asked again)."""
        budget = self.deps.settings.review_run_token_budget
        if not over_budget(self.spent, budget):
            return False
        assert budget is not None
        reason = budget_reason(self.spent, budget, self.deps.settings.locale)
        now = self.deps.clock()
        await self.mutate(lambda s: RunChange(lc.pause(s.run, now=now, reason=reason).state))
        log.info("review paused: token budget", extra={"fields": {"run_id": self.run_id}})
        return True

    async def renew(self) -> None:
        try:
            await self.lease.renew(
                owner=self.owner, token=self.token, now=self.deps.clock(), ttl=lease_ttl(self.deps)
            )
        except Conflict as exc:
            raise LeaseLost(str(exc)) from None

    async def stop_requested(self) -> bool:
        """Asked while waiting for a pool slot: a paused or cancelled run leaves the line
        instead of taking a slot it will not use (docs/rules/reviews.md)."""
        stored = await self.runs.get(self.run_id)
        return next_step(stored.run).kind is StepKind.STOP

    async def states(self, stored: StoredRun) -> list[SourceState]:
        if self._states is None:
            self._states = await self.sources.states(stored.run.scope, now=self.deps.clock())
        return self._states

    # --- steps ----------------------------------------------------------------------

    async def collect_page(self, stored: StoredRun, cursor: str | None) -> None:
        run = stored.run
        incremental = run.mode is lc.ReviewMode.INCREMENTAL
        selection = select_input(
            run,
            await self.states(stored),
            checkpoint=await self.checkpoints.get(checkpoint_key(run.scope))
            if incremental
            else None,
            window=stored.options.window or DEFAULT_WINDOW,
            per_run=stored.options.per_run,
            now=self.deps.clock(),
        )
        included = selection.included
        start = int(cursor or 0)
        end = start + PAGE_SIZE
        page = ManifestPage(
            segments=included[start:end], next_cursor=str(end) if end < len(included) else None
        )
        now = self.deps.clock()
        missed = selection.missed if cursor is None else ()  # recorded with the first page
        await self.mutate(
            lambda s: RunChange(lc.add_manifest_page(s.run, page, now=now, missed=missed))
        )

    async def leaf(self, stored: StoredRun, index: int) -> None:
        batch = stored.run.ledger.batches[index]
        texts = await self.sources.texts(stored.run.scope, [s.source_key for s in batch.segments])
        # text withdrawn since collect is gone: recorded as missed, never read as ""
        gone = [s for s in batch.segments if len(texts.get(s.source_key) or "") < s.end]
        segments = [s for s in batch.segments if s not in gone]
        missed = [MissedRange(**s.model_dump(), reason=MissReason.GONE) for s in gone]
        output_id = f"{self.run_id}:leaf:{index}"
        if not segments:  # nothing left to read: no model request
            now = self.deps.clock()
            await self.mutate(
                lambda s: RunChange(
                    lc.commit_leaf(s.run, index, output_id, now=now, missed=missed),
                    leaf_outputs={index: NOTHING_READ},
                )
            )
            return
        times = segment_times(await self.states(stored), segments)
        said = [texts[s.source_key][s.start : s.end] for s in segments]
        known = await self.known.lookup(story_scope(stored.run.scope), said)
        known_events = await self.known_events.lookup(
            story_scope(stored.run.scope), [s.source_id for s in segments], said
        )
        leaf_raw, _ = await self.runs.outputs(self.run_id)
        earlier = relevant_earlier(
            earlier_entities([(i, parse_leaf_output(r)) for i, r in leaf_raw.items() if i < index]),
            said,
        )
        meter = self.metered(stored, Stage.LEAF, str(index))
        async with self.pool.hold(
            output_id, on_wait=self.renew, leave_if=self.stop_requested
        ) as held:
            await self.renew()
            with metering(meter):
                raw = await held.within(
                    stored.run.stage_timeout,
                    leaf_answer(
                        self.gateway,
                        segments,
                        texts,
                        times=times,
                        known_entities=known,
                        earlier_entities=earlier,
                        known_events=known_events,
                    ),
                )
            # the contract: a facts array, naming only what the request offered, or the
            # stage fails with the raw answer kept
            check_grounded(
                raw,
                Offered(
                    entity_ids=frozenset(k.id for k in known),
                    event_ids=frozenset(k.id for k in known_events),
                    earlier_refs=frozenset(e["ref"] for e in earlier),
                ),
            )
            now = self.deps.clock()
            await self.commit(
                lambda s: RunChange(
                    lc.commit_leaf(s.run, index, output_id, now=now, missed=missed),
                    leaf_outputs={index: raw},
                )
            )

    async def navigate(self, stored: StoredRun) -> None:
        """Build and commit the next missing node of the navigation tree (one model request
        and one commit per node; committed nodes are kept when a run is continued)."""
        run = stored.run
        plan = plan_tree([b.index for b in run.ledger.batches], self.fanout)
        node_plan = next_node(plan, {n.node_id for n in run.ledger.nodes})
        if node_plan is None:
            return
        leaf_raw, node_raw = await self.runs.outputs(self.run_id)
        if node_plan.children:
            children = [(c, parse_navigation_output(node_raw[c][0])) for c in node_plan.children]
            known = await self.known.lookup(
                story_scope(run.scope), [out.summary for _, out in children]
            )
            request = functools.partial(merge_answer, self.gateway, children, known)
        else:
            leaves = [(i, parse_leaf_output(leaf_raw[i])) for i in sorted(node_plan.leaves)]
            known = await self.known.lookup(
                story_scope(run.scope),
                [f.text for _, out in leaves for f in out.facts] + [o.summary for _, o in leaves],
            )
            request = functools.partial(navigation_answer, self.gateway, leaves, known)
        output_id = f"{self.run_id}:navigation:{node_plan.node_id}"
        async with self.pool.hold(
            output_id, on_wait=self.renew, leave_if=self.stop_requested
        ) as held:
            await self.renew()
            with metering(self.metered(stored, Stage.NAVIGATION, node_plan.node_id)):
                raw = await held.within(run.stage_timeout, request())
            parse_navigation_output(raw)
            now = self.deps.clock()
            node = NavigationNode(
                node_id=node_plan.node_id,
                leaves=node_plan.leaves,
                output_id=output_id,
                committed_at=now,
                is_root=node_plan.is_root,
            )
            await self.commit(
                lambda s: RunChange(
                    lc.commit_navigation_node(s.run, node, now=now),
                    node_outputs={node.node_id: raw},
                )
            )

    async def publish(self, stored: StoredRun) -> None:
        run = stored.run
        leaf_raw, node_raw = await self.runs.outputs(self.run_id)
        committed = [b for b in run.ledger.batches if b.state is BatchState.COMMITTED]
        leaves = [(b, parse_leaf_output(leaf_raw[b.index])) for b in committed]
        root = parse_navigation_output(node_raw[ROOT][0])
        segments = [s for b in committed for s in b.segments]
        now = self.deps.clock()
        times = segment_times(await self.states(stored), segments)
        texts = await self.sources.texts(run.scope, [s.source_key for s in segments])
        passages = fact_passages(leaves, texts)
        data = compose_result(
            run_id=self.run_id,
            scope=run.scope,
            leaves=leaves,
            root=root,
            segment_times=times,
            now=now,
            covered=run.covered(),
            missed=run.missed,
            passages=passages,
        )
        inp = parse_input(PublishResultInput, data)
        recorded: list[Signal] = []

        async def within(tx: AsyncManagedTransaction, plan: PublishPlan) -> None:
            current = await self.runs.locked(tx, self.run_id)
            checkpoint = None
            expected = 0
            if current.run.mode is lc.ReviewMode.INCREMENTAL:
                checkpoint = await self.checkpoints.get_in(tx, checkpoint_key(run.scope))
                expected = checkpoint.revision
            answered = await record_answered_questions(
                self.deps, tx, plan, segments, texts, run_id=self.run_id
            )
            # a retried transaction records (and so decides) again: keep only the last
            recorded[:] = await record_review_signals(
                self.deps, tx, plan, leaves, times, run_id=self.run_id, passages=passages
            )
            published = lc.publish(
                current.run,
                result_id=plan.result.id,
                checkpoint=checkpoint,
                now=now,
                repeat=adds_nothing(plan) and not recorded and not answered,
            )
            await self.runs.write_run(tx, published.run, current.options)
            if published.checkpoint is not None:
                await self.checkpoints.put_in(
                    tx, published.checkpoint, expected=expected, scope_tag=story_scope(run.scope)
                )

        await writes.publish_run_result(self.deps, inp, run_id=self.run_id, within=within)
        # the agenda's effects, once the decisions committed (a job per signal, keyed by it)
        await enqueue_effects(self.deps, recorded)

    async def requeue(self) -> None:
        """Deferred by a 429: the run waits for whichever worker picks the job up again, so
        worker-start recovery must not take it for a dead worker's run."""

        def queued(s: StoredRun) -> RunChange:
            return RunChange(s.run.model_copy(update={"worker_id": QUEUED}))

        await self.commit(queued)  # with the calls the 429 cost
        await self.lease.acquire_worker(owner=self.owner, token=self.token, worker_id=QUEUED)

    async def fail(self, error: lc.RunError) -> None:
        try:
            now = self.deps.clock()
            # with the calls the failed step made: they were paid for
            await self.commit(lambda s: RunChange(lc.fail(s.run, error, now=now).state))
        except Conflict:
            pass  # stopped or finished meanwhile: its own record stands

    # --- the loop -------------------------------------------------------------------

    async def step(self, stored: StoredRun) -> bool:
        """Do the next step; False when execution is over."""
        step = next_step(stored.run)
        kind = step.kind
        now = self.deps.clock()  # the decisions this step commits
        if kind is StepKind.DONE:
            return False
        if kind is StepKind.STOP:
            change = await self.mutate(lambda s: RunChange(lc.mark_stopped(s.run, now=now).state))
            log.info(
                "review stopped",
                extra={"fields": {"run_id": self.run_id, "status": change.run.status.value}},
            )
            return False
        if kind is StepKind.COLLECT_PAGE:
            await self.collect_page(stored, step.cursor)
        elif kind is StepKind.FINISH_COLLECT:
            await self.mutate(lambda s: RunChange(lc.finish_collect(s.run, now=now).state))
        elif kind in (StepKind.LEAF, StepKind.NAVIGATE) and await self.pause_if_over_budget():
            return True  # the next step reads the pause and records the stop
        elif kind is StepKind.LEAF:
            assert step.batch_index is not None
            await self.leaf(stored, step.batch_index)
        elif kind is StepKind.FINISH_LEAVES:
            await self.mutate(lambda s: RunChange(lc.finish_leaves(s.run, now=now)))
        elif kind is StepKind.NAVIGATE:
            await self.navigate(stored)
        elif kind is StepKind.FINISH_NAVIGATION:
            await self.mutate(lambda s: RunChange(lc.finish_navigation(s.run, now=now)))
        elif kind is StepKind.PUBLISH:
            await self.publish(stored)
        return True

    async def run(self) -> str:
        try:
            while True:
                stored = await self.runs.get(self.run_id)
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
                    raise Retry(defer=timedelta(seconds=retry_after_seconds(exc))) from None
                except StageTimedOut as exc:
                    await self.fail(self._error(stored, lc.ErrorKind.TIMEOUT, str(exc)))
                except ModelError as exc:
                    await self.fail(self._error(stored, lc.ErrorKind.MODEL, exc.message))
                except Conflict as exc:
                    # the run changed under us (paused, cancelled, failed): re-read and see
                    latest = await self.runs.get(self.run_id)
                    if latest.run.updated_at == stored.run.updated_at:
                        await self.fail(self._error(stored, lc.ErrorKind.SAVE, exc.message))
                except StorygraphError as exc:
                    await self.fail(self._error(stored, lc.ErrorKind.SAVE, exc.message))
        except LeaseLost as exc:
            log.warning(
                "review lease lost", extra={"fields": {"run_id": self.run_id, "error": str(exc)}}
            )
            return "lease_lost"
        final = (await self.runs.get(self.run_id)).run
        if final.stopped:
            await self.lease.release_run(self.run_id)
        return final.display_status.value

    def _error(self, stored: StoredRun, kind: lc.ErrorKind, message: str) -> lc.RunError:
        current = stored.run.stages.current
        stage = current.stage if current else StageName.COLLECT
        if kind is lc.ErrorKind.SAVE and stage is StageName.COLLECT:
            kind = lc.ErrorKind.COLLECT
        return lc.RunError(stage=stage, kind=kind, message=message)
