"""PROFILE db hits per returned object for every named story read.

    .venv/bin/python -m bench.story_profile [--scale 0.1] [--scope S] [--keep]

Writes one bench scope with `bench.datagen`'s generator (or reads `--scope`, one left by
`--keep`), then runs every read query of `cypher/story/` (all but `write_*`) with parameters
filled by name (the scope, as of the end of the year, the ~500-object window of
`bench.story_graph`, 50 ids of the kind the query reads, no optional filter) under PROFILE,
and prints: rows, returned objects (list items of a row that returns lists, else rows), total
db hits, db hits per object, and Neo4j's own time (p50 of 5 runs without PROFILE, available +
consumed). Target: `story/window_graph` <= 20 db hits per returned object at scale 0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
import uuid
from typing import Any

from neo4j import AsyncDriver
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from bench.datagen import (
    WINDOW_EVENTS,
    YEAR,
    YEAR0,
    add_source,
    cleanup,
    generate,
    write_phase,
)
from engine.clock import FOREVER
from engine.settings import Settings
from engine.story.models import make_id
from graph.driver import open_driver
from graph.migrate import migrate
from graph.queries import queries
from graph.story.diff import StoryDiff
from graph.temporal import to_neo4j

console = Console(width=150)
WINDOW_TARGET = 20.0
RUNS = 5

# which ids a query of `ids` reads, by its name (entity ids unless listed)
IDS_OF = {
    "event": ("evt", 5000),
    "relation": ("rel", 1000),
    "story_versions": ("sty", 10),
    "reference": ("ref", 5000),
    "source": ("src", 1),
}


def sample_ids(scope: str, key: str, n_entities: int) -> list[Any]:
    name = key.split("/", 1)[1]
    for needle, (prefix, spread) in IDS_OF.items():
        if needle in name:
            if prefix == "src":
                return ["bench-chat"]
            if prefix == "rel":
                return [make_id("rel", scope, str(i * 7), "0") for i in range(50)]
            if prefix == "sty":
                return [make_id("sty", scope, str(i)) for i in range(10)]
            step = max(1, spread // 50)
            return [make_id(prefix, scope, str(i * step)) for i in range(50)]
    step = max(1, n_entities // 50)
    return [make_id("ent", scope, str(i * step)) for i in range(50)]


def params_for(key: str, declared: list[str], scope: str, scale: float) -> dict[str, Any]:
    n_events, n_entities = int(100_000 * scale), int(20_000 * scale)
    lo = YEAR0 + YEAR / 2
    hi = lo + YEAR * (WINDOW_EVENTS / n_events)
    result_id = make_id("res", scope, "bench")
    values: dict[str, Any] = {
        "scope": scope,
        "as_of": to_neo4j(YEAR0 + YEAR),
        "valid_at": None,
        "from_time": to_neo4j(lo),
        "to_time": to_neo4j(hi),
        "lower": to_neo4j(lo),
        "upper": to_neo4j(hi),
        "story_id": None,
        "forever": to_neo4j(FOREVER),
        "limit": 50,
        "after_name": "",
        "after_type": "",
        "after_id": "",
        "owner_ids": sample_ids(scope, "story/entity", n_entities),
        "keys": [{"source_id": "bench-chat", "version": "v1"}],
        "cap": 100_000,
        "include_removed": False,
        "result_id": result_id,
        "result_ids": [result_id],
        "entity_id": make_id("ent", scope, "0"),
        "target_id": make_id("ent", scope, "0"),
        "source_id": "bench-chat",
        "version": "v1",
        "key": "bench",
        "ids": sample_ids(scope, key, n_entities),
    }
    if key in ("story/diff_page", "story/diff_references"):  # the window's record times
        values |= StoryDiff.page_params(scope, lo, hi, None, 50)
        values["pairs"] = [{"owner": i, "result": result_id} for i in values["owner_ids"]]
    if key.endswith("_get") or key == "story/result_by_id":
        values["id"] = {
            "story/reference_get": make_id("ref", scope, "0"),
            "story/source_get": "bench-chat",
        }.get(key, result_id)
    return {name: values.get(name) for name in declared}


def db_hits(plan: Any) -> int:
    if plan is None:
        return 0
    hits = int(plan.get("dbHits", 0))
    return hits + sum(db_hits(child) for child in plan.get("children", []))


def objects_of(records: list[Any]) -> int:
    total = 0
    for record in records:
        lists = [v for v in record.values() if isinstance(v, list)]
        total += sum(len(v) for v in lists) if lists else 1
    return total


async def profile(
    driver: AsyncDriver, database: str, scope: str, scale: float
) -> list[dict[str, Any]]:
    q = queries()
    rows: list[dict[str, Any]] = []
    named_queries = q.named()
    for key in sorted(k for k in named_queries if k.startswith("story/") and "/write_" not in k):
        text = named_queries[key].text
        params = params_for(key, sorted(named_queries[key].declared), scope, scale)
        records, summary, _ = await driver.execute_query(
            "PROFILE " + text, params, database_=database, routing_="r"
        )
        hits = db_hits(summary.profile)
        server: list[float] = []
        for _ in range(RUNS):
            _, s, _ = await driver.execute_query(text, params, database_=database, routing_="r")
            server.append(float((s.result_available_after or 0) + (s.result_consumed_after or 0)))
        objects = objects_of(records)
        rows.append(
            {
                "query": key,
                "rows": len(records),
                "objects": objects,
                "db_hits": hits,
                "hits_per_object": hits / objects if objects else None,
                "neo4j_ms_p50": statistics.median(server),
            }
        )
    return rows


def show(rows: list[dict[str, Any]], scale: float) -> None:
    table = Table(title=f"named story reads under PROFILE (scale {scale}, as of the year's end)")
    for col in ("query", "rows", "objects", "db hits", "hits/object", "Neo4j ms p50"):
        table.add_column(col, justify="left" if col == "query" else "right")
    for r in rows:
        per = r["hits_per_object"]
        cell = "-" if per is None else f"{per:.1f}"
        if r["query"] == "story/window_graph" and per is not None:
            ok = per <= WINDOW_TARGET
            cell = (
                f"{cell} ({'<=' if ok else '>'} {WINDOW_TARGET:.0f}: {'met' if ok else 'missed'})"
            )
        table.add_row(
            r["query"],
            str(r["rows"]),
            str(r["objects"]),
            str(r["db_hits"]),
            cell,
            f"{r['neo4j_ms_p50']:.1f}",
        )
    console.print(table)


async def main(scale: float, scope: str | None, keep: bool) -> list[dict[str, Any]]:
    settings = Settings.from_env()
    database = settings.neo4j_database
    driver = open_driver(settings)
    own = scope is None
    scope = scope or f"bench-profile-{uuid.uuid4().hex[:8]}"
    try:
        if own:
            await migrate(driver, database)
            await driver.execute_query("CALL db.awaitIndexes(300)", database_=database)
            from graph.story.repository import StoryRepository

            await add_source(StoryRepository(driver, database), scope)
            data = generate(scope, scale, seed=5)
            columns = (
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
            )
            with Progress(*columns, console=console) as progress:
                t0 = time.perf_counter()
                n = await write_phase(
                    driver,
                    database,
                    [data],
                    YEAR0 - YEAR,
                    YEAR0 + 2 * YEAR,
                    progress,
                    f"writing {scope}",
                )
                console.print(f"{n} rows in {time.perf_counter() - t0:.1f} s")
        return await profile(driver, database, scope, scale)
    finally:
        if own and not keep:
            await cleanup(driver, database, [scope])
        elif own:
            console.print(f"kept {scope}")
        await driver.close()


def cli(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=0.1)
    parser.add_argument("--scope", help="profile this existing bench scope (written at --scale)")
    parser.add_argument("--keep", action="store_true", help="leave the written scope in place")
    args = parser.parse_args(argv)
    rows = asyncio.run(main(args.scale, args.scope, args.keep))
    show(rows, args.scale)


if __name__ == "__main__":
    cli()
