"""A plain extractor for review text: sentences -> facts, surface patterns -> entities.

Used by supervision leaves (seed 004) when no model endpoint is configured, so reviews run
offline. It is deliberately simple and predictable:

Sentences: split on 。！？!?；; and line breaks, and on ". " (a full stop followed by a space
or the end), keeping character offsets into the original text so references point at the
source rather than copying it (seed 004: Reference points at the original).

Entities (kind): names the caller already knows (`known_entities`, exact match) and
- person: only names there are grounds for — a message's speaker, the names the caller
  knows to be people (`people`: the speakers of the other messages of the batch), @mentions,
  and English capitalised words whose first word is not a common sentence opener, pronoun,
  weekday or month (a fixed list). No Chinese name is guessed from the text around it: a
  surname character before a verb is as often a word ("方案我同意" is no one), so an unknown
  name in running text stays unnamed;
- version: v2.0, V1.2.3;  issue: #123, !42 (merge request), ABC-123;  url: http(s)://…;
- term: text in 「」 “” 《》 or "double quotes".
An entity is one per distinct name; its `local_id` (e1, e2 …) is valid only in this answer.

Message headers: a conversation pushed through `upsertSource` opens each message with
"[ISO time] speaker: " (engine/review/spans.py). The header is not part of any fact: a
fact's span starts after it, its text reads "speaker：sentence" (never the raw time), the
speaker is a person entity of every fact of that message, and relative times are resolved
against the message's own time.

Fact kinds, first match wins: question (ends with ?/吗), blocker (卡在/阻塞/blocked),
risk (风险/延期/来不及/risk/delay), decision (决定/定了/decided/agreed), done (完成/搞定/
done …, not 还没), commitment (a resolvable time + a delivery verb), plan (计划/打算/plan
to), else statement. A fact's `at` is the time its sentence names, resolved against the
document time (engine/language/when.py).

Relations: who is responsible for what (engine/signal/responsibility.py): "张三负责支付模块"
gives the person 张三 and the entity 支付模块 (a statement of responsibility is grounds for
the name) and a relation 张三 -[responsible_for]-> 支付模块; "支付模块改由李四负责" (交给…负责,
…接手, "Li Si now owns the payment module") gives 李四 -[responsible_for]-> 支付模块 marked as
a change. The story graph decides what a change does to a confirmed holder (a pending
difference, never an overwrite: engine/story/corrections.py).

Not recognised: coreference (他/她/it), Chinese names that are neither a speaker nor known
nor the holder in a responsibility sentence, nested or negated clauses beyond 还没/not yet,
organisation names, relations other than responsibility.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from engine.language.when import parse_when
from engine.language.words import DONE, NOT_YET
from engine.llm.tasks import (
    EntityKind,
    ExtractedEntity,
    ExtractedFact,
    ExtractedRelation,
    Extraction,
    FactKind,
    ReviewDocument,
    Span,
)
from engine.offline.attitude import is_question
from engine.signal.responsibility import ResponsibilityClaim, find_responsibility
from engine.story.models import RESPONSIBLE_FOR

_HEADER = re.compile(
    r"^\[(\d{4}-\d{2}-\d{2}[T ][0-9:.]+(?:Z|[+-]\d{2}:?\d{2})?)\][ \t]*"
    r"(?:([^\s:：\[\]][^:：\n\[\]]{0,39}?)[ \t]*[:：])?[ \t]*",
    re.MULTILINE,
)
_SENTENCE_END = re.compile(r"[。！？!?；;\n]+|\.(?=\s|$)")
_MENTION = re.compile(r"@([\w\u4e00-\u9fa5.-]+)")
_VERSION = re.compile(r"\b[vV]\d+(?:\.\d+)+\b")
_ISSUE = re.compile(r"(?<![\w#!])[#!]\d+\b|\b[A-Z][A-Z0-9]+-\d+\b")
_URL = re.compile(r"https?://[^\s，。）)]+")
_QUOTED = re.compile(r"「([^」]+)」|“([^”]+)”|《([^》]+)》|\"([^\"]+)\"")
_CAPITALISED = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*\b")
# fmt: off
_NOT_NAMES = {
    "I", "We", "The", "A", "An", "It", "This", "That", "They", "He", "She", "You", "Our",
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December", "Today", "Tomorrow", "Yes", "No", "Ok", "Okay",
    "Is", "Are", "Do", "Does", "Did", "Can", "Could", "Will", "Would", "Should", "Please",
    "Let", "If", "When", "What", "Why", "How", "Where", "Who", "But", "And", "So", "Also",
    "Then", "There", "Here", "Hi", "Hello", "Thanks", "Sure", "Maybe", "Yesterday", "Next",
    "Last", "After", "Before", "Tonight", "Note", "See", "Done", "All", "Both", "My", "Your",
    "His", "Her", "Their", "Its", "These", "Those", "Some", "Any", "For", "In", "On", "At",
    "To", "From", "With", "By", "Of", "As", "Not", "Just", "Still", "Already", "Now",
}
# fmt: on
_FACT_RULES: tuple[tuple[FactKind, re.Pattern[str]], ...] = (
    ("blocker", re.compile(r"卡在|卡住|阻塞|被.*挡住|\bblocked\b|\bstuck\b", re.IGNORECASE)),
    ("risk", re.compile(r"风险|延期|来不及|赶不上|\brisk|\bdelay", re.IGNORECASE)),
    ("decision", re.compile(r"决定|定了|确定|拍板|\bdecided\b|\bagreed\b", re.IGNORECASE)),
)
_DELIVERY = re.compile(
    r"给|交|提测|提交|完成|发|上线|\bdeliver|\bsend\b|\bship|\bfinish|\bwill\b|"
    r"'ll\b",
    re.IGNORECASE,
)
_PLAN = re.compile(r"计划|打算|准备|\bplan(?:ning)? to\b|\bgoing to\b", re.IGNORECASE)


def sentences(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each non-empty sentence, whitespace trimmed."""
    start = 0
    for m in _SENTENCE_END.finditer(text):
        yield from _trimmed(text, start, m.end())
        start = m.end()
    yield from _trimmed(text, start, len(text))


