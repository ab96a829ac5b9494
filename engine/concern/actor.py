"""Who asked: every entry a caller's request adds to a concern (its timeline, its
conversation log) records the token's name, so the concern shows who raised it, recorded a
reply, or changed its priority."""

from __future__ import annotations

from engine.concern.model import Concern


def signed(before: Concern | None, after: Concern, by: str) -> Concern:
    """`after` with the entries it added to `before` (all of them when None) marked `by`."""
    old_timeline = len(before.timeline) if before is not None else 0
    timeline = [
        e.model_copy(update={"by": by}) if i >= old_timeline and e.by is None else e
        for i, e in enumerate(after.timeline)
    ]
    old_log = before.conversation_log if before is not None else []
    log = [
        e.model_copy(update={"recorded_by": by})
        if e.recorded_by is None and e not in old_log
        else e
        for e in after.conversation_log
    ]
    return after.model_copy(update={"timeline": timeline, "conversation_log": log})
