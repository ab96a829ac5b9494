"""search: the story graph's text as known at asOf, ranked, with the passage.

Checks the `reader` role on the scope first (FORBIDDEN, naming no scope, like every story
read), parses the user's text into a Lucene query that carries no Lucene syntax
(engine/search/text.py; bad text is INVALID_INPUT), and reads one page of hits ranked by
engine/search/ranking.py.

Hybrid when `deps.embedder` is there (EMBEDDING_BASE_URL): the query text is
embedded under a short deadline (EMBEDDING_SEARCH_DEADLINE_SECONDS) and the vector index's
neighbours join the full-text hits through the same scope and as-of filter, fused by
reciprocal rank. Whenever that cannot be done — no endpoint, the endpoint down, nothing
embedded yet, vectors of another model — the search is lexical and its answer says which
and why (`HitPage.mode`, `note`); nothing is ever faked.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from engine.clock import instant
from engine.errors import Conflict
from engine.llm.errors import ModelError
from engine.llm.ledger import Attribution, Stage
from engine.principal import Principal
from engine.scope import require_scope
from engine.search.hits import HitPage
from engine.search.ranking import HitKind, Standing
from engine.search.text import SearchText, parse_search_text
from engine.search.vectors import LexicalReason, SearchMode, check_vectors, lexical_note
from graph.search.store import SearchStore
from graph.search.vectors import VectorStore
from jobs import quota
from jobs.deps import Deps, as_of_now
from jobs.llm.ledger import Meter, metering, settle

log = logging.getLogger("storygraph.search")


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
    meter = Meter(Attribution(stage=Stage.SEARCH_QUERY, scope=scope))
    with metering(meter):
        vector, reason = await _query_vector(deps, parsed, principal)
    # the query's embedding request (if one was made) goes into the cost ledger while the
    # search reads
    paid = asyncio.ensure_future(settle(deps.driver, deps.database, meter)) if meter.calls else None
    try:
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
            vector=vector,
            vector_k=deps.settings.search_vector_candidates,
            min_similarity=deps.settings.search_min_similarity,
            vector_max_k=deps.settings.search_vector_max_candidates,
            lexical_weight=deps.settings.search_lexical_weight,
            vector_weight=deps.settings.search_vector_weight,
        )
    finally:
        if paid is not None:
            await paid
    if reason is None:
        return at, replace(page, mode=SearchMode.HYBRID, note=None)
    return at, replace(
        page, mode=SearchMode.LEXICAL, note=lexical_note(reason, deps.settings.locale)
    )


async def _query_vector(
    deps: Deps, parsed: SearchText, principal: Principal
) -> tuple[list[float] | None, LexicalReason | None]:
    """The query's embedding, or why there is none (the search is then lexical). Each
    embedding is a paid request: a token may have `search_embeddings_per_minute` of them
    (RATE_LIMITED past it)."""
    embedder = deps.embedder
    if embedder is None:
        return None, LexicalReason.NO_ENDPOINT
    # recorded once the first embed created the index (graph/search/vectors.py create_index)
    stored = await VectorStore(deps.driver, deps.database).state()
    if stored.model is None:
        return None, LexicalReason.NOT_EMBEDDED
    try:
        check_vectors(stored, embedder.model, embedder.dimensions)
    except Conflict:
        return None, LexicalReason.OTHER_MODEL
    if deps.pool is not None:
        await quota.take(
            deps.pool,
            "search-embeddings",
            principal.name,
            deps.settings.search_embeddings_per_minute,
            60,
            "searches that embed their text, of this token",
        )
    try:
        answer = await embedder.embed(
            [parsed.text],
            deadline_seconds=deps.settings.embedding_search_deadline_seconds,
            input_type="query",
        )
    except ModelError as exc:
        log.warning(
            "query embedding failed: searching lexically",
            extra={"fields": {"error": exc.message}},
        )
        return None, LexicalReason.ENDPOINT_FAILED
    return answer.vectors[0], None
