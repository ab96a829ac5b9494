"""What the agenda writes to people about a signal (issue 28): Chinese by default, English
with LOCALE=en."""

from __future__ import annotations

from engine.signal.model import SignalKind

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
