"""The inbox: what waits for a person in a scope, newest first: pending
suggestions (FIELD), pending differences (DIFFERENCE), and supervision runs that stopped and
wait for someone to continue them (FAILED_RUN, PAUSED_RUN). This module decides which kinds a
request asks for (unknown kinds are INVALID_INPUT), what a stopped run's item says happened
and why, and the actions a person can take on it.

A watch check that failed is not an inbox item: the next round (or `runWatchNow`) checks
again by itself, so nothing waits for a person; a failed heartbeat report leaves its
supervision run failed, which is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from engine.errors import InvalidInput
from engine.language.lang import Lang
from engine.story.models import Reference, Suggestion, SuggestionKind

INBOX_KINDS: dict[str, SuggestionKind] = {
    "FIELD": SuggestionKind.FIELD,
    "DIFFERENCE": SuggestionKind.DIFFERENCE,
}
# a stopped supervision run's inbox kind -> its stored status
RUN_KINDS: dict[str, str] = {"FAILED_RUN": "failed", "PAUSED_RUN": "paused"}
ALL_KINDS: dict[str, str] = {**{n: k.value for n, k in INBOX_KINDS.items()}, **RUN_KINDS}
RUN_ACTIONS: dict[str, tuple[str, ...]] = {
    "failed": ("continueReview",),
    "paused": ("continueReview", "cancelReview"),
}


def inbox_kinds(kinds: Sequence[str] | None) -> list[str]:
    """The stored kinds (suggestion kinds and run statuses) a request asks for (all when none
    is named)."""
    if not kinds:
        return sorted(ALL_KINDS.values())
    unknown = sorted({k for k in kinds if k.upper() not in ALL_KINDS})
    if unknown:
        raise InvalidInput(
            f"argument kinds: {', '.join(repr(k) for k in unknown)} is not an inbox kind; "
            f"expected one of {', '.join(sorted(ALL_KINDS))}",
            kinds=unknown,
            known=sorted(ALL_KINDS),
        )
    return sorted({ALL_KINDS[k.upper()] for k in kinds})


def split_kinds(stored: Sequence[str]) -> tuple[list[str], list[str]]:
    """(suggestion kinds, run statuses) of the stored kinds `inbox_kinds` answered."""
    suggestions = sorted(k for k in stored if k in {s.value for s in INBOX_KINDS.values()})
    runs = sorted(k for k in stored if k in RUN_KINDS.values())
    return suggestions, runs


@dataclass(frozen=True)
class StoppedRun:
    """A supervision run that failed or paused and waits for a person."""

    run_id: str
    status: str  # failed | paused
    trigger: str
    mode: str
    created_at: datetime
    at: datetime  # when it failed or paused (its last update)
    error_stage: str | None = None
    error_kind: str | None = None
    error_message: str | None = None
    pause_reason: str | None = None  # the service's reason (the token budget); None: a person

    @property
    def actions(self) -> tuple[str, ...]:
        """The mutations a person can take on it (each takes the run id)."""
        return RUN_ACTIONS.get(self.status, ())

    @property
    def kind(self) -> str:
        return next(name for name, status in RUN_KINDS.items() if status == self.status)

    def reason(self, lang: Lang = "zh") -> str:
        if self.status == "failed":
            return self.error_message or ("未知错误" if lang == "zh" else "unknown error")
        if self.pause_reason:
            return self.pause_reason
        return "由人暂停" if lang == "zh" else "paused by a person"

    def what(self, lang: Lang = "zh") -> str:
        """What happened, as a person reads it in the inbox."""
        if self.status == "failed":
            if lang == "en":
                return f"supervision run failed at the {self.error_stage or '?'} stage"
            return f"监督运行在{self.error_stage or '?'}阶段失败"
        return "supervision run paused" if lang == "en" else "监督运行已暂停"


@dataclass(frozen=True)
class InboxItem:
    """One thing waiting for a person: a pending suggestion with the evidence it cites (each
    reference's excerpt is read from the exact source version, or answers unavailable once
    it was withdrawn), or a stopped supervision run."""

    suggestion: Suggestion | None
    evidence: list[Reference]
    target_version: int  # the target's current version: a person's seenVersion
    run: StoppedRun | None = None

    @property
    def at(self) -> datetime:
        """The item's place in the inbox: when it was proposed, or when the run stopped."""
        if self.suggestion is not None:
            return self.suggestion.recorded_at
        assert self.run is not None
        return self.run.at

    @property
    def id(self) -> str:
        if self.suggestion is not None:
            return self.suggestion.id
        assert self.run is not None
        return self.run.run_id


def counts(rows: dict[str, int]) -> dict[str, int]:
    """Pending items per inbox kind, every kind present (zero when none)."""
    return {name: rows.get(stored, 0) for name, stored in ALL_KINDS.items()}
