"""How the concern engine words what it sends to people (docs/rules/concerns.md).

Every message to a person reads as a person would write it, in the configured locale (zh by
default, en available), and never carries an internal code, a model cue or the raw goal
sentence. The goal is the loop's completion condition ("拿到张三的具体提测时间点"), not
something to paste into a chat; what a counterpart is asked comes from the request itself:

- `the_ask(concern)`: the question in the initiator's own words, taken from the source detail
  ("帮我问一下张三李四，v2.0 什么时候能提测" → "v2.0 什么时候能提测"), else from the title
  ("联系张三确认提测时间" → "确认提测时间");
- `counterpart_message`: the initial contact ("你好，老板想了解一下 v2.0 什么时候能提测？"),
  a normal follow-up, or a softer one for someone who said "别催了" (语气变柔);
- `limit_notice` / `silence_notice` / `stuck_notice`: what the initiator is told when the
  follow-up limit escalates or drops the concern (docs/rules/concerns.md) or the loop escalates.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.concern.model import Concern

_DELEGATE = re.compile(
    r"^\s*(?:请|麻烦)?(?:你)?(?:帮我|替我|帮忙|帮)?(?:再)?"
    r"(?:问一下|问一问|问问|问下|联系一下|联系|找一下|找|跟进一下|跟进|跟一下|"
    r"催一下|催催|提醒一下|提醒|问)\s*"
)
_CONNECTOR = re.compile(r"^\s*(?:和|与|跟|及|以及|、|,|，|and\b)\s*")
_LEAD_PUNCT = re.compile(r"^[\s,，:：、;；]+")
_TAIL_PUNCT = re.compile(r"[\s。.!！?？~～]+$")
_QUESTION = re.compile(
    r"什么|何时|几|吗|哪|怎么|多少|是否|能不能|可不可以|有没有|是不是|了没|没有$|还是|"
    r"\bwhen\b|\bwhat\b|\bhow\b|\bwhich\b|\bwhether\b|\?|？",
    re.IGNORECASE,
)

TEMPLATES: dict[str, dict[str, str]] = {
    "zh": {
        "initial_q": "你好，{who}想了解一下{ask}？",
        "direct_q": "{name}，{ask}？",
        "initial_confirm": "你好，{who}想跟你确认一下{topic}。",
        "initial_topic": "你好，{who}想了解一下{ask}。",
        "normal_q": "再跟你确认一下，{ask}？方便的时候回我一下。",
        "normal_topic": "跟进一下{ask}的事，方便的时候回我一下。",
        "soft_q": "不着急，你忙完了告诉我一声就行：{ask}？",
        "soft_topic": "不着急，{ask}有准信了告诉我一声就行。",
        "me": "我",
        "limit_escalate": "追问了{names}{n}次还没回复，「{title}」需要你出面处理一下。",
        "limit_drop": "追问了{names}{n}次都没回复，「{title}」我先不跟了，有需要再叫我。",
        "silence": (
            "{names}连续{n}次没回复，也没有别的渠道能联系上，「{title}」需要你出面处理一下。"
        ),
        "stuck": "「{title}」我这边推进不下去了，需要你出面处理一下。",
        "drop_reason": "追问{n}次未回复，不再跟进",
        "escalate_reason": "追问{n}次未回复，需要发起人出面",
        "silence_reason": "{names}连续{n}次未回复且无其他渠道",
    },
    "en": {
        "initial_q": "Hi, {who} would like to know: {ask}?",
        "direct_q": "{name}, {ask}?",
        "initial_confirm": "Hi, {who} would like to confirm {topic} with you.",
        "initial_topic": "Hi, {who} would like to know about {ask}.",
        "normal_q": "Just following up: {ask}? Let me know when you can.",
        "normal_topic": "Just following up on {ask}; let me know when you can.",
        "soft_q": "No rush — whenever you're done, just let me know: {ask}?",
        "soft_topic": "No rush — whenever you're done, just let me know about {ask}.",
        "me": "I",
        "limit_escalate": (
            '{names} still hasn\'t replied after {n} follow-ups; "{title}" needs you to step in.'
        ),
        "limit_drop": (
            "{names} didn't reply after {n} follow-ups, so I've stopped following up on "
            '"{title}". Tell me if you still need it.'
        ),
        "silence": (
            "{names} hasn't replied {n} times in a row and can't be reached on another "
            'channel; "{title}" needs you to step in.'
        ),
        "stuck": 'I can\'t move "{title}" forward on my own; it needs you to step in.',
        "drop_reason": "no reply after {n} follow-ups; stopped",
        "escalate_reason": "no reply after {n} follow-ups; the initiator must step in",
        "silence_reason": "{names}: {n} follow-ups unanswered and no other channel",
    },
}


def templates(locale: str) -> dict[str, str]:
    return TEMPLATES.get(locale, TEMPLATES["zh"])


def join_names(names: Sequence[str], locale: str = "zh") -> str:
    names = list(names)
    if len(names) <= 1:
        return "".join(names)
    if locale == "en":
        return ", ".join(names[:-1]) + " and " + names[-1]
    return "、".join(names[:-1]) + "和" + names[-1]


def _strip_names(text: str, names: Sequence[str]) -> str:
    """Drop the counterparts' names (and connectors between them) from the front."""
    changed = True
    while changed:
        changed = False
        text = _CONNECTOR.sub("", text)
        for name in sorted(names, key=len, reverse=True):
            if name and text.startswith(name):
                text = text[len(name) :]
                changed = True
    return text


