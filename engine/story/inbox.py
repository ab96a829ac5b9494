"""The inbox (issue 29): what waits for a person in a scope: pending suggestions (FIELD) and
pending differences (DIFFERENCE), newest first. This module decides which kinds a request
asks for; unknown kinds are INVALID_INPUT."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.errors import InvalidInput
from engine.story.models import Reference, Suggestion, SuggestionKind

INBOX_KINDS: dict[str, SuggestionKind] = {
    "FIELD": SuggestionKind.FIELD,
    "DIFFERENCE": SuggestionKind.DIFFERENCE,
}


def inbox_kinds(kinds: Sequence[str] | None) -> list[str]:
    """The stored suggestion kinds a request asks for (all when none is named)."""
    if not kinds:
        return sorted(k.value for k in INBOX_KINDS.values())
    unknown = sorted({k for k in kinds if k.upper() not in INBOX_KINDS})
    if unknown:
        raise InvalidInput("unknown inbox kinds", kinds=unknown, known=sorted(INBOX_KINDS))
    return sorted({INBOX_KINDS[k.upper()].value for k in kinds})


@dataclass(frozen=True)
class InboxItem:
    """One pending suggestion with the evidence it cites (each reference's excerpt is read
    from the exact source version, or answers unavailable once it was withdrawn)."""

    suggestion: Suggestion
    evidence: list[Reference]
    target_version: int  # the target's current version: a person's seenVersion


def counts(rows: dict[str, int]) -> dict[str, int]:
    """Pending items per inbox kind, every kind present (zero when none)."""
    return {name: rows.get(kind.value, 0) for name, kind in INBOX_KINDS.items()}
