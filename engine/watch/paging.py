"""Paged reading of bound sources during one check run (docs/rules/watches.md).

Each read returns a `sourceKey` the checker later cites in its steps. The reading state
records, per source, the revision being read and which character ranges were seen, so the
outcome can tell whether the evidence base is complete.

A revision change while a source is being read ("分页期间依据 revision 改变") revokes the
old checklist — every registered step and its evidence — and the source must be read again
from its start: a page of the new revision is kept only when it begins at offset 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pydantic import Field

from engine.errors import InvalidInput
from engine.watch.model import Frozen, SourceKey, WorkflowStep


class PageRead(Frozen):
    """Event: the host read one page of a source for this run."""

    key: SourceKey
    revision: str = Field(min_length=1)
    offset: int = Field(ge=0)
    text: str
    total_length: int = Field(ge=0)


class SourceReading(Frozen):
    key: SourceKey
    revision: str
    total_length: int
    covered: tuple[tuple[int, int], ...] = ()

    @property
    def complete(self) -> bool:
        if self.total_length == 0:
            return True
        return self.covered == ((0, self.total_length),)

    @property
    def next_offset(self) -> int:
        if not self.covered or self.covered[0][0] != 0:
            return 0
        return self.covered[0][1]


class ReadingState(Frozen):
    """What this run has read; one per check run, never shared between watches."""

    watch_id: str
    run_id: str
    readings: tuple[SourceReading, ...] = ()

    def reading(self, key: SourceKey) -> SourceReading | None:
        return next((r for r in self.readings if r.key == key), None)

    def read_keys(self) -> tuple[SourceKey, ...]:
        return tuple(r.key for r in self.readings)

    def revisions(self) -> dict[str, str]:
        return {r.key.value: r.revision for r in self.readings}

    def incomplete(self, required: Sequence[SourceKey]) -> tuple[SourceKey, ...]:
        """Required sources not yet read to the end of their current revision."""
        out = []
        for key in required:
            r = self.reading(key)
            if r is None or not r.complete:
                out.append(key)
        return tuple(out)


class ChecklistRevoked(Frozen):
    """Effect: the step list built from an older revision is void; persist the empty list."""

    key: SourceKey
    old_revision: str
    new_revision: str
    revoked_steps: tuple[str, ...]
    at: datetime


class PageOutcome(Frozen):
    reading: ReadingState
    steps: tuple[WorkflowStep, ...]
    accepted: bool
    effects: tuple[ChecklistRevoked, ...] = ()
    result: dict[str, Any]


def _merge(ranges: Sequence[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(r for r in ranges if r[1] > r[0]):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return tuple(merged)


def _replace(state: ReadingState, reading: SourceReading) -> ReadingState:
    others = tuple(r for r in state.readings if r.key != reading.key)
    return state.model_copy(update={"readings": (*others, reading)})


def record_page(
    state: ReadingState,
    steps: tuple[WorkflowStep, ...],
    page: PageRead,
    now: datetime,
) -> PageOutcome:
    """Record a page read; returns the new reading state, the (possibly revoked) step list
    and the tool result for the model, which always carries the `sourceKey`."""
    end = page.offset + len(page.text)
    if page.offset > page.total_length or end > page.total_length:
        raise InvalidInput(
            "page lies outside the source",
            field="offset",
            offset=page.offset,
            length=len(page.text),
            total=page.total_length,
        )
    previous = state.reading(page.key)
    effects: tuple[ChecklistRevoked, ...] = ()
    if previous is not None and previous.revision != page.revision:
        effects = (
            ChecklistRevoked(
                key=page.key,
                old_revision=previous.revision,
                new_revision=page.revision,
                revoked_steps=tuple(s.step_id for s in steps),
                at=now,
            ),
        )
        steps = ()
        previous = None
        state = state.model_copy(
            update={"readings": tuple(r for r in state.readings if r.key != page.key)}
        )
        if page.offset != 0:
            restarted = SourceReading(
                key=page.key, revision=page.revision, total_length=page.total_length
            )
            return PageOutcome(
                reading=_replace(state, restarted),
                steps=steps,
                accepted=False,
                effects=effects,
                result={
                    "sourceKey": page.key.value,
                    "revision": page.revision,
                    "restart": True,
                    "nextOffset": 0,
                    "message": (
                        f"{page.key.value} changed from revision {effects[0].old_revision} to "
                        f"{page.revision} while it was being read; the earlier step list is "
                        "revoked. Read it again from offset 0 and register the steps anew."
                    ),
                },
            )
    covered = previous.covered if previous is not None else ()
    reading = SourceReading(
        key=page.key,
        revision=page.revision,
        total_length=page.total_length,
        covered=_merge((*covered, (page.offset, end))),
    )
    result: dict[str, Any] = {
        "sourceKey": page.key.value,
        "revision": page.revision,
        "offset": page.offset,
        "nextOffset": end,
        "hasMore": end < page.total_length,
        "text": page.text,
    }
    if effects:
        result["restart"] = True
        result["message"] = (
            f"{page.key.value} changed from revision {effects[0].old_revision} to "
            f"{page.revision}; the earlier step list is revoked. Register the steps anew."
        )
    return PageOutcome(
        reading=_replace(state, reading),
        steps=steps,
        accepted=True,
        effects=effects,
        result=result,
    )
