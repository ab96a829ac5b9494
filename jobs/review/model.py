"""The model requests of a review: heartbeat report, leaf batch, navigation merge.

Each returns the model's raw answer; the stage validates it against its contract
(`engine.review.outputs`), so an invalid answer fails the stage with the raw text kept
(导航摘要允许省略事实数组，叶子缺少事实数组仍失败; docs/rules/reviews.md). With no model configured
the offline rule model's documented review extractor answers leaf batches, and navigation and
reports are assembled from the leaves' own facts — no language is invented.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from engine.llm.errors import ModelRateLimited
from engine.llm.messages import ChatMessage, ChatRequest
from engine.llm.tasks import ReviewDocument
from engine.offline.chatter import is_answered
from engine.review.known import KnownEntity, by_name
from engine.review.known_events import KnownEvent, match_event
from engine.review.outputs import LeafOutput, NavigationOutput
from engine.review.types import Segment
from engine.story.conversation import said, speakers
from jobs.llm.gateway import HttpModelGateway, OfflineModelGateway
from jobs.llm.ledger import record_offline

Gateway = HttpModelGateway | OfflineModelGateway

LEAF_SYSTEM = """You review one batch of a conversation or note for a work supervisor.
Answer with one JSON object only:
{"facts": [{"text": str, "refs": [{"source_id", "version", "start", "end"}], "at": ISO time,
            "kind": str, "entities": [entity ref]}],
 "entities": [{"ref": str, "name": str, "kind": str, "description": str, "id": stored id}],
 "relations": [{"from": entity ref, "to": entity ref, "type": "responsible_for",
                "change": bool, "refs": [{"source_id", "version", "start", "end"}]}],
 "summary": str}
