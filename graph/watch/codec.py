"""Watch models <-> Neo4j property maps (docs/rules/watches.md).

Neo4j properties hold scalars and lists of scalars only, so nested parts that are read and
written as a whole (a step's preconditions are a list; an observation's `workflowChecks`,
an outcome's reasons, a hand-off's steps, a checkpoint's `data`) are stored as JSON text.
Times are stored as Neo4j datetimes and come back as stdlib-UTC `datetime`s (the one
codec, `graph.temporal`).

An observation written before step lists existed has no `workflow_checks` property; it
decodes to `workflow_checks=None` and stays readable (docs/rules/watches.md).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from engine.watch.access import GrantBasis, ReadGrant
from engine.watch.delivery import Delivery, DeliveryStatus
from engine.watch.model import (
    Checkpoint,
    Evidence,
    HandOff,
    Observation,
    Outcome,
    SourceBinding,
    SourceKey,
    StepKind,
    StepStatus,
    SyncStatus,
    Watch,
    WatchStatus,
    WorkflowCheck,
    WorkflowStep,
)
from graph.temporal import from_neo4j


def plain(props: Mapping[str, Any]) -> dict[str, Any]:
    """A node's properties with its instants as stdlib-UTC datetimes (`graph.temporal`)."""
    return {k: from_neo4j(v) for k, v in props.items()}


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


# --- watch and bindings -------------------------------------------------------------------


def watch_props(watch: Watch, mounted_libraries: frozenset[str]) -> dict[str, Any]:
    return {
        "id": watch.watch_id,
        "scope": watch.scope,
        "session_id": watch.session_id,
        "title": watch.title,
        "status": watch.status.value,
        "execution_enabled": watch.execution_enabled,
        "record_location": watch.record_location,
        "tag_limits": sorted(watch.tag_limits),
        "mounted_libraries": sorted(mounted_libraries),
        "created_at": watch.created_at,
        "changed_at": watch.changed_at,
    }


def binding_props(watch: Watch, binding: SourceBinding) -> dict[str, Any]:
    return {
        "scope": watch.scope,
        "watch_id": watch.watch_id,
        "binding_id": binding.binding_id,
        "kind": binding.kind.value,
        "project": binding.project,
        "title": binding.title,
        "note_id": binding.note_id,
        "library_id": binding.library_id,
        "document_id": binding.document_id,
        "bound_at": binding.bound_at,
        "ordinal": watch.bindings.index(binding),
    }


def binding_from(props: Mapping[str, Any]) -> SourceBinding:
    p = plain(props)
    return SourceBinding(
        binding_id=p["binding_id"],
        kind=p["kind"],
        project=p["project"],
        title=p.get("title") or "",
        note_id=p.get("note_id"),
        library_id=p.get("library_id"),
        document_id=p.get("document_id"),
        bound_at=p["bound_at"],
    )


def _binding_order(props: Mapping[str, Any]) -> tuple[int, Any, str]:
    """Bindings come back in the order they were given; older records without an ordinal
    fall back to (bound_at, binding_id)."""
    ordinal = props.get("ordinal")
    return (
        ordinal if isinstance(ordinal, int) else 1_000_000,
        from_neo4j(props["bound_at"]),
        str(props["binding_id"]),
    )


def watch_from(props: Mapping[str, Any], bindings: list[Mapping[str, Any]]) -> Watch:
    p = plain(props)
    return Watch(
        watch_id=p["id"],
        scope=p["scope"],
        session_id=p["session_id"],
        title=p.get("title") or "",
        bindings=tuple(binding_from(b) for b in sorted(bindings, key=_binding_order)),
        tag_limits=frozenset(p.get("tag_limits") or ()),
        status=WatchStatus(p["status"]),
        execution_enabled=bool(p.get("execution_enabled")),
        record_location=p.get("record_location"),
        created_at=p["created_at"],
        changed_at=p.get("changed_at"),
    )


# --- steps --------------------------------------------------------------------------------


def step_props(scope: str, watch_id: str, ordinal: int, step: WorkflowStep) -> dict[str, Any]:
    ev = step.evidence
    return {
        "scope": scope,
        "watch_id": watch_id,
        "ordinal": ordinal,
        "step_id": step.step_id,
        "kind": step.kind.value,
        "source": step.source,
        "method": step.method,
        "preconditions": list(step.preconditions),
        "completion_criteria": step.completion_criteria,
        "verify_in_check": step.verify_in_check,
        "status": step.status.value,
        "evidence_text": ev.text if ev else None,
        "evidence_run_id": ev.run_id if ev else None,
        "evidence_recorded_by": ev.recorded_by if ev else None,
        "evidence_recorded_at": ev.recorded_at if ev else None,
    }


def step_from(props: Mapping[str, Any]) -> WorkflowStep:
    p = plain(props)
    evidence = None
    if p.get("evidence_text"):
        evidence = Evidence(
            text=p["evidence_text"],
            run_id=p.get("evidence_run_id"),
            recorded_by=p.get("evidence_recorded_by"),
            recorded_at=p["evidence_recorded_at"],
        )
    return WorkflowStep(
        step_id=p["step_id"],
        kind=StepKind(p["kind"]),
        source=p["source"],
        method=p.get("method") or "",
        preconditions=tuple(p.get("preconditions") or ()),
        completion_criteria=p["completion_criteria"],
        verify_in_check=bool(p.get("verify_in_check")),
        status=StepStatus(p["status"]),
        evidence=evidence,
    )


# --- grants -------------------------------------------------------------------------------


def grant_id(grant: ReadGrant, issued_at: datetime) -> str:
    return f"{grant.watch_id}:{grant.binding_id}:{grant.key.value}:{issued_at.isoformat()}"


