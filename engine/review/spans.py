"""Natural units of a source for incremental progress (seed 004 自动增量与手动重看).

"自动心跳报告和下游监督分别记录已成功处理的来源版本及正文位置": positions are text offsets of a
source version, and the review window is decided per unit by the time it was written. A
conversation pushed through `upsertSource` is one message per line group, each message
opening with its time in brackets:

    [2026-09-20T10:00:00+08:00] 张三: v2.0 今天提测

Lines that do not open with a time continue the message before them. Text with no time at
all (a note, a knowledge document) is one unit dated when the version was recorded.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from engine.review.checkpoints import SourceState, Span
from engine.review.types import MissReason

_MESSAGE = re.compile(r"^\[(\d{4}-\d{2}-\d{2}[T ][0-9:.]+(?:Z|[+-]\d{2}:?\d{2})?)\]", re.MULTILINE)


def _when(raw: str, default: datetime) -> datetime:
    try:
        at = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        return default
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


def split_spans(text: str, recorded_at: datetime) -> tuple[Span, ...]:
    """Units of `text`, covering every character from the first to the last exactly once."""
    if not text:
        return ()
    starts = [(m.start(), _when(m.group(1), recorded_at)) for m in _MESSAGE.finditer(text)]
    if not starts or starts[0][0] != 0:
        starts.insert(0, (0, recorded_at))
    spans = []
    for i, (start, at) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(text)
        if end > start:
            spans.append(Span(start=start, end=end, at=at))
    return tuple(spans)


def source_state(
    source_id: str,
    version: str,
    text: str | None,
    *,
    project_id: str | None,
    recorded_at: datetime,
    withdrawn: bool = False,
) -> SourceState:
    """A story-graph source as the checkpoint rules see it. A version without text (withdrawn
    by the app, or never supplied) has no units and says why it cannot be read."""
    unavailable = None
    if withdrawn:
        unavailable = MissReason.WITHDRAWN
    elif text is None:
        unavailable = MissReason.UNRECOVERABLE
    return SourceState(
        source_id=source_id,
        version=version,
        project_id=project_id,
        spans=split_spans(text or "", recorded_at),
        unavailable=unavailable,
        recorded_at=recorded_at,
    )
