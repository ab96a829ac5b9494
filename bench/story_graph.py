"""Benchmark of the story graph (issue 3 "Benchmark"): time-sliced reads at scale, publish rate.

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
import ctypes
import functools
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from neo4j import AsyncDriver, Query
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from engine.clock import FOREVER, utcnow
from engine.settings import PROJECT_ROOT, Settings
from engine.story.inputs import PublishResultInput, SourceInput
from engine.story.models import (
    Actor,
    Change,
    ChangeKind,
    Confirmation,
    Entity,
    EntityStatus,
    Event,
    ObjectKind,
    Reference,
    Relation,
    SourceKind,
    Story,
    Summary,
    Version,
    make_id,
)
from engine.story.publish import PublishContext, PublishPlan, decide_publish
from graph.driver import open_driver
from graph.migrate import migrate
from graph.queries import queries
from graph.story.codec import to_props, version_row, write_row
from graph.story.repository import StoryRepository
from graph.story.window import window_params

console = Console()
YEAR0 = datetime(2025, 1, 1, tzinfo=UTC)
YEAR = timedelta(days=365)
RUN = Actor.run("bench")
BATCH = 5000
WINDOW_EVENTS = 115  # events in the read window: ~500 objects with their neighbourhood
VERSIONED_QUERY = {
    ObjectKind.STORY: "story/write_story_versions",
    ObjectKind.ENTITY: "story/write_entity_versions",
    ObjectKind.EVENT: "story/write_event_versions",
    ObjectKind.RELATION: "story/write_relation_versions",
}


# --- the generator --------------------------------------------------------------------


@dataclass
class ScopeData:
    """One scope's rows, each with its record time, so a phase writes a prefix of history."""

    scope: str
    versions: dict[ObjectKind, list[Version]] = field(default_factory=dict)
    changes: list[Change] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)
    summaries: list[Summary] = field(default_factory=list)


def _chain(first: datetime, n: int, rnd: random.Random) -> list[datetime]:
    """`n` increasing record times from `first` to the end of the year (~5 versions each)."""
    end = YEAR0 + YEAR
    later = sorted(first + (end - first) * rnd.random() for _ in range(n - 1))
    return [first, *later]


def generate(scope: str, scale: float, seed: int) -> ScopeData:
    rnd = random.Random(seed)
    n_events, n_entities = int(100_000 * scale), int(20_000 * scale)
    data = ScopeData(scope)
    result_id = make_id("res", scope, "bench")
    stories = [
        Story(
            id=make_id("sty", scope, str(i)),
            scope=scope,
            seq=1,
            name=f"故事 {i}",
            recorded_at=YEAR0 - timedelta(days=1),
            by=RUN,
        )
        for i in range(10)
    ]
    entities: list[Version] = []
    home: list[datetime] = []
    for i in range(n_entities):
        home.append(YEAR0 + YEAR * (i / n_entities))
        eid = make_id("ent", scope, str(i))
        for seq, rec in enumerate(_chain(home[i] - timedelta(days=2), 5, rnd), start=1):
            entities.append(
                Entity(
                    id=eid,
                    scope=scope,
                    seq=seq,
                    recorded_at=rec,
                    by=RUN,
                    via_result=result_id,
                    name=f"实体 {i}",
                    kind=("person", "module", "task")[i % 3],
                    description=f"第 {seq} 版：实体 {i} 的说明",
                    status=EntityStatus.MAIN,
                )
            )
    relations: list[Version] = []
    for i in range(n_entities):
        for k in range(3):
            j = min(n_entities - 1, i + 1 + rnd.randrange(8))
            if j == i:
                continue
            rid = make_id("rel", scope, str(i), str(k))
            first = max(home[i], home[j]) - timedelta(days=1)
            for seq, rec in enumerate(_chain(first, 5, rnd), start=1):
                relations.append(
                    Relation(
                        id=rid,
                        scope=scope,
                        seq=seq,
                        recorded_at=rec,
                        by=RUN,
                        via_result=result_id,
                        from_id=make_id("ent", scope, str(i)),
                        to_id=make_id("ent", scope, str(j)),
                        type=("depends_on", "owns", "blocked_by")[k],
                        reason=f"第 {seq} 版理由",
                        confirmation=(
                            Confirmation.CONFIRMED if seq > 3 else Confirmation.SUGGESTED
                        ),
                    )
                )
    events: list[Version] = []
    for j in range(n_events):
        at = YEAR0 + YEAR * (j / n_events) + timedelta(minutes=rnd.randrange(60))
        ev_id = make_id("evt", scope, str(j))
        chain = _chain(at + timedelta(hours=1), 5, rnd)
        for seq, rec in enumerate(chain, start=1):
            events.append(
                Event(
                    id=ev_id,
                    scope=scope,
                    seq=seq,
                    recorded_at=rec,
                    by=RUN,
                    via_result=result_id,
                    story_id=stories[j % 10].id,
                    title=f"事件 {j}",
                    description=f"第 {seq} 版",
                    at=at,
                    result_id=result_id,
                )
            )
        centre = int(j / n_events * n_entities)
        touched = {
            min(n_entities - 1, max(0, centre + rnd.randint(-3, 3)))
            for _ in range(rnd.choice((1, 2)))
        }
        for idx in sorted(touched):
            data.changes.append(
                Change(
                    id=make_id("chg", scope, str(j), str(idx)),
                    scope=scope,
                    result_id=result_id,
                    event_id=ev_id,
                    entity_id=make_id("ent", scope, str(idx)),
                    kind=ChangeKind.PROPOSED,
                    recorded_at=chain[0],
                )
            )
        data.references.append(
            Reference(
                id=make_id("ref", scope, str(j)),
                scope=scope,
                result_id=result_id,
                owner_kind=ObjectKind.EVENT,
                owner_id=ev_id,
                source_id="bench-chat",
                source_version="v1",
                locator=f"msg:{j}",
                recorded_at=chain[0],
            )
        )
    for week in range(52):
        start = YEAR0 + timedelta(weeks=week)
        data.summaries.append(
            Summary(
                id=make_id("sum", scope, str(week)),
                scope=scope,
                result_id=result_id,
                story_id=stories[week % 10].id,
                text=f"第 {week} 周阶段总结",
                interval_start=start,
                interval_end=start + timedelta(days=7),
                recorded_at=start + timedelta(days=7, hours=1),
            )
        )
    data.versions = {
        ObjectKind.STORY: list[Version](stories),
        ObjectKind.ENTITY: list[Version](entities),
        ObjectKind.EVENT: list[Version](events),
        ObjectKind.RELATION: list[Version](relations),
    }
    return data


