"""The loop's reading of a reply to what a concern follows up (`docs/rules/reply-reading.md`).

A concern raised for a signal follows up one thing: a promise ("李四：前端部分周四能提测"),
a blocker or risk, or a pending difference ("负责人：张三还是李四"). The model (or, with none
configured, the offline rules) reads the counterpart's newest reply against it, with the
question asked and the subject in its prompt, and answers one of: met, not yet, moved (a
new, later time), dropped, unclear. The reading is evidence recorded by the loop's run; what
it writes into the story graph cites the reply's line (`line`, 1-based in the concern's
conversation log).
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel


class Subject(BaseModel):
    """What the concern follows up, as the model reads it."""

    kind: Literal["commitment", "blocker", "risk", "difference", "question"]
    text: str  # as said, with its speaker ("李四：前端部分周四能提测")
    who: str = ""
    what: str = ""  # the promised or blocked thing ("前端部分提测")
    due: datetime | None = None  # a commitment's promised time
    due_text: str = ""
    # a difference: the object, the field, the confirmed and the proposed values
    object: str = ""
    field: str = ""
    current: str = ""
    proposed: str = ""


class ReplyOutcome(StrEnum):
    MET = "met"  # kept / resolved / a value chosen
    NOT_YET = "not_yet"
    MOVED = "moved"  # a new, later time: `new_due`
    DROPPED = "dropped"
    UNCLEAR = "unclear"  # a question back, a conditional, an acknowledgement…: ask again


class ReplyReading(BaseModel):
    outcome: ReplyOutcome
    line: int | None = None  # the reply read: 1-based line of the conversation log
    choice: Literal["current", "proposed"] | None = None  # a difference's answer
    happened_at: datetime | None = None  # met: when the reply says it happened
    new_due: datetime | None = None  # moved: the new promised time
    due_text: str = ""  # moved: the time phrase as written ("周五")

    @property
    def definite(self) -> bool:
        """Whether the reading asserts something the story graph may record."""
        if self.line is None:
            return False
        if self.outcome is ReplyOutcome.MOVED:
            return self.new_due is not None
        return self.outcome is ReplyOutcome.MET
