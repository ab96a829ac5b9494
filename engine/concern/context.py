"""What the shell reads for a decision besides the concern itself.

Person data is not stored on the concern (docs/rules/concerns.md); the jobs layer reads it through
the person context (`resolve_person_context`) and the outbox, and passes the few facts the decisions
need here.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from engine.concern.effects import Recipient


class PendingMessage(BaseModel):
    """An outbox row of this concern not sent yet (the shell reads them from the outbox):
    what a closing decision supersedes and a priority change re-times."""

    model_config = ConfigDict(frozen=True)

    key: str
    kind: str  # send_message | report | backflow | escalate
    report_kinds: tuple[str, ...] = ()
    recipient_person_id: str | None = None
    recipient_name: str = ""
    recorded_at: datetime
    deliver_at: datetime

    @property
    def is_progress_report(self) -> bool:
        """A mid-course report (docs/rules/concerns.md), not the closing notice of a dropped
        concern."""
        return self.kind == "report" and "dropped" not in self.report_kinds


class LoopContext(BaseModel):
    model_config = ConfigDict(frozen=True)

    # The owner (老板): heartbeat back-flow and reports of concerns without an initiator.
    owner: Recipient | None = None
    # interaction_policy.preferred_channel per person id (docs/rules/concerns.md).
    preferred_channels: dict[str, str] = Field(default_factory=dict)
    # Channels currently unreachable (the shell's channel health).
    unreachable_channels: frozenset[str] = frozenset()
    # Every channel a person can be reached on, in preference order (换渠道;
    # docs/rules/concerns.md).
    person_channels: dict[str, list[str]] = Field(default_factory=dict)
    # Mid-course reports already scheduled today for the report recipient (daily cap).
    reports_today: int = 0
    # The concern's outbox rows still pending (not sent, not superseded).
    pending_messages: tuple[PendingMessage, ...] = ()
