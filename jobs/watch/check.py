"""The heartbeat checker as an arq job (docs/rules/watches.md).

    run_check(deps, principal, scope=..., watch_id=..., run_id=..., gateway=...)

(the arq job `run_watch_check` in jobs/tasks/watch.py calls it as WORKER with the worker's
gateway, and turns a rate-limited model into arq's Retry after the run is marked deferred)

loads the watch, claims the run by its stable id (a duplicate trigger does nothing), starts a
fresh `CheckRun` (earlier steps become reference material), and drives the model through the
gateway one request per round:

- while the budget is open, the request offers the checker tools; the round is accounted as
  preparation or verification (`engine.watch.budget`), and tool results go back redacted;
- an answer without tools is judged (`run.conclude`): a check that needs correction gets a
  correction prompt (a verification round); success or blocked ends the check;
- when the budget allows no more tool rounds, one closing request without tools asks for the
  final observation (`workflowChecks` included) and the check is judged for the last time.

Then the observation, the step list and the redacted tool summaries are persisted together,
the hand-off is MERGEd on its stable execution key (a duplicate is dropped), a new hand-off
gets its delivery job and a `watch_handoff` hint (jobs/watch/delivery.py), and saved
checkpoints get their own sync jobs. Every model request of the check is a cost-ledger entry
(stage watch_check, charged to the watch and its run) written with the observation, or on
its own when the model was rate limited. The retries the gateway took are recorded on the run
and the observation (docs/rules/watches.md). Tools run outside the model request's
retry boundary, so a retried request never replays a tool.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any, Protocol

import httpx

from engine.errors import NotFound
from engine.llm.accounting import Accounting
from engine.llm.errors import ModelError, ModelRateLimited
from engine.llm.ledger import Attribution, Stage
from engine.llm.messages import ChatMessage, ChatRequest, ChatResult
from engine.offline.watch_checker import OfflineWatchChecker
from engine.principal import Principal
from engine.scope import require_scope
from engine.settings import Settings
from engine.watch.budget import (
    BudgetPhase,
    ClosingRound,
    CorrectionRound,
    ToolCall,
    ToolRound,
)
from engine.watch.delivery import DeliveryStatus
from engine.watch.handoff import (
    HandOffDropped,
    HandOffLedger,
    InjectIntoPartnerSession,
    complete_observation,
)
from engine.watch.model import Observation, OutcomeStatus, observation_id
from engine.watch.outcome import correction_prompt
from engine.watch.redaction import ToolSummary, build_resume_summary, redact_tool_result
from engine.watch.run import CheckRun, conclude, finish_round, start_run
from graph.watch.catalogue import SourceCatalogue
from graph.watch.records import WatchRecords
from graph.watch.repository import WatchRepository
from jobs.deps import Deps
from jobs.llm.gateway import HttpModelGateway, build_gateway
from jobs.llm.ledger import Meter, metering, record_offline, settle
from jobs.watch import prompts as watch_prompts
from jobs.watch.delivery import announce, never_sent
from jobs.watch.effects import enqueue_sync
from jobs.watch.tools import TOOL_SPECS, CheckSession, call_tool

log = logging.getLogger("storygraph.jobs.watch")

FINISHED_RUN_STATES = frozenset({"completed", "failed"})


class ChatGateway(Protocol):
    """What the loop needs of a model: one request in, one answer out (the retry boundary).

    `HttpModelGateway` (MODEL_BASE_URL set) and `OfflineWatchChecker` (unset) both fit.
    """

    async def chat(self, request: ChatRequest) -> ChatResult: ...


class Conversation:
    """The rounds of one check: model requests, tool execution, budget accounting."""

    def __init__(
        self, session: CheckSession, gateway: ChatGateway, clock: Callable[[], datetime]
    ) -> None:
        self.session = session
        self.gateway = gateway
        self.clock = clock
        self.retries = 0
        self.model_calls = 0
        self.summaries: list[ToolSummary] = []
        self.summary_text = ""
        self.changed = False

    @property
    def run(self) -> CheckRun:
        return self.session.run

    async def _ask(self, messages: list[ChatMessage], with_tools: bool) -> Any:
        request = ChatRequest(messages=list(messages), tools=list(TOOL_SPECS) if with_tools else [])
        try:
            result = await self.gateway.chat(request)
            if not isinstance(self.gateway, HttpModelGateway):  # no HTTP client to meter it
                record_offline(request.model_dump_json(), result.model_dump_json())
        except ModelError as exc:
            if exc.stats is not None:
                self.retries += exc.stats.retries
                self.model_calls += 1
            raise
        self.retries += result.stats.retries
        self.model_calls += 1
        return result

    async def _tools(self, messages: list[ChatMessage], result: Any) -> None:
        tools = self.session.tools()
        calls: list[ToolCall] = []
        for call in result.tool_calls:
            raw, counted = await call_tool(tools, call.name, call.arguments)
            redacted = redact_tool_result(raw)
            key = _source_key(raw)
            self.summaries.append(ToolSummary(tool=call.name, source_key=key, text=redacted))
            messages.append(ChatMessage.tool_result(call, redacted))
            calls.append(counted)
        self.session.run = finish_round(self.run, ToolRound(calls=tuple(calls)))

    def _judge(self, text: str, now: datetime) -> None:
        answer = watch_prompts.parse_answer(text)
        self.summary_text, self.changed = answer.summary, answer.changed
        self.session.run = conclude(self.run, self.session.watch, now, answer.workflow_checks)

    async def drive(self, messages: list[ChatMessage]) -> None:
        """Run rounds until the check is judged success or blocked, or the closing round."""
        while self.run.budget.phase is not BudgetPhase.FINISHED:
            closing = self.run.budget.phase is BudgetPhase.CLOSING_ONLY
            if closing:
                messages.append(ChatMessage.user(watch_prompts.CLOSING))
            result = await self._ask(messages, with_tools=not closing)
            messages.append(result.assistant_message())
            if result.tool_calls and not closing:
                await self._tools(messages, result)
                continue
            if closing:
                self.session.run = finish_round(self.run, ClosingRound())
                self._judge(result.text, self.clock())
                return
            self._judge(result.text, self.clock())
            outcome = self.run.outcome
            assert outcome is not None
            if outcome.status is OutcomeStatus.NEEDS_CORRECTION:
                self.session.run = finish_round(self.run, CorrectionRound())
                messages.append(ChatMessage.user(correction_prompt(outcome)))
                continue
            self.session.run = finish_round(self.run, ClosingRound())
            return


def check_gateway(settings: Settings, shared: Any, http: httpx.AsyncClient) -> ChatGateway:
    """The worker's gateway (`shared`, built once per process in on_startup), else one for
    this job on `http`.

    Without a model endpoint the deterministic offline checker answers instead, through the
    same loop, budgets and tools (engine/offline/watch_checker.py).
    """
    gateway = shared
    if gateway is None:
        gateway = build_gateway(
            settings, http=http, accounting=Accounting(settings.model_concurrency)
        )
    if isinstance(gateway, HttpModelGateway):
        return gateway
    return OfflineWatchChecker(getattr(gateway, "accounting", None))


async def run_check(
    deps: Deps,
    principal: Principal,
    *,
    scope: str,
    watch_id: str,
    run_id: str,
    gateway: ChatGateway,
) -> dict[str, Any]:
    """One check of one watch under a stable run id; returns the run's report. A rate-limited
    model marks the run `deferred` and raises `ModelRateLimited` for the caller to defer."""
    scope = require_scope(principal, "operator", scope)
    clock = deps.clock
    repo = WatchRepository(deps.driver, deps.database)
    records = WatchRecords(deps.driver, deps.database)
    now = clock()
    worker_id = deps.worker_id
    claim = await records.claim_run(
        scope, watch_id, run_id, worker_id=worker_id, now=now, deployment=deps.settings.queue_name
    )
    if not claim.claimed and claim.run.get("status") in FINISHED_RUN_STATES:
        log.info("duplicate watch check dropped", extra={"fields": {"run_id": run_id}})
        return {"runId": run_id, "status": claim.run["status"], "duplicate": True}
    state = await repo.get(scope, watch_id)
    agent_id = f"watch-checker:{run_id}"
    await records.update_run(
        scope,
        run_id,
        {
            "agent_id": agent_id,
            "session_id": state.watch.session_id,
            "claimed_by": worker_id,
            "background_jobs": False,  # the checker registers no job and runs no command
        },
    )
    run = start_run(state.watch, run_id, now, previous_steps=state.steps)
    session = CheckSession(
        scope=scope,
        watch=state.watch,
        mounted=state.mounted_libraries,
        run=run,
        repo=repo,
        records=records,
        catalogue=SourceCatalogue(deps.driver, deps.database),
        clock=clock,
    )
    delivered = {h.execution_key for h in await records.handoffs(scope, watch_id)}
    ledger = HandOffLedger(watch_id=watch_id, delivered=frozenset(delivered))
    messages = [
        ChatMessage.system(watch_prompts.SYSTEM),
        ChatMessage.user(
            watch_prompts.opening(
                state.watch,
                run.references,
                ledger,
                state.resume_summary,
                state.resume_truncated,
                state.resume_reread,
            )
        ),
    ]
    error: str | None = None
    conversation = Conversation(session, gateway, clock)
    meter = Meter(
        Attribution(stage=Stage.WATCH_CHECK, scope=scope, watch_id=watch_id, run_id=run_id)
    )
    try:
        with metering(meter):
            await conversation.drive(messages)
    except ModelRateLimited:
        await settle(deps.driver, deps.database, meter)
        await records.update_run(
            scope, run_id, {"status": "deferred", "retries": conversation.retries}
        )
        raise
    except ModelError as exc:
        error = f"model request failed: {exc.message}"
        last = exc.details.get("last_error")
        if last:
            error += f" (last error: {last})"
    return await _finish(deps, session, conversation, ledger, error, meter)


async def fail_lost_check(
    deps: Deps, principal: Principal, *, scope: str, watch_id: str, run_id: str
) -> None:
    """A check whose job was lost and queued again once already, then lost again: the run is
    `failed` and its observation says so (failure_kind worker_lost), so the watch shows the
    failure instead of a check that never ends. The next round or runWatchNow checks again."""
    scope = require_scope(principal, "operator", scope)
    records = WatchRecords(deps.driver, deps.database)
    now = deps.clock()
    message = "the check's worker stopped and its job was lost twice; check again"
    observation = Observation(
        observation_id=observation_id(watch_id, run_id),
        watch_id=watch_id,
        run_id=run_id,
        observed_at=now,
        summary=message,
        changed=False,
    )
    extra = {"error": message, "failure_kind": "worker_lost", "retries": 0, "model_calls": 0}
    try:
        await records.save_observation(scope, observation, extra, steps=None, watch_fields={})
    except NotFound:
        pass  # the watch was deleted meanwhile: only the run is closed
    await records.update_run(scope, run_id, {"status": "failed", "finished_at": now})


async def _finish(
    deps: Deps,
    session: CheckSession,
    conversation: Conversation | None,
    ledger: HandOffLedger,
    error: str | None,
    meter: Meter | None = None,
) -> dict[str, Any]:
    """Persist the observation, step list, summaries, the check's model calls (cost ledger)
    and hand-off; enqueue checkpoint syncs."""
    scope, run, watch, records = session.scope, session.run, session.watch, session.records
    now = deps.clock()
    observation = Observation(
        observation_id=observation_id(watch.watch_id, run.run_id),
        watch_id=watch.watch_id,
        run_id=run.run_id,
        observed_at=now,
        summary=(conversation.summary_text if conversation else "") or (error or ""),
        changed=conversation.changed if conversation else False,
    )
    handoff_status = "none"
    announced: str | None = None
    unsent: str | None = None
    if run.outcome is not None and error is None:
        observation, ledger, effects = complete_observation(
            watch,
            observation,
            steps=run.steps,
            outcome=run.outcome,
            revisions=run.reading.revisions(),
            ledger=ledger,
            now=now,
        )
        for effect in effects:
            if isinstance(effect, InjectIntoPartnerSession):
                written = await records.hand_off(scope, effect.handoff)
                handoff_status = "delivered" if written.delivered else "dropped"
                if written.delivered:
                    announced = written.handoff.execution_key
                elif written.delivery.status is DeliveryStatus.PENDING:
                    unsent = written.handoff.execution_key
            elif isinstance(effect, HandOffDropped):
                handoff_status = "dropped"
                if await never_sent(deps, scope, effect.execution_key):
                    unsent = effect.execution_key
    summaries = conversation.summaries if conversation else []
    resume = build_resume_summary(summaries)
    budget = run.budget
    extra = {
        "retries": conversation.retries if conversation else 0,
        "model_calls": conversation.model_calls if conversation else 0,
        "verification_rounds": budget.verification_used,
        "preparation_rounds": budget.preparation_used,
        "correction_rounds": budget.correction_rounds,
        "closing_rounds": budget.closing_used,
        "tool_summaries": [s.render() for s in summaries],
        "error": error,
        "failure_kind": "model" if error else None,
        "handoff_status": handoff_status,
        "checker_model": getattr(conversation.gateway, "model", None) if conversation else None,
        "checkpoint_ids": list(session.checkpoints),
    }
    await records.save_observation(
        scope,
        observation,
        extra,
        calls=meter.entries() if meter is not None else [],
        steps=run.steps,
        watch_fields={
            "resume_summary": resume.text,
            "resume_truncated": resume.truncated,
            "resume_reread": list(resume.reread),
            "last_checked_at": now,
        },
    )
    status = "failed" if error else "completed"
    await records.update_run(
        scope,
        run.run_id,
        {
            "status": status,
            "finished_at": now,
            "retries": extra["retries"],
            "outcome_status": run.outcome.status.value if run.outcome else None,
        },
    )
    if announced is not None:  # after the observation: a listener reads a finished check
        await announce(deps, scope, announced)
    elif unsent is not None:  # a repeat of a hand-off whose delivery job was lost
        await announce(deps, scope, unsent, hint=False)
    if deps.pool is not None:
        for checkpoint_id in session.checkpoints:
            await enqueue_sync(deps.pool, deps.settings, scope=scope, checkpoint_id=checkpoint_id)
    return {
        "runId": run.run_id,
        "status": status,
        "outcome": run.outcome.status.value if run.outcome else None,
        "handoff": handoff_status,
        "retries": extra["retries"],
        "error": error,
    }


def _source_key(raw: str) -> str | None:
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    key = value.get("sourceKey") if isinstance(value, dict) else None
    return key if isinstance(key, str) else None