def _clean(raw: str, names: Sequence[str]) -> str:
    rest = _DELEGATE.sub("", raw, count=1)
    rest = _strip_names(rest, names)
    rest = _LEAD_PUNCT.sub("", rest)
    return _TAIL_PUNCT.sub("", rest).strip()


def ask_from(request: str, title: str, names: Sequence[str]) -> str:
    """The question in the initiator's words: the request, else the title, cleaned of the
    delegating verb and the counterparts' names ("帮我问问张三…" → "…")."""
    for raw in (request, title):
        ask = _clean(raw or "", names)
        if ask:
            return ask
    return _TAIL_PUNCT.sub("", title).strip()


def the_ask(concern: Concern) -> str:
    """What the counterparts are asked, in the initiator's words (never the goal sentence)."""
    if concern.agenda_role == "signal" and concern.source.detail:
        return _TAIL_PUNCT.sub("", concern.source.detail).strip()  # the agenda's own question
    names = [p.display_name for p in concern.people]
    return ask_from(concern.source.detail, concern.title, names)


def spaced(text: str) -> str:
    """A space before Latin text after Chinese, as people type it ("了解一下 v2.0 …")."""
    return " " + text if text[:1].isascii() and text[:1].isalnum() else text


def is_question(ask: str) -> bool:
    return bool(_QUESTION.search(ask))


def counterpart_message(concern: Concern, kind: str, locale: str = "zh") -> str:
    """`kind`: "initial", "normal" or "soft" (docs/rules/concerns.md)."""
    t = templates(locale)
    ask = the_ask(concern)
    ini = concern.initiator
    who = ini.name if ini is not None and ini.name else t["me"]
    zh = locale != "en"
    shown = spaced(ask) if zh else ask
    asked = concern.counterparts[0].display_name if concern.counterparts else ""
    if kind == "initial" and concern.agenda_role == "signal" and is_question(ask) and asked:
        # the agenda's own question names the thing: asked as it is ("李四，前端部分周四提测了吗？")
        return t["direct_q"].format(name=asked, ask=ask)
    if kind == "initial":
        if is_question(ask):
            return t["initial_q"].format(who=who, ask=shown)
        if ask.startswith("确认") and zh:
            return t["initial_confirm"].format(who=who, topic=ask[2:])
        return t["initial_topic"].format(who=who, ask=shown)
    suffix = "q" if is_question(ask) else "topic"
    key = f"{'soft' if kind == 'soft' else 'normal'}_{suffix}"
    if zh:
        # after a comma or colon no leading space; "确认提测时间" reads as its topic
        shown = ask[2:] if suffix == "topic" and ask.startswith("确认") else ask
        shown = spaced(shown) if key == "normal_topic" else shown
    return t[key].format(ask=shown)


def limit_notice(
    concern: Concern, names: Sequence[str], n: int, *, escalate: bool, locale: str = "zh"
) -> str:
    t = templates(locale)
    key = "limit_escalate" if escalate else "limit_drop"
    return t[key].format(names=join_names(names, locale) or concern.title, n=n, title=concern.title)


def silence_notice(concern: Concern, names: Sequence[str], n: int, locale: str = "zh") -> str:
    t = templates(locale)
    return t["silence"].format(names=join_names(names, locale), n=n, title=concern.title)


def stuck_notice(concern: Concern, locale: str = "zh") -> str:
    return templates(locale)["stuck"].format(title=concern.title)


def limit_reason(n: int, *, escalate: bool, locale: str = "zh") -> str:
    return templates(locale)["escalate_reason" if escalate else "drop_reason"].format(n=n)


def silence_reason(names: Sequence[str], n: int, locale: str = "zh") -> str:
    return templates(locale)["silence_reason"].format(names=join_names(names, locale), n=n)
