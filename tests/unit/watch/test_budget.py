"""Round budgets (docs/rules/watches.md ... 总共最多 20 轮工具交互加 1 轮收尾")."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import Conflict
from engine.watch.budget import (
    MAX_TOOL_ROUNDS,
    PREPARATION_ROUNDS,
    RECORD_SYNC_ROUNDS,
    TOOL_ALIASES,
    TOOL_PURPOSES,
    VERIFICATION_ROUNDS,
    BudgetPhase,
    ClosingRound,
    CorrectionRound,
    RecordSyncBudget,
    Round,
    RoundBudget,
    ToolCall,
    ToolRound,
    spend,
    spend_all,
    spend_sync_round,
)

READ = ToolCall(name="heartbeat_read_knowledge_source", succeeded=True)
READ_NOTE = ToolCall(name="read_note_source", succeeded=True)
BASELINE = ToolCall(name="heartbeat_read_record_baseline", succeeded=True)
REGISTER = ToolCall(name="heartbeat_check_workflow", succeeded=True)
SAVE = ToolCall(name="heartbeat_record_checkpoint", succeeded=True)
FAILED_READ = ToolCall(name="heartbeat_read_note_source", succeeded=False)
BASH = ToolCall(name="bash", succeeded=True)

PREP = ToolRound(calls=(READ, REGISTER))
VERIFY = ToolRound(calls=(BASH,))
MIXED = ToolRound(calls=(READ, BASH))
FAILED = ToolRound(calls=(READ, FAILED_READ))


def test_pure_preparation_rounds_use_preparation_budget() -> None:
    for calls in [
        (READ,),
        (READ_NOTE,),
        (BASELINE,),
        (REGISTER,),
        (SAVE,),
        (READ, BASELINE, REGISTER, SAVE),
    ]:
        budget = spend(RoundBudget(), ToolRound(calls=calls))
        assert (budget.preparation_used, budget.verification_used) == (1, 0)


@pytest.mark.parametrize("round_", [VERIFY, MIXED, FAILED, CorrectionRound()])
def test_mixed_failed_and_correction_rounds_use_verification_budget(round_: Round) -> None:
    budget = spend(RoundBudget(), round_)
    assert (budget.preparation_used, budget.verification_used) == (0, 1)


def test_twelve_verification_rounds_then_only_the_closing_round() -> None:
    budget = spend_all(RoundBudget(), [VERIFY] * (VERIFICATION_ROUNDS - 1))
    assert budget.phase is BudgetPhase.OPEN
    budget = spend(budget, VERIFY)
    assert budget.phase is BudgetPhase.CLOSING_ONLY
    with pytest.raises(Conflict) as err:
        spend(budget, PREP)
    assert err.value.details["reason"] == "budget_exhausted"
    with pytest.raises(Conflict):
        spend(budget, CorrectionRound())
    closed = spend(budget, ClosingRound())
    assert closed.phase is BudgetPhase.FINISHED
    with pytest.raises(Conflict):
        spend(closed, ClosingRound())


def test_eight_preparation_plus_twelve_verification_is_twenty_tool_rounds() -> None:
    budget = spend_all(RoundBudget(), [PREP] * PREPARATION_ROUNDS + [VERIFY] * VERIFICATION_ROUNDS)
    assert budget.tool_rounds == MAX_TOOL_ROUNDS
    assert budget.phase is BudgetPhase.CLOSING_ONLY


def test_preparation_beyond_eight_spends_verification_budget() -> None:
    budget = spend_all(RoundBudget(), [PREP] * (PREPARATION_ROUNDS + 3))
    assert (budget.preparation_used, budget.verification_used) == (PREPARATION_ROUNDS, 3)


def test_correction_rounds_use_verification_but_are_not_tool_rounds() -> None:
    budget = spend_all(RoundBudget(), [CorrectionRound()] * 4 + [VERIFY] * 8)
    assert budget.phase is BudgetPhase.CLOSING_ONLY
    assert budget.tool_rounds == 8


def test_closing_round_may_end_the_check_early() -> None:
    budget = spend_all(RoundBudget(), [PREP, VERIFY, ClosingRound()])
    assert budget.phase is BudgetPhase.FINISHED


def test_tool_round_needs_at_least_one_call() -> None:
    with pytest.raises(ValueError):
        ToolRound(calls=())


rounds = st.one_of(
    st.sampled_from([PREP, VERIFY, MIXED, FAILED, CorrectionRound()]),
    st.lists(
        st.sampled_from([READ, READ_NOTE, BASELINE, REGISTER, SAVE, FAILED_READ, BASH]),
        min_size=1,
        max_size=4,
    ).map(lambda calls: ToolRound(calls=tuple(calls))),
)


@settings(deadline=None)
@given(st.lists(rounds, max_size=40))
def test_no_round_mix_exceeds_the_caps(sequence: list[Round]) -> None:
    budget = RoundBudget()
    accepted = 0
    for round_ in sequence:
        try:
            budget = spend(budget, round_)
        except Conflict:
            assert budget.phase is BudgetPhase.CLOSING_ONLY
            continue
        accepted += 1
    assert budget.verification_used <= VERIFICATION_ROUNDS
    assert budget.preparation_used <= PREPARATION_ROUNDS
    assert budget.tool_rounds <= MAX_TOOL_ROUNDS
    assert accepted <= VERIFICATION_ROUNDS + PREPARATION_ROUNDS
    if accepted < len(sequence):
        assert spend(budget, ClosingRound()).phase is BudgetPhase.FINISHED


@settings(deadline=None)
@given(
    st.lists(st.sampled_from([VERIFY, MIXED, FAILED, CorrectionRound()]), min_size=12, max_size=30)
)
def test_non_preparation_rounds_exhaust_after_exactly_twelve(sequence: list[Round]) -> None:
    budget = spend_all(RoundBudget(), sequence[:VERIFICATION_ROUNDS])
    assert budget.phase is BudgetPhase.CLOSING_ONLY
    assert budget.preparation_used == 0


def test_record_sync_keeps_its_own_twelve_round_cap() -> None:
    sync = RecordSyncBudget()
    for _ in range(RECORD_SYNC_ROUNDS):
        sync = spend_sync_round(sync)
    assert sync.exhausted
    with pytest.raises(Conflict):
        spend_sync_round(sync)
    exhausted_check = spend_all(RoundBudget(), [VERIFY] * VERIFICATION_ROUNDS)
    assert exhausted_check.phase is BudgetPhase.CLOSING_ONLY
    assert spend_sync_round(RecordSyncBudget()).rounds_used == 1


def test_the_older_names_are_aliases_counted_like_the_seed_tools() -> None:
    assert set(TOOL_PURPOSES) == {
        "heartbeat_read_note_source",
        "heartbeat_read_knowledge_source",
        "heartbeat_read_record_baseline",
        "heartbeat_check_workflow",
        "heartbeat_record_checkpoint",
    }
    for alias, seed_name in TOOL_ALIASES.items():
        if alias == "update_workflow":
            continue
        assert ToolCall(name=alias, succeeded=True).purpose is TOOL_PURPOSES[seed_name]
    # recording evidence is verification under either name; registering steps is preparation
    update = ToolCall(name="update_workflow", succeeded=True)
    seed_update = ToolCall(name="heartbeat_check_workflow", succeeded=True, evidence=True)
    for call in (update, seed_update):
        budget = spend(RoundBudget(), ToolRound(calls=(call,)))
        assert (budget.preparation_used, budget.verification_used) == (0, 1)
    assert REGISTER.purpose is ToolCall(name="check_workflow", succeeded=True).purpose
