"""Search quality and speed: `make bench` prints recall@10, MRR and p50/p95.

    .venv/bin/python -m bench.search_quality [--scale 0.1] [--runs 30]

The labelled query set is `bench/search_queries.json`: queries over the demo scope (the
v2.0 提测 story of docs/demo.md, `api/demo.py`) and over a bench scope (the story graph benchmark's
generated entities and events, `bench.datagen.generate`, plus the mixed Chinese/English
notes listed in the file as one source), in Chinese and English, by category: names,
earlier names and descriptions, partial words, passages quoted loosely, and as-of queries
whose right answer changed over time. A query's `expect` describes the one right hit (its
kind and fields as they were at `as_of`); recall@10 counts the queries whose right hit is in
the first 10, MRR averages 1/rank of it. tests/integration/search/test_quality.py holds
recall@10 >= 0.9 on the same set.

Hybrid: with EMBEDDING_BASE_URL set (a real endpoint, labelled with its
model) or `--embeddings standin` (the prompt-grounded n-gram stand-in of the tests, labelled
as such: it measures the fusion, not a model's understanding), both scopes are embedded and
the same query set is evaluated again in hybrid mode.

Speed: search's p50/p95 (the use case: query building, the ranked read, decoding) next to
the floor — the bare `db.index.fulltext.queryNodes` call with the same as-of filter through
the same driver (`cypher/search/floor.cypher`) — at the given scale.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
import uuid
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
from neo4j import AsyncDriver

from api.demo import BOSS, ent, load_into, t
from engine.errors import Conflict
from engine.principal import WORKER, Principal
from engine.search.hits import Hit
from engine.search.text import parse_search_text
from engine.settings import Settings
from engine.story.inputs import EntityEdit, SourceInput
from engine.story.models import SourceKind
from graph.driver import open_driver
from graph.migrate import migrate
from graph.queries import queries
from graph.story.repository import StoryRepository
from jobs.deps import Deps
from jobs.llm.embeddings import build_embedder
from jobs.search.embed import embed_scope
from jobs.search.reads import SearchAsk, search

QUERY_SET = Path(__file__).with_name("search_queries.json")
READER = Principal("bench-search", frozenset({"*"}), frozenset({"reader"}))


def load_set() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(QUERY_SET.read_text(encoding="utf-8"))
    return data


def matches(hit: Hit, expect: dict[str, Any]) -> bool:
    """Is `hit` the right answer `expect` describes (kind and fields at as_of)?"""
    if hit.kind.value != expect["kind"]:
        return False
    fields: dict[str, Any] = {"current": hit.current, "standing": hit.standing.value}
    if hit.obj is not None:
        fields.update(hit.obj.model_dump())
    if hit.passage_ref is not None:
        fields.update(source_id=hit.passage_ref.source_id, locator=hit.passage_ref.locator)
    return all(fields.get(k) == v for k, v in expect.items() if k != "kind")


@dataclass(frozen=True)
class Quality:
    queries: int
    recall_at_10: float
    mrr: float
    misses: list[str]
    by_category: dict[str, float]
    mean_hits: float  # hits per query (totalCount): what the analyzer lets match


async def seed(repo: StoryRepository, driver: AsyncDriver, database: str, scopes: dict[str, str],
               scale: float, notes: list[str]) -> None:  # fmt: skip
    """The demo into scopes['demo']; generated entities/events and the notes into 'bench'."""
    from bench.datagen import YEAR0, generate, write_steps

    await load_into(repo, scopes["demo"])
    await rename_later(repo, scopes["demo"])
    data = generate(scopes["bench"], scale, seed=7)
    q = queries()
    for step in write_steps(data, datetime.min.replace(tzinfo=YEAR0.tzinfo), datetime.max.replace(
            tzinfo=YEAR0.tzinfo)):  # fmt: skip
        for query, rows, extra in step:
            await driver.execute_query(q[query], rows=rows, **extra, database_=database)
    await repo.upsert_source(
        SourceInput(
            scope=scopes["bench"],
            id="bench-notes",
            kind=SourceKind.NOTE,
            version="v1",
            text="\n".join(notes),
        ),
        now=YEAR0,
    )


RENAMES = (  # a person renames two demo entities the next morning: earlier names to find
    ("demo-r2-lisi", "frontend", "Web client"),
    ("demo-r1-delegation", "wangwu", "Wang Wu"),
)


async def rename_later(repo: StoryRepository, scope: str) -> None:
    for key, ref, name in RENAMES:
        entity_id = ent(scope, key, ref)
        view = await repo.entity(scope, entity_id, as_of=t(18, 9, 30))
        await repo.update_entity(
            scope,
            entity_id,
            EntityEdit(name=name),
            seen_version=view.entity.seq,
            by=BOSS,
            why="renamed",
            now=t(18, 10),
        )


async def evaluate(deps: Deps, scopes: dict[str, str], query_set: dict[str, Any]) -> Quality:
    ranks: list[tuple[str, int | None]] = []
    misses: list[str] = []
    totals: list[int] = []
    for q in query_set["queries"]:
        as_of = datetime.fromisoformat(q["as_of"]) if "as_of" in q else None
        _, page = await search(
            deps, READER, scopes[q["scope"]], SearchAsk(text=q["text"], first=10), as_of=as_of
        )
        found = next((i for i, h in enumerate(page.items, 1) if matches(h, q["expect"])), None)
        ranks.append((q["category"], found))
        totals.append(page.total)
        if found is None:
            misses.append(f"{q['scope']}: {q['text']!r} as of {q.get('as_of', 'now')}")
    n = len(ranks)
    cats: dict[str, list[int | None]] = {}
    for cat, r in ranks:
        cats.setdefault(cat, []).append(r)
    return Quality(
        queries=n,
        recall_at_10=sum(r is not None for _, r in ranks) / n,
        mrr=sum(1 / r for _, r in ranks if r) / n,
        misses=misses,
        by_category={c: sum(r is not None for r in rs) / len(rs) for c, rs in cats.items()},
        mean_hits=sum(totals) / n,
    )


def pct(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(p * (len(ordered) - 1))))]


async def speed(deps: Deps, scope: str, texts: list[str], runs: int) -> dict[str, float]:
    """search (the use case) and the floor, interleaved, in ms."""
    ours: list[float] = []
    floor: list[float] = []
    q = queries()
    now = deps.clock()
    for _ in range(runs):
        for text in texts:
            t0 = time.perf_counter()
            await search(deps, READER, scope, SearchAsk(text=text, first=20))
            ours.append((time.perf_counter() - t0) * 1000)
            parsed = parse_search_text(text, 200)
            t0 = time.perf_counter()
            await deps.driver.execute_query(
                q["search/floor"], index=parsed.index, index_query=parsed.lucene, scope=scope,
                as_of=now,
                database_=deps.database, routing_="r",
            )  # fmt: skip
            floor.append((time.perf_counter() - t0) * 1000)
    return {
        "search_p50": statistics.median(ours),
        "search_p95": pct(ours, 0.95),
        "floor_p50": statistics.median(floor),
        "floor_p95": pct(floor, 0.95),
    }


INDEX = (
    "CREATE FULLTEXT INDEX search_text IF NOT EXISTS "
    "FOR (n:EntityVersion|EventVersion|RelationVersion|Summary|Passage) "
    "ON EACH [n.name, n.title, n.description, n.reason, n.text, n.scope] "
    "OPTIONS {indexConfig: {`fulltext.analyzer`: $analyzer, "
    "`fulltext.eventually_consistent`: false}}"
)


async def use_analyzer(driver: AsyncDriver, database: str, analyzer: str) -> None:
    """Rebuild `search_text` with `analyzer` (the measurement in README "Search"); the bench
    puts `cjk` (migrations 072, 091) back when it ends."""
    await driver.execute_query("DROP INDEX search_text IF EXISTS", database_=database)
    await driver.execute_query(INDEX.replace("$analyzer", f"'{analyzer}'"), database_=database)
    await driver.execute_query("CALL db.awaitIndexes(600)", database_=database)


# the labels a seeded scope holds, deleted label by label through their scope indexes
SEEDED = ("EventVersion", "EntityVersion", "RelationVersion", "StoryVersion",
          "SuggestionVersion", "Change", "Summary", "Reference", "Result", "Passage",
          "SourceVersion")  # fmt: skip


async def drop_scope(driver: AsyncDriver, database: str, scope: str) -> None:
    """Delete a seeded scope in batches of 2,000 (one `MATCH (n)` over a million nodes, even
    in transactions, runs a 512 MB heap out of memory)."""
    for label in SEEDED:
        while True:
            found, _, _ = await driver.execute_query(
                "MATCH (v:" + label + ") WHERE v.scope = $scope WITH v LIMIT 2000 "
                "OPTIONAL MATCH (n)-[:VERSION]->(v) DETACH DELETE v, n RETURN count(*) AS n",
                scope=scope,
                database_=database,
            )
            if not found[0]["n"]:
                break
    await driver.execute_query(
        "MATCH (n) WHERE n.scope = $scope DETACH DELETE n", scope=scope, database_=database
    )


async def hybrid(
    settings: Settings, driver: AsyncDriver, scopes: dict[str, str], query_set: dict[str, Any]
) -> tuple[str, Quality]:
    """The query set in hybrid mode, after embedding both scopes (with `settings`' endpoint)."""
    async with httpx.AsyncClient() as http:
        embedder = build_embedder(settings, http)
        assert embedder is not None
        deps = Deps(settings=settings, driver=driver, pool=None, embedder=embedder)
        t0 = time.perf_counter()
        for scope in scopes.values():
            await embed_scope(deps, WORKER, embedder, scope)
        print(f"embedded both scopes in {time.perf_counter() - t0:.0f} s")
        return embedder.model, await evaluate(deps, scopes, query_set)


def show_hybrid(label: str, q: Quality) -> None:
    print(f"search quality ({q.queries} labelled queries, HYBRID, embeddings: {label})")
    print(f"  recall@10 {q.recall_at_10:.3f}   MRR {q.mrr:.3f}   hits/query {q.mean_hits:.0f}")
    for miss in q.misses:
        print(f"  missed: {miss}")


async def main(
    scale: float, runs: int, analyzers: list[str] | None = None, embeddings: str | None = None
) -> dict[str, Any]:
    settings = Settings.from_env()
    standin: Any = None
    if embeddings == "standin" and not settings.embedding_base_url:
        from tests.support.grounded_embeddings import GroundedEmbeddingServer

        standin = GroundedEmbeddingServer(256).start()
        settings = settings.model_copy(
            update={
                "embedding_base_url": standin.base_url,
                "embedding_model": "grounded-ngrams",  # the tests' stand-in, same vectors
                "embedding_dimensions": 256,
                "search_min_similarity": 0.3,
            }
        )
    driver = open_driver(settings)
    run = uuid.uuid4().hex[:6]
    scopes = {"demo": f"bench-search-demo-{run}", "bench": f"bench-search-{run}"}
    try:
        await migrate(driver, settings.neo4j_database)
        repo = StoryRepository(driver, settings.neo4j_database)
        query_set = load_set()
        t0 = time.perf_counter()
        await seed(repo, driver, settings.neo4j_database, scopes, scale, query_set["notes"])
        load_s = time.perf_counter() - t0
        deps = Deps(settings=settings, driver=driver, pool=None)
        for analyzer in [a for a in analyzers or [] if a != "cjk"]:
            await use_analyzer(driver, settings.neo4j_database, analyzer)
            other = await evaluate(deps, scopes, query_set)
            print(
                f"analyzer {analyzer}: recall@10 {other.recall_at_10:.3f} MRR {other.mrr:.3f} "
                f"missed {len(other.misses)} hits/query {other.mean_hits:.0f}"
            )
            await use_analyzer(driver, settings.neo4j_database, "cjk")
        quality = await evaluate(deps, scopes, query_set)
        texts = [q["text"] for q in query_set["queries"] if q["scope"] == "bench"]
        timing = await speed(deps, scopes["bench"], texts, runs)
        report: dict[str, Any] = {"scale": scale, "load_s": load_s, **quality.__dict__, **timing}
        show(report)
        if settings.embedding_base_url:
            try:
                model, mixed = await hybrid(settings, driver, scopes, query_set)
            except Conflict as exc:  # the store holds another model's vectors
                print(f"hybrid search not measured: {exc.message}")
                return report
            label = (
                "grounded character n-gram STAND-IN, not a model"
                if standin is not None
                else f"model {model}"
            )
            show_hybrid(label, mixed)
            report["hybrid"] = mixed.__dict__
        return report
    finally:
        if standin is not None:
            standin.stop()
        for scope in scopes.values():
            await drop_scope(driver, settings.neo4j_database, scope)
        await driver.close()


def show(r: dict[str, Any]) -> None:
    print(f"search quality ({r['queries']} labelled queries, lexical, analyzer cjk)")
    print(
        f"  recall@10 {r['recall_at_10']:.3f}   MRR {r['mrr']:.3f}   "
        f"hits/query {r['mean_hits']:.0f}"
    )
    for cat, value in sorted(r["by_category"].items()):
        print(f"    {cat:<12} recall@10 {value:.2f}")
    for miss in r["misses"]:
        print(f"  missed: {miss}")
    print(f"search speed at scale {r['scale']} (bench scope; loaded in {r['load_s']:.0f} s)")
    print(
        f"  search p50 {r['search_p50']:.1f} ms  p95 {r['search_p95']:.1f} ms   "
        f"floor (bare queryNodes + as-of filter) p50 {r['floor_p50']:.1f} ms  "
        f"p95 {r['floor_p95']:.1f} ms   ratio p50 {r['search_p50'] / r['floor_p50']:.2f}"
    )


def cli(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=0.1)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument(
        "--compare", nargs="*", default=[], help="other analyzers to measure, e.g. standard"
    )
    parser.add_argument(
        "--embeddings",
        choices=["standin"],
        help="without EMBEDDING_BASE_URL: measure hybrid search with the tests' stand-in",
    )
    args = parser.parse_args(argv)
    asyncio.run(main(args.scale, args.runs, args.compare, args.embeddings))


if __name__ == "__main__":
    cli()
