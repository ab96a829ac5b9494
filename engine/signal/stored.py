"""Signals as story objects: what a review's publish stage records (seed 002 §三 3–4).

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
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

from engine.review.compose import event_text
from engine.review.manifest import LeafBatch
from engine.review.outputs import LeafOutput
from engine.signal.derive import from_difference, from_fact
from engine.signal.model import DecisionKind, Passage, SignalDraft, SignalKind, SignalStatus
from engine.signal.policy import AgendaPolicy, DecideContext, decide
from engine.story.models import (
    Actor,
    Reference,
    Suggestion,
    SuggestionKind,
    SuggestionStatus,
    Version,
)


class Signal(Version):
    """One recorded version of a signal."""

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


def signal_id(scope: str, fingerprint: str) -> str:
    """The one id of a signal in a scope: the same passage and kind is the same signal."""
    return "sig-" + hashlib.sha1(f"{scope}|{fingerprint}".encode()).hexdigest()[:24]


def drafts_from_leaves(
    leaves: Sequence[tuple[LeafBatch, LeafOutput]],
    segment_times: Mapping[tuple[str, str, int], datetime],
    tz: str,
) -> list[SignalDraft]:
    """The signals the leaf facts of a run state (commitment, blocker, risk, question)."""
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
        for fact in output.facts:
            kind = (fact.model_extra or {}).get("kind")
            refs = list(fact.refs) or list(batch.segments)
            if not isinstance(kind, str) or not refs:
                continue
            first = refs[0]
            passage = Passage(
                source_id=first.source_id,
                source_version=first.version,
                locator=f"chars:{first.start}-{first.end}",
            )
            said_at = segment_times.get((first.source_id, first.version, first.start), batch_said)
            draft = from_fact(kind, event_text(fact.text), passage, said_at, tz)
            if draft is not None:
                drafts.append(draft)
    return drafts


# fields of a difference as a person names them, by locale (others read as they are)
FIELD_NAMES: dict[str, dict[str, str]] = {
    "from_id": {"zh": "负责人", "en": "responsible person"},
}


# a difference between named values, as a person reads it ("负责人：张三 → 李四")
CHANGE_TEXT = {"zh": "{field}：{confirmed} → {proposed}", "en": "{field}: {confirmed} → {proposed}"}


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
                        field=field, confirmed=confirmed, proposed=proposed
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
) -> list[Signal]:
    """First versions of the drafts not yet recorded (`known`: ids the scope holds); one
    signal per fingerprint even when a result states the same passage twice. With the
    scope's `policy`, each carries the agenda's decision (`decide`; nobody is bound to a
    concern person yet, so no person is reachable; the concern a raise names is derived
    from the signal id, raising it is not wired yet)."""
    seen = set(known)
    out = []
    for d in drafts:
        sid = signal_id(scope, d.fingerprint)
        if sid in seen:
            continue
        seen.add(sid)
        p = d.passage
        decided = None
        if policy is not None:
            ctx = DecideContext(signal_id=sid, new_concern_id=f"con-{sid}")
            decided = decide(d, policy, ctx)
        decision = decided.decision if decided is not None else None
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
            )
        )
    return out
