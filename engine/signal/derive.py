"""Facts and differences a review found -> signal drafts (/ 风险抬升; docs/rules/loop.md).

Which facts become signals: commitment, blocker, risk and question (decision, done, plan and
statement do not), and every pending difference against confirmed or person-edited knowledge.

- A commitment carries who promised (the message's speaker), what (the sentence without the
  speaker, the time phrase and the modal: "前端部分周四能提测" -> "前端部分提测") and the due
  time, resolved against the message time in the scope's zone (`engine/model/offline/when.py`:
  周四, 明天, 下周一, 3月5日, 15:00, tomorrow, next Friday). A phrase that names no day
  (这两天, soon, 下周) leaves `due` None: the agenda never guesses a date.
- A blocker or risk carries who raised it and what it blocks (the words before 卡在/阻塞/
  blocked by/会影响).
- A difference carries its target, field, confirmed value and proposed value.
"""

from __future__ import annotations

import re
from datetime import datetime

from engine.language.when import parse_when
from engine.signal.model import Passage, SignalDraft, SignalKind

SIGNAL_FACT_KINDS = {
    "commitment": SignalKind.COMMITMENT,
    "blocker": SignalKind.BLOCKER,
    "risk": SignalKind.RISK,
    "question": SignalKind.QUESTION,
}

_SPEAKER = re.compile(r"^([^\s:：]{1,40})[:：]\s*")
# Time phrases removed from a promise's `what` (their value goes to `due`).
_TIME_PHRASE = re.compile(
    r"(?:(?:这|本|下下|下)?(?:个)?(?:周|星期|礼拜)[一二三四五六日天1-7])|"
    r"(?:\d{1,2}|[一二三四五六七八九十]{1,3})月(?:\d{1,2}|[一二三四五六七八九十]{1,3})[日号]|"
    r"(?:\d{1,2}|[一二三四五六七八九十]{1,3})[日号](?=[前之以]?)|"
    r"今天|今晚|明天|明早|明晚|后天|大后天|"
    r"(?:早上|上午|中午|下午|傍晚|晚上|下班前)?"
    r"(?:\d{1,2}|[一二两三四五六七八九十]{1,3})[点:：](?:\d{1,2}|半|一刻)?(?:分)?|"
    r"(?:早上|上午|中午|下午|傍晚|晚上|下班前)|"
    r"\b(?:by|on|before|until)?\s*(?:next|this)?\s*"
    r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b|"
    r"\b(?:by|before)?\s*(?:tomorrow|today|tonight|eod|end of day)\b|"
    r"\b(?:by|at|before)?\s*\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)",
    re.IGNORECASE,
)
_ZH_MODAL = re.compile(
    r"^(?:之前|以前|之内|以内|前|内)?(?:应该|估计|大概|争取|可以|能够|能|会|要|将|就|再)*"
)
_ZH_PRONOUN = re.compile(r"^(?:我们|我|咱们)")
_EN_LEAD = re.compile(
    r"^(?:i|we)\s+(?:will|'ll|can|shall|should|am going to|are going to)\s+|"
    r"^(?:will|can|shall)\s+",
    re.IGNORECASE,
)
_BLOCKS = re.compile(
    r"(?P<what>.+?)(?:卡在|被.{1,20}?阻塞|阻塞在|受阻于|会影响|影响到|"
    r"\s+is blocked by|\s+are blocked by|\s+blocked by|\s+is stuck on|\s+puts at risk)",
    re.IGNORECASE,
)


def split_speaker(text: str) -> tuple[str, str]:
    """("张三", "v2.0 今天提测") from "张三：v2.0 今天提测"; ("", text) without a speaker."""
    m = _SPEAKER.match(text)
    if m and not re.search(r"\d$", m.group(1)):  # "15:00" is a time, not a speaker
        return m.group(1), text[m.end() :].strip()
    return "", text.strip()


