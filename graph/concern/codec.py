"""Concern <-> Neo4j properties, and decision effects -> outbox rows.

A `Concern` node keeps the whole document as JSON in `doc` (timeline and conversation_log
read back in the order they were written) and copies the fields that scans and filters read
to top-level properties: `status`, `priority`, `type`, `next_action_when` and
`next_run_at` (as Neo4j DateTime, behind the scan indexes of
`cypher/schema/068_concern_scan_values.cypher`), `revision` for optimistic locking, and
`scope` (the agenda / project scope).
People are `Person` nodes linked by `INVOLVES` carrying the minimal refs of docs/rules/concerns.md.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from engine.concern.effects import (
    BackflowMessage,
    Decision,
    Effect,
    Escalate,
    HandOff,
    Recipient,
    ReportToOwner,
    SendMessage,
)
from engine.concern.model import Concern
from graph.temporal import to_neo4j

# Effects that leave the system as messages; agenda updates are graph state.
MESSAGE_KINDS = ("send_message", "report", "backflow", "escalate")


def utc(value: datetime | None) -> datetime | None:
    """Datetimes go to Neo4j in UTC with the stdlib tzinfo (`graph.temporal`, the one codec)."""
    moment: datetime | None = to_neo4j(value)
    return moment


def concern_props(concern: Concern, scope: str) -> dict[str, Any]:
    na = concern.next_action
    trig = concern.trigger
    ini = concern.initiator
    return {
        "concern_id": concern.concern_id,
        "scope": scope,
        "type": str(concern.type),
        "status": str(concern.status),
        "priority": str(concern.priority),
        "title": concern.title,
        "goal": concern.goal,
        "agenda_role": concern.agenda_role,
        "signal_id": concern.source.signal_id,
        "initiator_person_id": ini.person_id if ini is not None else None,
        "next_action_when": utc(na.when if na is not None else None),
        "next_run_at": utc(trig.next_run_at if trig is not None else None),
        "created_at": utc(concern.created_at),
        "updated_at": utc(concern.updated_at),
        "closed_at": utc(concern.closed_at),
        "revision": concern.revision,
        "doc": concern.model_dump_json(),
    }


def people_rows(concern: Concern) -> list[dict[str, Any]]:
    return [
        {
            "person_id": p.person_id,
            "display_name": p.display_name,
            "role_in_concern": p.role_in_concern,
            "comm_status": str(p.comm_status),
            "last_channel": p.last_channel,
        }
        for p in concern.people
    ]


def concern_from_doc(doc: str) -> Concern:
    return Concern.model_validate_json(doc)


def _recipient_fields(r: Recipient | None) -> dict[str, Any]:
    if r is None:
        return {
            "recipient_person_id": None,
            "recipient_name": "",
            "channel": "",
            "channel_user_id": "",
        }
    return {
        "recipient_person_id": r.person_id,
        "recipient_name": r.name,
        "channel": r.channel,
        "channel_user_id": r.channel_user_id,
    }


def outbox_row(effect: Effect, *, scope: str, seq: int, now: datetime) -> dict[str, Any] | None:
    """The outbox row of one message effect; None for effects that are not messages."""
    base: dict[str, Any] = {
        "key": effect.key,
        "concern_id": effect.concern_id or None,
        "scope": scope,
        "kind": effect.kind,
        "seq": seq,
        "recorded_at": utc(now),
        "deliver_at": utc(now),
        "report_kinds": [],
        "tone": "",
    }
    if isinstance(effect, SendMessage):
        base.update(
            recipient_person_id=effect.person_id,
            recipient_name=effect.person_name,
            channel=effect.channel,
            channel_user_id="",
            text=effect.text,
            tone=str(effect.tone),
        )
        if effect.deliver_at is not None:
            base["deliver_at"] = utc(effect.deliver_at)
    elif isinstance(effect, ReportToOwner):
        base.update(
            _recipient_fields(effect.recipient),
            text=effect.text,
            deliver_at=utc(effect.deliver_at),
            report_kinds=[str(k) for k in effect.report_kinds],
            signal_id=effect.signal_id,
        )
    elif isinstance(effect, BackflowMessage):
        base.update(_recipient_fields(effect.recipient), text=effect.text)
    elif isinstance(effect, Escalate | HandOff):
        base.update(_recipient_fields(effect.recipient), text=effect.text)
    else:
        return None
    return base


def outbox_rows(decision: Decision, *, scope: str, now: datetime) -> list[dict[str, Any]]:
    """Rows for every message of `decision`, ordered within it by `seq`."""
    rows = []
    base_seq = decision.new_concern.revision * 100
    for i, effect in enumerate(decision.effects):
        row = outbox_row(effect, scope=scope, seq=base_seq + i, now=now)
        if row is not None:
            rows.append(row)
    return rows
