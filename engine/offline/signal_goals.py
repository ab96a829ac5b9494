"""The goals the agenda sets for a signal's concern, judged by reading the answer itself.

The agenda (`engine/signal/policy.goal_of`) raises a commitment's follow-up with the goal
"确认<what>是否已完成" and a difference's question with "确认<field>是<current>还是<proposed>".
A generic confirmation goal is met by a bare "好"/"对" (seed 002 §六 部分达成判定: goal 要求
"确认"，对方说"好" → 达成); these two are not, because their answer goes back into the story
graph (issue 28) and must say something definite:
- a follow-up is met when the answer says it was done ("已经提测了") or names a new time
  ("推迟到周五"); "嗯", "我看看", "快了" are not met: asked again, never guessed;
- a question is met when the answer chooses one of the two values and only one ("对，已经
  交给李四了", "不对，还是张三负责"); "对", "嗯", both names or neither are not met.
The reading is `engine/signal/answers.py`, the same one the outcome is written from, so the
concern resolves exactly when its answer can be written back. Indirect evidence (a merge for
提测) still meets a follow-up as for any goal (the outcome then has no line to cite).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import BaseModel

from engine.llm.tasks import LogEntry, Signal
from engine.offline.achievement import GoalSpec, PersonResult, evidence_for
from engine.signal.answers import (
    CommitmentAnswer,
    DifferenceAnswer,
    read_commitment_answer,
    read_difference_answer,
)

_FOLLOW_UP = re.compile(r"^\s*确认(?P<what>.+?)是否已(?:经)?完成\s*$")
_EITHER = re.compile(r"^\s*确认(?P<field>.+?)是(?P<current>.+?)还是(?P<proposed>.+?)\s*$")


class SignalGoal(BaseModel):
    """A follow-up (`what`) or a question between two values (`current`, `proposed`)."""

    what: str = ""
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
        return SignalGoal(what=m.group("what"))
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
    if not replies:
        return PersonResult(person_id=person_id, met=False, reason="no reply")
    for reply in reversed(replies):
        if goal.is_question:
            choice = read_difference_answer(reply.text, goal.current, goal.proposed)
            if choice is not DifferenceAnswer.UNCLEAR:
                return PersonResult(
                    person_id=person_id,
                    met=True,
                    key_reply=reply,
                    reason=f"chose the {choice} value: {reply.text}",
                )
            continue
        reading = read_commitment_answer(reply.text, reply.ts, tz)
        if reading.outcome in (CommitmentAnswer.KEPT, CommitmentAnswer.CHANGED):
            return PersonResult(
                person_id=person_id,
                met=True,
                key_reply=reply,
                reason=f"commitment {reading.outcome}: {reply.text}",
            )
    return PersonResult(
        person_id=person_id, met=False, key_reply=last, reason="unclear answer: ask again"
    )