def _tidy(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip(" ，,。.；;!！了的")


def promise_parts(sentence: str) -> tuple[str, str]:
    """(subject, predicate) of a promise without its time phrase and modal.

    "前端部分周四能提测" -> ("前端部分", "提测"); "我明天把文档发给你" -> ("", "把文档发给你");
    "I will send the API doc by Friday" -> ("", "send the API doc").
    """
    m = _TIME_PHRASE.search(sentence)
    if m is None:
        before, after = "", sentence
    else:
        before, after = sentence[: m.start()], sentence[m.end() :]
    before, after = _tidy(before), _tidy(after)
    after = _ZH_MODAL.sub("", after).strip()
    before = _ZH_PRONOUN.sub("", before).strip()
    before = _EN_LEAD.sub("", before).strip()
    if not after:  # the time came last: "I will send the doc by Friday"
        before, after = "", before
    after = _EN_LEAD.sub("", after).strip()
    return _tidy(before), _tidy(after)


def promise_what(sentence: str) -> str:
    subject, predicate = promise_parts(sentence)
    joiner = " " if subject.isascii() and predicate.isascii() and subject else ""
    return f"{subject}{joiner}{predicate}".strip()


def kept_title(what_sentence: str, who: str) -> str:
    """The event a kept promise becomes: "前端部分已提测"; "Alice: send the API doc (done)"."""
    subject, predicate = promise_parts(what_sentence)
    if predicate.isascii():
        return f"{who or subject}: {predicate} (done)".strip(": ")
    return f"{subject or who}已{predicate}"


def time_phrase(text: str) -> str:
    """The time phrase a sentence names ("推迟到周五" -> "周五"), "" if none."""
    m = _TIME_PHRASE.search(text)
    return m.group(0).strip() if m else ""


def blocked_thing(sentence: str) -> str:
    m = _BLOCKS.match(sentence)
    return _tidy(m.group("what")) if m else ""


def from_fact(
    kind: str,
    text: str,
    passage: Passage,
    said_at: datetime | None,
    tz: str,
    *,
    who: str = "",
    who_entity_id: str | None = None,
) -> SignalDraft | None:
    """The signal a fact of `kind` becomes, or None for kinds that are not signals."""
    signal_kind = SIGNAL_FACT_KINDS.get(kind)
    if signal_kind is None:
        return None
    speaker, sentence = split_speaker(text)
    who = who or speaker
    fields: dict[str, object] = {}
    if signal_kind is SignalKind.COMMITMENT:
        fields["what"] = promise_what(sentence)
        promised = parse_when(sentence, said_at, tz) if said_at is not None else None
        if promised is not None:
            fields["due_text"] = promised.text
            if promised.specific and promised.at is not None:
                fields["due"] = promised.at
    elif signal_kind in (SignalKind.BLOCKER, SignalKind.RISK):
        fields["what"] = sentence
        fields["blocks"] = blocked_thing(sentence)
    else:
        fields["what"] = sentence
    return SignalDraft(
        kind=signal_kind,
        text=text,
        passage=passage,
        said_at=said_at,
        who=who,
        who_entity_id=who_entity_id,
        **fields,  # type: ignore[arg-type]
    )


def from_difference(
    *,
    target_kind: str,
    target_id: str,
    field: str,
    confirmed_value: str,
    proposed_value: str,
    text: str,
    passage: Passage,
    said_at: datetime | None,
    who: str = "",
    suggestion_id: str = "",
) -> SignalDraft:
    """A pending difference against confirmed knowledge as a signal (docs/rules/story-graph.md)."""
    return SignalDraft(
        kind=SignalKind.DIFFERENCE,
        text=text,
        passage=passage,
        said_at=said_at,
        who=who,
        what=f"{field}: {confirmed_value} -> {proposed_value}",
        target_kind=target_kind,
        target_id=target_id,
        field=field,
        confirmed_value=confirmed_value,
        proposed_value=proposed_value,
        suggestion_id=suggestion_id,
    )
