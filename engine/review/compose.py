"""From committed leaf and navigation outputs to one organising result (docs/rules/reviews.md).

"工作回顾、监督反馈和图谱引用同一次整理的结论与来源": the publish stage turns the run's committed
records into one `publishResult` input, so recap (summary), feedback and graph all cite the
same result id. Rules kept here:

- an event is placed when it happened, never after its words were written: a fact's time
  (the model's `at`) later than its message's (a promise's due day) is its message's time;
- every leaf fact becomes an event with references to the segments it cites (or, when it
  cites none, to its batch's segments) — references point at source versions, never copy text;
- a fact the leaf says is a stored event (`id`, offered to it by `known_events`: the same
  message read again by a manual re-review) is passed on with that id, and the story engine
  reuses the event if it is one of this scope — so a message never gets a second event;
  two facts naming one stored event are one event citing both (docs/rules/reviews.md);
- entities are per leaf batch (a model's local ref is not an identity); an entity naming a
  stored id is passed on with it, and the story engine reuses it only if it is a same-scope
  Main entity — user-edited or confirmed fields then become Suggestions, never overwrites;
  two batches naming the same stored id share the first one's ref and description (the story
  input refuses two refs for one stored id), so a result never holds two of one known person;
  an entity a leaf says is one an earlier batch of this run found (`same_as`: that batch's
  run-wide ref, offered to it by `earlier_entities`) shares that one too — the model links
  them, nothing here compares names;
- an entity a result introduces is Main: it is part of the published graph, so a later run
  of the same scope may reuse it by id (跨 run 仅允许引用同 scope 的 Main 候选实体;
  docs/rules/reviews.md); the model's answer cannot set another status;
- an event's title is the sentence the fact states, never its speaker ("李四：…") or a
  copied "[time] speaker:" header: the speaker is a person the event is linked to;
- a fact's event is its passage's event (`engine.review.passage`): a fact stating words an
  earlier result already organised — a re-review, a new version repeating old lines —
  names the same event, and two facts of one result stating one passage are one event;
- a relation a leaf states (`relations`: from and to name entities of its own answer, a type,
  and the segments it cites) is passed on between the run-wide entity refs, citing those
  segments (or its batch's); one naming an entity the answer does not hold is left out. It
  carries no reason: its references point at the words, never copy them. What it does to a
  stored relation (a new one, new evidence, or a pending difference against a confirmed
  holder) is the story engine's decision (engine/story/corrections.py);
- the navigation root gives the stage summary and the feedback; navigation never adds facts;
- the result key is the run id, so a retried publish is a repeat, not a second result.

A review publishes into one story-graph scope: Global → "global", one project → its id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from engine.errors import InvalidInput
from engine.review.manifest import LeafBatch
from engine.review.outputs import LeafOutput, NavigationOutput
from engine.review.passage import FactKey
from engine.review.types import MissedRange, Scope, Segment
from engine.scope import GLOBAL
from engine.story.conversation import said

MAX_TITLE = 300
MAX_DESCRIPTION = 20_000  # the story input's Text bound
MAIN = "main"


def story_scope(scope: Scope) -> str:
    """The one story-graph scope a review of `scope` reads sources from and publishes into."""
    if scope.is_global:
        return GLOBAL
    if len(scope.project_ids) != 1:
        raise InvalidInput(
            "a review publishes into one story scope; review each project on its own",
            projects=list(scope.project_ids),
        )
    return scope.project_ids[0]


def ledger_scope(scope: Scope) -> str:
    """The story scope a run's ledger entries carry (the one it publishes into; a heartbeat
    plan over several projects charges its first)."""
    return GLOBAL if scope.is_global or not scope.project_ids else scope.project_ids[0]


def project_of(story_scope_name: str) -> str | None:
    """The project a story-graph source belongs to (None: Global)."""
    return None if story_scope_name == GLOBAL else story_scope_name


def result_key(run_id: str) -> str:
    return f"review:{run_id}"


def _reference(seg: Segment) -> dict[str, str]:
    return {
        "source_id": seg.source_id,
        "source_version": seg.version,
        "locator": f"chars:{seg.start}-{seg.end}",
    }


def event_text(text: str) -> str:
    """A fact's sentence as an event's title reads it: without its speaker ("李四：…") or a
    copied "[time] speaker:" header. The speaker is a person linked to the event instead."""
    return said(text)[1]


def fact_line(text: str) -> str:
    """A fact's text as "speaker：sentence" (a copied header's time left out)."""
    speaker, sentence = said(text)
    return f"{speaker}：{sentence}" if speaker else sentence


def _at(raw: object, default: datetime) -> datetime:
    if isinstance(raw, datetime):
        return raw
    if isinstance(raw, str):
        try:
            return datetime.fromisoformat(raw.replace("Z", "+00:00"))
        except ValueError:
            return default
    return default


def said_at(
    segment_times: Mapping[tuple[str, str, int], datetime], ref: Segment
) -> datetime | None:
    """When the words at `ref` were written: the time of the unit (message) it starts in, i.e.
    the latest unit of its source version that starts at or before it; None if none does."""
    best: tuple[int, datetime] | None = None
    for (source_id, version, start), at in segment_times.items():
        if source_id == ref.source_id and version == ref.version and start <= ref.start:
            if best is None or start > best[0]:
                best = (start, at)
    return best[1] if best is not None else None


def _instant(at: datetime) -> datetime:
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


def _model_ref(raw: Mapping[str, Any], i: int) -> str:
    return str(raw.get("ref") or raw.get("local_id") or f"e{i}")


def entity_ref(batch_index: int, raw: Mapping[str, Any], i: int) -> str:
    """The run-wide ref of the i-th entity of a leaf answer: batch index + the model's ref."""
    return f"b{batch_index}.{_model_ref(raw, i)}"