def tenth_of_history(scopes: list[ScopeData]) -> datetime:
    """The record time before which a tenth of all rows were recorded (end of phase A)."""
    times = sorted(
        t
        for sd in scopes
        for t in (
            *(v.recorded_at for vs in sd.versions.values() for v in vs),
            *(x.recorded_at for x in sd.changes),
            *(x.recorded_at for x in sd.references),
            *(x.recorded_at for x in sd.summaries),
        )
    )
    return times[len(times) // 10]


def _batches(rows: Sequence[Any], size: int = BATCH) -> Iterable[Sequence[Any]]:
    for i in range(0, len(rows), size):
        yield rows[i : i + size]


WRITERS = 2  # concurrent write transactions (Neo4j runs each on one core; this machine has 2)

Batch = tuple[str, Sequence[dict[str, Any]], dict[str, Any]]


def write_steps(sd: ScopeData, lo: datetime, hi: datetime) -> list[list[Batch]]:
    """One scope's rows recorded in [lo, hi), as steps to run in order; the batches of a step
    are independent. A version retracts its predecessor, so seq k is a step after seq k-1;
    changes need their events and entities; references may cite a change, so they come last."""

    def within(t: datetime) -> bool:
        return lo <= t < hi

    steps: list[list[Batch]] = []
    for kind, query in VERSIONED_QUERY.items():
        rows = [v for v in sd.versions[kind] if within(v.recorded_at)]
        for seq in sorted({v.seq for v in rows}):
            wave = [version_row(v) for v in rows if v.seq == seq]
            steps.append([(query, b, {"forever": FOREVER}) for b in _batches(wave)])
    facts: list[Batch] = []
    for query, items in (
        ("story/write_changes", sd.changes),
        ("story/write_summaries", sd.summaries),
    ):
        rows2 = [write_row(x) for x in items if within(x.recorded_at)]
        facts += [(query, b, {}) for b in _batches(rows2)]
    refs = [write_row(x) for x in sd.references if within(x.recorded_at)]
    steps += [facts, [("story/write_references", b, {}) for b in _batches(refs)]]
    return [step for step in steps if step]


async def write_phase(
    driver: AsyncDriver,
    database: str,
    scopes: list[ScopeData],
    lo: datetime,
    hi: datetime,
    progress: Progress,
    label: str,
    writers: int = WRITERS,
) -> int:
    """Write every row recorded in [lo, hi) through the repository's UNWIND write queries:
    each scope's steps in order (`write_steps`), the scopes side by side and the batches of a
    step at once, at most `writers` transactions at a time."""
    q = queries()
    plans = [write_steps(sd, lo, hi) for sd in scopes]
    total = sum(len(rows) for plan in plans for step in plan for _, rows, _ in step)
    task = progress.add_task(label, total=total)
    slots = asyncio.Semaphore(writers)

    async def run(batch: Batch) -> None:
        query, rows, extra = batch
        async with slots:
            await driver.execute_query(q[query], rows=rows, **extra, database_=database)
        progress.advance(task, len(rows))

    async def scope_steps(plan: list[list[Batch]]) -> None:
        for step in plan:
            await asyncio.gather(*(run(b) for b in step))

    await asyncio.gather(*(scope_steps(plan) for plan in plans))
    return total


async def add_source(repo: StoryRepository, scope: str) -> None:
    await repo.upsert_source(
        SourceInput(
            scope=scope,
            id="bench-chat",
            kind=SourceKind.CONVERSATION,
            version="v1",
            text="bench conversation",
        ),
        now=YEAR0 - timedelta(days=2),
    )


# --- measurements -----------------------------------------------------------------------


def pct(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


GRAPHQL = """
query($scope: String!, $asOf: DateTime!, $from: DateTime!, $to: DateTime!) {
  storyGraph(scope: $scope, asOf: $asOf, from: $from, to: $to) {
    stories { id name seq }
    events { id title at storyId seq recordedAt by { kind id } }
    entities { id name kind description status seq recordedAt }
    relations { id fromId toId type reason confirmation removed seq }
    changes { id eventId entityId kind }
    summaries { id text intervalStart intervalEnd }
    references { id ownerKind ownerId sourceId sourceVersion locator }
    suggestions { id targetId status }
  }
}"""


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


# --- the API process and clean-up -------------------------------------------------------


PR_SET_PDEATHSIG = 1  # prctl(2)


def _die_with_parent() -> None:
    """Run in the child before exec: Linux sends it SIGTERM when the bench process dies, so
    a bench stopped by a signal (whose `finally` never runs) leaves no server behind."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def start_api(port: int) -> tuple[subprocess.Popen[bytes], str]:
    """The real app, `storygraph serve`, as its own process on a loopback port."""
    env = dict(os.environ, API_PORT=str(port), API_HOST="127.0.0.1", LOG_LEVEL="WARNING")
    proc = subprocess.Popen(
        [sys.executable, "-m", "api.cli", "serve"],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=_die_with_parent if sys.platform == "linux" else None,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            err = proc.stderr.read().decode() if proc.stderr else ""
            raise RuntimeError(f"storygraph serve exited: {err[-2000:]}")
        try:
            httpx.get(f"{url}/healthz", timeout=1)
            return proc, url
        except httpx.HTTPError:
            time.sleep(0.3)
    proc.kill()
    raise RuntimeError("storygraph serve did not answer")


SCOPED_LABELS = (
    "EventVersion",
    "EntityVersion",
    "RelationVersion",
    "StoryVersion",
    "SuggestionVersion",
    "Change",
    "Summary",
    "Reference",
    "Result",
)


async def cleanup(driver: AsyncDriver, database: str, scopes: list[str]) -> None:
    async with driver.session(database=database) as session:
        for scope in scopes:
            for label in SCOPED_LABELS:
                # the outer transaction of IN TRANSACTIONS lasts the whole deletion: at full
                # size longer than the 30 s default transaction timeout
                result = await session.run(
                    Query(
                        "MATCH (v:" + label + ") WHERE v.scope = $scope "
                        "AND v.recorded_at IS NOT NULL "
                        "CALL (v) { OPTIONAL MATCH (n)-[:VERSION]->(v) DETACH DELETE v, n } "
                        "IN TRANSACTIONS OF 5000 ROWS",
                        timeout=3600,
                    ),
                    scope=scope,
                )
                await result.consume()
            for stmt in (
                "MATCH (v:SourceVersion) WHERE v.scope = $scope AND v.source_id IS NOT NULL "
                "DETACH DELETE v",
                "MATCH (s:Source) WHERE s.scope = $scope DETACH DELETE s",
            ):
                await (await session.run(stmt, scope=scope)).consume()
        raw = await session.run(
            "MATCH (v:BenchRawVersion) CALL (v) { OPTIONAL MATCH (n)-[:VERSION]->(v) "
            "DETACH DELETE v, n } IN TRANSACTIONS OF 5000 ROWS"
        )
        await raw.consume()
        raw2 = await session.run(
            "MATCH (c:BenchRawFact) CALL (c) { DETACH DELETE c } IN TRANSACTIONS OF 5000 ROWS"
        )
        await raw2.consume()


# --- main -------------------------------------------------------------------------------


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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
