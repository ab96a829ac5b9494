"""Whom a signal reaches: an explicit binding, never an equal name (docs/rules/reviews.md).

- a commitment, blocker, risk or question: the person who said it, through the speaker
  binding of its passage's source (the app gave the speaker's person id with the source), or
  through the binding of the person entity the fact names;
- a difference: the person responsible for its target, found through the graph: the bound
  person entity of the relation the difference is about, or of a current responsibility
  relation to the entity (`负责`, `owns`, …); else whoever said it, as above.

A binding reaches someone only with a person id and a channel ("no person id or channel" is
nobody reachable). An open concern the agenda raised for a signal with the same subject
covers the new one (it is supplemented, not raised again).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.signal.binding import PersonBinding, entity_binding_id, speaker_binding_id
from engine.signal.model import SignalDraft, SignalKind
from engine.signal.policy import Reachable


def candidate_bindings(scope: str, draft: SignalDraft) -> list[str]:
    """The bindings that may name the person who said the signal, most specific first."""
    ids = []
    if draft.who:
        ids.append(speaker_binding_id(scope, draft.passage.source_id, draft.who))
    if draft.who_entity_id:
        ids.append(entity_binding_id(scope, draft.who_entity_id))
    return ids


def _reachable(bindings: Sequence[PersonBinding]) -> Reachable | None:
    for b in bindings:
        if b.person_id and b.channel:
            return Reachable(person_id=b.person_id, display_name=b.display_name, channel=b.channel)
    return None


def reachable_person(
    draft: SignalDraft,
    bound: Sequence[PersonBinding],
    responsible: Sequence[PersonBinding],
    corrector: Sequence[PersonBinding] = (),
) -> Reachable | None:
    if draft.kind is SignalKind.DIFFERENCE:
        return _reachable(responsible) or _reachable(corrector) or _reachable(bound)
    return _reachable(bound)
