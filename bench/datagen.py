"""The bench data generator: scopes of story objects at a chosen scale, written through the
repository's own UNWIND queries, and the helpers the benches share to time reads over HTTP
(an API process, free ports, percentiles) and to clean up what they wrote.

One measured scope is 100k events, 20k entities and 60k relations at `scale` 1.0 (the scale
multiplies these), with ~5 versions each over a year, in scopes named `bench-<run>-<n>`.
"""

from __future__ import annotations

import asyncio
import ctypes
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from neo4j import AsyncDriver, Query
from rich.console import Console
from rich.progress import Progress

from engine.clock import FOREVER
from engine.settings import PROJECT_ROOT
from engine.story.inputs import SourceInput
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
from graph.queries import queries
from graph.story.codec import version_row, write_row
from graph.story.repository import StoryRepository

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


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
