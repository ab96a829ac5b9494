"""Round budgets of a check run and of the record sync (docs/rules/watches.md).

- 12 rounds of substantive verification per check.
- Pure source reads, baseline-record reads, step registration and checkpoint saves may use
  up to 8 more rounds — a round counts as preparation only when every tool in it is one of
  those and every one succeeded. Once the 8 are used, such rounds spend verification budget.
- Mixed rounds, rounds with a failed tool and no-tool correction rounds spend verification
  budget.
- At most 20 tool rounds plus 1 closing round (no tools, the final observation).
- The independent record sync keeps its own 12-round cap.
- The checker offers the tool names of docs/rules/watches.md (`heartbeat_read_note_source`,
  `heartbeat_read_knowledge_source`, `heartbeat_read_record_baseline`,
  `heartbeat_check_workflow`, `heartbeat_record_checkpoint`). The older bare names are
  aliases, counted exactly like the name they stand for (`TOOL_ALIASES`).
- A `heartbeat_check_workflow` call that records evidence (`update.updates`, or the alias
  `update_workflow`) is verification, not step registration: evidence is what a check proves.
- The checker runs no commands: there is no command tool (README "Watch checker tools").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any

from pydantic import Field

from engine.errors import Conflict
from engine.watch.model import Frozen

VERIFICATION_ROUNDS = 12
PREPARATION_ROUNDS = 8
MAX_TOOL_ROUNDS = 20
CLOSING_ROUNDS = 1
RECORD_SYNC_ROUNDS = 12


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

READ_NOTE = "heartbeat_read_note_source"
READ_KNOWLEDGE = "heartbeat_read_knowledge_source"
READ_BASELINE = "heartbeat_read_record_baseline"
CHECK_WORKFLOW = "heartbeat_check_workflow"
RECORD_CHECKPOINT = "heartbeat_record_checkpoint"

# The checker's tools by the names docs/rules/watches.md gives them (read → identify → verify).
TOOL_PURPOSES: dict[str, ToolPurpose] = {
    READ_NOTE: ToolPurpose.SOURCE_READ,
    READ_KNOWLEDGE: ToolPurpose.SOURCE_READ,
    READ_BASELINE: ToolPurpose.BASELINE_READ,
    CHECK_WORKFLOW: ToolPurpose.STEP_REGISTRATION,
    RECORD_CHECKPOINT: ToolPurpose.CHECKPOINT_SAVE,
}
# Older names a model or host may still call: each is the tool it names.
TOOL_ALIASES: dict[str, str] = {
    "read_note_source": READ_NOTE,
    "read_knowledge_source": READ_KNOWLEDGE,
    "read_record_baseline": READ_BASELINE,
    "check_workflow": CHECK_WORKFLOW,
    "update_workflow": CHECK_WORKFLOW,  # its `updates` are `update.updates`
    "record_checkpoint": RECORD_CHECKPOINT,
}
EVIDENCE_ALIAS = "update_workflow"


def canonical(tool_name: str) -> str:
    """The name of a checker tool (an alias resolved; any other name unchanged)."""
    return TOOL_ALIASES.get(tool_name, tool_name)


def records_evidence(tool_name: str, args: Mapping[str, Any]) -> bool:
    """A workflow call that records step evidence (`update.updates` or `update_workflow`)."""
    if tool_name == EVIDENCE_ALIAS:
        return True
    return canonical(tool_name) == CHECK_WORKFLOW and args.get("update") is not None


def purpose_of(tool_name: str, *, evidence: bool = False) -> ToolPurpose:
    if evidence:
        return ToolPurpose.INVESTIGATION
    return TOOL_PURPOSES.get(canonical(tool_name), ToolPurpose.INVESTIGATION)


class ToolCall(Frozen):
    name: str = Field(min_length=1)
    succeeded: bool
    evidence: bool = False  # it recorded step evidence (a verification call)

    @property
    def purpose(self) -> ToolPurpose:
        return purpose_of(self.name, evidence=self.evidence or self.name == EVIDENCE_ALIAS)


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
