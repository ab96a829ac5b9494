"""What a person's answer to a signal's concern says, read from the answer text alone.

A commitment's follow-up (goal "确认<what>是否已完成"):
- kept: "已经提测了", "昨天就提测了", "done" -> an event at the time the person says it
  happened (the answer's own time unless it names another: 昨天 -> yesterday);
- changed: "推迟到周五", "改到下周一", "moved to Friday" -> a new due time (a new commitment
  signal, so the loop goes on);
- unclear: anything else; the concern engine asks again (seed 002 §六 部分达成判定), it is
  never guessed.

A difference's question (goal "确认<field>是<current>还是<proposed>"):
- proposed: the answer names the proposed value and does not deny it ("对，已经交给李四了");
- current: the answer names the current value without the proposed one, or denies the change
  ("不对，还是张三负责");
- unclear: a bare "对"/"嗯", both values, or neither: asked again, never guessed.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from enum import StrEnum

from pydantic import BaseModel

from engine.language.when import localize, parse_when
from engine.language.words import CANCEL, DONE, NOT_YET
from engine.signal.derive import time_phrase
from engine.signal.responsibility import names_person

_POSTPONE = re.compile(
    r"推迟|延期|延后|改到|改成|挪到|往后|顺延|推到|postpone|delay|push(?:ed)? (?:back|to)|"
    r"moved? (?:it )?to|reschedul",
    re.IGNORECASE,
)
_DENY = re.compile(
    r"不对|不是|没有|没交|没换|还是|仍然|依然|\bno\b|\bnot\b|\bstill\b", re.IGNORECASE
)
# Delivery words the concern loop's DONE list does not carry ("提测了", "in QA").
_DELIVERED = re.compile(
    r"提测了|上线了|发布了|交付了|合入了|部署了|修好了|改好了|发出去了|\bin qa\b|\blive\b",
    re.IGNORECASE,
)
_PAST_DAY = re.compile(r"前天|昨天|yesterday|今天早上|今早|this morning", re.IGNORECASE)


class CommitmentAnswer(StrEnum):
    KEPT = "kept"
    CHANGED = "changed"
    DROPPED = "dropped"
    UNCLEAR = "unclear"


class CommitmentReading(BaseModel):
    outcome: CommitmentAnswer
    happened_at: datetime | None = None  # kept: when the person says it happened
    new_due: datetime | None = None  # changed: the new promised time
    due_text: str = ""  # changed: the time phrase as written (周五)


def _happened_at(text: str, answered_at: datetime, tz: str) -> datetime:
    m = _PAST_DAY.search(text)
    if m is None:
        return answered_at
    local = localize(answered_at, tz)
    word = m.group(0).lower()
    days = 2 if word == "前天" else 1 if word in ("昨天", "yesterday") else 0
    day = (local - timedelta(days=days)).replace(hour=18 if days else 9, minute=0, second=0)
    day = day.replace(microsecond=0)
    return min(day, answered_at)


def read_commitment_answer(text: str, answered_at: datetime, tz: str) -> CommitmentReading:
    if _POSTPONE.search(text):
        promised = parse_when(text, answered_at, tz)
        if promised is not None and promised.specific and promised.at is not None:
            return CommitmentReading(
                outcome=CommitmentAnswer.CHANGED,
                new_due=promised.at,
                due_text=time_phrase(promised.text) or promised.text,
            )
        return CommitmentReading(outcome=CommitmentAnswer.UNCLEAR)
    if CANCEL.search(text):
        return CommitmentReading(outcome=CommitmentAnswer.DROPPED)
    if (DONE.search(text) or _DELIVERED.search(text)) and not NOT_YET.search(text):
        return CommitmentReading(
            outcome=CommitmentAnswer.KEPT, happened_at=_happened_at(text, answered_at, tz)
        )
    return CommitmentReading(outcome=CommitmentAnswer.UNCLEAR)


class DifferenceAnswer(StrEnum):
    PROPOSED = "proposed"
    CURRENT = "current"
    UNCLEAR = "unclear"


def read_difference_answer(text: str, current: str, proposed: str) -> DifferenceAnswer:
    says_proposed = names_person(text, proposed)
    says_current = names_person(text, current)
    denied = bool(_DENY.search(text))
    if says_proposed and not says_current and not denied:
        return DifferenceAnswer.PROPOSED
    if says_current and not says_proposed:
        return DifferenceAnswer.CURRENT
    if says_proposed and says_current:
        # "不是张三了，交给李四了": the denial sits by the current value
        before_proposed = text.find(proposed) if not proposed.isascii() else -1
        if denied and 0 <= text.find(current) < before_proposed:
            return DifferenceAnswer.PROPOSED
    return DifferenceAnswer.UNCLEAR
