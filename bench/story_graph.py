"""Benchmark of the story graph ( "Benchmark"): time-sliced reads at scale, publish rate.

    .venv/bin/python -m bench.story_graph [--scale 0.1] [--runs 30]

Neo4j and Redis come from the environment (NEO4J_URI, NEO4J_PASSWORD, REDIS_URL), as for
`storygraph serve`. The generator writes one measured scope of 100k events, 20k entities and
60k relations (`--scale` multiplies these) with ~5 versions each over a year, plus 9 other
scopes of the same size, in the repository's own row format (`version_row`) through the
repository's own UNWIND write queries, in batches. Everything it writes lives in scopes named
`bench-<run>-<n>`, removed at the end in batches (`CALL { } IN TRANSACTIONS`).

History grows 10x between the two read measurements: first only what was recorded in the
first tenth of the year is written (phase A), then the rest (phase B); the same window is
read at the end of each phase, so its answer stays ~500 objects while the scope's history
(objects and versions around it) grows tenfold.

Measured in one run:
  (a) `storyGraph(scope, asOf, from, to)` over HTTP GraphQL from a `storygraph serve` process;
  (b) the same window through the named query `story/window_graph` with the driver;
  p50/p95, a/b (target <= 1.5), p50 after/before the 10x growth (target <= 1.5);
  `publishResult` (repository path) facts/s against a raw UNWIND write of the same rows
  (target ratio >= 0.7); the load time of both phases (target < 30 min at scale 1.0).
A table is printed and JSON written to bench/results/ (git-ignored).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import statistics
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from neo4j import AsyncDriver
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from bench.datagen import (
    GRAPHQL,
    RUN,
    WINDOW_EVENTS,
    WRITERS,
    YEAR,
    YEAR0,
    ScopeData,
    add_source,
    cleanup,
    console,
    free_port,
    generate,
    pct,
    start_api,
    tenth_of_history,
    write_phase,
)
from engine.clock import utcnow
from engine.settings import PROJECT_ROOT, Settings
from engine.story.inputs import PublishResultInput
from engine.story.publish import PublishContext, PublishPlan, decide_publish
from graph.driver import open_driver
from graph.migrate import migrate
from graph.queries import queries
from graph.story.codec import to_props, version_row, write_row
from graph.story.repository import StoryRepository
from graph.story.window import window_params


async def measure_reads(
    driver: AsyncDriver,
    database: str,
    url: str,
    scope: str,
    as_of: datetime,
    lo: datetime,
    hi: datetime,
    runs: int,
) -> dict[str, Any]:
    variables = {
        "scope": scope,
        "asOf": as_of.isoformat(),
        "from": lo.isoformat(),
        "to": hi.isoformat(),
    }
    params = window_params(scope, as_of, None, lo, hi, None)
    query = queries()["story/window_graph"]
    http: list[float] = []
    direct: list[float] = []
    objects = raw_objects = 0
    async with httpx.AsyncClient(timeout=120) as client:
        for i in range(runs + 5):  # 5 warm-up rounds, interleaved so both see the same cache
            t0 = time.perf_counter()
            resp = await client.post(
                f"{url}/graphql", json={"query": GRAPHQL, "variables": variables}
            )
            t1 = time.perf_counter()
            records, _, _ = await driver.execute_query(
                query, params, database_=database, routing_="r"
            )
            t2 = time.perf_counter()
            body = resp.json()
            if "errors" in body:
                raise RuntimeError(body["errors"])
            graph = body["data"]["storyGraph"]
            objects = sum(len(v) for v in graph.values())
            raw_objects = sum(len(records[0][k]) for k in records[0].keys())
            if i >= 5:
                http.append((t1 - t0) * 1000)
                direct.append((t2 - t1) * 1000)
    return {
        "objects": objects,
        "raw_objects": raw_objects,
        "http_p50_ms": pct(http, 50),
        "http_p95_ms": pct(http, 95),
        "cypher_p50_ms": pct(direct, 50),
        "cypher_p95_ms": pct(direct, 95),
        "ratio_p50": pct(http, 50) / pct(direct, 50),
    }


def publish_input(scope: str, key: str, size: int) -> PublishResultInput:
    cite = [{"source_id": "bench-chat", "source_version": "v1", "locator": "msg:1"}]
    return PublishResultInput.model_validate(
        {
            "scope": scope,
            "key": key,
            "events": [
                {
                    "ref": f"e{i}",
                    "title": f"事件 {i}",
                    "at": YEAR0 + timedelta(hours=i),
                    "references": cite,
                }
                for i in range(size)
            ],
            "entities": [
                {"ref": f"n{i}", "name": f"实体 {i}", "status": "main", "description": "说明"}
                for i in range(size // 2)
            ],
            "changes": [
                {"event": f"e{i}", "entity": f"n{i // 2}", "kind": "proposed"} for i in range(size)
            ],
            "relations": [
                {"ref": f"r{i}", "from": f"n{i}", "to": f"n{i + 1}", "type": "依赖"}
                for i in range(size // 2 - 1)
            ],
        }
    )


RAW_WRITE = """
UNWIND $versions AS row
CALL (row) {
  CREATE (n:StoryObject {id: row.id, scope: row.scope})
  CREATE (n)-[:VERSION]->(v:BenchRawVersion)
  SET v = row.props
}
WITH count(*) AS versions
UNWIND $plain AS row
CREATE (c:BenchRawFact)
SET c = row
RETURN versions, count(c) AS plain
"""


# The same rows with their instants as [epoch seconds, nanosecond] pairs, as the story
# writes send them (graph/story/codec.write_row): the driver packs a datetime parameter in
# ~33 µs, so the plain form above mostly measures the driver, not Neo4j.
RAW_WRITE_INSTANTS = """
UNWIND $versions AS row
CALL (row) {
  CREATE (n:StoryObject {id: row.id, scope: row.scope})
  CREATE (n)-[:VERSION]->(v:BenchRawVersion)
  SET v = row.props
  FOREACH (k IN keys(row.instants) |
    SET v[k] = datetime({epochSeconds: row.instants[k][0], nanosecond: row.instants[k][1]}))
}
WITH count(*) AS versions
UNWIND $plain AS row
CREATE (c:BenchRawFact)
SET c = row.props
FOREACH (k IN keys(row.instants) |
  SET c[k] = datetime({epochSeconds: row.instants[k][0], nanosecond: row.instants[k][1]}))
