"""The identity of a passage: what makes a re-read fact the same fact (docs/rules/once.md).

A review may read the same words many times: a manual review over an interval an earlier
run covered, a heartbeat over a new version that repeats the old lines, a continued run.
A fact stands on a passage, and a passage is named by what a reader sees, never by where
it sits in one version:

- the source id;
- the message's speaker and the time its header states (none when it states none);
- the cited words, whitespace folded;
- which occurrence of those words, by that speaker at that time, it is in the source —
  "好的" said twice is two passages, the same line in v1 and v2 is one.

Offsets and the source version are not part of it: v2 that appends a line keeps every old
passage. The same passage maps to the same event and the same signal in every result of the
scope (engine/story/identity.py `passage_event_id`, `engine.signal.model.Passage.key`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from datetime import UTC

from engine.review.manifest import LeafBatch
from engine.review.outputs import LeafOutput
from engine.story.conversation import message_at, messages

FactKey = tuple[int, int]  # (leaf batch index, fact index in its output)


def passage_key(source_id: str, text: str, start: int, end: int) -> str | None:
    """The passage [start, end) of `text` (a version of `source_id`) names; None when the
    range cites nothing in it."""
    if not (0 <= start < end <= len(text)):
        return None
    words = text[start:end]
    folded = " ".join(words.split())
    if not folded:
        return None
    found = messages(text)

    def who(pos: int) -> tuple[str, str]:
        m = message_at(found, pos)
        if m is None:
            return "", ""
        at = m.at.astimezone(UTC).isoformat() if m.at is not None else ""
        return m.speaker or "", at

    mine = who(start)
    nth = 0
    pos = text.find(words)
    while 0 <= pos < start:
        if who(pos) == mine:
            nth += 1
        pos = text.find(words, pos + 1)
    raw = "\x1f".join([source_id, mine[0], mine[1], folded, str(nth)])
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:32]


def fact_passages(
    leaves: Sequence[tuple[LeafBatch, LeafOutput]], texts: Mapping[tuple[str, str], str]
) -> dict[FactKey, str]:
    """The passage each leaf fact stands on: its first cited range (its batch's first segment
    when it cites none), read in the cited version's text. A fact whose text is not at hand
    has none (it is then identified as before: by its result)."""
    out: dict[FactKey, str] = {}
    for batch, output in leaves:
        for j, fact in enumerate(output.facts):
            refs = list(fact.refs) or list(batch.segments)
            if not refs:
                continue
            first = refs[0]
            text = texts.get((first.source_id, first.version))
            if text is None:
                continue
            key = passage_key(first.source_id, text, first.start, first.end)
            if key is not None:
                out[(batch.index, j)] = key
    return out