def _trimmed(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    piece = text[start:end]
    stripped = piece.strip()
    if len(stripped.rstrip("。！？!?；;.")) < 2:
        return
    lead = len(piece) - len(piece.lstrip())
    yield start + lead, start + lead + len(stripped)


@dataclass(frozen=True)
class _Header:
    """A message header "[time] speaker: " at [start, body)."""

    start: int
    body: int
    at: datetime | None
    speaker: str | None
    speaker_span: tuple[int, int] | None


def speakers(text: str) -> list[str]:
    """The speakers of the messages of `text` ("[time] speaker: …"), each once, in order."""
    return list(dict.fromkeys(h.speaker for h in _headers(text) if h.speaker))


def _headers(text: str) -> list[_Header]:
    found = []
    for m in _HEADER.finditer(text):
        try:
            at: datetime | None = datetime.fromisoformat(m.group(1).replace("Z", "+00:00"))
        except ValueError:
            at = None
        speaker = m.group(2).strip() if m.group(2) else None
        span = (m.start(2), m.start(2) + len(speaker)) if speaker else None
        found.append(_Header(m.start(), m.end(), at, speaker, span))
    return found


def _candidates(
    doc: ReviewDocument, headers: list[_Header], claims: list[tuple[int, ResponsibilityClaim]]
) -> Iterator[tuple[str, EntityKind, int, int]]:
    text = doc.text
    speakers = [h.speaker for h in headers if h.speaker is not None]
    people = {n for n in [*doc.people, *speakers] if n}
    for name in dict.fromkeys([*doc.known_entities, *people]):
        kind: EntityKind = "person" if name in people else "other"
        for m in re.finditer(re.escape(name), text):
            yield name, kind, m.start(), m.end()
    for offset, claim in claims:  # a responsibility sentence names its holder and its thing
        ends: tuple[tuple[str, EntityKind], ...] = (
            (claim.person, "person"),
            (claim.target, "other"),
        )
        for name, kind in ends:
            at = text.find(name, offset + claim.start, offset + claim.end)
            if at >= 0:
                yield name, kind, at, at + len(name)
    for h in headers:
        if h.speaker is not None and h.speaker_span is not None:
            yield h.speaker, "person", h.speaker_span[0], h.speaker_span[1]
    for m in _MENTION.finditer(text):
        yield m.group(1), "person", m.start(1), m.end(1)
    for pattern, kind in ((_VERSION, "version"), (_ISSUE, "issue"), (_URL, "url")):
        for m in pattern.finditer(text):
            yield m.group(0), kind, m.start(), m.end()  # type: ignore[misc]
    for m in _QUOTED.finditer(text):
        g = next(i for i in range(1, 5) if m.group(i))
        yield m.group(g), "term", m.start(g), m.end(g)
    for m in _CAPITALISED.finditer(text):
        if m.group(0).split()[0] in _NOT_NAMES:
            continue
        yield m.group(0), "person", m.start(), m.end()


def _entities(
    doc: ReviewDocument, headers: list[_Header], claims: list[tuple[int, ResponsibilityClaim]]
) -> list[ExtractedEntity]:
    by_name: dict[str, ExtractedEntity] = {}
    claimed: list[tuple[int, int]] = []
    for name, kind, start, end in _candidates(doc, headers, claims):
        if any(s <= start and end <= e and (s, e) != (start, end) for s, e in claimed):
            continue  # inside a longer mention already taken (e.g. a known name)
        entity = by_name.get(name)
        if entity is None:
            entity = by_name[name] = ExtractedEntity(
                local_id=f"e{len(by_name) + 1}", name=name, kind=kind
            )
        if all((s.start, s.end) != (start, end) for s in entity.mentions):
            entity.mentions.append(Span(start=start, end=end))
            claimed.append((start, end))
    return list(by_name.values())


def fact_kind(sentence: str, has_time: bool) -> FactKind:
    if is_question(sentence):
        return "question"
    for kind, pattern in _FACT_RULES:
        if pattern.search(sentence):
            return kind
    if DONE.search(sentence) and not NOT_YET.search(sentence):
        return "done"
    if has_time and _DELIVERY.search(sentence):
        return "commitment"
    if _PLAN.search(sentence):
        return "plan"
    return "statement"


def _message(headers: list[_Header], start: int) -> _Header | None:
    """The header of the message the text at `start` belongs to."""
    found = None
    for h in headers:
        if h.start > start:
            break
        found = h
    return found


def _fact_spans(text: str, headers: list[_Header]) -> Iterator[tuple[int, int, _Header | None]]:
    """(start, end, message header) of each sentence that can be a fact (headers excluded)."""
    for start, end in sentences(text):
        header = _message(headers, start)
        if header is not None and start < header.body:
            start = header.body  # the sentence opens a message: its header is not the fact
            if len(text[start:end].strip().rstrip("。！？!?；;.")) < 2:
                continue
        yield start, end, header


def _relations(
    entities: list[ExtractedEntity], claims: list[tuple[int, ResponsibilityClaim]]
) -> list[ExtractedRelation]:
    by_name = {e.name: e.local_id for e in entities}
    found: list[ExtractedRelation] = []
    for offset, claim in claims:
        holder, thing = by_name.get(claim.person), by_name.get(claim.target)
        if holder is None or thing is None:
            continue
        found.append(
            ExtractedRelation(
                from_id=holder,
                to_id=thing,
                type=RESPONSIBLE_FOR,
                span=Span(start=offset + claim.start, end=offset + claim.end),
                change=claim.change,
            )
        )
    return found


def extract(doc: ReviewDocument) -> Extraction:
    headers = _headers(doc.text)
    spans = list(_fact_spans(doc.text, headers))
    claims = [(s, c) for s, e, _ in spans for c in find_responsibility(doc.text[s:e])]
    entities = _entities(doc, headers, claims)
    facts: list[ExtractedFact] = []
    for start, end, header in spans:
        sentence = doc.text[start:end]
        anchor = header.at if header is not None and header.at is not None else doc.ts
        when = parse_when(sentence, anchor, doc.timezone) if anchor is not None else None
        at = when.at if when is not None else None
        speaker = header.speaker if header is not None else None
        ids = [
            e.local_id
            for e in entities
            if (speaker is not None and e.name == speaker)
            or any(start <= m.start and m.end <= end for m in e.mentions)
        ]
        facts.append(
            ExtractedFact(
                local_id=f"f{len(facts) + 1}",
                text=f"{speaker}：{sentence}" if speaker else sentence,
                span=Span(start=start, end=end),
                kind=fact_kind(sentence, at is not None),
                entity_ids=ids,
                at=at,
            )
        )
    return Extraction(
        source_id=doc.source_id,
        facts=facts,
        entities=entities,
        relations=_relations(entities, claims),
    )
