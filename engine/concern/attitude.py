"""The attitude policy (docs/rules/concerns.md).

| reply              | attitude          | follow-up strategy                            |
|--------------------|-------------------|-----------------------------------------------|
| "好的，明天给你"     | committed         | next_action at the promised time, no earlier  |
| "我看看" / "嗯"      | vague             | the normal interval                           |
| "别催了" / "在做了"   | resistant_working | the interval doubled, a softer tone           |
| no reply at all    | silent            | normal interval; after 3 silent follow-ups    |
|                    |                   | consider another channel or escalation        |

The attitude itself is judged by the model (or the offline rule model) and arrives in
`LoopOutput.attitude`; this module only turns it into timing and tone. A commitment with no
usable promised time (missing, or already past) falls back to the normal interval.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from pydantic import BaseModel, ConfigDict

from engine.concern.effects import Tone
from engine.concern.followup import followup_interval
from engine.concern.loop_output import Attitude
from engine.concern.model import Priority


class FollowupPlan(BaseModel):
    model_config = ConfigDict(frozen=True)

    when: datetime | None  # None: the follow-up limit is reached
    tone: Tone
    consider_alternatives: bool  # silence: time to try another channel or escalate
    reason: str


def adjusted_interval(
    attitude: Attitude, priority: Priority, followup_count: int
) -> timedelta | None:
    """The table interval (followup.py) adjusted for the attitude; None at the limit."""
    base = followup_interval(priority, followup_count)
    if base is None:
        return None
    if attitude == Attitude.RESISTANT_WORKING:
        return base * 2
    return base


def tone_for(attitude: Attitude) -> Tone:
    return Tone.SOFT if attitude == Attitude.RESISTANT_WORKING else Tone.NORMAL


def plan_next_followup(
    attitude: Attitude,
    priority: Priority,
    followup_count: int,
    now: datetime,
    *,
    promised_at: datetime | None = None,
    silent_followups: int = 0,
    silent_threshold: int = 3,
) -> FollowupPlan:
    """When the next follow-up may go out, in which tone, and whether to look elsewhere.

    `followup_count` is the number of follow-up rounds already sent; `silent_followups`
    counts the follow-ups this person left unanswered.
    """
    tone = tone_for(attitude)
    if attitude == Attitude.COMMITTED and promised_at is not None and promised_at > now:
        return FollowupPlan(
            when=promised_at, tone=tone, consider_alternatives=False, reason="按承诺时间跟进"
        )
    interval = adjusted_interval(attitude, priority, followup_count)
    if interval is None:
        return FollowupPlan(
            when=None, tone=tone, consider_alternatives=False, reason="已达最大追问次数"
        )
    consider = attitude == Attitude.SILENT and silent_followups >= silent_threshold
    reasons = {
        Attitude.RESISTANT_WORKING: "对方已在进行，间隔翻倍、语气放缓",
        Attitude.SILENT: "无回复，按正常间隔" + ("；考虑换渠道或升级" if consider else ""),
    }
    return FollowupPlan(
        when=now + interval,
        tone=tone,
        consider_alternatives=consider,
        reason=reasons.get(attitude, "按正常间隔追问"),
    )