RETURN versions, count(c) AS plain
"""


_INSTANTS = (
    "FOREACH (k IN keys(row.instants) | SET {v}[k] = "
    "datetime({{epochSeconds: row.instants[k][0], nanosecond: row.instants[k][1]}}))"
)


def _raw_versions(param: str, identity: str, version: str) -> str:
    return (
        f"CALL () {{ UNWIND ${param} AS row "
        f"CREATE (n:{identity}:StoryObject {{id: row.id, scope: row.scope}})"
        f"-[:VERSION]->(v:{version}) SET v += row.props {_INSTANTS.format(v='v')} }}\n"
    )


# The same rows as plain CREATEs into the story's own labels, so with every index and
# uniqueness constraint the stored shape keeps, but none of its lookups, merges, retractions
# or links: what Neo4j itself asks for writing these rows in this shape.
RAW_WRITE_STORED = (
    _raw_versions("events", "Event", "EventVersion")
    + _raw_versions("entities", "Entity", "EntityVersion")
    + _raw_versions("relations", "Relation", "RelationVersion")
    + "CALL () { UNWIND $changes AS row CREATE (c:Change:StoryObject) SET c = row.props "
    + _INSTANTS.format(v="c")
    + " }\n"
    + "CALL () { UNWIND $references AS row CREATE (r:Reference) SET r = row.props "
    + _INSTANTS.format(v="r")
    + " }\n"
    + "RETURN 1 AS done"
)


def raw_parameters(form: str, plan: PublishPlan) -> dict[str, Any]:
    """A raw statement's parameters from a decided plan's rows."""
    versions = (*plan.events, *plan.entities, *plan.relations)
    plain = (*plan.changes, *plan.references)
    if form == RAW_WRITE:
        return {
            "versions": [{"id": v.id, "scope": v.scope, "props": to_props(v)} for v in versions],
            "plain": [to_props(x) for x in plain],
        }
    if form == RAW_WRITE_INSTANTS:
        return {
            "versions": [version_row(v) for v in versions],
            "plain": [write_row(x) for x in plain],
        }
    return {
        "events": [version_row(v) for v in plan.events],
        "entities": [version_row(v) for v in plan.entities],
        "relations": [version_row(v) for v in plan.relations],
        "changes": [write_row(x) for x in plan.changes],
        "references": [write_row(x) for x in plan.references],
    }


async def measure_publish(
    driver: AsyncDriver, database: str, repo: StoryRepository, scope: str, rounds: int, size: int
) -> dict[str, Any]:
    """publishResult through the repository (reads, decision, checks, retractions, one
    transaction) against raw UNWIND CREATEs of the rows the same decision produces for
    another key, interleaved: once with datetime parameters, once with the instants as int
    pairs (the cheaper form, the one the target is held to). The raw rows go to labels with
    no index, one relationship each; a third baseline writes a decision's rows through the
    story's own write statements alone (its labels, indexes, relationships and retractions,
    no reads and no decision), and a fourth CREATEs the rows into the story's labels alone
    (`RAW_WRITE_STORED`: their indexes and constraints, no lookups or links), so the report
    splits publish's cost into what the indexed shape costs Neo4j, what the story's
    statements add to that, and what publishResult adds to them. Every baseline's time
    includes turning the decided rows into its parameters, as publish's and the story
    statements' times do."""
    published: list[float] = []
    raw: list[float] = []
    raw_pairs: list[float] = []
    raw_stored: list[float] = []
    stored: list[float] = []
    facts = 0
    held = PublishContext(source_versions={"bench-chat": frozenset({"v1"})})
    for i in range(rounds):
        inp = publish_input(scope, f"pub-{i}-{uuid.uuid4().hex[:6]}", size)
        t0 = time.perf_counter()
        out = await repo.publish_result(inp, by=RUN, now=utcnow())
        published.append(time.perf_counter() - t0)
        p = out.plan
        facts = (
            len(p.events)
            + len(p.entities)
            + len(p.relations)
            + len(p.changes)
            + len(p.references)
            + len(p.summaries)
            + len(p.stories)
        )
        for form, samples in (
            (RAW_WRITE, raw),
            (RAW_WRITE_INSTANTS, raw_pairs),
            (RAW_WRITE_STORED, raw_stored),
        ):
            key = f"raw-{i}-{uuid.uuid4().hex[:6]}"
            other = decide_publish(publish_input(scope, key, size), held, datetime.now(UTC), RUN)
            t1 = time.perf_counter()
            await driver.execute_query(form, database_=database, **raw_parameters(form, other))
            samples.append(time.perf_counter() - t1)
        key = f"stored-{i}-{uuid.uuid4().hex[:6]}"
        plan = decide_publish(publish_input(scope, key, size), held, datetime.now(UTC), RUN)
        t1 = time.perf_counter()
        await repo.write(functools.partial(repo._write_plan, plan=plan))  # noqa: SLF001
        stored.append(time.perf_counter() - t1)
    # the first round plans the statements
    pub_rate = facts / statistics.median(published[1:])
    raw_rate = facts / statistics.median(raw[1:])
    pairs_rate = facts / statistics.median(raw_pairs[1:])
    stored_rate = facts / statistics.median(stored[1:])
    shaped_rate = facts / statistics.median(raw_stored[1:])
    return {
        "facts_per_result": facts,
        "publish_facts_per_s": pub_rate,
        "raw_facts_per_s": raw_rate,
        "raw_pairs_facts_per_s": pairs_rate,
        "ratio": pub_rate / max(raw_rate, pairs_rate),
        "raw_stored_facts_per_s": shaped_rate,
        "raw_stored_ratio": pub_rate / shaped_rate,
        "shape_cost": shaped_rate / max(raw_rate, pairs_rate),
        "stored_facts_per_s": stored_rate,
        "stored_ratio": pub_rate / stored_rate,
    }


