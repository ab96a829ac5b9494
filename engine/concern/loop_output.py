"""What one agent-loop turn decides (docs/rules/concerns.mdagent loop 输出结构").

The model gateway parses the model's answer into this shape; the offline rule model
produces it directly. `owner_update` is sent to the initiator only when non-empty.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, Field

from engine.llm.reading import ReplyReading


class Attitude(StrEnum):
    """docs/rules/concerns.md."""

    COMMITTED = "committed"  # 有明确承诺: "好的，明天给你"
    VAGUE = "vague"  # 模糊回应: "我看看" / "嗯"
    RESISTANT_WORKING = "resistant_working"  # 抗拒但在进行: "别催了" / "已经在做了"
    SILENT = "silent"  # 无响应
    NONE = "none"  # nothing to judge (no counterpart reply considered)


class LoopStep(StrEnum):
    RESOLVE = "resolve"
    FOLLOW_UP = "follow_up"
    WAIT = "wait"
    INVESTIGATE = "investigate"
    ESCALATE = "escalate"
    DROP = "drop"  # cancelled by the initiator ("算了不用问了"): no back-flow


class NextAction(BaseModel):
    what: str
    who_person_id: str | None = None
    when: datetime | None = None


class OutboundDraft(BaseModel):
    """A message the loop wants sent to one person (send_message_to; docs/rules/concerns.md)."""

    person_id: str
    text: str
    channel: str = ""  # empty: the person's last channel


class LoopOutput(BaseModel):
    goal_met: bool
    step: LoopStep
    next_action: NextAction | None = None
    summary: str = ""
    owner_update: str = ""
    attitude: Attitude = Attitude.NONE
    # For a commitment: the promised time parsed from the reply, relative to its timestamp.
    promised_at: datetime | None = None
    # One-sentence conclusion and key reply used by the back-flow message (docs/rules/concerns.md).
    conclusion: str = ""
    key_information: str = ""
    reasons: list[str] = Field(default_factory=list)
    # Added for the concern engine (all optional; older producers stay valid):
    # messages to send this turn; empty with step=follow_up means "use the template".
    messages: list[OutboundDraft] = Field(default_factory=list)
    # People whose part of the goal is now settled (partial achievement; docs/rules/concerns.md).
    done_person_ids: list[str] = Field(default_factory=list)
    # What each settled person said that matters for the goal, by person id (partial report).
    findings: dict[str, str] = Field(default_factory=dict)
    # Background the loop adds after the four mandatory back-flow fields.
    backflow_note: str = ""
    # A concern that follows up a subject (`LoopContext.subject`): the reading of the
    # counterpart's newest reply against it (met, not yet, moved, dropped, unclear).
    reading: ReplyReading | None = None
