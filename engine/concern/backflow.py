"""Back-flow (回流) when a concern resolves (docs/rules/concerns.md).

Conditions by type (回流条件):

| type              | back-flow?                         | to                 |
|-------------------|------------------------------------|--------------------|
| delegation        | always                             | the initiator      |
| followup          | when it has an initiator           | the initiator      |
| absence_followup  | like followup                      | the initiator      |
| heartbeat         | only high / critical               | the owner (老板)    |
| schedule          | never — results go to `executions` | —                  |

Content (回流内容): the model may add background but never omit the four fields:

```
[回流] {concern.title}
结果：{一句话结论}
关键信息：{对方的核心回复内容}
耗时：{创建到关闭的时间}
```

Channel (回流渠道): the recipient's preferred channel (interaction_policy.preferred_channel,
read from the person context by the shell) when it is reachable, else the originating channel.
When the channel differs from the originating one, `channel_user_id` is left empty and the
shell resolves the address on that channel by `person_id`.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime, timedelta

from engine.concern.effects import Recipient
from engine.concern.model import Concern, ConcernType, Direction, Initiator, Priority
from engine.errors import InvalidInput

LABELS: dict[str, dict[str, str]] = {
    "zh": {"head": "[回流]", "result": "结果：", "key": "关键信息：", "took": "耗时："},
    "en": {
        "head": "[Back-flow]",
        "result": "Result: ",
        "key": "Key information: ",
        "took": "Time taken: ",
    },
}


def _labels(locale: str) -> dict[str, str]:
    return LABELS.get(locale, LABELS["zh"])


def backflow_target(concern: Concern, owner: Recipient | None) -> Recipient | None:
    """Who receives the back-flow of `concern`, or None when this type does not flow back."""
    ini = concern.initiator
    match concern.type:
        case ConcernType.DELEGATION | ConcernType.FOLLOWUP | ConcernType.ABSENCE_FOLLOWUP:
            return initiator_recipient(ini) if ini is not None else None
        case ConcernType.HEARTBEAT:
            if concern.priority in (Priority.HIGH, Priority.CRITICAL):
                return owner
            return None
        case ConcernType.SCHEDULE:
            return None


def initiator_recipient(ini: Initiator) -> Recipient:
    return Recipient(
        name=ini.name,
        channel=ini.channel,
        channel_user_id=ini.channel_user_id,
        person_id=ini.person_id,
    )


def choose_channel(
    originating: str, preferred: str | None, unreachable: Collection[str] = ()
) -> str:
    """Preferred channel if set and reachable; otherwise the originating channel."""
    if preferred and preferred not in unreachable:
        return preferred
    return originating


def route(recipient: Recipient, preferred: str | None, unreachable: Collection[str]) -> Recipient:
    channel = choose_channel(recipient.channel, preferred, unreachable)
    if channel == recipient.channel:
        return recipient
    return recipient.model_copy(update={"channel": channel, "channel_user_id": ""})


def format_duration(delta: timedelta, locale: str = "zh") -> str:
    minutes = max(0, int(delta.total_seconds() // 60))
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    if locale == "en":
        parts = [f"{v}{u}" for v, u in ((days, "d"), (hours, "h"), (mins, "m")) if v]
        return " ".join(parts) or "under 1m"
    parts = [f"{v}{u}" for v, u in ((days, "天"), (hours, "小时"), (mins, "分钟")) if v]
    return "".join(parts) or "不到1分钟"


def key_replies(concern: Concern, locale: str = "zh") -> str:
    """Fallback for 关键信息: each counterpart's latest reply, in log order."""
    latest: dict[str, str] = {}
    names: dict[str, str] = {}
    for entry in concern.conversation_log:
        if entry.direction == Direction.INBOUND and not concern.is_initiator(entry.person_id):
            latest.pop(entry.person_id, None)
            latest[entry.person_id] = entry.text
            names[entry.person_id] = entry.person_name
    sep, colon = ("; ", ": ") if locale == "en" else ("；", "：")
    return sep.join(f"{names[pid]}{colon}{text}" for pid, text in latest.items())


def compose_backflow(
    concern: Concern,
    *,
    conclusion: str,
    key_information: str,
    now: datetime,
    locale: str = "zh",
    note: str = "",
) -> str:
    """The back-flow text with the four mandatory fields, plus the loop's optional note."""
    lab = _labels(locale)
    conclusion = conclusion.strip() or ("Goal met" if locale == "en" else "目标已达成")
    key = key_information.strip() or key_replies(concern, locale) or "—"
    lines = [
        f"{lab['head']} {concern.title}",
        f"{lab['result']}{conclusion}",
        f"{lab['key']}{key}",
        f"{lab['took']}{format_duration(now - concern.created_at, locale)}",
    ]
    if note.strip():
        lines.append(note.strip())
    text = "\n".join(lines)
    validate_backflow(text, concern.title, locale)
    return text


def validate_backflow(text: str, title: str, locale: str = "zh") -> None:
    """`InvalidInput` naming every mandatory field that is missing or empty."""
    lab = _labels(locale)
    lines = [line.strip() for line in text.splitlines()]
    missing: list[str] = []
    if f"{lab['head']} {title}" not in lines:
        missing.append(lab["head"])
    for name in ("result", "key", "took"):
        prefix = lab[name]
        if not any(line.startswith(prefix) and line[len(prefix) :].strip() for line in lines):
            missing.append(prefix.strip())
    if missing:
        raise InvalidInput("back-flow message lacks mandatory fields", missing=missing)
