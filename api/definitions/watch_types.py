"""GraphQL types of heartbeat watches (docs/rules/watches.md): each with `from_model()`.

`Watch.steps` is the persisted step list; `observations`, `handOffs`, `checkpoints`,
`grants` and `receipts` are read through per-request DataLoaders (api/definitions/
watch_loaders.py), one query per field for a whole page. An old observation without a step
list has `workflowChecks: null` and stays readable. `deliveryState` keeps "事实已记录"
(`facts_recorded`) apart from "交付物已完成" (`deliverable_done`); a check's
`outcome.deliveryState` is the same value computed the same way over the steps it left.
Step evidence names who recorded it (`evidenceBy`): a check run, or the person whose token
called `recordStepEvidence`. Hand-off steps are typed (`WatchHandOffStep`), camelCase.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from api.context import Context
from api.definitions import watch_loaders
from api.definitions.base import Actor, build
from api.definitions.cost import Cost, owner_cost
from engine.story.models import ActorKind
from engine.watch.delivery import CLAIMABLE, Delivery
from engine.watch.model import (
    Checkpoint,
    Evidence,
    HandOff,
    HandOffStep,
    Outcome,
    SourceBinding,
    WorkflowCheck,
    WorkflowStep,
)
from engine.watch.outcome import delivery_state
from engine.watch.report import ReceiptRecord
from graph.watch.deliveries import StoredHandOff
from graph.watch.records import StoredObservation
from graph.watch.repository import WatchState

MAX_NESTED = 100


def _limit(first: int) -> int:
    return max(0, min(first, MAX_NESTED))


@strawberry.type(name="WatchBinding")
class Binding:
    binding_id: str
    kind: str
    project: str
    title: str
    note_id: str | None
    library_id: str | None
    document_id: str | None
    source_key: str | None
    bound_at: datetime

    @classmethod
    def from_model(cls, b: SourceBinding) -> Binding:
        return build(
            cls, b, kind=b.kind.value, source_key=b.key.value if b.key is not None else None
        )


def evidence_actor(ev: Evidence | None) -> Actor | None:
    """Who recorded the evidence: the check run, or the person (token name)."""
    if ev is None:
        return None
    if ev.recorded_by is not None:
        return Actor(kind=ActorKind.USER, id=ev.recorded_by)
    return Actor(kind=ActorKind.RUN, id=ev.run_id or "")


@strawberry.type(name="WorkflowStep")
class Step:
    step_id: str
    kind: str
    source: str
    method: str
    preconditions: list[str]
    completion_criteria: str
    verify_in_check: bool
    status: str
    evidence: str | None
    evidence_run_id: str | None = strawberry.field(
        description="The check run that recorded the evidence; null when a person did."
    )
    evidence_by: Actor | None = strawberry.field(
        description="Who recorded the evidence: a check run (RUN, run id) or a person "
        "(USER, the token name of recordStepEvidence)."
    )
    evidence_recorded_at: datetime | None

    @classmethod
    def from_model(cls, s: WorkflowStep) -> Step:
        ev = s.evidence
        return build(
            cls,
            s,
            kind=s.kind.value,
            preconditions=list(s.preconditions),
            status=s.status.value,
            evidence=ev.text if ev else None,
            evidence_run_id=ev.run_id if ev else None,
            evidence_by=evidence_actor(ev),
            evidence_recorded_at=ev.recorded_at if ev else None,
        )


@strawberry.type(name="WorkflowCheck")
class Check:
    step_id: str
    status: str
    evidence: str

    @classmethod
    def from_model(cls, c: WorkflowCheck) -> Check:
        return build(cls, c, status=c.status.value)


@strawberry.type(name="WatchOutcome")
class OutcomeType:
    status: str
    reasons: list[str]
    corrections_used: int
    facts_recorded: bool = strawberry.field(
        description="事实已记录: a check step is done with this check's evidence."
    )
    deliverable_done: bool = strawberry.field(
        description="交付物已完成: every execute step is done."
    )
    delivery_state: str = strawberry.field(
        description=(
            "nothing_recorded | facts_recorded | deliverable_done: the same value and rule as "
            "Watch.deliveryState, over the steps this check left."
        )
    )
    dispatch_execution: bool

    @classmethod
    def from_model(cls, o: Outcome) -> OutcomeType:
        return build(
            cls,
            o,
            status=o.status.value,
            reasons=list(o.reasons),
            delivery_state=o.delivery_state.value,
        )


@strawberry.type(name="WatchObservation")
class ObservationType:
    id: strawberry.ID
    run_id: str
    observed_at: datetime
    summary: str
    changed: bool
    workflow_checks: list[Check] | None
    outcome: OutcomeType | None
    # what the check run's shell stored beside the observation (absent on older runs)
    execution_key: str | None = None
    handoff_status: str | None = None
    retries: int = strawberry.field(default=0, description="Model request retries (退避次数).")
    verification_rounds: int = 0
    preparation_rounds: int = 0
    tool_summaries: list[str] = strawberry.field(
        default_factory=list, description="Redacted tool results."
    )
    error: str | None = None
    failure_kind: str | None = None

    @classmethod
    def from_model(cls, stored: StoredObservation) -> ObservationType:
        o, checks = stored.observation, stored.observation.workflow_checks
        return build(
            cls,
            o,
            stored.props,
            id=strawberry.ID(o.observation_id),
            workflow_checks=[Check.from_model(c) for c in checks] if checks is not None else None,
            outcome=OutcomeType.from_model(o.outcome) if o.outcome is not None else None,
        )


@strawberry.type(
    name="WatchHandOffStep",
    description="A step as handed to the partner "
    "session: verified check steps with their evidence, execute steps to do.",
)
class HandOffStepType:
    step_id: str
    kind: str = strawberry.field(description="check | execute")
    source: str = strawberry.field(description="The sourceKey the step comes from.")
    method: str
    preconditions: list[str]
    completion_criteria: str
    status: str = strawberry.field(description="pending | done | blocked")
    evidence: str | None

    @classmethod
    def from_model(cls, s: HandOffStep) -> HandOffStepType:
        return build(
            cls, s, kind=s.kind.value, preconditions=list(s.preconditions), status=s.status.value
        )


@strawberry.type(
    name="WatchHandOffDelivery",
    description="How a hand-off reached the partner session: a signed webhook POST (its "
    "Idempotency-Key is the execution key), retried, then dead-lettered; or the session's "
    "own channels (the watchHandOffs subscription and its MCP resource): pending until the "
    "session acknowledges it (acknowledgeWatchHandOff).",
)
class HandOffDeliveryType:
    status: str = strawberry.field(description="pending | sending | retrying | delivered | dead")
    attempts: int
    channel: str | None = strawberry.field(description="webhook | session")
    last_error: str | None
    next_attempt_at: datetime | None
    delivered_at: datetime | None
    acknowledged_by: str | None = strawberry.field(
        description="Channel session: who acknowledged the hand-off (its receipt)."
    )

    @classmethod
    def from_model(cls, d: Delivery) -> HandOffDeliveryType:
        return build(cls, d, status=d.status.value, channel=d.channel.value if d.channel else None)


@strawberry.type(name="WatchHandOff")
class HandOffType:
    execution_key: str
    watch_id: str
    session_id: str
    run_id: str
    observation_id: str
    steps: list[HandOffStepType]
    dependencies: list[str]
    created_at: datetime
    delivery: HandOffDeliveryType

    @classmethod
    def from_model(cls, h: HandOff, delivery: Delivery | None = None) -> HandOffType:
        return build(
            cls,
            h,
            steps=[HandOffStepType.from_model(s) for s in h.steps],
            dependencies=list(h.dependencies),
            delivery=HandOffDeliveryType.from_model(delivery or Delivery()),
        )

    @classmethod
    def from_stored(cls, stored: StoredHandOff) -> HandOffType:
        return cls.from_model(stored.handoff, stored.delivery)


@strawberry.type(name="WatchCheckpoint")
class CheckpointType:
    id: strawberry.ID
    run_id: str
    location: str
    data: JSON
    instructions: str
    recorded_at: datetime
    sync_status: str
    sync_error: str | None
    synced_at: datetime | None
    sync_rounds: int

    @classmethod
    def from_model(cls, cp: Checkpoint, rounds: int = 0) -> CheckpointType:
        return build(
            cls,
            cp,
            id=strawberry.ID(cp.checkpoint_id),
            data=cast(JSON, cp.data),
            sync_status=cp.sync_status.value,
            sync_rounds=rounds,
        )


@strawberry.type(name="WatchGrant")
class GrantType:
    source_key: str
    binding_id: str | None
    cross_project: bool
    read_only: bool
    issued_at: datetime
    revoked_at: datetime | None
    revoke_reason: str | None

    @classmethod
    def from_record(cls, g: dict[str, Any]) -> GrantType:
        return cls(
            source_key=g["key"],
            binding_id=g.get("binding_id"),
            cross_project=bool(g.get("cross_project")),
            read_only=bool(g.get("read_only")),
            issued_at=g["issued_at"],
            revoked_at=g.get("revoked_at"),
            revoke_reason=g.get("revoke_reason"),
        )


@strawberry.type(name="WatchReceipt")
class ReceiptType:
    """The partner session's report on a hand-off, accepted or rejected with its reason."""

    id: strawberry.ID
    execution_key: str
    status: str = strawberry.field(
        description="received | interrupted | no_final_answer | "
        "separated_by_user_request | no_handoff"
    )
    accepted: bool
    reason: str
    answer: str
    answered_at: datetime | None
    completed_steps: list[str]
    verify_only: bool = strawberry.field(description="仅核对结果: recognised, nothing changed.")
    replayed: bool = strawberry.field(description="Always false: nothing is replayed.")
    reported_at: datetime

    @classmethod
    def from_model(cls, r: ReceiptRecord) -> ReceiptType:
        return build(
            cls,
            r,
            id=strawberry.ID(r.receipt_id),
            status=r.status.value,
            completed_steps=list(r.completed_steps),
        )


