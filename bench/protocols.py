"""Many clients, the past computed once, and where a read's time goes.

    .venv/bin/python -m bench.protocols [--scale 0.05] [--seconds 3] [--rounds 2]

One bench scope (bench.datagen's generator, as bench.peer_compare writes it), then:

  throughput  requests/s and p95 with 1, 8 and 32 concurrent clients on `entities(first: 50)`
              and the ~500-object window, for storygraph (`storygraph serve`, one worker per
              core, past cache on), storygraph with the past cache off (PAST_CACHE_BYTES=0),
              and the peer (@neo4j/graphql); the systems alternate round by round. Each client
              is one kept-alive connection of `bench.http_load` (httpx's own CPU per request
              capped both servers at the same rate on this machine's two busy cores).
  cache       the window as of a settled past moment: a first read (a new asOf each time, so
              each is computed and stored), a repeated read (served from the cache), and a
              GET with If-None-Match answered 304; p50 over HTTP.
  split       for the window and for the entities page, a single client's p50 split into
              Neo4j (the server's available + consumed time of the named statement,
              `story/window_graph` / `story/page_entities`), the driver (the same statement
              through the Python driver, less Neo4j), decoding (the use case,
              `jobs.story.reads.story_graph` / `entities_page`, less the driver), GraphQL
              execution (the schema executing the query in process, less the use case) and
              HTTP (one kept-alive connection to the cache-off server, less execution); the
              layers are measured interleaved, sample by sample.

Timings are printed, never asserted; JSON goes to bench/results/.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from rich.table import Table

from api.auth import OPEN_PRINCIPAL
from api.context import Context
from api.schema import build_schema
from bench.datagen import (
    GRAPHQL as SG_WINDOW,
)
from bench.datagen import (
    WINDOW_EVENTS,
    YEAR,
    YEAR0,
    cleanup,
    free_port,
    pct,
    start_api,
)
from bench.http_load import KeptAlive
from bench.peer_compare import (
    PEER_ENTITIES,
    PEER_WINDOW,
    SG_ENTITIES,
    load_scope,
    start_peer,
    wide,
)
from engine.settings import PROJECT_ROOT, Settings
from engine.story.filters import EntityFilter
from graph.driver import open_driver
from graph.migrate import migrate
from graph.queries import queries
from graph.story.window import window_params
from jobs.deps import Deps
from jobs.story import reads

CLIENTS = (1, 8, 32)
Call = Callable[[httpx.AsyncClient], Awaitable[None]]
Ask = tuple[str, str, dict[str, Any]]  # url, query, variables


def post(url: str, query: str, variables: dict[str, Any]) -> Call:
    async def call(client: httpx.AsyncClient) -> None:
        r = await client.post(url, json={"query": query, "variables": variables})
        body = r.json()
        if r.status_code != 200 or body.get("errors"):
            raise RuntimeError(f"{url}: {r.status_code} {r.text[:300]}")

    return call


async def load(ask: Ask, clients: int, seconds: float) -> tuple[float, float]:
    """`clients` kept-alive connections (`bench.http_load`, light enough not to be the
    bottleneck) each calling as fast as answers come for `seconds`: requests/s and p95 ms."""
    latencies: list[float] = []
    async with contextlib.AsyncExitStack() as stack:
        conns = [await stack.enter_async_context(KeptAlive(*ask)) for _ in range(clients)]
        for conn in conns:
            await conn.call()  # a connection and a warm path
        stop = time.perf_counter() + seconds

        async def loop(conn: KeptAlive) -> None:
            while time.perf_counter() < stop:
                t0 = time.perf_counter()
                await conn.call()
                latencies.append((time.perf_counter() - t0) * 1000)

        t0 = time.perf_counter()
        await asyncio.gather(*(loop(c) for c in conns))
        elapsed = time.perf_counter() - t0
    return len(latencies) / elapsed, pct(latencies, 95)


async def throughput(
    systems: dict[str, dict[str, Ask]], seconds: float, rounds: int
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


@dataclass(frozen=True)
class SplitRead:
    """One read measured at each layer: its statement, its use case, its GraphQL query."""

    statement: str
    params: dict[str, Any]
    use_case: Callable[[Deps], Awaitable[Any]]
    query: str
    variables: dict[str, Any]


def split_reads(scope: str, window: tuple[Any, Any, Any], page_as_of: Any) -> dict[str, SplitRead]:
    as_of, lo, hi = window
    first = reads.PageAsk(first=50, with_total=False)
    return {
        "window": SplitRead(
            "story/window_graph",
            window_params(scope, as_of, None, lo, hi, None),
            lambda deps: reads.story_graph(
                deps, OPEN_PRINCIPAL, scope, as_of=as_of, from_=lo, to=hi
            ),  # fmt: skip
            SG_WINDOW,
            {
                "scope": scope,
                "asOf": as_of.isoformat(),
                "from": lo.isoformat(),
                "to": hi.isoformat(),
            },  # fmt: skip
        ),
        "entities": SplitRead(
            "story/page_entities",
            {
                "scope": scope,
                "as_of": page_as_of,
                "after_name": "",
                "after_id": "",
                "kind": None,
                "status": None,
                "name_contains": None,
                "limit": 51,
            },  # fmt: skip
            lambda deps: reads.entities_page(
                deps, OPEN_PRINCIPAL, scope, first, EntityFilter(), as_of=page_as_of
            ),
            SG_ENTITIES,
            {"scope": scope, "asOf": page_as_of.isoformat()},
        ),
    }


async def split(
    settings: Settings, read: SplitRead, http_url: str, samples: int
) -> dict[str, float]:
    """A single client's p50 at each layer, the layers interleaved sample by sample (a busy
    machine slows them alike): the statement through the Python driver (and Neo4j's own
    available + consumed time), the use case, the schema executing the query in process, and
    the query over HTTP (one kept-alive connection, `bench.http_load`)."""
    driver = open_driver(settings)
    database = settings.neo4j_database
    statement = queries()[read.statement]
    deps = Deps(settings=settings, driver=driver, pool=None)
    schema = build_schema(settings)
    times: dict[str, list[float]] = {k: [] for k in ("neo4j", "driver", "use", "exec", "http")}

    async def timed_ms(work: Awaitable[Any]) -> float:
        t0 = time.perf_counter()
        await work
        return (time.perf_counter() - t0) * 1000

    async def execution() -> None:
        context = Context(request=None, settings=settings, driver=driver, pool=None,  # type: ignore[arg-type]
                          principal=OPEN_PRINCIPAL)  # fmt: skip
        result = await schema.execute(read.query, variable_values=read.variables,
                                      context_value=context)  # fmt: skip
        if result.errors:
            raise RuntimeError(str(result.errors[0]))

    try:
        async with KeptAlive(http_url, read.query, read.variables) as conn:
            for i in range(samples + 3):
                t0 = time.perf_counter()
                _records, summary, _keys = await driver.execute_query(
                    statement, read.params, database_=database
                )
                driver_ms = (time.perf_counter() - t0) * 1000
                use_ms = await timed_ms(read.use_case(deps))
                exec_ms = await timed_ms(execution())
                http_ms = await timed_ms(conn.call())
                if i >= 3:  # warm-up
                    available = summary.result_available_after or 0
                    times["neo4j"].append(float(available + (summary.result_consumed_after or 0)))
                    times["driver"].append(driver_ms)
                    times["use"].append(use_ms)
                    times["exec"].append(exec_ms)
                    times["http"].append(http_ms)
    finally:
        await driver.close()
    p50 = {k: pct(v, 50) for k, v in times.items()}
    return {
        "neo4j_ms": p50["neo4j"],
        "driver_ms": p50["driver"] - p50["neo4j"],
        "decoding_ms": p50["use"] - p50["driver"],
        "graphql_ms": p50["exec"] - p50["use"],
        "http_ms": p50["http"] - p50["exec"],
        "total_http_ms": p50["http"],
        "statement_ms": p50["driver"],
        "http_over_driver": p50["http"] / p50["driver"],
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

        def reads_of(url: str, window_q: str, entities_q: str) -> dict[str, Ask]:
            return {"window": (url, window_q, wvars), "entities": (url, entities_q, pvars)}

        systems = {
            "storygraph": reads_of(f"{cached_url}/graphql", SG_WINDOW, SG_ENTITIES),
            "storygraph, cache off": reads_of(f"{uncached_url}/graphql", SG_WINDOW, SG_ENTITIES),
            "peer": reads_of(peer_url, PEER_WINDOW, PEER_ENTITIES),
        }
        report["workers"] = os.environ.get("API_WORKERS") or str(os.cpu_count())
        report["throughput"] = await throughput(systems, seconds, rounds)
        report["reopened_connections"] = KeptAlive.reopened
        report["cache"] = await cache_figures(f"{cached_url}/graphql", wvars, samples)
        report["split"] = {
            name: await split(settings, read, f"{uncached_url}/graphql", samples)
            for name, read in split_reads(scope, window, YEAR0 + YEAR * 0.6).items()
        }
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
    table.add_column("cache off / peer", justify="right")
    for read, by_clients in report["throughput"].items():
        for clients, row in by_clients.items():
            cells = [f"{row[n]['rps']} | {row[n]['p95_ms']}" for n in systems]
            peer = max(row["peer"]["rps"], 1e-9)
            ratios = [row[n]["rps"] / peer for n in ("storygraph", "storygraph, cache off")]
            table.add_row(f"{read}, {clients}", *cells, *(f"{r:.2f}x" for r in ratios))
    wide.print(table)
    c = report["cache"]
    wide.print(
        f"Past window: first read {c['first_ms']:.1f} ms p50, repeated {c['repeated_ms']:.1f} ms"
        f" ({c['repeated_over_first']:.2f}x the first; target <= 0.2x), 304 "
        f"{c['not_modified_ms']:.1f} ms p50 (target <= 2 ms)"
    )
    for read, s in report["split"].items():
        parts = ", ".join(
            f"{k.removesuffix('_ms')} {s[k]:.1f} ms"
            for k in ("neo4j_ms", "driver_ms", "decoding_ms", "graphql_ms", "http_ms")
        )
        wide.print(
            f"{read.capitalize()} read split (p50, one client): {parts}; over HTTP "
            f"{s['total_http_ms']:.1f} ms = {s['http_over_driver']:.2f}x the statement through "
            f"the Python driver ({s['statement_ms']:.1f} ms; target <= 1.3x)"
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
