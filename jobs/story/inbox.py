"""`inbox` and `inboxCounts`: what waits for a person in a scope. The reader role
on the scope is checked first (FORBIDDEN, naming no scope); unknown kinds are INVALID_INPUT.
Acting on an item is `acceptSuggestion` / `dismissSuggestion` (jobs.story.writes)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from engine.clock import utc
from engine.page import Page
from engine.principal import Principal
from engine.scope import require_scope
from engine.story.inbox import InboxItem, counts, inbox_kinds
from engine.story.wording import Labels, suggestion_ids
from graph.story.inbox import StoryInbox
from graph.story.labels import ObjectLabels
from jobs.deps import Deps


async def inbox(
    deps: Deps,
    principal: Principal,
    scope: str,
    *,
    kinds: Sequence[str] | None,
    first: int,
    after: tuple[int, str] | None,
    with_total: bool = False,
) -> Page[InboxItem]:
    """One page of pending items of `kinds` (all when none); `total` counts every pending
    item of those kinds (the badges' count statement) when asked for."""
    scope = require_scope(principal, "reader", scope)
    wanted = inbox_kinds(kinds)
    store = StoryInbox(deps.driver, deps.database)
    page = await store.page(scope, wanted, after, first)
    if not with_total:
        return page
    pending = await store.counts(scope)
    return replace(page, total=sum(pending.get(kind, 0) for kind in wanted))


async def inbox_counts(deps: Deps, principal: Principal, scope: str) -> dict[str, int]:
    scope = require_scope(principal, "reader", scope)
    return counts(await StoryInbox(deps.driver, deps.database).counts(scope))


async def inbox_labels(
    deps: Deps, principal: Principal, scope: str, items: Sequence[InboxItem]
) -> Labels:
    """What a person calls the objects a page of inbox items names (targets, holders,
    proposers), as believed now."""
    scope = require_scope(principal, "reader", scope)
    ids = suggestion_ids([i.suggestion for i in items if i.suggestion is not None])
    return await ObjectLabels(deps.driver, deps.database).labels(scope, utc(deps.clock()), ids)