@strawberry.type(name="Watch")
class WatchType:
    id: strawberry.ID
    scope: str
    session_id: str
    title: str
    status: str
    execution_enabled: bool
    record_location: str | None
    tag_limits: list[str]
    mounted_libraries: list[str]
    bindings: list[Binding]
    steps: list[Step]
    resume_summary: str
    resume_truncated: bool
    created_at: datetime
    changed_at: datetime | None
    delivery_state: str = strawberry.field(
        description=(
            "nothing_recorded | facts_recorded (事实已记录: a check step is done with evidence) | "
            "deliverable_done (交付物已完成: every execute step reported done)"
        )
    )

    @classmethod
    def from_model(cls, state: WatchState) -> WatchType:
        w = state.watch
        return build(
            cls,
            w,
            state,
            id=strawberry.ID(w.watch_id),
            status=w.status.value,
            tag_limits=sorted(w.tag_limits),
            mounted_libraries=sorted(state.mounted_libraries),
            bindings=[Binding.from_model(b) for b in w.bindings],
            steps=[Step.from_model(s) for s in state.steps],
            delivery_state=delivery_state(state.steps).value,
        )

    @strawberry.field
    async def observations(
        self, info: Info[Context, None], first: int = 20
    ) -> list[ObservationType]:
        loader = watch_loaders.observations(info.context, self.scope, _limit(first))
        return [ObservationType.from_model(o) for o in await loader.load(str(self.id))]

    @strawberry.field
    async def hand_offs(self, info: Info[Context, None]) -> list[HandOffType]:
        loader = watch_loaders.handoffs(info.context, self.scope)
        return [HandOffType.from_stored(h) for h in await loader.load(str(self.id))]

    @strawberry.field(
        description="Hand-offs not delivered yet (pending, sending or retrying): with no "
        "webhook, those the partner session has not acknowledged."
    )
    async def pending_hand_offs(self, info: Info[Context, None]) -> int:
        loader = watch_loaders.handoffs(info.context, self.scope)
        return sum(h.delivery.status in CLAIMABLE for h in await loader.load(str(self.id)))

    @strawberry.field
    async def checkpoints(self, info: Info[Context, None], first: int = 20) -> list[CheckpointType]:
        loader = watch_loaders.checkpoints(info.context, self.scope, _limit(first))
        return [CheckpointType.from_model(cp, n) for cp, n in await loader.load(str(self.id))]

    @strawberry.field
    async def grants(self, info: Info[Context, None]) -> list[GrantType]:
        loader = watch_loaders.grants(info.context, self.scope)
        return [GrantType.from_record(g) for g in await loader.load(str(self.id))]

    @strawberry.field(
        description="What its checks' model calls cost (cost ledger, stage watch_check): "
        "calls, tokens, retries, estimated calls."
    )
    async def cost(self, info: Info[Context, None]) -> Cost:
        return await owner_cost(info, "watch", str(self.id))

    @strawberry.field(description="Partner-session reports on hand-offs, newest first.")
    async def receipts(self, info: Info[Context, None], first: int = 20) -> list[ReceiptType]:
        loader = watch_loaders.receipts(info.context, self.scope, _limit(first))
        return [ReceiptType.from_model(r) for r in await loader.load(str(self.id))]


@strawberry.type
class WatchCheckTicket:
    watch_id: strawberry.ID
    run_id: str
    enqueued: bool