def earlier_entities(leaves: Sequence[tuple[int, LeafOutput]]) -> list[tuple[str, str, str]]:
    """(ref, name, kind) of the entities earlier leaves of a run introduced: neither a stored
    entity (those are offered as known entities) nor one they linked to an even earlier
    batch. A later leaf may say it found one of them again (`same_as`), so one run never
    holds two of one person because its text was split into batches."""
    found = []
    for index, output in sorted(leaves, key=lambda pair: pair[0]):
        for i, raw in enumerate(getattr(output, "entities", None) or []):
            if not isinstance(raw, Mapping) or not str(raw.get("name") or "").strip():
                continue
            if raw.get("id") or raw.get("same_as"):
                continue
            kind = raw.get("kind") if isinstance(raw.get("kind"), str) else ""
            found.append((entity_ref(index, raw, i), str(raw["name"]).strip(), str(kind)))
    return found


def compose_result(
    *,
    run_id: str,
    scope: Scope,
    leaves: Sequence[tuple[LeafBatch, LeafOutput]],
    root: NavigationOutput,
    segment_times: Mapping[tuple[str, str, int], datetime],
    now: datetime,
    covered: Sequence[Segment] = (),
    missed: Sequence[MissedRange] = (),
    passages: Mapping[FactKey, str] | None = None,
) -> dict[str, Any]:
    """The `PublishResultInput` data of a run. `segment_times` maps (source, version, start)
    of a committed segment to the time its text was written (the event's default time).
    `covered` / `missed`: the ranges the run read and those it could not, with why; with any
    missed the result is published as not complete (docs/rules/reviews.md). `passages`: the passage
    each fact stands on (`engine.review.passage.fact_passages`); a fact's event is its
    passage's event in every result of the scope."""
    passages = passages or {}
    events: list[dict[str, Any]] = []
    entities: list[dict[str, Any]] = []
    changes: list[dict[str, Any]] = []
    relations: list[dict[str, Any]] = []
    by_stored_id: dict[str, str] = {}
    shared: dict[str, dict[str, Any]] = {}  # the one entity item of each stored id
    by_ref: dict[str, dict[str, Any]] = {}  # entity items by their run-wide ref
    by_stored_event: dict[str, dict[str, Any]] = {}  # the one event item of each stored id
    by_passage: dict[str, dict[str, Any]] = {}  # the one event item of each passage
    times: list[datetime] = []
    source_ids: set[str] = set()
    for batch, output in sorted(leaves, key=lambda pair: pair[0].index):
        local: dict[str, str] = {}
        for i, raw in enumerate(getattr(output, "entities", None) or []):
            if not isinstance(raw, Mapping) or not str(raw.get("name") or "").strip():
                continue
            name = str(raw["name"]).strip()[:MAX_TITLE]
            model_ref = _model_ref(raw, i)
            stored = raw.get("id")
            if isinstance(stored, str) and stored in by_stored_id:
                local[model_ref] = by_stored_id[stored]
                _add_description(shared[stored], raw.get("description"))
                continue
            same = raw.get("same_as")
            if not stored and isinstance(same, str) and same in by_ref:
                local[model_ref] = same  # an entity an earlier batch of this run found
                _add_description(by_ref[same], raw.get("description"))
                continue
            ref = entity_ref(batch.index, raw, i)
            item: dict[str, Any] = {"ref": ref, "name": name, "status": MAIN}
            for key in ("kind", "description"):
                if isinstance(raw.get(key), str):
                    item[key] = raw[key]
            if isinstance(stored, str) and stored:
                item["id"] = stored
                by_stored_id[stored] = ref
                shared[stored] = item
            entities.append(item)
            by_ref[ref] = item
            local[model_ref] = ref
        batch_default = min(
            (segment_times.get((s.source_id, s.version, s.start), now) for s in batch.segments),
            default=now,
        )
        for j, fact in enumerate(output.facts):
            refs = list(fact.refs) or list(batch.segments)
            first = refs[0]
            default = said_at(segment_times, first) or batch_default
            extra = fact.model_extra or {}
            # an event happened by the time its words were written: a time the model gives
            # that is later (a promise's due day) is the signal's, the event is when said
            at = min(_at(extra.get("at"), default), default, key=_instant)
            times.append(at)
            source_ids.update(r.source_id for r in refs)
            stored_event = extra.get("id")
            passage = passages.get((batch.index, j))
            same = by_stored_event.get(stored_event) if isinstance(stored_event, str) else None
            if same is None and not stored_event and passage is not None:
                same = by_passage.get(passage)
            if same is not None:
                # a second fact that is the same stored event or states the same passage:
                # its evidence joins the first (one result never holds one event twice)
                event = same
                for r in refs:
                    if _reference(r) not in event["references"]:
                        event["references"].append(_reference(r))
                ref = event["ref"]
            else:
                ref = f"b{batch.index}.f{j}"
                sentence = event_text(fact.text)
                event = {
                    "ref": ref,
                    "title": sentence[:MAX_TITLE],
                    "description": sentence if len(sentence) > MAX_TITLE else "",
                    "at": at,
                    "references": [_reference(r) for r in refs],
                }
                if isinstance(stored_event, str) and stored_event:
                    event["id"] = stored_event
                    by_stored_event[stored_event] = event
                elif passage is not None:
                    event["passage"] = passage
                    by_passage[passage] = event
                events.append(event)
            for fact_entity in extra.get("entities") or []:
                target = local.get(str(fact_entity))
                if target is not None:
                    changes.append(
                        {
                            "event": ref,
                            "entity": target,
                            "kind": str(extra.get("change") or "proposed"),
                        }
                    )
        relations += _relations(batch, output, local)
    summaries: list[dict[str, Any]] = []
    if events:
        summaries.append(
            {
                "ref": "summary",
                "text": root.summary,
                "interval_start": min(times),
                "interval_end": max(times),
                "source_ids": sorted(source_ids),
                "events": [e["ref"] for e in events],
            }
        )
    return {
        "scope": story_scope(scope),
        "key": result_key(run_id),
        "events": events,
        "entities": entities,
        "changes": _unique(changes),
        "relations": relations,
        "summaries": summaries,
        "feedback": root.summary[:20_000],
        "coverage": {
            "covered": [
                s.model_dump(include={"source_id", "version", "start", "end"}) for s in covered
            ],
            "missed": [{**m.model_dump(), "reason": m.reason.value} for m in missed],
        },
    }


