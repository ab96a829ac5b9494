"""Dismissals remembered: a person's dismissal is kept by fingerprint — target,
field, proposed value, and the cited source version and locator. A later publish proposing
the same change on the same evidence records it as a repeat of the dismissed suggestion,
itself dismissed (it does not come back to the inbox); on new evidence (another passage, or
another version of the source) it is pending again and cites the old evidence too.

A proposal that is already waiting (a pending suggestion of the same target, field and
proposed value) is not proposed again: reviewing the same message twice leaves one pending
difference, one signal (`pending_repeats`)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from engine.story.models import Reference, Suggestion, SuggestionStatus, make_id

Evidence = tuple[str, str, str]  # source id, source version, locator
NO_EVIDENCE: Evidence = ("", "", "")


def evidence_of(suggestion: Suggestion, references: Iterable[Reference]) -> set[Evidence]:
    """The passages a suggestion cites: references it owns (a difference's) and its target's
    references written by the result that proposed it (a field suggestion's)."""
    cited = {
        (r.source_id, r.source_version, r.locator)
        for r in references
        if r.owner_id == suggestion.id
        or (r.owner_id == suggestion.target_id and r.result_id == suggestion.result_id)
    }
    return cited or {NO_EVIDENCE}


def fingerprint(suggestion: Suggestion, evidence: Evidence) -> str:
    s = suggestion
    return make_id("dis", s.scope, s.target_id, s.field, s.proposed_value, *evidence)


def dismissal_rows(
    suggestion: Suggestion, references: Iterable[Reference], now: datetime
) -> list[dict[str, Any]]:
    """The rows remembering a dismissal, one per cited passage."""
    s = suggestion
    return [
        {
            "fingerprint": fingerprint(s, e),
            "dismissed_at": now.isoformat(),
            "props": {
                "scope": s.scope,
                "suggestion_id": s.id,
                "target_id": s.target_id,
                "field": s.field,
                "proposed_value": s.proposed_value,
                "source_id": e[0],
                "source_version": e[1],
                "locator": e[2],
            },
        }
        for e in sorted(evidence_of(s, references))
    ]


def recall(
    suggestions: list[Suggestion],
    references: list[Reference],
    dismissals: list[dict[str, Any]],
) -> list[Suggestion]:
    """The suggestions a publish is about to write, each checked against the remembered
    dismissals: the same change on the same evidence is a dismissed repeat; on new evidence
    it stays pending, marked as a repeat so it cites the old evidence too."""
    remembered: dict[tuple[str, str, str], dict[Evidence, str]] = {}
    for d in dismissals:
        key = (d["target_id"], d["field"], d["proposed_value"])
        ev = (d["source_id"], d["source_version"], d["locator"])
        remembered.setdefault(key, {}).setdefault(ev, d["suggestion_id"])
    out = []
    for s in suggestions:
        seen = remembered.get((s.target_id, s.field, s.proposed_value))
        if s.status is not SuggestionStatus.PENDING or not seen:
            out.append(s)
            continue
        cited = evidence_of(s, references)
        earlier = seen[min(seen)]
        if cited <= seen.keys():
            why = f"repeat of dismissed suggestion {earlier} on the same evidence"
            out.append(
                s.model_copy(
                    update={"status": SuggestionStatus.DISMISSED, "repeat_of": earlier, "why": why}
                )
            )
        else:
            out.append(s.model_copy(update={"repeat_of": earlier}))
    return out


def pending_repeats(
    suggestions: list[Suggestion], references: list[Reference], pending: Iterable[Suggestion]
) -> tuple[list[Suggestion], list[Reference]]:
    """The suggestions (and references) a publish still writes once those proposing what a
    pending suggestion already proposes are left out, with the references they own."""
    waiting = {(p.target_id, p.field, p.proposed_value) for p in pending}
    dropped = {
        s.id
        for s in suggestions
        if s.status is SuggestionStatus.PENDING
        and (s.target_id, s.field, s.proposed_value) in waiting
    }
    if not dropped:
        return suggestions, references
    return (
        [s for s in suggestions if s.id not in dropped],
        [r for r in references if r.owner_id not in dropped],
    )
