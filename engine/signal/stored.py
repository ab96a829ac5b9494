"""Signals as story objects: what a review's publish stage records (docs/rules/loop.md).

A signal is versioned like every story object (an identity node and immutable versions,
`engine.story.models.Version`). Its id is derived from the scope and the draft's
fingerprint, so a repeated review of the same message, a retried publish or a second
worker finds the same signal and records nothing new. Each signal cites its exact passage
(source id, source version, locator) and the run and result that found it.

Which drafts a result yields:
- every leaf fact of kind commitment, blocker, risk or question, citing the first segment
  the fact cites (or its batch's first segment), said at that segment's time (or its
  batch's earliest, as the event's default time is), the due time
  resolved in the scope's `TIMEZONE` (`engine.signal.derive.from_fact`);
- every pending DIFFERENCE suggestion the result records, citing the suggestion's passage,
  read as a person reads it: the field by its name (a holder's `from_id` is the 负责人 /
  responsible person), the values by the names the suggestion carries (张三, 李四), never
  only ids; `suggestion_id` names the suggestion a person's answer settles.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import ClassVar

from engine.review.compose import fact_line
from engine.review.compose import said_at as said_at_of
from engine.review.manifest import LeafBatch
from engine.review.outputs import LeafOutput
from engine.review.passage import FactKey
from engine.signal.derive import from_difference, from_fact
from engine.signal.model import DecisionKind, Passage, SignalDraft, SignalKind, SignalStatus
from engine.signal.policy import (
    AgendaPolicy,
    DecideContext,
    Effect,
    RaiseFromSignal,
    Reachable,
    ReportToOwner,
    SupplementConcern,
    decide,
)
from engine.story.identity import new_event_id, passage_event_id
from engine.story.models import (
    Actor,
    Reference,
    Suggestion,
    SuggestionKind,
    SuggestionStatus,
    Version,
)
from engine.story.publish import PublishPlan


class Signal(Version):
    """One recorded version of a signal."""

    # what finds it again (fingerprint), what an open concern covers (subject) and the
    # effect its decision asks for: the engine's, never answered
    INTERNAL_FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"fingerprint", "subject", "decision_effect"}
    )

    kind: SignalKind
    status: SignalStatus = SignalStatus.OPEN
    fingerprint: str
    text: str
    source_id: str
    source_version: str
    locator: str
    run_id: str
    said_at: datetime | None = None
    who: str = ""
    what: str = ""
    due: datetime | None = None
    due_text: str = ""
    blocks: str = ""
    target_kind: str = ""
    target_id: str = ""
    field: str = ""
    confirmed_value: str = ""
    proposed_value: str = ""
    suggestion_id: str = ""
    # the agenda's decision, recorded with the signal when the scope's loop is on (None: off)
    decision_kind: DecisionKind | None = None
    decision_concern_id: str | None = None
    decision_reason: str = ""
    decision_policy_version: int | None = None
    # the one effect the decision asks for (`engine.signal.policy.Effect` as JSON, "" none);
    # performed after the signal commits by `jobs/concern/agenda.py`, exactly once
    decision_effect: str = ""
    subject: str = ""  # what it is about (`SignalDraft.subject`): an open concern covers it


Reach = tuple[Reachable | None, str | None]  # the reachable person, an open covering concern


def concern_id_of(signal_id: str) -> str:
    """The one concern the agenda may raise for a signal: a repeat can never make two."""
    return f"con-{signal_id}"


def effect_json(effect: Effect | None) -> str:
    if effect is None:
        return ""
    return json.dumps({"type": type(effect).__name__, **effect.model_dump(mode="json")})


def effect_of(signal: Signal) -> Effect | None:
    """The effect a signal's decision recorded, back as the engine's model."""
    if not signal.decision_effect:
        return None
    data = json.loads(signal.decision_effect)
    kind = data.pop("type")
    model = {c.__name__: c for c in (RaiseFromSignal, SupplementConcern, ReportToOwner)}[kind]
    return model.model_validate(data)


def signal_id(scope: str, fingerprint: str) -> str:
    """The one id of a signal in a scope: the same passage and kind is the same signal."""
    return "sig-" + hashlib.sha1(f"{scope}|{fingerprint}".encode()).hexdigest()[:24]


def fact_people(
    plan: PublishPlan,
    leaves: Sequence[tuple[LeafBatch, LeafOutput]],
    passages: Mapping[FactKey, str] | None = None,
) -> dict[FactKey, list[tuple[str, str]]]:
    """The person entities the result links to each leaf fact's event, as (id, name): the
    review's own link (the fact's entities became the event's changes), never a name match
    across the graph. The event of fact j of batch b is the stored one the fact named, else
    its passage's event (`passages`), else the result's `b<b>.f<j>` (`engine.review.compose`)."""
    people = {e.id: e.name for e in plan.entities if e.kind.lower() == "person"}
    # a reused entity the result says nothing new about has no new version, only a mention
    written = {e.id for e in plan.entities}
    people.update({m.entity_id: m.name for m in plan.mentions if m.entity_id not in written})
    linked: dict[str, list[tuple[str, str]]] = {}
    for c in plan.changes:
        if c.entity_id in people:
            linked.setdefault(c.event_id, []).append((c.entity_id, people[c.entity_id]))
    out: dict[FactKey, list[tuple[str, str]]] = {}
    scope, key = plan.result.scope, plan.result.key
    for batch, output in leaves:
        for j, fact in enumerate(output.facts):
            stored = (fact.model_extra or {}).get("id")
            event_id = stored if isinstance(stored, str) and stored else None
            passage = (passages or {}).get((batch.index, j))
            by_passage = passage_event_id(scope, passage) if passage else None
            fresh = new_event_id(scope, key, f"b{batch.index}.f{j}")
            for eid in (event_id, by_passage, fresh):
                if eid is not None and eid in linked:
                    out[(batch.index, j)] = linked[eid]
                    break
    return out


def committer_entity(people: Sequence[tuple[str, str]], who: str) -> str | None:
    """Of the person entities a fact is linked to, the one who said it: the only one, or the
    one the fact's own speaker header names (among the fact's own entities only)."""
    if len(people) == 1:
        return people[0][0]
    said = [eid for eid, name in people if who and name == who]
    return said[0] if len(said) == 1 else None


def drafts_from_leaves(
    leaves: Sequence[tuple[LeafBatch, LeafOutput]],
    segment_times: Mapping[tuple[str, str, int], datetime],
    tz: str,
    people: Mapping[FactKey, Sequence[tuple[str, str]]] | None = None,
    passages: Mapping[FactKey, str] | None = None,
) -> list[SignalDraft]:
    """The signals the leaf facts of a run state (commitment, blocker, risk, question); with
    `people` (`fact_people`), each names the person entity who said it (`who_entity_id`);
    with `passages` (`engine.review.passage.fact_passages`) each is its passage's signal,
    however often and in whichever version the passage is read."""
    drafts = []
    for batch, output in sorted(leaves, key=lambda pair: pair[0].index):
        batch_said = min(
            (
                t
                for s in batch.segments
                if (t := segment_times.get((s.source_id, s.version, s.start))) is not None
            ),
            default=None,
        )
        for j, fact in enumerate(output.facts):
            kind = (fact.model_extra or {}).get("kind")
            refs = list(fact.refs) or list(batch.segments)
            if not isinstance(kind, str) or not refs:
                continue
            first = refs[0]
            passage = Passage(
                source_id=first.source_id,
                source_version=first.version,
                locator=f"chars:{first.start}-{first.end}",
                key=(passages or {}).get((batch.index, j), ""),
            )
            said_at = said_at_of(segment_times, first) or batch_said
            draft = from_fact(kind, fact_line(fact.text), passage, said_at, tz)
            if draft is not None:
                linked = (people or {}).get((batch.index, j), ())
                entity = committer_entity(linked, draft.who)
                if entity is not None:
                    draft = draft.model_copy(update={"who_entity_id": entity})
                drafts.append(draft)
    return drafts


# fields of a difference as a person names them, by locale (others read as they are)
FIELD_NAMES: dict[str, dict[str, str]] = {
    "from_id": {"zh": "负责人", "en": "responsible person"},
}


# a difference between named values, as a person reads it ("负责人：张三 → 李四")
CHANGE_TEXT = {
    "zh": "{thing}{field}：{confirmed} → {proposed}",
    "en": "{thing}{field}: {confirmed} → {proposed}",
}


def field_name(field: str, locale: str) -> str:
    names = FIELD_NAMES.get(field)
    return names.get(locale, names["zh"]) if names else field


def drafts_from_suggestions(
    suggestions: Iterable[Suggestion], references: Iterable[Reference], locale: str = "zh"
) -> list[SignalDraft]:
    """Every pending difference a result records, citing the suggestion's passage (a
    difference without one is no signal: nothing unsourced enters the loop)."""
    cited: dict[str, Reference] = {}
    for r in references:
        cited.setdefault(r.owner_id, r)
    drafts = []
    for s in suggestions:
        ref = cited.get(s.id)
        if s.kind is not SuggestionKind.DIFFERENCE or s.status is not SuggestionStatus.PENDING:
            continue
        if ref is None:
            continue
        field = field_name(s.field, locale)
        confirmed = s.current_label or s.current_value
        proposed = s.proposed_label or s.proposed_value
        drafts.append(
            from_difference(
                target_kind=s.target_kind.value,
                target_id=s.target_id,
                field=field,
                confirmed_value=confirmed,
                proposed_value=proposed,
                text=(
                    CHANGE_TEXT.get(locale, CHANGE_TEXT["zh"]).format(
                        thing=f"{s.subject_label} " if s.subject_label else "",
                        field=field,
                        confirmed=confirmed,
                        proposed=proposed,
                    )
                    if s.current_label or s.proposed_label
                    else s.reason or f"{field}: {proposed}"
                ),
                suggestion_id=s.id,
                passage=Passage(
                    source_id=ref.source_id, source_version=ref.source_version, locator=ref.locator
                ),
                said_at=None,
            )
        )
    return drafts


def new_signals(
    drafts: Iterable[SignalDraft],
    *,
    scope: str,
    run_id: str,
    result_id: str,
    now: datetime,
    known: Iterable[str] = (),
    policy: AgendaPolicy | None = None,
    reach: Mapping[str, Reach] | None = None,
) -> list[Signal]:
    """First versions of the drafts not yet recorded (`known`: ids the scope holds); one
    signal per fingerprint even when a result states the same passage twice. With the
    scope's `policy`, each carries the agenda's decision (`decide`) made with what the graph
    knows (`reach`, by signal id: the reachable person and an open covering concern); a
    raise names the concern `con-<signal id>`. A second signal of one result about the same
    subject as one it raises supplements that concern."""
    seen = set(known)
    raised: dict[str, str] = {}  # subject -> concern this result raises
    out = []
    for d in drafts:
        sid = signal_id(scope, d.fingerprint)
        if sid in seen:
            continue
        seen.add(sid)
        p = d.passage
        decided = None
        if policy is not None:
            person, covering = (reach or {}).get(sid, (None, None))
            ctx = DecideContext(
                signal_id=sid,
                person=person,
                covering_concern_id=covering or raised.get(d.subject),
                new_concern_id=concern_id_of(sid),
            )
            decided = decide(d, policy, ctx)
        decision = decided.decision if decided is not None else None
        if decision is not None and decision.kind is DecisionKind.RAISED:
            raised.setdefault(d.subject, concern_id_of(sid))
        effect = decided.effect if decided is not None else None
        out.append(
            Signal(
                id=sid,
                scope=scope,
                seq=1,
                recorded_at=now,
                by=Actor.run(run_id),
                why="review",
                via_result=result_id,
                kind=d.kind,
                fingerprint=d.fingerprint,
                text=d.text,
                source_id=p.source_id,
                source_version=p.source_version,
                locator=p.locator,
                run_id=run_id,
                said_at=d.said_at,
                who=d.who,
                what=d.what,
                due=d.due,
                due_text=d.due_text,
                blocks=d.blocks,
                target_kind=d.target_kind,
                target_id=d.target_id,
                field=d.field,
                confirmed_value=d.confirmed_value,
                proposed_value=d.proposed_value,
                suggestion_id=d.suggestion_id,
                decision_kind=decision.kind if decision else None,
                decision_concern_id=decision.concern_id if decision else None,
                decision_reason=decision.reason if decision else "",
                decision_policy_version=decision.policy_version if decision else None,
                decision_effect=effect_json(effect),
                subject=d.subject,
            )
        )
    return out
