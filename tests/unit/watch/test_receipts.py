"""Receipt recognition (docs/rules/watches.md检查点")."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engine.watch.receipts import EntryKind, ReceiptStatus, SessionEntry, recognize_receipt
from tests.support.watch import NOW

KEY = "exec-abc"


def entry(kind: EntryKind, minute: int, text: str = "", **kw: object) -> SessionEntry:
    return SessionEntry.model_validate(
        {"kind": kind, "at": NOW + timedelta(minutes=minute), "text": text, **kw}
    )


HANDOFF = entry(EntryKind.HANDOFF, 0, execution_key=KEY)
FINAL = entry(EntryKind.ASSISTANT_FINAL, 9, "草稿已生成，编号见记录")


def test_final_answer_after_the_hand_off_is_the_receipt() -> None:
    receipt = recognize_receipt(
        [HANDOFF, entry(EntryKind.ASSISTANT_PARTIAL, 1), entry(EntryKind.TOOL_RESULT, 2), FINAL],
        KEY,
    )
    assert receipt.accepted and receipt.answer == FINAL.text and receipt.answered_at == FINAL.at
    assert not receipt.replay


def test_automatic_compaction_checkpoints_are_ignored() -> None:
    compaction = entry(EntryKind.COMPACTION_CHECKPOINT, 3, "上下文已压缩")
    host_note = entry(EntryKind.USER_MESSAGE, 4, "[自动压缩检查点]", host_generated=True)
    assert recognize_receipt([HANDOFF, compaction, host_note, FINAL], KEY).accepted


@pytest.mark.parametrize(
    ("between", "status"),
    [
        ([entry(EntryKind.INTERRUPTED, 3)], ReceiptStatus.INTERRUPTED),
        (
            [entry(EntryKind.USER_MESSAGE, 3, "另外帮我查一下天气")],
            ReceiptStatus.SEPARATED_BY_USER_REQUEST,
        ),
    ],
)
def test_interrupted_or_separated_results_are_rejected(
    between: list[SessionEntry], status: ReceiptStatus
) -> None:
    receipt = recognize_receipt([HANDOFF, *between, FINAL], KEY)
    assert receipt.status is status and not receipt.accepted and receipt.answer == ""


def test_no_final_answer_is_rejected() -> None:
    assert recognize_receipt([HANDOFF, entry(EntryKind.ASSISTANT_PARTIAL, 1)], KEY).status is (
        ReceiptStatus.NO_FINAL_ANSWER
    )
    assert recognize_receipt([HANDOFF, entry(EntryKind.ASSISTANT_FINAL, 1, "  ")], KEY).status is (
        ReceiptStatus.NO_FINAL_ANSWER
    )


def test_an_answer_before_the_hand_off_or_for_another_key_does_not_count() -> None:
    assert recognize_receipt([FINAL.model_copy(update={"at": NOW}), HANDOFF], KEY).status is (
        ReceiptStatus.NO_FINAL_ANSWER
    )
    assert recognize_receipt([HANDOFF, FINAL], "exec-other").status is ReceiptStatus.NO_HANDOFF