def grant_props(scope: str, grant: ReadGrant, issued_at: datetime) -> dict[str, Any]:
    return {
        "id": grant_id(grant, issued_at),
        "scope": scope,
        "watch_id": grant.watch_id,
        "binding_id": grant.binding_id,
        "key": grant.key.value,
        "basis": grant.basis.value,
        "cross_project": grant.cross_project,
        "read_only": grant.read_only,
        "issued_at": issued_at,
        "revoked_at": None,
        "revoke_reason": None,
    }


def grant_from(props: Mapping[str, Any]) -> ReadGrant:
    p = plain(props)
    return ReadGrant(
        watch_id=p["watch_id"],
        key=SourceKey.parse(p["key"]),
        basis=GrantBasis(p["basis"]),
        binding_id=p.get("binding_id"),
        cross_project=bool(p.get("cross_project")),
        read_only=bool(p.get("read_only", True)),
    )


# --- observations and hand-offs -----------------------------------------------------------


def observation_props(scope: str, obs: Observation, extra: Mapping[str, Any]) -> dict[str, Any]:
    outcome = obs.outcome
    props: dict[str, Any] = {
        "id": obs.observation_id,
        "scope": scope,
        "watch_id": obs.watch_id,
        "run_id": obs.run_id,
        "observed_at": obs.observed_at,
        "summary": obs.summary,
        "changed": obs.changed,
        "workflow_checks": (
            _dumps([c.model_dump(mode="json") for c in obs.workflow_checks])
            if obs.workflow_checks is not None
            else None
        ),
        "outcome": _dumps(outcome.model_dump(mode="json")) if outcome is not None else None,
        "outcome_status": outcome.status.value if outcome is not None else None,
        "execution_key": obs.handoff.execution_key if obs.handoff is not None else None,
    }
    props.update(extra)
    return props


def observation_from(props: Mapping[str, Any]) -> Observation:
    p = plain(props)
    checks = p.get("workflow_checks")
    outcome = p.get("outcome")
    return Observation(
        observation_id=p["id"],
        watch_id=p["watch_id"],
        run_id=p["run_id"],
        observed_at=p["observed_at"],
        summary=p.get("summary") or "",
        changed=bool(p.get("changed")),
        workflow_checks=(
            tuple(WorkflowCheck.model_validate(c) for c in json.loads(checks))
            if checks is not None
            else None
        ),
        outcome=Outcome.model_validate(json.loads(outcome)) if outcome is not None else None,
    )


def handoff_props(scope: str, handoff: HandOff) -> dict[str, Any]:
    return {
        "scope": scope,
        "execution_key": handoff.execution_key,
        "watch_id": handoff.watch_id,
        "session_id": handoff.session_id,
        "run_id": handoff.run_id,
        "observation_id": handoff.observation_id,
        "steps": _dumps([s.model_dump(mode="json") for s in handoff.steps]),
        "dependencies": list(handoff.dependencies),
        "created_at": handoff.created_at,
        "delivery_status": DeliveryStatus.PENDING.value,
        "delivery_attempts": 0,
    }


def delivery_from(props: Mapping[str, Any]) -> Delivery:
    """A hand-off's delivery state (one stored before deliveries existed reads `pending`)."""
    p = plain(props)
    return Delivery(
        status=DeliveryStatus(p.get("delivery_status") or "pending"),
        attempts=int(p.get("delivery_attempts") or 0),
        channel=p.get("delivery_channel"),
        last_error=p.get("delivery_error"),
        next_attempt_at=p.get("delivery_next_attempt_at"),
        delivered_at=p.get("delivered_at"),
        acknowledged_by=p.get("delivery_acknowledged_by"),
    )


def delivery_props(delivery: Delivery) -> dict[str, Any]:
    return {
        "delivery_status": delivery.status.value,
        "delivery_attempts": delivery.attempts,
        "delivery_channel": delivery.channel.value if delivery.channel else None,
        "delivery_error": delivery.last_error,
        "delivery_next_attempt_at": delivery.next_attempt_at,
        "delivered_at": delivery.delivered_at,
        "delivery_acknowledged_by": delivery.acknowledged_by,
    }


def handoff_from(props: Mapping[str, Any]) -> HandOff:
    p = plain(props)
    return HandOff.model_validate(
        {
            **{
                k: p[k]
                for k in (
                    "execution_key",
                    "watch_id",
                    "session_id",
                    "run_id",
                    "observation_id",
                    "created_at",
                )
            },
            "steps": json.loads(p["steps"]),
            "dependencies": tuple(p.get("dependencies") or ()),
        }
    )


# --- checkpoints --------------------------------------------------------------------------


def checkpoint_props(scope: str, cp: Checkpoint, sync_rounds: int = 0) -> dict[str, Any]:
    return {
        "id": cp.checkpoint_id,
        "scope": scope,
        "watch_id": cp.watch_id,
        "run_id": cp.run_id,
        "location": cp.location,
        "data": _dumps(cp.data),
        "instructions": cp.instructions,
        "recorded_at": cp.recorded_at,
        "sync_status": cp.sync_status.value,
        "sync_error": cp.sync_error,
        "synced_at": cp.synced_at,
        "sync_rounds": sync_rounds,
    }


def checkpoint_from(props: Mapping[str, Any]) -> tuple[Checkpoint, int]:
    p = plain(props)
    cp = Checkpoint(
        checkpoint_id=p["id"],
        watch_id=p["watch_id"],
        run_id=p["run_id"],
        location=p["location"],
        data=json.loads(p["data"]),
        instructions=p["instructions"],
        recorded_at=p["recorded_at"],
        sync_status=SyncStatus(p["sync_status"]),
        sync_error=p.get("sync_error"),
        synced_at=p.get("synced_at"),
    )
    return cp, int(p.get("sync_rounds") or 0)
