"""What the agenda writes to people about a signal, and what a signal's concern follows up
as its model reads it: Chinese by default, English with LOCALE=en."""

from __future__ import annotations

from typing import Literal

from engine.llm.reading import Subject
from engine.signal.derive import split_speaker
from engine.signal.model import SignalKind
from engine.signal.stored import Signal

_KINDS = {
    "zh": {
        SignalKind.COMMITMENT: "承诺",
        SignalKind.BLOCKER: "阻塞",
        SignalKind.RISK: "风险",
        SignalKind.QUESTION: "问题",
        SignalKind.DIFFERENCE: "待核对差异",
    },
    "en": {k: str(k) for k in SignalKind},
}
_REPORT = {
    "zh": "议程报告：{who}提到一项{kind}：{text}",
    "en": "Agenda report: {who} raised a {kind}: {text}",
}
_NOBODY = {"zh": "对话中", "en": "someone"}


def owner_report_text(kind: SignalKind, who: str, text: str, locale: str = "zh") -> str:
    """The message the owner receives for a blocker or risk the agenda reports."""
    lang = locale if locale in _REPORT else "zh"
    return _REPORT[lang].format(who=who or _NOBODY[lang], kind=_KINDS[lang][kind], text=text)


_SUBJECT_KINDS: dict[SignalKind, Literal["commitment", "blocker", "risk"]] = {
    SignalKind.COMMITMENT: "commitment",
    SignalKind.BLOCKER: "blocker",
    SignalKind.RISK: "risk",
}


def subject_of(signal: Signal) -> Subject:
    """What a signal's concern follows up, as the loop's model reads it (the reply is read
    against it, `engine/llm/reading.py`)."""
    if signal.kind is SignalKind.DIFFERENCE:
        return Subject(
            kind="difference",
            text=signal.text,
            object=signal.subject,
            field=signal.field,
            current=signal.confirmed_value,
            proposed=signal.proposed_value,
        )
    return Subject(
        kind=_SUBJECT_KINDS.get(signal.kind, "question"),
        text=signal.text,
        who=signal.who,
        what=signal.what or signal.blocks or split_speaker(signal.text)[1],
        due=signal.due,
        due_text=signal.due_text,
    )
