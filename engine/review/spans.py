"""Natural units of a source for incremental progress (docs/rules/reviews.md).

"自动心跳报告和下游监督分别记录已成功处理的来源版本及正文位置": positions are text offsets of a
source version, and the review window is decided per unit by the time it was written. A
conversation pushed through `upsertSource` is one unit per message, in the one message
format (`engine.story.conversation`, docs/conversations.md):

    [2026-09-20T10:00:00+08:00] 张三: v2.0 今天提测
    李四：前端部分周四能提测

Lines without a header continue the message before them. A message without a time, and
text with no header at all (a note, a knowledge document), is dated when the version was
recorded.
"""

from __future__ import annotations

from datetime import datetime

from engine.review.checkpoints import SourceState, Span
from engine.review.types import MissReason
from engine.story.conversation import messages


def split_spans(text: str, recorded_at: datetime) -> tuple[Span, ...]:
    """Units of `text`, covering every character from the first to the last exactly once."""
    if not text:
        return ()
    starts = [(m.start, m.at or recorded_at) for m in messages(text)]
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
