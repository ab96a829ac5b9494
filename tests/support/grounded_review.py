"""A prompt-grounded review model: answers leaf and navigation requests of a supervision
review (docs/rules/reviews.md) only from what the request carries.

- leaf (`{"segments": [...], "known_entities": [...], "known_people": [...]}`): one fact per
  message of each segment's text, titled "speaker：text" and citing exactly that message's
  characters; the entities are the speakers and the known entities' and people's names found
  in the text. A person gets an `id` ONLY when the request's `known_people` lists exactly
  one person with that name (or alias), any other entity ONLY when `known_entities` lists
  exactly one with that name: an id the request did not carry can never appear in the
  answer, so a product that withholds known entities or the people list gets new entities
  back, as from a real model. An entity's
  description is what this request's text says about it. Likewise an entity is linked to
  one an earlier batch of the run found (`same_as`) only through the request's
  `earlier_entities`. A fact is said to be a stored event (its `id`) ONLY when the
  request's `known_events` lists exactly one event citing exactly that message's text, and
  each listed event at most once: a product that withholds known events gets new events.
- navigation (`{"batches": [...]}` or `{"nodes": [...]}`): the summary joins the summaries
  it was given; no facts.
- anything else (the heartbeat report): a plain sentence counting the segments it was given.

Use with `server.answer_with(review_answer)`; `leaf_requests(server)`, `sent_texts(server)`
and `offered_ids(server)` read back what the product sent (also for tests that script their
answers, to assert the context those answers stand for).
"""

from __future__ import annotations

import json
import re
from typing import Any

from tests.support.scripted_model import LoggedRequest, ScriptedModelServer, ScriptedReply, text

_MESSAGE = re.compile(
    r"^\[[^\]\n]+\][ \t]*(?:([^\s:：\[\]][^:：\n\[\]]{0,39}?)[ \t]*[:：])?[ \t]*(.*)$",
    re.MULTILINE,
)


def _messages(body: str) -> list[tuple[int, int, str | None, str]]:
    """(start, end, speaker, said) of each "[time] speaker: said" line of `body`."""
    found = []
    for m in _MESSAGE.finditer(body):
        said = m.group(2).strip()
        if said:
            found.append((m.start(), m.end(), m.group(1), said))
    return found


def _known_by_name(known: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    names: dict[str, list[dict[str, Any]]] = {}
    for entity in known:
        for name in {entity.get("name"), *(entity.get("aliases") or [])}:
            if isinstance(name, str) and name:
                names.setdefault(name, []).append(entity)
    return {name: found[0] for name, found in names.items() if len(found) == 1}


def leaf(payload: dict[str, Any]) -> dict[str, Any]:
    known = _known_by_name(list(payload.get("known_entities") or []))
    people_known = _known_by_name(list(payload.get("known_people") or []))
    earlier = _known_by_name(list(payload.get("earlier_entities") or []))
    known_events = list(payload.get("known_events") or [])
    reused: set[str] = set()
    facts: list[dict[str, Any]] = []
    entities: dict[str, dict[str, Any]] = {}  # by name
    said_about: dict[str, list[str]] = {}
    for seg in payload.get("segments") or []:
        body = str(seg.get("text") or "")
        for start, end, speaker, said in _messages(body):
            line = body[start:end]
            same = [
                str(e["id"])
                for e in known_events
                if line in (e.get("cited") or []) and str(e["id"]) not in reused
            ]
            named = [n for n in {**earlier, **known, **people_known} if n in said]
            people = ([speaker] if speaker else []) + [n for n in named if n != speaker]
            title = f"{speaker}：{said}" if speaker else said
            refs = []
            for name in people:
                entity = entities.get(name)
                if entity is None:
                    entity = {"ref": f"p{len(entities)}", "name": name, "kind": "person"}
                    if name in people_known:
                        entity.update(id=people_known[name]["id"], name=people_known[name]["name"])
                    elif name in known and known[name].get("kind") != "person":
                        entity.update(id=known[name]["id"], name=known[name]["name"])
                    elif name in earlier:
                        entity["same_as"] = earlier[name]["ref"]
                    entities[name] = entity
                said_about.setdefault(name, []).append(title)
                refs.append(entity["ref"])
            fact: dict[str, Any] = {
                "text": title,
                "refs": [
                    {
                        "source_id": seg["source_id"],
                        "version": seg["version"],
                        "start": seg["start"] + start,
                        "end": seg["start"] + end,
                    }
                ],
                "entities": refs,
            }
            if len(same) == 1:
                fact["id"] = same[0]
                reused.add(same[0])
            facts.append(fact)
    for name, entity in entities.items():
        entity["description"] = "；".join(said_about.get(name, []))
    return {"facts": facts, "entities": list(entities.values()), "summary": f"{len(facts)} 条"}


def navigation(payload: dict[str, Any]) -> dict[str, Any]:
    parts = payload.get("batches") or payload.get("nodes") or []
    return {
        "summary": "；".join(str(p.get("summary") or "") for p in parts) or "没有新的事实",
        "children": [str(p.get("batch", p.get("node"))) for p in parts],
    }


def review_answer(req: LoggedRequest, *, usage: bool = True) -> ScriptedReply:
    """The grounded answer. Its `usage` counts what the request carried: prompt tokens are
    the characters of the user message, completion tokens those of the answer (so a ledger
    sum can be checked against the requests); `usage=False` omits it, as some servers do."""
    payload = req.user_json()
    if isinstance(payload, dict) and "segments" in payload:
        answer = json.dumps(leaf(payload), ensure_ascii=False)
    elif isinstance(payload, dict) and ("batches" in payload or "nodes" in payload):
        answer = json.dumps(navigation(payload), ensure_ascii=False)
    else:
        answer = f"报告：{len(payload) if isinstance(payload, list) else 0} 段新内容"
    return text(answer, usage=(len(req.user_text), len(answer)) if usage else None)


def review_answer_without_usage(req: LoggedRequest) -> ScriptedReply:
    return review_answer(req, usage=False)


def leaf_requests(server: ScriptedModelServer) -> list[dict[str, Any]]:
    """The leaf payloads the product sent, in order."""
    out = []
    for req in server.requests:
        payload = req.user_json()
        if isinstance(payload, dict) and "segments" in payload:
            out.append(payload)
    return out


def sent_texts(server: ScriptedModelServer) -> list[str]:
    """The source text each leaf request carried (its segments' texts joined), in order."""
    return [
        "".join(str(seg.get("text") or "") for seg in p["segments"]) for p in leaf_requests(server)
    ]


def offered_event_ids(server: ScriptedModelServer) -> set[str]:
    """Every known event id any leaf request offered."""
    return {
        str(k.get("id"))
        for payload in leaf_requests(server)
        for k in payload.get("known_events") or []
    }


def offered_ids(server: ScriptedModelServer) -> set[str]:
    """Every known entity id any leaf or navigation request offered."""
    ids: set[str] = set()
    for req in server.requests:
        payload = req.user_json()
        if isinstance(payload, dict):
            ids.update(str(k.get("id")) for k in payload.get("known_entities") or [])
    return ids
