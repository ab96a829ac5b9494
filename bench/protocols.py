"""Many clients, the past computed once, and where a window read's time goes (issue 31).

    .venv/bin/python -m bench.protocols [--scale 0.05] [--seconds 3] [--rounds 2]

One bench scope (bench.story_graph's generator, as bench.peer_compare writes it), then:

  throughput  requests/s and p95 with 1, 8 and 32 concurrent clients on `entities(first: 50)`
              and the ~500-object window, for storygraph (`storygraph serve`, one worker per
              core, past cache on), storygraph with the past cache off (PAST_CACHE_BYTES=0),
              and the peer (@neo4j/graphql); the systems alternate round by round.
  cache       the window as of a settled past moment: a first read (a new asOf each time, so
              each is computed and stored), a repeated read (served from the cache), and a
              GET with If-None-Match answered 304; p50 over HTTP.
  split       a window read's p50 split into Neo4j (the server's available + consumed time of
              `story/window_graph`), the driver (the same statement through the Python driver,
              less Neo4j), decoding (the use case `jobs.story.reads.story_graph`, less the
              driver), GraphQL execution (the schema executing the query in process, less the
              use case) and HTTP (one client against the cache-off server, less execution).

Timings are printed, never asserted; JSON goes to bench/results/.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
from rich.table import Table

from api.auth import OPEN_PRINCIPAL
from api.context import Context
from api.schema import build_schema
from bench.peer_compare import (
    PEER_ENTITIES,
    PEER_WINDOW,
    SG_ENTITIES,
    load_scope,
    start_peer,
    wide,
)
from bench.story_graph import (
    GRAPHQL as SG_WINDOW,
)
from bench.story_graph import (
    WINDOW_EVENTS,
    YEAR,
    YEAR0,
    cleanup,
    free_port,
    pct,
    start_api,
)
from engine.settings import PROJECT_ROOT, Settings
from graph.driver import open_driver
from graph.migrate import migrate
from graph.queries import queries
from graph.story.window import window_params
from jobs.deps import Deps
from jobs.story import reads

CLIENTS = (1, 8, 32)
Call = Callable[[httpx.AsyncClient], Awaitable[None]]


def post(url: str, query: str, variables: dict[str, Any]) -> Call:
    async def call(client: httpx.AsyncClient) -> None:
        r = await client.post(url, json={"query": query, "variables": variables})
        body = r.json()
        if r.status_code != 200 or body.get("errors"):
            raise RuntimeError(f"{url}: {r.status_code} {r.text[:300]}")

    return call


async def load(call: Call, clients: int, seconds: float) -> tuple[float, float]:
    """`clients` loops calling as fast as answers come for `seconds`: requests/s and p95 ms."""
    latencies: list[float] = []
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(timeout=120, limits=limits) as client:
        await call(client)  # a connection and a warm path
        stop = time.perf_counter() + seconds

        async def loop() -> None:
            while time.perf_counter() < stop:
                t0 = time.perf_counter()
                await call(client)
                latencies.append((time.perf_counter() - t0) * 1000)

        t0 = time.perf_counter()
        await asyncio.gather(*(loop() for _ in range(clients)))
        elapsed = time.perf_counter() - t0
    return len(latencies) / elapsed, pct(latencies, 95)


async def throughput(
    systems: dict[str, dict[str, Call]], seconds: float, rounds: int
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    names = list(systems)
    for read in ("entities", "window"):
        for clients in CLIENTS:
            got: dict[str, list[tuple[float, float]]] = {n: [] for n in names}
            for r in range(rounds):
                for name in names[r % len(names) :] + names[: r % len(names)]:
                    got[name].append(await load(systems[name][read], clients, seconds))
            for name, runs in got.items():
                rps = sum(x for x, _ in runs) / len(runs)
                p95 = sorted(p for _, p in runs)[len(runs) // 2]
                out.setdefault(read, {}).setdefault(str(clients), {})[name] = {
                    "rps": round(rps, 1),
                    "p95_ms": round(p95, 1),
                }
    return out


async def timed(samples: int, work: Callable[[int], Awaitable[Any]]) -> float:
    times = []
    for i in range(samples + 3):
        t0 = time.perf_counter()
        await work(i)
        if i >= 3:
            times.append((time.perf_counter() - t0) * 1000)
    return pct(times, 50)


async def cache_figures(url: str, wvars: dict[str, Any], samples: int) -> dict[str, float]:
    base = wvars["asOf"]
    async with httpx.AsyncClient(timeout=120) as client:

        async def first(i: int) -> None:
            # a new past moment each time (microseconds apart, the same answer): computed once
            asof = f"{base[:19]}.{i + 1:06d}{base[19:]}" if "." not in base else base
            await post(url, SG_WINDOW, {**wvars, "asOf": asof})(client)

        async def repeated(_: int) -> None:
            await post(url, SG_WINDOW, wvars)(client)

        params = {"query": SG_WINDOW, "variables": json.dumps(wvars)}
        tag = (await client.get(url, params=params)).headers.get("etag", "")

        async def not_modified(_: int) -> None:
            r = await client.get(url, params=params, headers={"if-none-match": tag})
            if r.status_code != 304:
                raise RuntimeError(f"expected 304, got {r.status_code}")

        figures = {
            "first_ms": await timed(samples, first),
            "repeated_ms": await timed(samples, repeated),
            "not_modified_ms": await timed(samples, not_modified),
        }
    figures["repeated_over_first"] = figures["repeated_ms"] / figures["first_ms"]
    return figures


async def split(
    settings: Settings, scope: str, window: tuple[Any, Any, Any], http_url: str, samples: int
) -> dict[str, float]:
    driver = open_driver(settings)
    database = settings.neo4j_database
    as_of, lo, hi = window
    statement = queries()["story/window_graph"]
    params = window_params(scope, as_of, None, lo, hi, None)
    server: list[float] = []

    async def through_driver(_i: int) -> None:
        _records, summary, _keys = await driver.execute_query(statement, params, database_=database)
        server.append(
            float((summary.result_available_after or 0) + (summary.result_consumed_after or 0))
        )

    deps = Deps(settings=settings, driver=driver, pool=None)

    async def use_case(_: int) -> None:
        await reads.story_graph(deps, OPEN_PRINCIPAL, scope, as_of=as_of, from_=lo, to=hi)

    schema = build_schema(settings)
    variables = {"scope": scope, "asOf": as_of.isoformat(), "from": lo.isoformat(),
                 "to": hi.isoformat()}  # fmt: skip

    async def execution(_: int) -> None:
        context = Context(request=None, settings=settings, driver=driver, pool=None,  # type: ignore[arg-type]
                          principal=OPEN_PRINCIPAL)  # fmt: skip
        result = await schema.execute(SG_WINDOW, variable_values=variables, context_value=context)
        if result.errors:
            raise RuntimeError(str(result.errors[0]))

    try:
        driver_ms = await timed(samples, through_driver)
        neo4j_ms = pct(server, 50)
        use_case_ms = await timed(samples, use_case)
        execution_ms = await timed(samples, execution)
        async with httpx.AsyncClient(timeout=120) as client:
            call = post(http_url, SG_WINDOW, variables)
            http_ms = await timed(samples, lambda _: call(client))
    finally:
        await driver.close()
    return {
        "neo4j_ms": neo4j_ms,
        "driver_ms": driver_ms - neo4j_ms,
        "decoding_ms": use_case_ms - driver_ms,
        "graphql_ms": execution_ms - use_case_ms,
        "http_ms": http_ms - execution_ms,
        "total_http_ms": http_ms,
        "http_over_driver": http_ms / driver_ms,
    }


async def main(scale: float, seconds: float, rounds: int, samples: int) -> dict[str, Any]:
    settings = Settings.from_env()
    driver = open_driver(settings)
    await migrate(driver, settings.neo4j_database)
    scope = f"bench-proto-{uuid.uuid4().hex[:8]}"
    report: dict[str, Any] = {"scale": scale, "seconds": seconds, "rounds": rounds}
    procs = []
    try:
        report["load"] = await load_scope(driver, settings.neo4j_database, scope, scale)
        cached, cached_url = start_api(free_port())
        os.environ["PAST_CACHE_BYTES"] = "0"
        uncached, uncached_url = start_api(free_port())
        del os.environ["PAST_CACHE_BYTES"]
        peer, peer_url = start_peer(settings, free_port())
        procs = [cached, uncached, peer]
        n_events = int(100_000 * scale)
        lo = YEAR0 + YEAR / 2
        window = (YEAR0 + YEAR, lo, lo + YEAR * (WINDOW_EVENTS / n_events))
        wvars = {"scope": scope, "asOf": window[0].isoformat(), "from": lo.isoformat(),
                 "to": window[2].isoformat()}  # fmt: skip
        pvars = {"scope": scope, "asOf": (YEAR0 + YEAR * 0.6).isoformat()}

        def reads_of(url: str, window_q: str, entities_q: str) -> dict[str, Call]:
            return {"window": post(url, window_q, wvars), "entities": post(url, entities_q, pvars)}

        systems = {
            "storygraph": reads_of(f"{cached_url}/graphql", SG_WINDOW, SG_ENTITIES),
            "storygraph, cache off": reads_of(f"{uncached_url}/graphql", SG_WINDOW, SG_ENTITIES),
            "peer": reads_of(peer_url, PEER_WINDOW, PEER_ENTITIES),
        }
        report["workers"] = os.environ.get("API_WORKERS") or str(os.cpu_count())
        report["throughput"] = await throughput(systems, seconds, rounds)
        report["cache"] = await cache_figures(f"{cached_url}/graphql", wvars, samples)
        report["split"] = await split(settings, scope, window, f"{uncached_url}/graphql", samples)
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(timeout=30)
        await cleanup(driver, settings.neo4j_database, [scope])
        await driver.close()
    return report


def show(report: dict[str, Any]) -> None:
    table = Table(title=f"Throughput ({report['workers']} API workers), requests/s | p95 ms")
    table.add_column("read, clients")
    systems = list(report["throughput"]["window"]["1"])
    for name in systems:
        table.add_column(name, justify="right")
    table.add_column("storygraph / peer", justify="right")
    for read, by_clients in report["throughput"].items():
        for clients, row in by_clients.items():
            cells = [f"{row[n]['rps']} | {row[n]['p95_ms']}" for n in systems]
            ratio = row["storygraph"]["rps"] / max(row["peer"]["rps"], 1e-9)
            table.add_row(f"{read}, {clients}", *cells, f"{ratio:.2f}x")
    wide.print(table)
    c = report["cache"]
    wide.print(
        f"Past window: first read {c['first_ms']:.1f} ms p50, repeated {c['repeated_ms']:.1f} ms"
        f" ({c['repeated_over_first']:.2f}x the first; target <= 0.2x), 304 "
        f"{c['not_modified_ms']:.1f} ms p50 (target <= 2 ms)"
    )
    s = report["split"]
    parts = ", ".join(
        f"{k.removesuffix('_ms')} {s[k]:.1f} ms"
        for k in ("neo4j_ms", "driver_ms", "decoding_ms", "graphql_ms", "http_ms")
    )
    wide.print(
        f"Window read split (p50): {parts}; over HTTP {s['total_http_ms']:.1f} ms = "
        f"{s['http_over_driver']:.2f}x the statement through the Python driver (target <= 1.3x)"
    )


def cli(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scale", type=float, default=0.05)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--samples", type=int, default=30)
    args = parser.parse_args(argv)
    report = asyncio.run(main(args.scale, args.seconds, args.rounds, args.samples))
    show(report)
    out = PROJECT_ROOT / "bench" / "results" / f"protocols-{int(time.time())}.json"
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1, default=str))
    wide.print(f"written to {out}")


if __name__ == "__main__":
    cli()
