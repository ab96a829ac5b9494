"""Search quality: the labelled query set (bench/search_queries.json: demo and
bench scope, Chinese and English; names, earlier names, partial words, loosely quoted
passages, as-of queries whose answer changed) keeps lexical recall@10 >= 0.9."""

from __future__ import annotations

import uuid

from neo4j import AsyncDriver

from bench.search_quality import evaluate, load_set, seed
from engine.settings import Settings
from graph.story import StoryRepository
from jobs.deps import Deps


async def test_lexical_recall_at_10_of_the_labelled_queries(
    repo: StoryRepository, neo4j_driver: AsyncDriver, settings: Settings, scope: str
) -> None:
    deps = Deps(settings=settings, driver=neo4j_driver, pool=None)  # now: after the demo
    query_set = load_set()
    assert len(query_set["queries"]) >= 60
    assert {q["scope"] for q in query_set["queries"]} == {"demo", "bench"}
    categories = {q["category"] for q in query_set["queries"]}
    assert {"name", "earlier_name", "partial", "quote", "as_of"} <= categories
    bench_scope = f"{scope}-bench-{uuid.uuid4().hex[:4]}"
    scopes = {"demo": scope, "bench": bench_scope}
    try:
        await seed(repo, neo4j_driver, settings.neo4j_database, scopes, 0.002, query_set["notes"])
        quality = await evaluate(deps, scopes, query_set)
    finally:
        await neo4j_driver.execute_query(
            "MATCH (n {scope: $s}) DETACH DELETE n",
            s=bench_scope,
            database_=settings.neo4j_database,
        )
    assert quality.recall_at_10 >= 0.9, quality.misses
    assert quality.by_category["as_of"] >= 0.9, quality.misses
    assert quality.by_category["earlier_name"] == 1.0, quality.misses
