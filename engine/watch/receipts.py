"""Recognising the partner session's receipt for a hand-off (docs/rules/watches.md).

"回执识别忽略宿主标注的自动压缩检查点，仍拒绝中断、无最终答复及被真实新用户请求隔开的结果。
仅核对结果模式不重放外部操作。"

After a hand-off is injected under its execution key, the partner session's entries that
follow it are scanned:

- host-marked automatic compaction checkpoints are ignored (they neither answer nor
  separate);
- an interruption rejects the receipt;
- a real new user request before the final answer rejects it (the answer may belong to
  that request);
- running out of entries without a final answer rejects it.

Recognition only reads; a rejected receipt is reported and nothing is replayed, so no draft
or publication is submitted twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from enum import StrEnum

from engine.watch.model import Frozen


class EntryKind(StrEnum):
    HANDOFF = "handoff"  # the injected hand-off, carrying its execution key
    USER_MESSAGE = "user_message"
    ASSISTANT_PARTIAL = "assistant_partial"  # streamed text or tool calls, not an answer
    TOOL_RESULT = "tool_result"
    ASSISTANT_FINAL = "assistant_final"
    COMPACTION_CHECKPOINT = "compaction_checkpoint"  # host-marked automatic compaction
    INTERRUPTED = "interrupted"


class SessionEntry(Frozen):
    kind: EntryKind
    at: datetime
    text: str = ""
    execution_key: str | None = None
    host_generated: bool = False  # a message the host wrote, not a person


class ReceiptStatus(StrEnum):
    RECEIVED = "received"
    NO_HANDOFF = "no_handoff"
    INTERRUPTED = "interrupted"
    NO_FINAL_ANSWER = "no_final_answer"
    SEPARATED_BY_USER_REQUEST = "separated_by_user_request"


class Receipt(Frozen):
    execution_key: str
    status: ReceiptStatus
    answer: str = ""
    answered_at: datetime | None = None
    replay: bool = False  # recognition never replays external operations

    @property
    def accepted(self) -> bool:
        return self.status is ReceiptStatus.RECEIVED


def _is_separator(entry: SessionEntry) -> bool:
    return entry.kind is EntryKind.USER_MESSAGE and not entry.host_generated


def recognize_receipt(entries: Sequence[SessionEntry], execution_key: str) -> Receipt:
    """The receipt for `execution_key` in a session transcript (oldest entry first)."""
    start = None
    for index, entry in enumerate(entries):
        if entry.kind is EntryKind.HANDOFF and entry.execution_key == execution_key:
            start = index
    if start is None:
        return Receipt(execution_key=execution_key, status=ReceiptStatus.NO_HANDOFF)
    for entry in entries[start + 1 :]:
        if entry.kind is EntryKind.COMPACTION_CHECKPOINT:
            continue
        if entry.kind is EntryKind.INTERRUPTED:
            return Receipt(execution_key=execution_key, status=ReceiptStatus.INTERRUPTED)
        if _is_separator(entry):
            return Receipt(
                execution_key=execution_key, status=ReceiptStatus.SEPARATED_BY_USER_REQUEST
            )
        if entry.kind is EntryKind.ASSISTANT_FINAL and entry.text.strip():
            return Receipt(
                execution_key=execution_key,
                status=ReceiptStatus.RECEIVED,
                answer=entry.text,
                answered_at=entry.at,
            )
    return Receipt(execution_key=execution_key, status=ReceiptStatus.NO_FINAL_ANSWER)
