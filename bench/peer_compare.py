"""storygraph against @neo4j/graphql and the hand-written Cypher floor.

    .venv/bin/python -m bench.peer_compare [--scale 0.05] [--runs 30]

One bench scope is generated with `bench.datagen`'s generator (`--scale 0.05`: ~1,000
entities / 5,000 versions, 5,000 events / 25,000 versions, 3,000 relations, ...) and written
through the repository's UNWIND queries. Then three reads run INTERLEAVED (the order rotates
every round, after warm-up rounds) on the same data, after a check that all three answer the
same ids:

  window    `storyGraph(scope, asOf, from, to)` (~500 objects) | the peer's nested query |
            the named query `story/window_graph`
  entities  `entities(scope, asOf: T, first: 50)` | `entityVersions(..., sort, limit: 50)` |
            the Cypher page below
  history   50 entities with every version: `Entity.history` when the schema has it
            (one request), else `entity(id) { history }` per id (25 aliases a request) |
            `entities(where: {id: {in}}) { versions }` | the named query `story/entity_versions`

storygraph runs as `storygraph serve` (HTTP GraphQL), the peer as `node bench/peer/server.mjs`
(HTTP GraphQL, pinned in bench/peer/package-lock.json, installed by `npm ci`), the floor
through the Python driver. p50/p95 and the ratios against the targets are printed; JSON goes
to bench/results/. The scope is removed at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from neo4j import AsyncDriver
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from bench.datagen import (
    GRAPHQL as STORYGRAPH_WINDOW,
)
from bench.datagen import (
    WINDOW_EVENTS,
    YEAR,
    YEAR0,
    add_source,
    cleanup,
    console,
    free_port,
    generate,
    pct,
    start_api,
    write_phase,
)
from engine.settings import PROJECT_ROOT, Settings
from graph.driver import neo4j_password, open_driver
from graph.migrate import migrate
from graph.queries import queries
from graph.story.repository import StoryRepository
from graph.story.window import window_params

PEER_DIR = PROJECT_ROOT / "bench" / "peer"
wide = Console(width=150)
PAGE = 50
HISTORY_IDS = 50
ALIASES_PER_REQUEST = 25  # under GRAPHQL_MAX_ALIASES (30)

# --- the peer's queries (bench/peer/typeDefs.graphql) ---------------------------------

ASOF = "recorded_at: {lte: $asOf}, retracted_at: {gt: $asOf}"
PEER_WINDOW = (
    """
query($scope: String!, $asOf: DateTime!, $from: DateTime!, $to: DateTime!) {
  eventVersions(where: {scope: {eq: $scope}, at: {gte: $from, lte: $to}, ASOF}) {
    id seq title description story_id by atIso recordedAt
    event {
      references(where: {recorded_at: {lte: $asOf}}) {
        id owner_kind owner_id source_id source_version locator
      }
      changes(where: {recorded_at: {lte: $asOf}}) {
        id event_id entity_id kind
        entity {
          versions(where: {ASOF}) { id name kind description status seq recordedAt }
          relationsFrom {
            versions(where: {ASOF}) { id from_id to_id type reason confirmation removed seq }
          }
        }
      }
    }
  }
  summaries(where: {scope: {eq: $scope}, interval_start: {lte: $to},
                    interval_end: {gte: $from}, recorded_at: {lte: $asOf}}) {
    id text intervalStart intervalEnd
  }
  storyVersions(where: {scope: {eq: $scope}, ASOF}) { id name seq }
}"""
).replace("ASOF", ASOF)

PEER_ENTITIES = (
    """
