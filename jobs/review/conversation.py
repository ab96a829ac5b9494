"""The review of a concern's conversation: what people say in a concern enters the story
graph the way every message does (docs/rules/loop-standing.md).

When the concern's turn has read a reply that states something the graph may record (a kept
promise, a moved time, a chosen value: `engine.signal.outcome.needs_review`), the turn asks
for this review, executed in place like the heartbeat's automatic check:
- collect: the conversation is written as a source version of the scope (`concern-<id>`,
  version `m<messages>`, one line per message with its speaker); the run's manifest is its
  new lines (the counterpart's lines since the question they answer);
- leaves: one batch, whose output is the reading of those lines with the signal they may
  settle in the request (the configured model's, or the offline rules', made by the turn
  with the question and the promise or difference in its prompt, `engine/llm/reading.py`);
  it names no entity: the loop's own wording ("跟进→李四") is no person;
- navigation: the root states the leaf's summary (no second model request);
- publish: the run's result transaction writes the proposals (the fulfilment event, the
  moved due time, or the quoted evidence on the pending difference) `by` the run, under its
  result, citing the reply's line (`graph.signal.answers.SignalAnswers.settle_in`), and
  marks the run completed.
Like every review it holds the one-review lease while it runs (docs/rules/reviews.md: one
review at a time in a deployment), taken as automatic work: while another review holds it,
`ReviewWaits` says until when at the latest, and the caller hands the answer to a job that
waits for the lease (`jobs/tasks/concern_loop.py` `settle_concern_answer`), so the answer is
written once the lease is free, never lost and never written twice. The lease's times are
the wall clock's (a holder's expiry is real time), whatever moment the turn records at.
The run id derives from the concern and the conversation's version, so a repeated turn finds
its run and goes on from its stored records (`engine.review.runner.next_step`), or does
nothing once it completed (without taking the lease). The concern's source never enters an
ordinary review of the scope (`graph.review.sources`): the loop's conversation is not news.
"""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime, timedelta

from neo4j import AsyncManagedTransaction

from engine.clock import utcnow
from engine.concern.model import Concern, Direction
from engine.errors import Conflict, NotFound
from engine.principal import Principal
from engine.review import lifecycle as lc
from engine.review import lock
from engine.review.compose import result_key
from engine.review.manifest import ManifestPage, NavigationNode
from engine.review.navigation import DEFAULT_FANOUT, next_node, plan_tree
from engine.review.runner import StepKind, next_step
from engine.review.types import Scope, Segment, Trigger
from engine.scope import GLOBAL
from engine.signal.outcome import OutcomePlan, Review
from engine.signal.stored import Signal
from engine.story.inputs import PublishResultInput, parse_input
from engine.story.models import SourceVersion
from engine.story.publish import PublishPlan
from graph.review.codec import RunOptions, StoredRun
from graph.review.runs import RunChange
from graph.signal.answers import SignalAnswers
from jobs.deps import Deps
from jobs.review.common import (
    DEFAULT_PER_BATCH,
    lease_of,
    lease_ttl,
    owner_for,
    runs_of,
    stage_timeout,
)
from jobs.review.runs import wait_seconds
from jobs.signal.effects import enqueue_effects
from jobs.story import writes


class ReviewWaits(Exception):
    """Another review holds the one-review lease: the conversation's review has not started
    (nothing of it is written) and waits, at the latest until `wait.retry_at`."""

    def __init__(self, wait: lock.Wait) -> None:
        super().__init__(f"the review lease is held by {wait.holder_run_id}")
        self.wait = wait
        # how long to wait before asking again, as every automatic review waits
        self.defer = timedelta(seconds=wait_seconds(wait, utcnow()))


def conversation_run_id(concern_id: str, version: str) -> str:
    """The review of one version of a concern's conversation (stable across retries)."""
    return f"sup-{concern_id}-{version}"


def review_scope(scope: str) -> Scope:
    return Scope.global_() if scope == GLOBAL else Scope.projects(scope)


def line_spans(text: str) -> list[tuple[int, int]]:
    """[start, end) of each line of a source version's text."""
    spans, start = [], 0
    for line in text.split("\n"):
        spans.append((start, start + len(line)))
        start += len(line) + 1
    return spans


def new_lines(concern: Concern, line: int) -> tuple[int, int]:
    """The 1-based lines the review reads: the counterpart's lines from the first after the
    question the reply at `line` answers, to the end of the conversation."""
    first = line
    log = concern.conversation_log
    while first > 1 and log[first - 2].direction is Direction.INBOUND:
        first -= 1
    return first, len(log)


