"""The one message format of a conversation source (docs/conversations.md).

A conversation is a sequence of messages. Each message opens a line with a header:

    [2026-09-20T10:00:00+08:00] 张三: v2.0 今天提测     (a time, then a speaker)
    张三: v2.0 今天提测                                 (a speaker, ASCII colon)
    张三：v2.0 今天提测                                 (a speaker, full-width colon)

A line without a header continues the message before it; so does an indented line, which
is how a message's own line breaks are written (`render`). The time in brackets is the
time the message was written (a time with no zone reads as UTC); a message without one is
dated when its source version was recorded. The speaker is a person of every fact the
message states; it is never part of a fact's sentence, an entity's name or an event's title.

What reads as a speaker without a time: one to four words before the colon, no sentence
punctuation, not a number or a clock time ("15:00"), not a URL scheme ("https://"). With a
time in brackets the speaker is optional.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from engine.errors import InvalidInput

_TIME = r"\d{4}-\d{2}-\d{2}[T ][0-9:.]+(?:Z|[+-]\d{2}:?\d{2})?"
_NAME = r"[^\s:：\[\]@#*>\-][^:：\n\[\]，。,.!?！？;；()（）\"“”]{0,39}?"
_STAMPED = re.compile(
    rf"^\[(?P<at>{_TIME})\][ \t]*(?:(?P<name>{_NAME})[ \t]*[:：])?[ \t]*", re.MULTILINE
)
_NAMED = re.compile(rf"^(?P<name>{_NAME})[ \t]*(?::(?!//)|：)[ \t]*", re.MULTILINE)
_CLOCK = re.compile(r"^[\d\s.:]+$")
MAX_WORDS = 4


@dataclass(frozen=True)
class Message:
    """A message header at [start, body); the message runs to `end`."""

    start: int
    body: int
    end: int
    at: datetime | None  # the time its header states
    speaker: str | None
    speaker_span: tuple[int, int] | None


def _when(raw: str) -> datetime | None:
    try:
        at = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        return None
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


def is_speaker_name(name: str) -> bool:
    """A header-less line's prefix reads as a speaker's name (see the module's rule)."""
    name = name.strip()
    if not name or _CLOCK.match(name) or len(name.split()) > MAX_WORDS:
        return False
    return not name.lower().startswith(("http", "www"))


def _header_at(text: str, pos: int) -> tuple[int, datetime | None, str | None, int] | None:
    """(body start, time, speaker, speaker start) of a header opening the line at `pos`."""
    m = _STAMPED.match(text, pos)
    if m is not None:
        name = m.group("name")
        speaker = name.strip() if name and name.strip() else None
        start = m.start("name") if speaker else -1
        return m.end(), _when(m.group("at")), speaker, start
    m = _NAMED.match(text, pos)
    if m is not None and is_speaker_name(m.group("name")):
        name = m.group("name")
        lead = len(name) - len(name.lstrip())
        return m.end(), None, name.strip(), m.start("name") + lead
    return None


def messages(text: str) -> list[Message]:
    """The messages of `text`, in order. Text before the first header is no message."""
    heads: list[tuple[int, int, datetime | None, str | None, int]] = []
    pos = 0
    while pos <= len(text):
        header = _header_at(text, pos)
        if header is not None:
            body, at, speaker, sp = header
            heads.append((pos, body, at, speaker, sp))
        nl = text.find("\n", pos)
        if nl < 0:
            break
        pos = nl + 1
    out = []
    for i, (start, body, at, speaker, sp) in enumerate(heads):
        end = heads[i + 1][0] if i + 1 < len(heads) else len(text)
        span = (sp, sp + len(speaker)) if speaker else None
        out.append(Message(start, body, end, at, speaker, span))
    return out


def message_at(found: list[Message], pos: int) -> Message | None:
    """The message the text at `pos` belongs to."""
    hit = None
    for m in found:
        if m.start > pos:
            break
        hit = m
    return hit


def speakers(text: str) -> list[str]:
    """The speakers of the messages of `text`, each once, in order."""
    return list(dict.fromkeys(m.speaker for m in messages(text) if m.speaker))


def said(text: str) -> tuple[str, str]:
    """(speaker, sentence) of a fact's text written "speaker：sentence" or with a copied
    header ("[time] speaker: sentence"); ("", text) when it names no speaker."""
    found = messages(text)
    if not found or found[0].start != 0:
        return "", text.strip()
    head = found[0]
    return head.speaker or "", text[head.body :].strip()


def _bad(index: int, message: str, field: str) -> InvalidInput:
    return InvalidInput(f"message {index}: {message}", index=index, field=field)


def render(items: Sequence[Mapping[str, Any]]) -> str:
    """Structured messages ({speaker, at, text}) as a conversation's text, one header line
    each ("[at] speaker: text", or "speaker: text" without a time), a message's own line
    breaks indented so they continue it. Each message is checked first: text, a speaker
    with a name that reads back as one, a time with a zone; the first bad one is
    INVALID_INPUT naming its index (0-based) and nothing is recorded."""
    lines = []
    for i, item in enumerate(items):
        text = str(item.get("text") or "")
        speaker = str(item.get("speaker") or "").strip()
        if not text.strip():
            raise _bad(i, "a message needs text", "text")
        if not speaker:
            raise _bad(i, "a speaker needs a name", "speaker")
        if re.search(r"[:：\[\]\n]", speaker) or not is_speaker_name(speaker):
            raise _bad(i, f"{speaker!r} cannot be read back as a speaker's name", "speaker")
        at = item.get("at")
        if isinstance(at, str):
            try:
                at = datetime.fromisoformat(at.replace("Z", "+00:00"))
            except ValueError:
                raise _bad(i, "the time is not an ISO 8601 time", "at") from None
        if at is not None and (not isinstance(at, datetime) or at.utcoffset() is None):
            raise _bad(i, "a time needs a zone (e.g. +08:00 or Z)", "at")
        first, *rest = text.strip("\n").split("\n")
        head = f"[{at.isoformat()}] {speaker}: " if at is not None else f"{speaker}: "
        lines.append(head + first.strip())
        lines += [f"  {line}" for line in rest]
    return "\n".join(lines) + "\n"
