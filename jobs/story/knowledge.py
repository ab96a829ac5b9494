"""Save to knowledge and continue the discussion: preview, then confirm
(docs/rules/story-graph.md#views-knowledge-and-discussion).

A preview reads as `reader` and writes nothing; its id is what the person saw. A confirm
decodes that id, checks `editor` on its scope, and writes exactly that, or is CONFLICT when
the graph changed since. Only local knowledge entries are written; a continued discussion
is a new conversation Source that reaches the graph only through a later review.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from engine.principal import Principal
from engine.scope import require_scope
from engine.story import inputs as engine_inputs
from engine.story.discussion import DiscussionContext
from engine.story.knowledge import SavePlan
from engine.story.previews import PreviewKind, PreviewRequest, decode
from graph.story.discussion import DiscussionOutcome
from graph.story.knowledge import SaveOutcome
from jobs.deps import Deps
from jobs.story.common import announce, discussion_repo, editor, knowledge_repo


def _request(
    kind: PreviewKind,
    scope: str,
    objects: Sequence[Mapping[str, Any]],
    result_id: str | None,
    as_of: datetime | None,
    title: str = "",
) -> PreviewRequest:
    data = {
        "kind": kind.value,
        "scope": scope,
        "title": title,
        "as_of": as_of,
        "result_id": result_id,
        "objects": [dict(o) for o in objects],
    }
    return engine_inputs.parse_input(PreviewRequest, data).checked()


async def preview_save(
    deps: Deps,
    principal: Principal,
    scope: str,
    objects: Sequence[Mapping[str, Any]],
    *,
    result_id: str | None = None,
    as_of: datetime | None = None,
) -> tuple[str, SavePlan]:
    """The entries a confirm would create or supplement, and the preview id."""
    require_scope(principal, "reader", scope)
    request = _request(PreviewKind.KNOWLEDGE, scope, objects, result_id, as_of)
    return await knowledge_repo(deps).preview_save(request, now=deps.clock())


async def confirm_save(
    deps: Deps, principal: Principal, preview_id: str, user_id: str | None = None
) -> SaveOutcome:
    now = deps.clock()
    token = decode(preview_id, now)
    by = editor(principal, token.request.scope, user_id)
    outcome = await knowledge_repo(deps).confirm_save(token, by=by, now=now)
    if not outcome.repeat and outcome.entries:
        await announce(deps, outcome.scope, "source", [s.id for s in outcome.entries], by)
    return outcome


async def preview_discussion(
    deps: Deps,
    principal: Principal,
    scope: str,
    objects: Sequence[Mapping[str, Any]],
    *,
    result_id: str | None = None,
    as_of: datetime | None = None,
    title: str = "",
) -> tuple[str, DiscussionContext]:
    """The exact context a new conversation would start from, and the preview id."""
    require_scope(principal, "reader", scope)
    request = _request(PreviewKind.DISCUSSION, scope, objects, result_id, as_of, title)
    return await discussion_repo(deps).preview(request, now=deps.clock())


async def confirm_discussion(
    deps: Deps, principal: Principal, preview_id: str, user_id: str | None = None
) -> DiscussionOutcome:
    now = deps.clock()
    token = decode(preview_id, now)
    by = editor(principal, token.request.scope, user_id)
    outcome = await discussion_repo(deps).confirm(token, now=now)
    if not outcome.repeat:
        await announce(deps, token.request.scope, "source", [outcome.conversation.id], by)
    return outcome