class ConversationReview:
    def __init__(
        self, deps: Deps, concern: Concern, scope: str, *, tz: str, locale: str, now: datetime
    ) -> None:
        # the run's records, its result and its proposals at the turn's one moment
        self.deps = dataclasses.replace(deps, clock=lambda: now)
        self.concern = concern
        self.scope = scope
        self.tz = tz
        self.locale = locale
        self.now = now
        self.runs = runs_of(deps)
        self.answers = SignalAnswers(deps.driver, deps.database, locale=locale)
        self.recorded: list[Signal] = []
        self.plan: OutcomePlan | None = None

    async def run(self) -> tuple[OutcomePlan | None, list[Signal]]:
        version = await self.answers.write_conversation(
            self.concern, self.scope, at=self.now, tz=self.tz, locale=self.locale
        )
        run_id = conversation_run_id(self.concern.concern_id, version.version)
        try:
            stored: StoredRun | None = await self.runs.get(run_id)
        except NotFound:
            stored = None
        if stored is not None and next_step(stored.run).kind is StepKind.DONE:
            return None, []  # reviewed before: nothing more to write, no lease to take
        lease = lease_of(self.deps)
        owner = owner_for(self.deps, run_id)
        got = await lease.acquire(
            owner=owner,
            run_id=run_id,
            worker_id=self.deps.worker_id,
            trigger=Trigger.AUTOMATIC,
            now=utcnow(),
            ttl=lease_ttl(self.deps),
        )
        if isinstance(got, lock.Wait):
            raise ReviewWaits(got)
        try:
            return await self._steps(run_id, version, stored)
        finally:
            await lease.release(owner=owner, token=got.lease.token)

    async def _steps(
        self, run_id: str, version: SourceVersion, stored: StoredRun | None
    ) -> tuple[OutcomePlan | None, list[Signal]]:
        """The run's steps from its stored records, under the lease."""
        if stored is None:
            try:
                stored = await self.runs.get(run_id)
            except NotFound:
                stored = await self._create(run_id)
        while True:
            kind = next_step(stored.run).kind
            if kind is StepKind.DONE:
                return self.plan, self.recorded
            if kind is StepKind.PUBLISH:
                await self._publish(stored)
            else:
                await self.runs.mutate(run_id, lambda s: self._advance(s, version))
            stored = await self.runs.get(run_id)

    async def _create(self, run_id: str) -> StoredRun:
        reading = self.concern.reading
        assert reading is not None and reading.line is not None
        start = self.concern.conversation_log[new_lines(self.concern, reading.line)[0] - 1].ts
        run = lc.create_run(
            run_id=run_id,
            scope=review_scope(self.scope),
            trigger=Trigger.AUTOMATIC,
            mode=lc.ReviewMode.INTERVAL,
            worker_id=self.deps.worker_id,
            per_batch=DEFAULT_PER_BATCH,
            stage_timeout=stage_timeout(self.deps),
            now=self.now,
            interval=(min(start, self.now), self.now),
        )
        await self.runs.create(run, RunOptions())
        return StoredRun(run=run, options=RunOptions())

    def _segment(self, version: SourceVersion, line: int) -> Segment:
        spans = line_spans(version.text or "")
        first, last = new_lines(self.concern, line)
        return Segment(
            source_id=version.source_id,
            version=version.version,
            start=spans[first - 1][0],
            end=max(spans[last - 1][1], spans[first - 1][0] + 1),
        )

    def _leaf(self, version: SourceVersion) -> str:
        """The leaf's output: the reading of the reply, cited to its line, with the signal
        it may settle; no entity (the loop's wording names no one)."""
        reading = self.concern.reading
        assert reading is not None and reading.line is not None
        entry = self.concern.conversation_log[reading.line - 1]
        a, b = line_spans(version.text or "")[reading.line - 1]
        ref = Segment(source_id=version.source_id, version=version.version, start=a, end=b)
        fact = {
            "text": f"{entry.person_name}：{entry.text}",
            "refs": [ref.model_dump(mode="json")],
            "at": entry.ts.isoformat(),
            "kind": "answer",
            "signal": self.concern.source.signal_id,
            "reading": reading.model_dump(mode="json"),
        }
        summary = f"{entry.person_name}：{entry.text}（{reading.outcome.value}）"
        return json.dumps({"facts": [fact], "entities": [], "summary": summary}, ensure_ascii=False)

    def _advance(self, stored: StoredRun, version: SourceVersion) -> RunChange:
        """The run's next step other than publish, decided from its stored records inside
        the transaction that writes it (a second worker on the same run finds it done)."""
        run, now = stored.run, self.now
        reading = self.concern.reading
        assert reading is not None and reading.line is not None
        kind = next_step(run).kind
        if kind is StepKind.COLLECT_PAGE:
            page = ManifestPage(segments=(self._segment(version, reading.line),))
            return RunChange(lc.add_manifest_page(run, page, now=now))
        if kind is StepKind.FINISH_COLLECT:
            return RunChange(lc.finish_collect(run, now=now).state)
        if kind is StepKind.LEAF:
            output = f"{run.run_id}:leaf:0"
            committed = lc.commit_leaf(run, 0, output, now=now)
            return RunChange(committed, leaf_outputs={0: self._leaf(version)})
        if kind is StepKind.FINISH_LEAVES:
            return RunChange(lc.finish_leaves(run, now=now))
        if kind is StepKind.NAVIGATE:
            return self._navigate(run, version)
        if kind is StepKind.FINISH_NAVIGATION:
            return RunChange(lc.finish_navigation(run, now=now))
        if kind is StepKind.STOP:
            return RunChange(lc.mark_stopped(run, now=now).state)
        return RunChange(run)  # publish or done: nothing to change here

    def _navigate(self, run: lc.SupervisionRun, version: SourceVersion) -> RunChange:
        """The navigation root over the one leaf: its summary (no model request)."""
        plan = plan_tree([b.index for b in run.ledger.batches], DEFAULT_FANOUT)
        node_plan = next_node(plan, {n.node_id for n in run.ledger.nodes})
        if node_plan is None:
            return RunChange(run)
        summary = json.loads(self._leaf(version))["summary"]
        raw = json.dumps(
            {"summary": summary, "children": [str(i) for i in sorted(node_plan.leaves)]},
            ensure_ascii=False,
        )
        node = NavigationNode(
            node_id=node_plan.node_id,
            leaves=node_plan.leaves,
            output_id=f"{run.run_id}:navigation:{node_plan.node_id}",
            committed_at=self.now,
            is_root=node_plan.is_root,
        )
        return RunChange(
            lc.commit_navigation_node(run, node, now=self.now), node_outputs={node.node_id: raw}
        )

    async def _publish(self, stored: StoredRun) -> None:
        run = stored.run
        leaf_raw, _ = await self.runs.outputs(run.run_id)
        covered = [
            s.model_dump(include={"source_id", "version", "start", "end"}) for s in run.covered()
        ]
        inp = parse_input(
            PublishResultInput,
            {
                "scope": self.scope,
                "key": result_key(run.run_id),
                "feedback": json.loads(leaf_raw[0])["summary"],
                "coverage": {"covered": covered, "missed": []},
            },
        )

        async def within(tx: AsyncManagedTransaction, plan: PublishPlan) -> None:
            current = await self.runs.locked(tx, run.run_id)
            if next_step(current.run).kind is not StepKind.PUBLISH:
                # another worker published it first: this transaction writes nothing
                raise Conflict("the review was published meanwhile", run_id=run.run_id)
            review = Review(run_id=run.run_id, result_id=plan.result.id)
            # a retried transaction decides again: keep only the last
            self.plan, self.recorded = await self.answers.settle_in(
                tx, self.concern, self.scope, now=self.now, locale=self.locale, review=review
            )
            published = lc.publish(
                current.run,
                result_id=plan.result.id,
                checkpoint=None,
                now=self.now,
                repeat=self.plan is None,
            )
            await self.runs.write_run(tx, published.run, current.options)

        await writes.publish_run_result(self.deps, inp, run_id=run.run_id, within=within)
        # a moved commitment's signal decisions: their effects once committed
        await enqueue_effects(self.deps, self.recorded)


async def review_concern_conversation(
    deps: Deps,
    principal: Principal,
    concern: Concern,
    scope: str,
    *,
    tz: str,
    locale: str,
    now: datetime,
) -> tuple[OutcomePlan | None, list[Signal]]:
    """Review the concern's conversation and write what it proposes for the concern's
    signal; (None, []) when its review of this version is already published. `ReviewWaits`
    while another review holds the lease (nothing written)."""
    principal.visible(
        "agenda",
        scope,
        NotFound(f"no concern {concern.concern_id}", concern_id=concern.concern_id),
    )
    review = ConversationReview(deps, concern, scope, tz=tz, locale=locale, now=now)
    return await review.run()
