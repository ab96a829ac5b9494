"""Attitude recognition, docs/rules/concerns.md:

    对方回复              态度判断        追问策略
    "好的，明天给你"       有明确承诺      按承诺时间设 next_action，不提前追问
    "我看看"/"嗯"          模糊回应        按正常间隔追问
    "别催了"/"已经在做了"   抗拒但在进行    间隔翻倍，语气变柔
    完全无回复             无响应          按正常间隔，3 次后考虑换渠道或升级

A reply is read as a whole (all counterpart lines since our last message, joined):
- COMMITTED: a time phrase that resolves to a datetime (engine/language/when.py),
  not negated ("明天给不了") and not asked as a question ("明天可以吗？"). A promise wins
  over resistance ("别催了，明天给你" is a commitment; the resistance is noted in cues).
- RESISTANT_WORKING: 别催/在做了/在弄了/正在/急什么, "stop pushing", "working on it" …
- VAGUE: everything else that is a reply — 我看看, 嗯, 好吧, 尽快, "let me check", a vague
  time (这两天), or a substantive reply without a commitment.
- SILENT: no counterpart line after our last outbound message.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from pydantic import BaseModel, Field

from engine.concern.loop_output import Attitude
from engine.language.when import Precision, PromisedTime, parse_when
from engine.llm.tasks import LogEntry

RESISTANT = re.compile(
    r"别催|不要催|催什么|催啥|别再催|催了|在做了|在弄了|在搞了|在写了|正在做|正在弄|正在搞|"
    r"已经在|在处理了|急什么|急啥|知道了知道了|别问了|"
    r"stop (?:pushing|asking|chasing|bugging|nagging)|don'?t rush|quit (?:asking|nagging)|"
    r"working on it|i'?m on it|already on it|give me (?:some )?time|i know,? i know",
    re.IGNORECASE,
)
VAGUE_WORDS = re.compile(
    r"我看看|看看|看一下|再看|再说|嗯|哦|噢|好吧|尽量|看情况|不确定|不一定|说不准|等等|"
    r"let me (?:check|see|look)|i'?ll see|we'?ll see|not sure|maybe|hmm+|\bok(?:ay)?\b|"
    r"\bsure\b|will try|i'?ll try",
    re.IGNORECASE,
)
NEGATION = re.compile(
    r"不行|不了|不能|没法|没办法|来不及|做不完|给不了|搞不定|不可能|赶不上|不太行|"
    r"can'?t|cannot|won'?t|unable|not (?:be able|going to|possible)|no way",
    re.IGNORECASE,
)
QUESTION = re.compile(
    r"[?？]\s*$|吗\s*[?？]?\s*$|能不能|可不可以|能否|是否可以|行不行|"
    r"\bcan we\b|\bcould we\b|\bis it ok\b",
    re.IGNORECASE,
)


class ReplyReading(BaseModel):
    attitude: Attitude
    promised: PromisedTime | None = None
    cues: list[str] = Field(default_factory=list)


def is_question(text: str) -> bool:
    return bool(QUESTION.search(text.strip()))


def read_reply(text: str, ts: datetime, tz: str) -> ReplyReading:
    """The attitude of one reply (or several joined) written at `ts`."""
    cues: list[str] = []
    resistant = RESISTANT.search(text)
    if resistant:
        cues.append(f"resistant:{resistant.group(0)}")
    negated = NEGATION.search(text)
    if negated:
        cues.append(f"negated:{negated.group(0)}")
    promised = parse_when(text, ts, tz)
    if promised is not None:
        cues.append(f"time:{promised.text}:{promised.precision}")
    question = is_question(text)
    if question:
        cues.append("question")
    if (
        promised is not None
        and promised.at is not None
        and promised.precision is not Precision.VAGUE
        and not negated
        and not question
    ):
        return ReplyReading(attitude=Attitude.COMMITTED, promised=promised, cues=cues)
    if resistant:
        return ReplyReading(attitude=Attitude.RESISTANT_WORKING, promised=promised, cues=cues)
    vague = VAGUE_WORDS.search(text)
    if vague:
        cues.append(f"vague:{vague.group(0)}")
    elif not (promised is not None and promised.precision is Precision.VAGUE):
        cues.append("no-commitment")
    return ReplyReading(attitude=Attitude.VAGUE, promised=promised, cues=cues)


class PersonAttitude(BaseModel):
    person_id: str
    reading: ReplyReading
    replies: list[LogEntry] = Field(default_factory=list)  # since our last message to them
    unanswered: int = 0  # our messages since their last reply


def attitude_of(log: Sequence[LogEntry], person_id: str, tz: str) -> PersonAttitude:
    """docs/rules/concerns.md: judge from the conversation_log what this counterpart's stance is
    now."""
    lines = sorted((e for e in log if e.person_id == person_id), key=lambda e: e.ts)
    last_out = max((i for i, e in enumerate(lines) if e.direction == "outbound"), default=-1)
    recent = [e for e in lines[last_out + 1 :] if e.direction == "inbound"]
    if recent:
        joined = "。".join(e.text for e in recent)
        return PersonAttitude(
            person_id=person_id, replies=recent, reading=read_reply(joined, recent[-1].ts, tz)
        )
    last_in = max((i for i, e in enumerate(lines) if e.direction == "inbound"), default=-1)
    unanswered = sum(1 for e in lines[last_in + 1 :] if e.direction == "outbound")
    if unanswered == 0:
        return PersonAttitude(person_id=person_id, reading=ReplyReading(attitude=Attitude.NONE))
    return PersonAttitude(
        person_id=person_id,
        unanswered=unanswered,
        reading=ReplyReading(attitude=Attitude.SILENT, cues=[f"unanswered:{unanswered}"]),
    )
