"""A plain extractor for review text: sentences -> facts, surface patterns -> entities.

Used by supervision leaves (docs/rules/reviews.md) when no model endpoint is configured, so reviews
run offline. It is deliberately simple and predictable:

Sentences: split on 。！？!?；; and line breaks, and on ". " (a full stop followed by a space
or the end), keeping character offsets into the original text so references point at the
source rather than copying it (Reference points at the original; docs/rules/reviews.md).

Entities (kind): names the caller already knows (`known_entities`, exact match) and
- person: only names there are grounds for — a message's speaker, the names the caller
  knows to be people (`people`: bound and known people, the speakers of the batch),
  @mentions and the holder in a responsibility sentence. No name is guessed from the text
  around it: a capitalised word is as often a common word ("Wow", "Time") and a surname
  character before a verb as often a word ("方案我同意" is no one), so an unknown name in
  running text stays unnamed;
- version: v2.0, V1.2.3;  issue: #123, !42 (merge request), ABC-123;  url: http(s)://…;
- term: text in 「」 “” 《》 (ASCII "double quotes" are as often emphasis: no term).
An entity is one per distinct name; its `local_id` (e1, e2 …) is valid only in this answer.

Message headers: a conversation opens each message with "[ISO time] speaker: ",
"speaker: " or "speaker：" (engine/story/conversation.py). The header is not part of any fact: a
fact's span starts after it, its text reads "speaker：sentence" (never the raw time), the
speaker is a person entity of every fact of that message, and relative times are resolved
against the message's own time.

Which sentences are facts (precision before recall, docs/rules/precision.md): never a
greeting, thanks, acknowledgement or small-talk question (engine/offline/chatter.py);
a question only when it asks someone for something; a plain statement only when it says what
happened (a past day it names, or a subject with a past verb: engine/offline/happened.py),
a time with a delivery verb, states a responsibility, names a known entity,
a version, an issue or a url, asks someone for something or undertakes something
("我来协调沙箱").

Fact kinds, first match wins: question (ends with ?/吗), blocker (卡在/阻塞/blocked),
risk (风险/延期/来不及/risk/delay), decision (决定/定了/decided/agreed), done (完成/搞定/
done …, not 还没), commitment (a resolvable time + a delivery verb, not a past statement;
or a plan naming its time), plan (计划/打算/plan to), else statement. A fact's `at` is when
it happened: a past day its sentence names (昨天, yesterday: `parse_when`'s twin
`parse_past`), else the time it names when that is not after the message, else the
message's time — a promise ("周四能提测") happened when it was made; its due time is the
signal's.

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
from datetime import UTC, datetime

from engine.language.when import parse_past, parse_when
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
from engine.offline.chatter import is_chatter, is_request
from engine.offline.happened import happened, plan_with_time
from engine.signal.responsibility import ResponsibilityClaim, find_responsibility
from engine.story.conversation import Message, message_at, messages
from engine.story.models import RESPONSIBLE_FOR

_SENTENCE_END = re.compile(r"[。！？!?；;\n]+|\.(?=\s|$)")
_MENTION = re.compile(r"@([\w\u4e00-\u9fa5.-]+)")
_VERSION = re.compile(r"\b[vV]\d+(?:\.\d+)+\b")
_ISSUE = re.compile(r"(?<![\w#!])[#!]\d+\b|\b[A-Z][A-Z0-9]+-\d+\b")
_URL = re.compile(r"https?://[^\s，。）)]+")
_QUOTED = re.compile(r"「\s*([^」]+?)\s*」|“\s*([^”]+?)\s*”|《\s*([^》]+?)\s*》")
_FACT_RULES: tuple[tuple[FactKind, re.Pattern[str]], ...] = (
    ("blocker", re.compile(r"卡在|卡住|阻塞|被.*挡住|\bblocked\b|\bstuck\b", re.IGNORECASE)),
    ("risk", re.compile(r"风险|延期|来不及|赶不上|\brisk|\bdelay", re.IGNORECASE)),
    (
        "decision",
        re.compile(r"(?<!的)决定|定了|确定|拍板|同意|\bdecided\b|\bagreed\b", re.IGNORECASE),
    ),
)
_DELIVERY = re.compile(
    r"给|交|提测|提交|完成|发(?!现|生|展)|上线|\bdeliver|\bsend\b|\bship|\bfinish|\bwill\b|"
    r"'ll\b",
    re.IGNORECASE,
)
# things whose mention grounds a remark (a quoted term does not: quotes are as often emphasis)
_ARTIFACTS = {"version", "issue", "url"}
# a first-person undertaking without a day ("我来协调沙箱"): a promise, grounds for a fact
_UNDERTAKING = re.compile(
    r"^(?:我来|我负责|我去|交给我)|\bI(?:'ll| will) (?:take care of|handle|own|look into)\b|"
    r"\blet me (?:handle|take care of)\b",
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


def _headers(text: str) -> list[Message]:
    return messages(text)


def _candidates(
    doc: ReviewDocument, headers: list[Message], claims: list[tuple[int, ResponsibilityClaim]]
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
        g = next(i for i in range(1, 4) if m.group(i))
        yield m.group(g), "term", m.start(g), m.end(g)


def _entities(
    doc: ReviewDocument, headers: list[Message], claims: list[tuple[int, ResponsibilityClaim]]
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
    if has_time and _DELIVERY.search(sentence) and not happened(sentence):
        return "commitment"
    if plan_with_time(sentence, has_time):
        return "commitment"  # a stated plan with its time: a promise (engine/offline/happened.py)
    if _PLAN.search(sentence):
        return "plan"
    return "statement"


def _fact_spans(text: str, headers: list[Message]) -> Iterator[tuple[int, int, Message | None]]:
    """(start, end, message header) of each sentence that can be a fact (headers excluded)."""
    for start, end in sentences(text):
        header = message_at(headers, start)
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
    known = set(doc.known_entities)
    claimed = [(s + c.start, s + c.end) for s, c in claims]
    for start, end, header in spans:
        sentence = doc.text[start:end]
        if is_chatter(sentence):
            continue  # a greeting, thanks, acknowledgement or small talk states nothing
        anchor = header.at if header is not None and header.at is not None else doc.ts
        when = parse_when(sentence, anchor, doc.timezone) if anchor is not None else None
        named = when.at if when is not None else None
        past = parse_past(sentence, anchor) if anchor is not None else None
        speaker = header.speaker if header is not None else None
        kind = fact_kind(sentence, named is not None and past is None)
        if kind == "question" and not is_request(sentence):
            continue  # a question that asks nobody for anything
        mentioned = [
            e for e in entities if any(start <= m.start and m.end <= end for m in e.mentions)
        ]
        if kind == "statement" and not (
            past is not None
            or happened(sentence)
            or (when is not None and _DELIVERY.search(sentence))
            or _UNDERTAKING.search(sentence)
            or any(start <= a and b <= end for a, b in claimed)
            or any(
                e.kind in _ARTIFACTS or (e.kind != "person" and e.name in known) for e in mentioned
            )
            or is_request(sentence)
        ):
            continue  # a plain remark: no time, responsibility, thing or request
        ids = [
            e.local_id
            for e in entities
            if (speaker is not None and e.name == speaker) or e in mentioned
        ]
        facts.append(
            ExtractedFact(
                local_id=f"f{len(facts) + 1}",
                text=f"{speaker}：{sentence}" if speaker else sentence,
                span=Span(start=start, end=end),
                kind=kind,
                entity_ids=ids,
                at=past if past is not None else _happened(named, anchor),
            )
        )
    relations = _relations(entities, claims)
    return Extraction(
        source_id=doc.source_id,
        facts=facts,
        entities=entities,
        relations=relations,
    )


def _happened(named: datetime | None, said: datetime | None) -> datetime | None:
    """When a fact happened: the time its sentence names when that is not after it was said
    ("昨天" → yesterday); a time still to come ("周四能提测") is when it was promised, said
    at the message's time (the due time is the signal's)."""
    if named is None:
        return said
    if said is not None and _utc(named) > _utc(said):
        return said
    return named


def _utc(at: datetime) -> datetime:
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)
