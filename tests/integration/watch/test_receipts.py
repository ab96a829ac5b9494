"""Receipts of hand-offs stored in Neo4j (docs/rules/watches.md; 事实已记录 vs
交付物已完成): rejected reports are kept with their reason and change nothing."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from engine.errors import Conflict, InvalidInput, NotFound
from engine.watch.model import DeliveryState, StepStatus
from engine.watch.receipts import EntryKind, ReceiptStatus, SessionEntry
from engine.watch.report import CompletedStep, ExecutionReport
from graph.watch.receipts import WatchReceipts
from graph.watch.repository import WatchState
from tests.support.grounded_watch import Grounding, plain_check
from tests.support.scripted_model import ScriptedModelServer
from tests.support.watch_world import NOW, World


async def handed_off(
    ctx: dict[str, Any], world: World, model_server: ScriptedModelServer
) -> tuple[WatchState, str]:
    state = await world.watch()
    turns = Grounding()
    model_server.script(*plain_check(turns, world))
    report = await world.check(ctx, state)
    assert turns.misses == [], "each scripted turn stands on what the product sent"
    assert report["handoff"] == "delivered"
    [handoff] = await world.records.handoffs(world.scope, state.watch.watch_id)
    return state, handoff.execution_key


def entry(kind: EntryKind, minute: int, text: str = "", **kw: Any) -> SessionEntry:
    return SessionEntry.model_validate(
        {"kind": kind, "at": NOW + timedelta(minutes=minute), "text": text, **kw}
    )


def report_of(
    state: WatchState,
    key: str,
    *between: SessionEntry,
    final: bool = True,
    verify_only: bool = False,
) -> ExecutionReport:
    entries = [entry(EntryKind.HANDOFF, 0, execution_key=key), *between]
    if final:
        entries.append(entry(EntryKind.ASSISTANT_FINAL, 9, "草稿已生成，草稿编号见记录"))
    return ExecutionReport(
        watch_id=state.watch.watch_id,
        execution_key=key,
        entries=tuple(entries),
        completed=() if verify_only else (CompletedStep(step_id="s2"),),
        verify_only=verify_only,
    )


async def test_rejected_receipts_are_stored_and_the_accepted_one_completes_the_deliverable(
    ctx: dict[str, Any], world: World, model_server: ScriptedModelServer
) -> None:
    state, key = await handed_off(ctx, world, model_server)
    receipts = WatchReceipts(world.driver, world.database)
    later = NOW + timedelta(hours=1)
    for between, final, status in (
        ([entry(EntryKind.INTERRUPTED, 2)], True, ReceiptStatus.INTERRUPTED),
        (
            [entry(EntryKind.USER_MESSAGE, 2, "再帮我写个周报")],
            True,
            ReceiptStatus.SEPARATED_BY_USER_REQUEST,
        ),
        ([entry(EntryKind.ASSISTANT_PARTIAL, 2)], False, ReceiptStatus.NO_FINAL_ANSWER),
    ):
        written = await receipts.report_execution(
            world.scope, report_of(state, key, *between, final=final), later
        )
        assert written.receipt.status is status and not written.receipt.accepted
        assert written.delivery is DeliveryState.FACTS_RECORDED
    stored = await world.repo.get(world.scope, state.watch.watch_id)
    assert stored.steps[1].status is StepStatus.PENDING, "a rejected receipt marks nothing done"

    compaction = entry(EntryKind.COMPACTION_CHECKPOINT, 3, "自动压缩")
    accepted = await receipts.report_execution(
        world.scope, report_of(state, key, compaction), later
    )
    assert accepted.receipt.accepted and accepted.receipt.completed_steps == ("s2",)
    assert accepted.delivery is DeliveryState.DELIVERABLE_DONE
    stored = await world.repo.get(world.scope, state.watch.watch_id)
    s2 = stored.steps[1]
    assert s2.status is StepStatus.DONE and s2.evidence is not None
    assert s2.evidence.run_id == key and "草稿已生成" in s2.evidence.text
    assert stored.steps[0].status is StepStatus.DONE, "the check's fact stays recorded"

    again = await receipts.report_execution(
        world.scope, report_of(state, key, compaction), later + timedelta(minutes=1)
    )
    assert again.duplicate and again.receipt.receipt_id == accepted.receipt.receipt_id
    with pytest.raises(Conflict):
        await receipts.report_execution(
            world.scope, report_of(state, key, entry(EntryKind.TOOL_RESULT, 4)), later
        )
    check_only = await receipts.report_execution(
        world.scope, report_of(state, key, verify_only=True), later
    )
    assert check_only.receipt.accepted and check_only.receipt.completed_steps == ()
    listed = (await receipts.receipts_of(world.scope, [state.watch.watch_id]))[state.watch.watch_id]
    assert [r.status for r in listed].count(ReceiptStatus.RECEIVED) == 2 and len(listed) == 5
    # recognising receipts replayed nothing: still one hand-off and one check run
    assert len(await world.records.handoffs(world.scope, state.watch.watch_id)) == 1
    assert len(await world.records.runs(world.scope, state.watch.watch_id)) == 1


async def test_reports_for_unknown_keys_or_check_steps_write_nothing(
    ctx: dict[str, Any], world: World, model_server: ScriptedModelServer
) -> None:
    state, key = await handed_off(ctx, world, model_server)
    receipts = WatchReceipts(world.driver, world.database)
    with pytest.raises(NotFound):
        await receipts.report_execution(world.scope, report_of(state, "exec-unknown"), NOW)
    bad = report_of(state, key).model_copy(update={"completed": (CompletedStep(step_id="s1"),)})
    with pytest.raises(InvalidInput):
        await receipts.report_execution(world.scope, bad, NOW)
    assert (await receipts.receipts_of(world.scope, [state.watch.watch_id])) == {
        state.watch.watch_id: []
    }


async def test_two_different_completing_reports_at_once_accept_exactly_one(
    ctx: dict[str, Any], world: World, model_server: ScriptedModelServer
) -> None:
    import asyncio

    state, key = await handed_off(ctx, world, model_server)
    receipts = WatchReceipts(world.driver, world.database)
    later = NOW + timedelta(hours=1)
    first = report_of(state, key, entry(EntryKind.ASSISTANT_PARTIAL, 2, "甲"))
    second = report_of(state, key, entry(EntryKind.ASSISTANT_PARTIAL, 3, "乙"))
    outcomes = await asyncio.gather(
        receipts.report_execution(world.scope, first, later),
        receipts.report_execution(world.scope, second, later),
        return_exceptions=True,
    )
    accepted = [o for o in outcomes if not isinstance(o, BaseException) and o.receipt.accepted]
    refused = [o for o in outcomes if isinstance(o, Conflict)]
    assert len(accepted) == 1 and len(refused) == 1, outcomes
