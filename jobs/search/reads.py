"""search (issue 30): the story graph's text as known at asOf, ranked, with the passage.

Checks the `reader` role on the scope first (FORBIDDEN, naming no scope, like every story
read), parses the user's text into a Lucene query that carries no Lucene syntax
(engine/search/text.py; bad text is INVALID_INPUT), and reads one page of hits ranked by
engine/search/ranking.py. Without an embedding endpoint search is lexical and the answer
says so (`HitPage.lexical_only`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from engine.clock import instant
from engine.principal import Principal
from engine.scope import require_scope
from engine.search.hits import HitPage
from engine.search.ranking import HitKind, Standing
from engine.search.text import parse_search_text
from graph.search.store import SearchStore
from jobs.deps import Deps
from jobs.story.common import as_of_now


@dataclass(frozen=True)
class SearchAsk:
    text: str
    first: int
    kinds: Sequence[HitKind] | None = None
    standings: Sequence[Standing] | None = None
    after: tuple[float, int, str] | None = None


async def search(
    deps: Deps,
    principal: Principal,
    scope: str,
    ask: SearchAsk,
    *,
    as_of: datetime | None = None,
    valid_at: datetime | None = None,
) -> tuple[datetime, HitPage]:
    """One page of hits in `scope` as of `as_of` (returned first; now when not given)."""
    scope = require_scope(principal, "reader", scope)
    parsed = parse_search_text(ask.text, deps.settings.search_max_chars)
    at = as_of_now(deps, as_of)
    page = await SearchStore(deps.driver, deps.database).search(
        scope,
        parsed,
        as_of=at,
        valid_at=instant(valid_at, "validAt"),
        kinds=list(ask.kinds) if ask.kinds else list(HitKind),
        standings=list(ask.standings) if ask.standings else None,
        after=ask.after,
        limit=ask.first,
        candidates=deps.settings.search_candidates,
    )
    return at, page
