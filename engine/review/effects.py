"""What the shell must do besides storing the new state a decision returns.

Each decision returns `Decision(state, effects)`. `jobs/` stores `state` and performs the
effects in order; every effect carries the keys that make performing it twice harmless.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, TypeVar

from engine.review.types import ReviewModel, Scope

S = TypeVar("S")


class StopExecution(ReviewModel):
    """Ask the worker executing `run_id` to stop at its next batch boundary."""

    run_id: str


class ReleaseLease(ReviewModel):
    """The run has stopped executing (cleanup included): give the review lease back."""

    run_id: str


class ReleaseSlot(ReviewModel):
    """Give the FIFO pool slot back (after commit or no_change, before downstream work)."""

    run_id: str


class StartSupervision(ReviewModel):
    """Queue the automatic supervision check that follows a heartbeat report."""

    heartbeat_run_id: str
    scope: Scope


class CallModel(ReviewModel):
    """Send this work to the model (after taking a pool slot and checking the lease)."""

    run_id: str
    purpose: str  # "report" | "leaf:<index>" | "navigation"


Effect = StopExecution | ReleaseLease | ReleaseSlot | StartSupervision | CallModel


@dataclass(frozen=True)
class Decision(Generic[S]):
    state: S
    effects: tuple[Effect, ...] = field(default=())
