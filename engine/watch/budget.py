"""Round budgets of a check run and of the record sync (seed 000 "每项检查保留 12 轮实质核验").

- 12 rounds of substantive verification per check.
- Pure source reads, baseline-record reads, step registration and checkpoint saves may use
  up to 8 more rounds — a round counts as preparation only when every tool in it is one of
  those and every one succeeded. Once the 8 are used, such rounds spend verification budget.
- Mixed rounds, rounds with a failed tool and no-tool correction rounds spend verification
  budget.
- At most 20 tool rounds plus 1 closing round (no tools, the final observation).
- The independent record sync keeps its own 12-round cap.
- Check commands run in the foreground for at most 50 s, register no background job as the
  original agent and send no completion notification to the main chat.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from pydantic import Field

from engine.errors import Conflict, InvalidInput
from engine.watch.model import Frozen

VERIFICATION_ROUNDS = 12
PREPARATION_ROUNDS = 8
MAX_TOOL_ROUNDS = 20
CLOSING_ROUNDS = 1
RECORD_SYNC_ROUNDS = 12
COMMAND_TIMEOUT_SECONDS = 50.0


class ToolPurpose(StrEnum):
    SOURCE_READ = "source_read"
    BASELINE_READ = "baseline_read"
    STEP_REGISTRATION = "step_registration"
    CHECKPOINT_SAVE = "checkpoint_save"
    INVESTIGATION = "investigation"


PREPARATION_PURPOSES = frozenset(
    {
        ToolPurpose.SOURCE_READ,
        ToolPurpose.BASELINE_READ,
        ToolPurpose.STEP_REGISTRATION,
        ToolPurpose.CHECKPOINT_SAVE,
    }
)

# Checker tool names (seed 000 uses the `heartbeat_` prefix; issue 7 the bare names).
TOOL_PURPOSES: dict[str, ToolPurpose] = {
    f"{prefix}{name}": purpose
    for prefix in ("", "heartbeat_")
    for name, purpose in {
        "read_note_source": ToolPurpose.SOURCE_READ,
        "read_knowledge_source": ToolPurpose.SOURCE_READ,
        "read_record_baseline": ToolPurpose.BASELINE_READ,
        "check_workflow": ToolPurpose.STEP_REGISTRATION,
        "record_checkpoint": ToolPurpose.CHECKPOINT_SAVE,
    }.items()
}


def purpose_of(tool_name: str) -> ToolPurpose:
    return TOOL_PURPOSES.get(tool_name, ToolPurpose.INVESTIGATION)


class ToolCall(Frozen):
    name: str = Field(min_length=1)
    succeeded: bool

    @property
    def purpose(self) -> ToolPurpose:
        return purpose_of(self.name)


class ToolRound(Frozen):
    """A model turn that called tools."""

    calls: tuple[ToolCall, ...] = Field(min_length=1)

    @property
    def is_preparation(self) -> bool:
        return all(c.succeeded and c.purpose in PREPARATION_PURPOSES for c in self.calls)


class CorrectionRound(Frozen):
    """A model turn without tools that did not end the check (it gets corrected)."""


class ClosingRound(Frozen):
    """The one final turn without tools that carries the observation."""


Round = ToolRound | CorrectionRound | ClosingRound


class BudgetPhase(StrEnum):
    OPEN = "open"  # tools allowed
    CLOSING_ONLY = "closing_only"  # next request must forbid tools
    FINISHED = "finished"


class RoundBudget(Frozen):
    verification_used: int = 0
    preparation_used: int = 0
    correction_rounds: int = 0
    closing_used: int = 0

    @property
    def tool_rounds(self) -> int:
        return self.verification_used - self.correction_rounds + self.preparation_used

    @property
    def phase(self) -> BudgetPhase:
        if self.closing_used >= CLOSING_ROUNDS:
            return BudgetPhase.FINISHED
        if self.verification_used >= VERIFICATION_ROUNDS or self.tool_rounds >= MAX_TOOL_ROUNDS:
            return BudgetPhase.CLOSING_ONLY
        return BudgetPhase.OPEN

    @property
    def verification_left(self) -> int:
        return max(0, VERIFICATION_ROUNDS - self.verification_used)

    @property
    def preparation_left(self) -> int:
        return max(0, PREPARATION_ROUNDS - self.preparation_used)


def spend(budget: RoundBudget, round_: Round) -> RoundBudget:
    """Account one finished model turn; raises Conflict when the turn was not allowed."""
    phase = budget.phase
    if phase is BudgetPhase.FINISHED:
        raise Conflict("the check already closed; no more rounds", reason="finished")
    if isinstance(round_, ClosingRound):
        return budget.model_copy(update={"closing_used": budget.closing_used + 1})
    if phase is BudgetPhase.CLOSING_ONLY:
        raise Conflict(
            "the round budget is used up; only the closing round without tools remains",
            reason="budget_exhausted",
            verification_used=budget.verification_used,
            tool_rounds=budget.tool_rounds,
        )
    if isinstance(round_, CorrectionRound):
        return budget.model_copy(
            update={
                "verification_used": budget.verification_used + 1,
                "correction_rounds": budget.correction_rounds + 1,
            }
        )
    if round_.is_preparation and budget.preparation_used < PREPARATION_ROUNDS:
        return budget.model_copy(update={"preparation_used": budget.preparation_used + 1})
    return budget.model_copy(update={"verification_used": budget.verification_used + 1})


def spend_all(budget: RoundBudget, rounds: Sequence[Round]) -> RoundBudget:
    for round_ in rounds:
        budget = spend(budget, round_)
    return budget


# --- record sync --------------------------------------------------------------------------


class RecordSyncBudget(Frozen):
    """The independent record-sync task's own cap, unaffected by the check's budget."""

    rounds_used: int = 0

    @property
    def exhausted(self) -> bool:
        return self.rounds_used >= RECORD_SYNC_ROUNDS


def spend_sync_round(budget: RecordSyncBudget) -> RecordSyncBudget:
    if budget.exhausted:
        raise Conflict(
            f"record sync used its {RECORD_SYNC_ROUNDS} rounds", reason="sync_budget_exhausted"
        )
    return budget.model_copy(update={"rounds_used": budget.rounds_used + 1})


# --- commands -----------------------------------------------------------------------------


class CommandPolicy(Frozen):
    """How the checker runs a shell command: foreground, bounded, no job, no wake-up."""

    timeout_seconds: float
    foreground: bool = True
    register_background_job: bool = False
    notify_main_chat: bool = False


def command_policy(requested_timeout: float | None = None) -> CommandPolicy:
    """Clamp a check command's timeout to 50 s; a non-positive request is invalid."""
    if requested_timeout is not None and requested_timeout <= 0:
        raise InvalidInput("a command timeout must be positive", field="timeout")
    timeout = COMMAND_TIMEOUT_SECONDS if requested_timeout is None else requested_timeout
    return CommandPolicy(timeout_seconds=min(timeout, COMMAND_TIMEOUT_SECONDS))
