"""`storyGraphDiff`: what changed in a scope's story graph between two record times.

The reader role on the scope is checked first (FORBIDDEN, naming no scope); both bounds must
carry a zone and `since` must not be after `until` (INVALID_INPUT). `until` defaults to now.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from engine.clock import instant
from engine.page import Page
from engine.principal import Principal
from engine.scope import require_scope
from engine.story.diff import DiffEntry, check_window
from engine.story.models import Reference
from engine.story.wording import Labels, ids_in
from graph.story.diff import StoryDiff
from graph.story.labels import ObjectLabels
from jobs.deps import Deps, as_of_now


@dataclass(frozen=True)
class StoryDiffAnswer:
    since: datetime
    until: datetime
    page: Page[DiffEntry]
    cited: dict[str, list[Reference]]  # by object id: the passages its change cites
    labels: Labels  # what a person calls the objects the page's changes name, at until


async def story_diff(
    deps: Deps,
    principal: Principal,
    scope: str,
    *,
    since: datetime,
    until: datetime | None,
    first: int,
    after: tuple[int, str] | None,
    with_total: bool = False,
) -> StoryDiffAnswer:
    scope = require_scope(principal, "reader", scope)
    start = instant(since, "since")
    assert start is not None
    end = as_of_now(deps, instant(until, "until"))
    check_window(start, end)
    store = StoryDiff(deps.driver, deps.database)
    page = await store.page(scope, start, end, after, first)
    if with_total:
        page = replace(page, total=await store.count(scope, start, end))
    cited = await store.references(scope, page.items)
    labels = await ObjectLabels(deps.driver, deps.database).labels(scope, end, ids_in(page.items))
    return StoryDiffAnswer(since=start, until=end, page=page, cited=cited, labels=labels)
