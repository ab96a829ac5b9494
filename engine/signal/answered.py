"""An open question answered later in its conversation (docs/rules/reviews.md).

A question is a signal only while it stays unanswered in the conversation. When a later
review reads the lines of the same source in which the person asked speaks after the
question, the question's signal is answered: a new version with status ANSWERED, recorded
by the run that read the answer and citing the answer's line.

Precision before recall: the person asked is the one the question names (a speaker of the
conversation it names, an @mention, or the name it opens with: "李四，…"); a question that
names nobody asks the one other speaker of the conversation, and with several others it asks
nobody this rule can tell. The asker speaking again is no answer, nor is anyone else.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from engine.review.types import Segment
from engine.signal.derive import split_speaker
from engine.signal.model import SignalKind, SignalStatus
from engine.signal.stored import Signal
from engine.story.conversation import Message, messages
from engine.story.corrections import next_version
from engine.story.models import Actor

TEXT = {
    "zh": "{name}在对话中答复了这个问题：{text}",
    "en": "{name} answered the question in the conversation: {text}",
}


@dataclass(frozen=True)
class Answer:
    """The line that answers an open question: where it stands and who said it."""

    signal: Signal
    source_version: str
    locator: str
    speaker: str
    text: str
    at: datetime | None


# a question's addressee as written: "李四，…" / "Li, …" opening it, or an @mention
_VOCATIVE = re.compile(r"^@?([\u4e00-\u9fff]{2,4}|[A-Za-z][\w'.-]{0,30})\s*[，,:：]")
_MENTION = re.compile(r"@([^\s@，,。.:：!?！？;；]{1,30})")


def _asked(asker: str, sentence: str, speakers: Sequence[str]) -> set[str]:
    """The people a question asks: those it names (a speaker of the conversation it names,
    an @mention, the name it opens with), else the one other speaker of the conversation."""
    others = [s for s in dict.fromkeys(speakers) if s != asker]
    named = {s for s in others if s in sentence}
    named.update(_MENTION.findall(sentence))
    if (m := _VOCATIVE.match(sentence.strip())) is not None:
        named.add(m.group(1))
    named.discard(asker)
    if named:
        return named
    return set(others) if len(others) == 1 else set()


def _question_at(found: Sequence[Message], text: str, asker: str, sentence: str) -> int | None:
    """The index of the message that asks the question: the asker's message that holds the
    sentence (the first such, as the passage's words are read)."""
    for i, m in enumerate(found):
        if m.speaker == asker and sentence in text[m.body : m.end]:
            return i
    return None


def answer_of(
    signal: Signal, texts: Mapping[tuple[str, str], str], read: Sequence[Segment]
) -> Answer | None:
    """The first line of the segments this review read in which the person the open
    question asks speaks after it, in the same source; None when there is none."""
    if signal.kind is not SignalKind.QUESTION or signal.status is not SignalStatus.OPEN:
        return None
    speaker, sentence = split_speaker(signal.text)
    asker = signal.who or speaker
    if not asker or not sentence:
        return None
    for version in dict.fromkeys(s.version for s in read if s.source_id == signal.source_id):
        text = texts.get((signal.source_id, version))
        if not text:
            continue
        found = messages(text)
        at = _question_at(found, text, asker, sentence)
        if at is None:
            continue
        asked = _asked(asker, sentence, [m.speaker for m in found if m.speaker])
        spans = [
            (s.start, s.end)
            for s in read
            if (s.source_id, s.version) == (signal.source_id, version)
        ]
        for m in found[at + 1 :]:
            body = text[m.body : m.end].strip()
            if m.speaker not in asked or not body:
                continue
            if not any(start <= m.start < end for start, end in spans):
                continue  # said after the question, but not in the lines this review read
            end = m.body + len(text[m.body : m.end].rstrip())
            return Answer(signal, version, f"chars:{m.start}-{end}", m.speaker, body, m.at)
    return None


def answered_questions(
    open_questions: Sequence[Signal],
    texts: Mapping[tuple[str, str], str],
    read: Sequence[Segment],
    *,
    run_id: str,
    result_id: str,
    now: datetime,
    locale: str = "zh",
) -> list[Signal]:
    """The new versions of the open questions the lines this review read answer: status
    ANSWERED, by the run, citing the answer's line (its source version and locator)."""
    out = []
    template = TEXT.get(locale, TEXT["zh"])
    for signal in open_questions:
        answer = answer_of(signal, texts, read)
        if answer is None:
            continue
        out.append(
            next_version(
                signal,
                max(now, signal.recorded_at),
                Actor.run(run_id),
                template.format(name=answer.speaker, text=answer.text),
                status=SignalStatus.ANSWERED,
                source_version=answer.source_version,
                locator=answer.locator,
                via_result=result_id,
            )
        )
    return out
