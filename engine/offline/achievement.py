"""Goal achievement, docs/rules/concerns.md:

    goal 要求"具体时间"，对方给了"大概这两天"   未达成              追问具体日期
    goal 要求"确认"，对方说"好"                 达成                resolve + 回流
    goal 要求"提测"，GitLab 出现 merge 事件     达成（间接证据）    resolve + 回流
    goal 要求"完成 A 和 B"，只完成了 A          未达成              追问 B 的进展
    发起人说"算了不用问了"                      取消                标记 dropped + 不回流

The goal text is analysed into a `GoalSpec` (which of the rows apply); each counterpart's
replies are then checked against it. With several counterparts the goal is met only when
every one of them meets it (docs/rules/concerns.md: "李四确认了，张三和王五还没回" is partial).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import StrEnum

from pydantic import BaseModel, Field

from engine.language.when import PromisedTime, parse_when
from engine.language.words import CANCEL, DONE, NOT_YET
from engine.llm.tasks import LogEntry, Signal
from engine.offline.attitude import NEGATION, VAGUE_WORDS, is_question


class GoalKind(StrEnum):
    SPECIFIC_TIME = "specific_time"
    CONFIRMATION = "confirmation"
    ALL_OF = "all_of"
    GENERIC = "generic"


_TIME_GOAL = re.compile(
    r"具体|时间点|日期|哪天|几号|几点|什么时候|何时|\bwhen\b|\bdate\b|"
    r"\bdeadline\b|\beta\b",
    re.IGNORECASE,
)
_TIME_WORD = re.compile(r"时间|\btime\b", re.IGNORECASE)
_CONFIRM_GOAL = re.compile(
    r"确认|同意|答应|批准|认可|\bconfirm|\bapprov|\bagree|\back\b", re.IGNORECASE
)
_ALL_OF_GOAL = re.compile(
    r"(?:完成|做完|搞定|提交|交付|finish|complete|deliver)\s*(?:了)?\s*(.+)", re.IGNORECASE
)
_PART_SPLIT = re.compile(r"\s*(?:和|与|以及|及|跟|、|,|，|\band\b|&)\s*", re.IGNORECASE)
# Which business events count as indirect evidence for a goal keyword.
EVIDENCE: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = (
    (
        re.compile(r"提测|submit(?:ted)? for (?:test|qa)|ready for qa|\bqa\b", re.IGNORECASE),
        frozenset({"merge", "merge_request.merged", "mr_merged"}),
    ),
    (
        re.compile(r"合并|合入|\bmerge", re.IGNORECASE),
        frozenset({"merge", "merge_request.merged", "mr_merged"}),
    ),
    (re.compile(r"上线|部署|\bdeploy", re.IGNORECASE), frozenset({"deploy", "release"})),
    (re.compile(r"发布|\brelease", re.IGNORECASE), frozenset({"release", "deploy"})),
)
AFFIRM = re.compile(
    r"^\s*(?:好|好的|好滴|好嘞|行|行的|可以|没问题|确认|同意|收到|中|成|对|是的|"
    r"嗯好|嗯嗯好|ok|okay|yes|yep|sure|confirmed|agreed|approved|fine|"
    r"sounds good|👌|👍)",
    re.IGNORECASE,
)
ALL_DONE = re.compile(
    r"都(?:完成|做完|搞定|好)了|全部(?:完成|搞定)|all done|both done|"
    r"everything(?:'s| is) done",
    re.IGNORECASE,
)
_CLAUSES = re.compile(r"[，,。;；!！?？\n]|\.(?:\s|$)|但是|不过|\bbut\b", re.IGNORECASE)


class GoalSpec(BaseModel):
    kind: GoalKind
    parts: list[str] = Field(default_factory=list)
    evidence_kinds: frozenset[str] = frozenset()


def analyse_goal(goal: str) -> GoalSpec:
    evidence: frozenset[str] = frozenset()
    for pattern, kinds in EVIDENCE:
        if pattern.search(goal):
            evidence = evidence | kinds
    if _TIME_GOAL.search(goal) or (_TIME_WORD.search(goal) and not _CONFIRM_GOAL.search(goal)):
        return GoalSpec(kind=GoalKind.SPECIFIC_TIME, evidence_kinds=evidence)
    m = _ALL_OF_GOAL.search(goal)
    if m:
        obj = re.split(r"[。;；!！?？]|的进展|进展", m.group(1))[0]
        parts = [p.strip(" 都全部也") for p in _PART_SPLIT.split(obj) if p.strip(" 都全部也")]
        if len(parts) >= 2:
            return GoalSpec(kind=GoalKind.ALL_OF, parts=parts, evidence_kinds=evidence)
    if _CONFIRM_GOAL.search(goal):
        return GoalSpec(kind=GoalKind.CONFIRMATION, evidence_kinds=evidence)
    return GoalSpec(kind=GoalKind.GENERIC, evidence_kinds=evidence)


def is_cancellation(text: str) -> bool:
    """docs/rules/concerns.md: 发起人说"算了不用问了" — only meaningful for the initiator's own
    lines."""
    return bool(CANCEL.search(text))


def is_affirmation(text: str) -> bool:
    """ "好" confirms; "嗯"/"我看看" do not (they are 模糊回应); a negation never does."""
    return bool(AFFIRM.search(text)) and not NEGATION.search(text) and not is_question(text)


class PersonResult(BaseModel):
    person_id: str
    met: bool
    reason: str
    promised: PromisedTime | None = None
    done_parts: list[str] = Field(default_factory=list)
    missing_parts: list[str] = Field(default_factory=list)
    key_reply: LogEntry | None = None
    evidence: Signal | None = None  # the business event that met the goal indirectly


def _part_status(parts: Sequence[str], replies: Sequence[LogEntry]) -> tuple[list[str], list[str]]:
    done: set[str] = set()
    if any(ALL_DONE.search(r.text) for r in replies):
        return list(parts), []
    for reply in replies:
        for clause in _CLAUSES.split(reply.text):
            lowered = clause.lower()
            for part in parts:
                if part.lower() in lowered and DONE.search(clause) and not NOT_YET.search(clause):
                    done.add(part)
    return [p for p in parts if p in done], [p for p in parts if p not in done]


def evidence_for(
    spec: GoalSpec, signals: Sequence[Signal], person_id: str | None, since: object = None
) -> Signal | None:
    """docs/rules/concerns.md: a merge event is indirect evidence that 提测 happened."""
    for signal in signals:
        if signal.kind.lower() not in spec.evidence_kinds:
            continue
        if signal.person_id is not None and person_id is not None and signal.person_id != person_id:
            continue
        if since is not None and signal.at < since:  # type: ignore[operator]
            continue
        return signal
    return None


def judge_person(
    spec: GoalSpec,
    person_id: str,
    replies: Sequence[LogEntry],
    signals: Sequence[Signal],
    tz: str,
    since: object = None,
) -> PersonResult:
    """Whether this counterpart's replies (all of them, oldest first) meet the goal."""
    signal = evidence_for(spec, signals, person_id, since)
    last = replies[-1] if replies else None
    if signal is not None:
        return PersonResult(
            person_id=person_id,
            met=True,
            key_reply=last,
            evidence=signal,
            reason=f"indirect evidence: {signal.source or 'signal'} "
            f"{signal.kind} {signal.detail}".strip(),
        )
    if not replies:
        return PersonResult(person_id=person_id, met=False, reason="no reply")
    if spec.kind is GoalKind.SPECIFIC_TIME:
        vague: PromisedTime | None = None
        for reply in reversed(replies):
            found = parse_when(reply.text, reply.ts, tz)
            if found is None or NEGATION.search(reply.text) or is_question(reply.text):
                continue
            if found.specific:
                return PersonResult(
                    person_id=person_id,
                    met=True,
                    promised=found,
                    key_reply=reply,
                    reason=f"specific time: {found.text}",
                )
            vague = vague or found
        reason = f"only a vague time: {vague.text}" if vague else "no time given"
        return PersonResult(
            person_id=person_id, met=False, promised=vague, key_reply=last, reason=reason
        )
    if spec.kind is GoalKind.ALL_OF:
        done, missing = _part_status(spec.parts, replies)
        return PersonResult(
            person_id=person_id,
            met=not missing,
            done_parts=done,
            missing_parts=missing,
            key_reply=last,
            reason=f"done: {done or '-'}; missing: {missing or '-'}",
        )
    if spec.kind is GoalKind.CONFIRMATION:
        for reply in reversed(replies):
            if is_affirmation(reply.text):
                return PersonResult(
                    person_id=person_id,
                    met=True,
                    key_reply=reply,
                    reason=f"confirmed: {reply.text}",
                )
        return PersonResult(
            person_id=person_id, met=False, key_reply=last, reason="no confirmation"
        )
    for reply in reversed(replies):
        if (
            DONE.search(reply.text)
            and not NOT_YET.search(reply.text)
            and not VAGUE_WORDS.fullmatch(reply.text.strip())
        ):
            return PersonResult(
                person_id=person_id,
                met=True,
                key_reply=reply,
                reason=f"reported done: {reply.text}",
            )
    return PersonResult(person_id=person_id, met=False, key_reply=last, reason="not reported done")