query($scope: String!, $asOf: DateTime!) {
  entityVersions(where: {scope: {eq: $scope}, ASOF}, sort: [{name: ASC}, {id: ASC}], limit: 50) {
    id name kind description status seq recordedAt
  }
}"""
).replace("ASOF", ASOF)

PEER_HISTORY = """
query($scope: String!, $ids: [ID!]!) {
  entities(where: {scope: {eq: $scope}, id: {in: $ids}}) {
    id
    versions(sort: [{seq: ASC}]) { id seq name kind description status recordedAt retractedAt }
  }
}"""

# --- storygraph's queries ----------------------------------------------------------------

SG_ENTITIES = """
query($scope: String!, $asOf: DateTime!) {
  entities(scope: $scope, asOf: $asOf, first: 50) {
    edges { node { id name kind description status seq recordedAt } }
  }
}"""

SG_HISTORY_FIELD = """
query($scope: String!) {
  entities(scope: $scope, first: 50) {
    edges { node { id history { id seq name kind description status recordedAt retractedAt } } }
  }
}"""

HISTORY_FIELDS = "history { id seq name kind description status recordedAt retractedAt }"

# --- the floor: hand-written Cypher through the Python driver ----------------------------

FLOOR_ENTITIES = """
MATCH (v:EntityVersion)
WHERE v.scope = $scope AND v.recorded_at <= $as_of AND v.retracted_at > $as_of
RETURN v {.*} AS v
ORDER BY v.name, v.id
LIMIT 50
"""

# --- processes ---------------------------------------------------------------------------


def start_peer(settings: Settings, port: int) -> tuple[subprocess.Popen[bytes], str]:
    """`node bench/peer/server.mjs` on a loopback port (needs `npm ci` in bench/peer)."""
    if not (PEER_DIR / "node_modules" / "@neo4j" / "graphql").is_dir():
        raise RuntimeError("bench/peer is not installed: run `npm ci` in bench/peer")
    env = dict(
        os.environ,
        PEER_PORT=str(port),
        NEO4J_URI=settings.effective_neo4j_uri,
        NEO4J_USER=settings.neo4j_user,
        NEO4J_PASSWORD=neo4j_password(settings),
        NEO4J_DATABASE=settings.neo4j_database,
    )
    proc = subprocess.Popen(
        ["node", "server.mjs"],
        cwd=PEER_DIR,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            err = proc.stderr.read().decode() if proc.stderr else ""
            raise RuntimeError(f"the peer exited: {err[-2000:]}")
        try:
            httpx.post(url, json={"query": "{ __typename }"}, timeout=1)
            return proc, url
        except httpx.HTTPError:
            time.sleep(0.3)
    proc.kill()
    raise RuntimeError("the peer did not answer")


async def gql(client: httpx.AsyncClient, url: str, query: str, variables: dict[str, Any]) -> Any:
    resp = await client.post(url, json={"query": query, "variables": variables})
    body = resp.json()
    if body.get("errors"):
        raise RuntimeError(f"{url}: {body['errors']}")
    return body["data"]


# --- the three reads: each system's call and the ids it answered -------------------------

Ids = dict[str, set[Any]]
Call = Callable[[], Awaitable[Ids]]


@dataclass
class Read:
    name: str
    objects: int
    calls: dict[str, Call]  # storygraph, peer, floor


def window_ids_storygraph(graph: dict[str, list[dict[str, Any]]]) -> Ids:
    keys = ("stories", "events", "entities", "relations", "changes", "summaries", "references")
    return {k: {x["id"] for x in graph[k]} for k in keys}


def window_ids_peer(data: dict[str, Any]) -> Ids:
    events, changes, refs, entities, rels = set(), set(), set(), set(), []
    for ev in data["eventVersions"]:
        events.add(ev["id"])
        for node in ev["event"]:
            refs |= {r["id"] for r in node["references"]}
            for c in node["changes"]:
                changes.add(c["id"])
                for en in c["entity"]:
                    entities |= {v["id"] for v in en["versions"]}
                    rels += [v for r in en["relationsFrom"] for v in r["versions"]]
    return {
        "stories": {s["id"] for s in data["storyVersions"]},
        "events": events,
        "entities": entities,
        "relations": {r["id"] for r in rels if r["to_id"] in entities and not r["removed"]},
        "changes": changes,
        "summaries": {s["id"] for s in data["summaries"]},
        "references": refs,
    }


def window_ids_floor(row: dict[str, Any]) -> Ids:
    keys = ("stories", "events", "entities", "relations", "changes", "summaries", "references")
    return {k: {x["id"] for x in row[k] if not x.get("removed")} for k in keys}


async def has_entity_history(client: httpx.AsyncClient, url: str) -> bool:
    data = await gql(client, url, '{ __type(name: "Entity") { fields { name } } }', {})
    return any(f["name"] == "history" for f in data["__type"]["fields"])


def build_reads(
    driver: AsyncDriver,
    database: str,
    client: httpx.AsyncClient,
    sg_url: str,
    peer_url: str,
    scope: str,
    window: tuple[datetime, datetime, datetime],
    page_as_of: datetime,
    history_ids: list[str],
    history_field: bool,
    floor_server_ms: dict[str, list[float]],
) -> list[Read]:
    q = queries()
    as_of, lo, hi = window
    wvars = {
        "scope": scope,
        "asOf": as_of.isoformat(),
        "from": lo.isoformat(),
        "to": hi.isoformat(),
    }

    async def floor(name: str, query: Any, params: dict[str, Any]) -> list[Any]:
        records, summary, _ = await driver.execute_query(
            query, params, database_=database, routing_="r"
        )
        floor_server_ms.setdefault(name, []).append(
            float((summary.result_available_after or 0) + (summary.result_consumed_after or 0))
        )
        return records

    async def sg_window() -> Ids:
        data = await gql(client, f"{sg_url}/graphql", STORYGRAPH_WINDOW, wvars)
        return window_ids_storygraph(data["storyGraph"])

    async def peer_window() -> Ids:
        return window_ids_peer(await gql(client, peer_url, PEER_WINDOW, wvars))

    async def floor_window() -> Ids:
        params = window_params(scope, as_of, None, lo, hi, None)
        records = await floor("window", q["story/window_graph"], params)
        return window_ids_floor(dict(records[0]))

    pvars = {"scope": scope, "asOf": page_as_of.isoformat()}

    async def sg_entities() -> Ids:
        data = await gql(client, f"{sg_url}/graphql", SG_ENTITIES, pvars)
        return {"entities": {tuple(e["node"]["id"] for e in data["entities"]["edges"])}}

    async def peer_entities() -> Ids:
        data = await gql(client, peer_url, PEER_ENTITIES, pvars)
        return {"entities": {tuple(v["id"] for v in data["entityVersions"])}}

    async def floor_entities() -> Ids:
        params = {"scope": scope, "as_of": page_as_of}
        records = await floor("entities", FLOOR_ENTITIES, params)
        return {"entities": {tuple(r["v"]["id"] for r in records)}}

    async def sg_history() -> Ids:
        if history_field:
            data = await gql(client, f"{sg_url}/graphql", SG_HISTORY_FIELD, {"scope": scope})
            nodes = [e["node"] for e in data["entities"]["edges"]]
            return {"versions": {(v["id"], v["seq"]) for n in nodes for v in n["history"]}}
        versions: set[Any] = set()
        for i in range(0, len(history_ids), ALIASES_PER_REQUEST):
            chunk = history_ids[i : i + ALIASES_PER_REQUEST]
            fields = " ".join(
                f'e{n}: entity(scope: $scope, id: "{eid}") {{ {HISTORY_FIELDS} }}'
                for n, eid in enumerate(chunk)
            )
            data = await gql(
                client,
                f"{sg_url}/graphql",
                f"query($scope: String!) {{ {fields} }}",
                {"scope": scope},
            )
            versions |= {(v["id"], v["seq"]) for view in data.values() for v in view["history"]}
        return {"versions": versions}

    async def peer_history() -> Ids:
        data = await gql(client, peer_url, PEER_HISTORY, {"scope": scope, "ids": history_ids})
        return {"versions": {(v["id"], v["seq"]) for e in data["entities"] for v in e["versions"]}}

    async def floor_history() -> Ids:
        params = {"scope": scope, "ids": history_ids}
        records = await floor("history", q["story/entity_versions"], params)
        return {"versions": {(r["v"]["id"], r["v"]["seq"]) for r in records}}

    return [
        Read("window", 0, {"storygraph": sg_window, "peer": peer_window, "floor": floor_window}),
        Read(
            "entities",
            PAGE,
            {"storygraph": sg_entities, "peer": peer_entities, "floor": floor_entities},
        ),
        Read(
            "history",
            HISTORY_IDS,
            {"storygraph": sg_history, "peer": peer_history, "floor": floor_history},
        ),
    ]


async def check_same(read: Read) -> int:
    """All three answer the same ids (else the comparison means nothing); returns the count."""
    answers = {name: await call() for name, call in read.calls.items()}
    ref = answers["floor"]
    for name, ids in answers.items():
        if ids != ref:
            diff = {
                k: (len(ids.get(k, ())), len(ref.get(k, ()))) for k in ref if ids.get(k) != ref[k]
            }
            raise RuntimeError(f"{read.name}: {name} answers other ids than the floor: {diff}")
    return sum(len(next(iter(v))) if read.name == "entities" else len(v) for v in ref.values())


async def measure(reads: list[Read], runs: int, warmup: int) -> dict[str, dict[str, list[float]]]:
    """Every round runs each read on each system; the system order rotates every round."""
    samples: dict[str, dict[str, list[float]]] = {r.name: {} for r in reads}
    systems = ["storygraph", "peer", "floor"]
    for i in range(warmup + runs):
        order = systems[i % 3 :] + systems[: i % 3]
        for read in reads:
            for name in order:
                t0 = time.perf_counter()
                await read.calls[name]()
                ms = (time.perf_counter() - t0) * 1000
                if i >= warmup:
                    samples[read.name].setdefault(name, []).append(ms)
    return samples


# --- main -----------------------------------------------------------------------------------


async def load_scope(
    driver: AsyncDriver, database: str, scope: str, scale: float
) -> dict[str, Any]:
    await add_source(StoryRepository(driver, database), scope)
    with console.status("generating rows"):
        data = generate(scope, scale, seed=14)
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console) as progress:
        t0 = time.perf_counter()
        rows = await write_phase(
            driver, database, [data], YEAR0 - YEAR, YEAR0 + 2 * YEAR, progress, "writing the scope"
        )
        seconds = time.perf_counter() - t0
    return {
        "rows": rows,
        "seconds": seconds,
        "versions": {k.value: len(v) for k, v in data.versions.items()},
    }


async def first_entity_ids(driver: AsyncDriver, database: str, scope: str, n: int) -> list[str]:
    records, _, _ = await driver.execute_query(
        "MATCH (v:EntityVersion) WHERE v.scope = $scope AND v.retracted_at > datetime() "
        "RETURN v.id AS id ORDER BY v.name, v.id LIMIT $n",
        scope=scope,
        n=n,
        database_=database,
    )
    return [r["id"] for r in records]


async def main(scale: float, runs: int, warmup: int, keep: bool) -> dict[str, Any]:
    settings = Settings.from_env()
    database = settings.neo4j_database
    driver = open_driver(settings)
    await migrate(driver, database)
    await driver.execute_query("CALL db.awaitIndexes(300)", database_=database)
    scope = f"bench-peer-{uuid.uuid4().hex[:8]}"
    report: dict[str, Any] = {"scale": scale, "runs": runs, "scope": scope}
    api = peer = None
    try:
        report["load"] = await load_scope(driver, database, scope, scale)
        api, sg_url = start_api(free_port())
        peer, peer_url = start_peer(settings, free_port())
        n_events = int(100_000 * scale)
        lo = YEAR0 + YEAR / 2
        window = (YEAR0 + YEAR, lo, lo + YEAR * (WINDOW_EVENTS / n_events))
        page_as_of = YEAR0 + YEAR * 0.6
        ids = await first_entity_ids(driver, database, scope, HISTORY_IDS)
        server_ms: dict[str, list[float]] = {}
        async with httpx.AsyncClient(timeout=120) as client:
            history_field = await has_entity_history(client, f"{sg_url}/graphql")
            report["history_mode"] = (
                "Entity.history (1 request)"
                if history_field
                else f"entity(id) {{ history }} x{HISTORY_IDS}, {ALIASES_PER_REQUEST} a request"
            )
            reads = build_reads(
                driver,
                database,
                client,
                sg_url,
                peer_url,
                scope,
                window,
                page_as_of,
                ids,
                history_field,
                server_ms,
            )
            objects = {r.name: await check_same(r) for r in reads}
            server_ms.clear()
            samples = await measure(reads, runs, warmup)
        report["objects"] = objects
        report["reads"] = {
            read: {name: {"p50": pct(s, 50), "p95": pct(s, 95)} for name, s in by_system.items()}
            for read, by_system in samples.items()
        }
        report["floor_server_p50_ms"] = {k: pct(v, 50) for k, v in server_ms.items()}
    finally:
        for proc in (api, peer):
            if proc is not None:
                proc.terminate()
                proc.wait(timeout=30)
        if not keep:
            with console.status("removing the bench scope"):
                await cleanup(driver, database, [scope])
        await driver.close()
    return report


TARGETS: dict[str, list[tuple[str, float]]] = {
    "window": [("peer", 0.8), ("floor", 1.2)],
    "entities": [("peer", 0.8)],
    "history": [("peer", 0.8)],
}


def ratios(report: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for read, targets in TARGETS.items():
        r = report["reads"][read]
        for other, target in targets:
            value = r["storygraph"]["p50"] / r[other]["p50"]
            out.append({"read": read, "against": other, "ratio": value, "target": target})
    return out


def show(report: dict[str, Any]) -> None:
    load = report["load"]
    table = Table(title=f"storygraph vs @neo4j/graphql vs Cypher floor (scale {report['scale']})")
    for col in (
        "read",
        "objects",
        "storygraph p50/p95",
        "peer p50/p95",
        "floor p50/p95",
        "floor in Neo4j p50",
    ):
        table.add_column(col, justify="right" if col != "read" else "left")
    for read, r in report["reads"].items():
        table.add_row(
            read,
            str(report["objects"][read]),
            *(f"{r[s]['p50']:.1f} / {r[s]['p95']:.1f} ms" for s in ("storygraph", "peer", "floor")),
            f"{report['floor_server_p50_ms'].get(read, 0):.0f} ms",
        )
    wide.print(table)
    targets = Table(title="targets (storygraph p50 / other p50)")
    for col in ("read", "against", "ratio", "target", "met"):
        targets.add_column(col)
    for t in report["ratios"]:
        met = t["ratio"] <= t["target"]
        targets.add_row(
            t["read"],
            t["against"],
            f"{t['ratio']:.2f}",
            f"<= {t['target']}",
            "yes" if met else f"[red]no (+{(t['ratio'] / t['target'] - 1) * 100:.0f}%)[/red]",
        )
    wide.print(targets)
    console.print(
        f"history read: {report['history_mode']}; scope written: {load['rows']} rows in "
        f"{load['seconds']:.1f} s ({load['rows'] / load['seconds']:.0f} rows/s)"
    )


def cli(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=0.05)
    parser.add_argument("--runs", type=int, default=30, help="timed rounds")
    parser.add_argument("--warmup", type=int, default=5, help="untimed rounds first")
    parser.add_argument("--keep", action="store_true", help="leave the bench scope in place")
    args = parser.parse_args(argv)
    report = asyncio.run(main(args.scale, args.runs, args.warmup, args.keep))
    report["ratios"] = ratios(report)
    show(report)
    out = PROJECT_ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    path = Path(out / f"peer_compare-{datetime.now(UTC):%Y%m%dT%H%M%S}-s{args.scale}.json")
    path.write_text(json.dumps(report, indent=2, ensure_ascii=False), encoding="utf-8")
    console.print(f"written {path.relative_to(PROJECT_ROOT)}")


if __name__ == "__main__":
    cli()
