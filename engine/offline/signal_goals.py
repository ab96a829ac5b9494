"""The goals the agenda sets for a signal's concern, judged by reading the answer itself.

The agenda (`engine/signal/policy.goal_of`) raises a commitment's follow-up with the goal
"确认<what>是否已完成", a blocker's or risk's with "确认<what>是否已解决", and a difference's
question with "确认<field>是<current>还是<proposed>". A generic confirmation goal is met by a
bare "好"/"对" (docs/rules/concerns.md); these are not, because their answer goes back
into the story graph and must say something definite (`docs/rules/reply-reading.md`):
- a follow-up is met when the newest reply says it was done ("已经提测了", "已经解决了");
  a reply naming a later time ("推迟到周五") is not met: the same concern waits until then;
  "嗯", "我看看", "提测了吗？", "如果明天能…" are not met: asked again, never guessed;
- a question is met when the answer chooses one of the two values and only one ("对，已经
  交给李四了", "不对，还是张三负责"); "对", "嗯", both names or neither are not met.
`read_subject_reply` is the offline model's `LoopOutput.reading`: the newest counterpart
reply read against the concern's subject, citing its line. Indirect evidence (a merge for
提测) still meets a follow-up as for any goal (nothing is then read from a reply).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import Literal

from pydantic import BaseModel

from engine.llm.reading import ReplyOutcome, ReplyReading
from engine.llm.tasks import LogEntry, LoopContext, Signal
from engine.offline.achievement import GoalSpec, PersonResult, evidence_for
from engine.signal.answers import (
    CommitmentAnswer,
    DifferenceAnswer,
    read_commitment_answer,
    read_difference_answer,
)

_FOLLOW_UP = re.compile(r"^\s*确认(?P<what>.+?)是否已(?:经)?(?P<end>完成|解决)\s*$")
_EITHER = re.compile(r"^\s*确认(?P<field>.+?)是(?P<current>.+?)还是(?P<proposed>.+?)\s*$")


class SignalGoal(BaseModel):
    """A follow-up (`what`) or a question between two values (`current`, `proposed`)."""

    what: str = ""
    resolved: bool = False  # a blocker's or risk's goal: that it is resolved
    field: str = ""
    current: str = ""
    proposed: str = ""

    @property
    def is_question(self) -> bool:
        return bool(self.field)


def signal_goal(goal: str) -> SignalGoal | None:
    """The agenda's goal shape, or None for any other goal."""
    m = _EITHER.match(goal)
    if m is not None:
        return SignalGoal(
            field=m.group("field"), current=m.group("current"), proposed=m.group("proposed")
        )
    m = _FOLLOW_UP.match(goal)
    if m is not None:
        return SignalGoal(what=m.group("what"), resolved=m.group("end") == "解决")
    return None


def subject_of(ctx: LoopContext) -> SignalGoal | None:
    """What the concern follows up: the request's subject, else its goal's shape."""
    sub = ctx.subject
    if sub is None:
        return signal_goal(ctx.goal)
    if sub.kind == "difference":
        return SignalGoal(field=sub.field, current=sub.current, proposed=sub.proposed)
    return SignalGoal(what=sub.what or sub.text, resolved=sub.kind in ("blocker", "risk"))


_OUTCOMES = {
    CommitmentAnswer.KEPT: ReplyOutcome.MET,
    CommitmentAnswer.NOT_YET: ReplyOutcome.NOT_YET,
    CommitmentAnswer.CHANGED: ReplyOutcome.MOVED,
    CommitmentAnswer.DROPPED: ReplyOutcome.DROPPED,
    CommitmentAnswer.UNCLEAR: ReplyOutcome.UNCLEAR,
}


def read_reply(goal: SignalGoal, text: str, at: datetime, tz: str) -> ReplyReading:
    """One reply read against the subject (no line yet)."""
    if goal.is_question:
        choice = read_difference_answer(text, goal.current, goal.proposed)
        if choice is DifferenceAnswer.UNCLEAR:
            return ReplyReading(outcome=ReplyOutcome.UNCLEAR)
        chosen: Literal["current", "proposed"] = (
            "current" if choice is DifferenceAnswer.CURRENT else "proposed"
        )
        return ReplyReading(outcome=ReplyOutcome.MET, choice=chosen)
    r = read_commitment_answer(text, at, tz, goal.what)
    return ReplyReading(
        outcome=_OUTCOMES[r.outcome],
        happened_at=r.happened_at,
        new_due=r.new_due,
        due_text=r.due_text,
    )


def read_subject_reply(ctx: LoopContext) -> ReplyReading | None:
    """The newest counterpart reply read against the concern's subject, citing its line;
    None when the concern follows up no subject or nobody replied."""
    goal = subject_of(ctx)
    if goal is None:
        return None
    counterparts = {p.person_id for p in ctx.counterparts}
    log = ctx.conversation_log
    for i in range(len(log) - 1, -1, -1):
        e = log[i]
        if e.direction != "inbound" or (counterparts and e.person_id not in counterparts):
            continue
        reading = read_reply(goal, e.text, e.ts, ctx.timezone)
        return reading.model_copy(update={"line": i + 1})
    return None


def judge_signal_answer(
    goal: SignalGoal,
    spec: GoalSpec,
    person_id: str,
    replies: Sequence[LogEntry],
    signals: Sequence[Signal],
    tz: str,
    since: object = None,
) -> PersonResult:
    """Whether this counterpart's replies (oldest first) answer the signal's goal."""
    last = replies[-1] if replies else None
    if not goal.is_question:
        evidence = evidence_for(spec, signals, person_id, since)
        if evidence is not None:
            return PersonResult(
                person_id=person_id,
                met=True,
                key_reply=last,
                evidence=evidence,
                reason=f"indirect evidence: {evidence.source or 'signal'} {evidence.kind}",
            )
    if last is None:
        return PersonResult(person_id=person_id, met=False, reason="no reply")
    reading = read_reply(goal, last.text, last.ts, tz)
    if reading.outcome is ReplyOutcome.MET:
        return PersonResult(
            person_id=person_id,
            met=True,
            key_reply=last,
            reason=f"met ({reading.choice or 'done'}): {last.text}",
        )
    return PersonResult(
        person_id=person_id, met=False, key_reply=last, reason=f"{reading.outcome}: ask again"
    )
