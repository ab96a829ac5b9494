"""A search that embeds its text is a paid request: each token may make only so many a
minute, then RATE_LIMITED (a lexical-only search costs nothing and is not counted)."""

from __future__ import annotations

import uuid

import pytest
from arq.connections import ArqRedis

from engine.errors import RateLimited
from engine.principal import WORKER, Principal
from graph.story import StoryRepository
from jobs.deps import Deps
from jobs.search.embed import embed_scope
from jobs.search.reads import SearchAsk, search
from tests.support.story import T0, source


async def test_a_token_may_embed_only_so_many_searches_a_minute(
    repo: StoryRepository, hybrid_deps: Deps, pool: ArqRedis, scope: str
) -> None:
    await repo.upsert_source(source(scope, text="李四：the callback interface is slow"), now=T0)
    await embed_scope(hybrid_deps, WORKER, hybrid_deps.embedder, scope)  # type: ignore[arg-type]
    settings = hybrid_deps.settings.model_copy(update={"search_embeddings_per_minute": 2})
    deps = Deps(
        settings=settings,
        driver=hybrid_deps.driver,
        pool=pool,
        clock=hybrid_deps.clock,
        embedder=hybrid_deps.embedder,
    )
    reader = Principal(f"reader-{uuid.uuid4().hex[:8]}", frozenset({"*"}), frozenset({"reader"}))
    for _ in range(2):
        await search(deps, reader, scope, SearchAsk(text="callbacks timing", first=5))
    with pytest.raises(RateLimited, match="at most 2"):
        await search(deps, reader, scope, SearchAsk(text="callbacks timing", first=5))