async def main(scale: float, runs: int, scope_count: int, keep: bool) -> dict[str, Any]:
    settings = Settings.from_env()
    database = settings.neo4j_database
    driver = open_driver(settings)
    await migrate(driver, database)
    await driver.execute_query("CALL db.awaitIndexes(300)", database_=database)
    run_id = uuid.uuid4().hex[:8]
    scopes = [f"bench-{run_id}-{n}" for n in range(scope_count)]
    repo = StoryRepository(driver, database)
    api, url = start_api(free_port())
    report: dict[str, Any] = {
        "scale": scale,
        "scopes": scope_count,
        "runs": runs,
        "started": datetime.now(UTC).isoformat(),
    }
    try:
        for scope in scopes:
            await add_source(repo, scope)
        # Scopes are generated a group at a time (WRITERS scopes, written side by side) and
        # dropped after each phase's write, so memory holds two scopes, not ten: at scale 1.0
        # a scope is ~1.1M rows (~1.6 GB as models). The generator is seeded per scope, so a
        # phase regenerates exactly the rows the other phase saw. Phase A ends where a tenth
        # of the measured scope's rows were recorded (the scopes share one distribution).
        groups = [scopes[i : i + WRITERS] for i in range(0, len(scopes), WRITERS)]
        seeds = {s: n for n, s in enumerate(scopes)}

        def generated(group: list[str]) -> list[ScopeData]:
            return [generate(s, scale, seed=seeds[s]) for s in group]

        with console.status("generating the measured scope"):
            phase_a_end = tenth_of_history(generated(scopes[:1]))
        n_events = int(100_000 * scale)
        span = YEAR * (WINDOW_EVENTS / n_events)
        lo = YEAR0 + (phase_a_end - YEAR0) / 2 - span / 2
        hi = lo + span
        report["phase_a_end"] = phase_a_end.isoformat()
        report["window"] = [lo.isoformat(), hi.isoformat()]
        columns = (
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
        )

        async def phase(start: datetime, end: datetime, label: str) -> tuple[int, float]:
            rows, seconds = 0, 0.0
            with Progress(*columns, console=console) as progress:
                for n, group in enumerate(groups, 1):
                    data = generated(group)  # generation is not counted as write time
                    t0 = time.perf_counter()
                    rows += await write_phase(
                        driver, database, data, start, end, progress, f"{label} {n}/{len(groups)}"
                    )
                    seconds += time.perf_counter() - t0
                    del data
            return rows, seconds

        rows_a, report["write_a_s"] = await phase(
            YEAR0 - YEAR, phase_a_end, "phase A: first tenth of the year"
        )
        report["write_a_rows"] = rows_a
        report["read_small_history"] = await measure_reads(
            driver, database, url, scopes[0], phase_a_end, lo, hi, runs
        )
        rows_b, report["write_b_s"] = await phase(
            phase_a_end, YEAR0 + 2 * YEAR, "phase B: the rest of the year"
        )
        report["write_b_rows"] = rows_b
        report["load_rows"] = rows_a + rows_b
        report["load_s"] = report["write_a_s"] + report["write_b_s"]
        report["load_rows_per_s"] = report["load_rows"] / report["load_s"]
        report["history_growth"] = (rows_a + rows_b) / rows_a
        report["read_full_history"] = await measure_reads(
            driver, database, url, scopes[0], YEAR0 + YEAR, lo, hi, runs
        )
        report["p50_growth"] = (
            report["read_full_history"]["http_p50_ms"] / report["read_small_history"]["http_p50_ms"]
        )
        report["cypher_p50_growth"] = (
            report["read_full_history"]["cypher_p50_ms"]
            / report["read_small_history"]["cypher_p50_ms"]
        )
        report["publish"] = await measure_publish(
            driver, database, repo, scopes[1], rounds=max(5, runs // 3), size=200
        )
        report["finished"] = datetime.now(UTC).isoformat()
        # shown and kept before the clean-up, which at full size takes minutes of its own
        show(report)
        save(report, scale)
    finally:
        api.terminate()
        api.wait(timeout=30)
        if not keep:
            with console.status("removing the bench scopes"):
                await cleanup(driver, database, scopes)
        await driver.close()
    return report


def show(report: dict[str, Any]) -> None:
    table = Table(title=f"storyGraph benchmark (scale {report['scale']})")
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_column("target", justify="right")
    for name in ("read_small_history", "read_full_history"):
        r = report[name]
        table.add_row(f"{name}: objects", f"{r['objects']} ({r['raw_objects']} raw)", "~500")
        table.add_row(
            f"{name}: (a) HTTP p50 / p95 ms", f"{r['http_p50_ms']:.1f} / {r['http_p95_ms']:.1f}", ""
        )
        table.add_row(
            f"{name}: (b) Cypher p50 / p95 ms",
            f"{r['cypher_p50_ms']:.1f} / {r['cypher_p95_ms']:.1f}",
            "",
        )
        table.add_row(f"{name}: a/b (p50)", f"{r['ratio_p50']:.2f}", "<= 1.5")
    table.add_row("history growth (rows)", f"{report['history_growth']:.1f}x", "10x")
    table.add_row("HTTP p50 growth", f"{report['p50_growth']:.2f}x", "<= 1.5x")
    table.add_row("Cypher p50 growth", f"{report['cypher_p50_growth']:.2f}x", "")
    pub = report["publish"]
    table.add_row("publishResult facts/s", f"{pub['publish_facts_per_s']:.0f}", "")
    table.add_row("raw UNWIND facts/s, datetime parameters", f"{pub['raw_facts_per_s']:.0f}", "")
    table.add_row(
        "raw UNWIND facts/s, instants as int pairs", f"{pub['raw_pairs_facts_per_s']:.0f}", ""
    )
    table.add_row("publish / the faster raw", f"{pub['ratio']:.2f}", ">= 0.7")
    table.add_row(
        "raw UNWIND into the story's labels (indexes, no lookups), facts/s",
        f"{pub['raw_stored_facts_per_s']:.0f}",
        "",
    )
    table.add_row(
        "  that raw / the faster unindexed raw (the indexed shape's cost)",
        f"{pub['shape_cost']:.2f}",
        "",
    )
    table.add_row("publish / raw into the story's labels", f"{pub['raw_stored_ratio']:.2f}", "")
    table.add_row(
        "the story's write statements alone, facts/s", f"{pub['stored_facts_per_s']:.0f}", ""
    )
    table.add_row("publish / its write statements alone", f"{pub['stored_ratio']:.2f}", "")
    table.add_row(
        "write phase A / B",
        f"{report['write_a_rows']} rows {report['write_a_s']:.0f} s"
        f" / {report['write_b_rows']} rows {report['write_b_s']:.0f} s",
        "",
    )
    table.add_row(
        "load (both phases, writing only)",
        f"{report['load_rows']} rows in {report['load_s'] / 60:.1f} min"
        f" ({report['load_rows_per_s']:.0f} rows/s)",
        "< 30 min at scale 1.0",
    )
    console.print(table)


def save(report: dict[str, Any], scale: float) -> None:
    out = PROJECT_ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    path = Path(out / f"story_graph-{datetime.now(UTC):%Y%m%dT%H%M%S}-s{scale}.json")
    path.write_text(json.dumps(report, indent=2, ensure_ascii=False), encoding="utf-8")
    console.print(f"written {path.relative_to(PROJECT_ROOT)}")


def cli(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="1.0 = the issue's sizes")
    parser.add_argument("--runs", type=int, default=30, help="timed reads per measurement")
    parser.add_argument("--scopes", type=int, default=10, help="scopes of the same size")
    parser.add_argument("--keep", action="store_true", help="leave the bench scopes in place")
    args = parser.parse_args(argv)
    asyncio.run(main(args.scale, args.runs, args.scopes, args.keep))


if __name__ == "__main__":
    cli()