`facts` is required (an empty array when nothing is worth keeping). Cite the segments you
were given in `refs`. A fact's `text` is "speaker：sentence" with the sentence as written,
its time phrase kept (周四, 明天, 下周一, 3月5日, 15:00, by Thursday, tomorrow). Its `kind`
is one of: commitment (someone promises a delivery, with or without a time), blocker
(卡在/阻塞/blocked by: say what is blocked), risk (风险/延期/来不及/risk/delay), question,
decision, done, plan, statement. `relations` says who is responsible for what: "张三负责支付
模块" is {"from": 张三's ref, "to": 支付模块's ref, "type": "responsible_for"}; a sentence
that changes it ("支付模块改由李四负责", "交给李四负责", "李四接手支付模块", "Li Si now owns the
payment module") is the new holder's relation with "change": true.
`known_entities` lists stored entities of this scope the text names (id, name, kind,
aliases): when an entity you found is one of them, give its `id`. Give `id` only for an
entity listed as known with that id; an equal name alone is not an identity.
`known_people` lists the people of this scope the text may name (id, name, aliases): a
person you name is one of them (give that `id`) or someone new (no `id`). An answer that
gives an id the request did not list is rejected.
`earlier_entities` lists entities earlier batches of this same review found (ref, name,
kind): when an entity you found is one of them, give that `ref` as its `same_as`.
`known_events` lists stored events of this scope whose sources already say text of these
segments (id, title, at, cited: the text each reference cites): when a fact you found is
one of them (the same message, read again), give that event's `id` as the fact's `id`, so
it is not recorded twice. Give `id` only for an event listed there, each at most once."""

NAVIGATION_SYSTEM = """You merge the summaries of reviewed batches into one stage summary.
Answer with one JSON object only: {"summary": str, "children": [batch ids]}.
Do not emit a `facts` array: the batches' facts are kept as they are. `known_entities` lists
stored entities of this scope the batches name: call them by these names."""

REPORT_SYSTEM = """You write a short heartbeat report: what changed in these new messages, in
two or three sentences. Plain text."""


def segment_payload(seg: Segment, text: str) -> dict[str, Any]:
    return {
        "source_id": seg.source_id,
        "version": seg.version,
        "start": seg.start,
        "end": seg.end,
        "text": text[seg.start : seg.end],
    }


async def _chat(gateway: HttpModelGateway, system: str, payload: object) -> str:
    result = await gateway.chat(
        ChatRequest(
            messages=[
                ChatMessage.system(system),
                ChatMessage.user(json.dumps(payload, ensure_ascii=False, default=str)),
            ],
            temperature=0.0,
        )
    )
    return result.text


async def leaf_answer(
    gateway: Gateway,
    segments: Sequence[Segment],
    texts: Mapping[tuple[str, str], str],
    *,
    times: Mapping[tuple[str, str, int], datetime],
    known_entities: Sequence[KnownEntity] = (),
    earlier_entities: Sequence[Mapping[str, str]] = (),
    known_events: Sequence[KnownEvent] = (),
) -> str:
    """The raw answer for one leaf batch. `known_entities` are the stored Main entities of
    the review's scope that the batch names; the answer reuses one by its id.
    `earlier_entities` ({ref, name, kind}) are those earlier batches of this run found; the
    answer links one with `same_as`. `known_events` are the stored events that already cite
    text of the batch; a fact that is one of them carries its `id`."""
    if isinstance(gateway, HttpModelGateway):
        payload = {
            "segments": [segment_payload(s, texts.get(s.source_key, "")) for s in segments],
            "known_entities": [k.payload() for k in known_entities],
            "known_people": [k.person_payload() for k in known_entities if k.kind == "person"],
            "earlier_entities": [dict(e) for e in earlier_entities],
            "known_events": [k.payload() for k in known_events],
        }
        return await _chat(gateway, LEAF_SYSTEM, payload)
    known = by_name(known_entities)
    runs: dict[str, list[str]] = {}
    for entry in earlier_entities:
        runs.setdefault(entry["name"], []).append(entry["ref"])
    earlier = {name: refs[0] for name, refs in runs.items() if len(refs) == 1}
    bodies = [texts.get(s.source_key, "")[s.start : s.end] for s in segments]
    # people the batch gives grounds for: its speakers, and known people (the extractor
    # never guesses a name from running text)
    people = list(
        dict.fromkeys(
            [
                *(name for body in bodies for name in speakers(body)),
                *(k.name for k in known_entities if k.kind == "person"),
                *(e["name"] for e in earlier_entities if e.get("kind") == "person"),
            ]
        )
    )
    facts: list[dict[str, Any]] = []
    relations: list[dict[str, Any]] = []
    entities: dict[str, dict[str, Any]] = {}  # by stored id, else by name (one answer)
    reused: set[str] = set()  # known events a fact of this answer already is
    asked: list[tuple[int, int, str, str]] = []  # (fact index, segment index, kind, text)
    for seg_index, (seg, text) in enumerate(zip(segments, bodies, strict=True)):
        doc = ReviewDocument(
            source_id=seg.source_id,
            text=text,
            ts=times.get((seg.source_id, seg.version, seg.start)),
            known_entities=list(dict.fromkeys([*known, *earlier])),
            people=people,
        )
        extraction = (await gateway.extract_review(doc)).value
        keys: dict[str, str] = {}
        for e in extraction.entities:
            stored = known.get(e.name)
            key = stored.id if stored is not None else e.name
            keys[e.local_id] = key
            if key in entities:
                continue
            item: dict[str, Any] = {"ref": f"n{len(entities)}", "name": e.name, "kind": e.kind}
            if stored is not None:
                item.update(id=stored.id, name=stored.name, kind=stored.kind or e.kind)
            elif e.name in earlier:
                item["same_as"] = earlier[e.name]
            entities[key] = item
        for fact in extraction.facts:
            if not fact.text.strip():
                continue
            end = seg.start + max(fact.span.end, fact.span.start + 1)
            ref = seg.model_copy(update={"start": seg.start + fact.span.start, "end": end})
            when = fact.at or doc.ts
            item = {
                "text": fact.text,
                "refs": [ref.model_dump(mode="json")],
                "at": when.isoformat() if when else None,
                "kind": fact.kind,
                "entities": [entities[keys[i]]["ref"] for i in fact.entity_ids if i in keys],
            }
            stored_event = match_event(
                known_events, text[fact.span.start : fact.span.end], when, taken=reused
            )
            if stored_event is not None:
                item["id"] = stored_event
                reused.add(stored_event)
            facts.append(item)
            asked.append((len(facts) - 1, seg_index, fact.kind, fact.text))
        for rel in extraction.relations:
            if rel.from_id not in keys or rel.to_id not in keys:
                continue
            cited = seg.model_copy(
                update={"start": seg.start + rel.span.start, "end": seg.start + rel.span.end}
            )
            relations.append(
                {
                    "from": entities[keys[rel.from_id]]["ref"],
                    "to": entities[keys[rel.to_id]]["ref"],
                    "type": rel.type,
                    "change": rel.change,
                    "refs": [cited.model_dump(mode="json")],
                }
            )
    # no description: the rules cannot describe an entity, and the lines that name it are
    # cited by its events already (a description is never the raw lines joined)
    # a question someone answered later in the conversation asks nobody for anything any
    # more: later in the batch, or later in the source's text beyond the batch (a later
    # batch of this review, or lines a later version added after it)
    said_by = [speakers(body) for body in bodies]

    def later_speakers(at: int) -> list[str]:
        seg = segments[at]
        after = speakers(texts.get(seg.source_key, "")[seg.end :])
        return [*(s for later in said_by[at + 1 :] for s in later), *after]

    answered = {
        i
        for i, at, kind, line in asked
        if kind == "question"
        and is_answered(said(line)[0], said(line)[1], later_speakers(at), people)
    }
    facts = [f for i, f in enumerate(facts) if i not in answered]
    answer = json.dumps(
        {
            "facts": facts,
            "entities": list(entities.values()),
            "relations": relations,
            "summary": f"{len(facts)} facts",
        },
        ensure_ascii=False,
    )
    record_offline(LEAF_SYSTEM + "".join(bodies), answer)
    return answer


async def navigation_answer(
    gateway: Gateway,
    leaves: Sequence[tuple[int, LeafOutput]],
    known_entities: Sequence[KnownEntity] = (),
) -> str:
    """The raw answer of the navigation merge over committed leaves."""
    if isinstance(gateway, HttpModelGateway):
        payload = {
            "batches": [
                {"batch": index, "summary": out.summary, "facts": [f.text for f in out.facts][:20]}
                for index, out in leaves
            ],
            "known_entities": [k.payload() for k in known_entities],
        }
        return await _chat(gateway, NAVIGATION_SYSTEM, payload)
    lines = [f.text for _, out in leaves for f in out.facts][:10]
    summary = "；".join(lines) if lines else "本次回顾没有新的事实"
    answer = json.dumps(
        {"summary": summary, "children": [str(i) for i, _ in leaves]}, ensure_ascii=False
    )
    record_offline(NAVIGATION_SYSTEM + "".join(out.summary for _, out in leaves), answer)
    return answer


async def merge_answer(
    gateway: Gateway,
    children: Sequence[tuple[str, NavigationOutput]],
    known_entities: Sequence[KnownEntity] = (),
) -> str:
    """The raw answer of a navigation node over committed child nodes (the tree's upper
    levels): it merges their summaries and, like every navigation answer, emits no facts."""
    if isinstance(gateway, HttpModelGateway):
        payload = {
            "nodes": [{"node": node_id, "summary": out.summary} for node_id, out in children],
            "known_entities": [k.payload() for k in known_entities],
        }
        return await _chat(gateway, NAVIGATION_SYSTEM, payload)
    summary = "；".join(out.summary for _, out in children) or "本次回顾没有新的事实"
    answer = json.dumps(
        {"summary": summary, "children": [node_id for node_id, _ in children]},
        ensure_ascii=False,
    )
    record_offline(NAVIGATION_SYSTEM + "".join(out.summary for _, out in children), answer)
    return answer


def navigation_payload(output: NavigationOutput) -> str:
    return output.model_dump_json()


async def report_answer(
    gateway: Gateway, segments: Sequence[Segment], texts: Mapping[tuple[str, str], str]
) -> str:
    """The heartbeat report's text over the pending segments."""
    if isinstance(gateway, HttpModelGateway):
        payload = [segment_payload(s, texts.get(s.source_key, "")) for s in segments]
        return await _chat(gateway, REPORT_SYSTEM, payload)
    answer = f"{len(segments)} new segments in {len({s.source_id for s in segments})} sources"
    record_offline(
        REPORT_SYSTEM + "".join(texts.get(s.source_key, "")[s.start : s.end] for s in segments),
        answer,
    )
    return answer


def retry_after_seconds(exc: ModelRateLimited) -> float:
    """How long a 429 defers the job: the answer's Retry-After, else 5 s."""
    retry_after = getattr(exc, "retry_after", None)
    return float(retry_after) if retry_after else 5.0