def _relations(
    batch: LeafBatch, output: LeafOutput, local: Mapping[str, str]
) -> list[dict[str, Any]]:
    """The relations a leaf answer states, between the run-wide refs of its entities."""
    found = []
    for k, raw in enumerate(getattr(output, "relations", None) or []):
        if not isinstance(raw, Mapping):
            continue
        ends = local.get(str(raw.get("from"))), local.get(str(raw.get("to")))
        kind = str(raw.get("type") or "").strip()[:100]
        if ends[0] is None or ends[1] is None or ends[0] == ends[1] or not kind:
            continue
        try:
            refs = [Segment.model_validate(r) for r in raw.get("refs") or []]
        except ValidationError:
            refs = []
        found.append(
            {
                "ref": f"b{batch.index}.r{k}",
                "from": ends[0],
                "to": ends[1],
                "type": kind,
                "references": [_reference(r) for r in refs or batch.segments],
            }
        )
    return found


def _add_description(item: dict[str, Any], more: object) -> None:
    """A later batch's description of an entity the result already holds joins the first
    (the result keeps what this run said about it; docs/rules/reviews.md)."""
    if not isinstance(more, str) or not more.strip():
        return
    have = str(item.get("description") or "")
    if more in have:
        return
    item["description"] = f"{have}；{more}"[:MAX_DESCRIPTION] if have else more[:MAX_DESCRIPTION]


def _unique(changes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: set[tuple[str, str]] = set()
    out = []
    for change in changes:
        key = (change["event"], change["entity"])
        if key not in seen:
            seen.add(key)
            out.append(change)
    return out
