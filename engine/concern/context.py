"""What the shell reads for a decision besides the concern itself.

Person data is not stored on the concern (seed 002 §八); the jobs layer reads it through the
person context (`resolve_person_context`) and the outbox, and passes the few facts the
decisions need here.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from engine.concern.effects import Recipient


class LoopContext(BaseModel):
    model_config = ConfigDict(frozen=True)

    # The owner (老板): heartbeat back-flow and reports of concerns without an initiator.
    owner: Recipient | None = None
    # interaction_policy.preferred_channel per person id (seed 002 回流渠道).
    preferred_channels: dict[str, str] = Field(default_factory=dict)
    # Channels currently unreachable (the shell's channel health).
    unreachable_channels: frozenset[str] = frozenset()
    # Every channel a person can be reached on, in preference order (换渠道, seed 002 §六).
    person_channels: dict[str, list[str]] = Field(default_factory=dict)
    # Mid-course reports already scheduled today for the report recipient (daily cap).
    reports_today: int = 0
