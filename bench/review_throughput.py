"""Review throughput against the dev Neo4j (Benchmark; docs/rules/reviews.md).

    .venv/bin/python -m bench.review_throughput [--messages 2000] [--per-batch 4000] [--scopes 5]
        [--rounds 6] [--signals-only]

Prints:
- review throughput (segments/s): a whole supervision run (collect → leaves → navigation →
  publish) over one conversation, executed in-process by the same `Execution` the worker
  runs, against an instant scripted OpenAI-compatible model on loopback;
- the cost of one leaf batch commit (ms): the locked read + engine decision + write of one
  batch with its output, one transaction each;
- the no_change path end to end per scope (ms): an automatic run that finds nothing pending
  (lease, run stored running, collect, completed no_change, lease released), no model call;
- the review with signals (target at most 1.2x): the same run whose leaf
  facts carry kinds (commitments due 周四/明天, a blocker: signals recorded, decided by the
  scope's agenda policy and their effect jobs enqueued in the publish) against the same
  run whose facts carry none, alternated over --rounds rounds; prints segments/s of each,
  the ratio and the SignalVersion nodes the run recorded, by decision.

Uses NEO4J_URI / NEO4J_PASSWORD from the environment; everything it writes carries a
`bench-*` scope and a bench deployment key and is removed afterwards. Redis is not needed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta

import httpx
from neo4j import AsyncManagedTransaction

from engine.review import lifecycle as lc
from engine.review.manifest import LeafBatch, ManifestPage
from engine.review.navigation import DEFAULT_FANOUT, plan_tree
from engine.review.types import Scope, Segment, Trigger
from engine.settings import Settings
from engine.signal.binding import SpeakerIn
from engine.signal.policy import AgendaPolicy
from engine.story.inputs import SourceInput
from engine.story.models import Actor, SourceKind
from graph.driver import open_driver
from graph.migrate import migrate
from graph.review.codec import RunOptions, StoredRun
from graph.review.runs import RunChange
from graph.signal.bindings import PersonBindings
from graph.signal.policies import AgendaPolicies
from graph.story.repository import StoryRepository
from jobs.deps import Deps
from jobs.llm.gateway import build_gateway
from jobs.queue import open_pool
from jobs.review.common import runs_of
from jobs.review.execution import Execution
from jobs.review.model import Gateway
from jobs.review.runs import Opened, open_run
from jobs.signal.effects import effect_job_id
from local.redis_server import with_redis_password
from tests.support.scripted_model import ScriptedModelServer, text

LEAF = json.dumps({"facts": [{"text": "提测推进"}], "summary": "批次"}, ensure_ascii=False)
# the paired measurement's leaf facts (text, kind; {i}: the batch, so no two are about the
# same thing): half commitments with a due phrase, a blocker; without kinds none is a signal
SIGNAL_FACTS = (
    ("李四：第{i}批前端部分周四能提测", "commitment"),
    ("王五：第{i}批接口文档明天给到测试", "commitment"),
    ("张三：第{i}批支付联调卡在证书申请", "blocker"),
    ("提测推进", None),
)
# the speakers of those facts bound to concern persons, and a policy with the defaults and
# an owner: each commitment raises a follow-up concern, each blocker a report to the owner
BOUND = [
    SpeakerIn(name=name, person_id=f"p_{k}", channel="feishu")
    for k, name in enumerate(("李四", "王五", "张三"))
]
OWNED = AgendaPolicy(owner_person_id="p_owner", owner_name="老板", owner_channel="feishu")
NAV = json.dumps({"summary": "阶段总结"}, ensure_ascii=False)


def conversation(n: int, start: datetime) -> str:
    return "".join(
        f"[{(start + timedelta(seconds=30 * i)).isoformat()}] 成员{i % 5}: 第{i}条 v2.0 提测进展，"
        f"问题 #{i} 已处理\n"
        for i in range(n)
    )


async def push(
    deps: Deps, scope: str, body: str, at: datetime, speakers: Sequence[SpeakerIn] = ()
) -> None:
    """The conversation, its `speakers` bound to concern persons (as upsertSource does)."""

    async def bind(tx: AsyncManagedTransaction) -> object:
        return await PersonBindings(deps.driver, deps.database).bind_speakers_in(
            tx, list(speakers), scope=scope, source_id="chat", by=Actor.user("bench"), now=at
        )

    await StoryRepository(deps.driver, deps.settings.neo4j_database).upsert_source(
        SourceInput(scope=scope, id="chat", kind=SourceKind.CONVERSATION, version="v1", text=body),
        now=at,
        also=bind if speakers else None,
    )


class TimedExecution(Execution):
    """The worker's execution, timing its publish stage (the transaction that records and
    decides the signals, then the effect jobs' enqueue)."""

    publish_times: list[float]

    async def publish(self, stored: StoredRun) -> None:
        t0 = time.perf_counter()
        await super().publish(stored)
        self.publish_times.append(time.perf_counter() - t0)


async def run_once(
    deps: Deps,
    gateway: Gateway,
    scope: str,
    per_batch: int,
    model: ScriptedModelServer | None = None,
    leaf: Callable[[LeafBatch], str] = lambda _: LEAF,
    publish_times: list[float] | None = None,
) -> lc.SupervisionRun:
    """One automatic run, executed in-process; once collect has planned the leaf batches,
    the scripted model gets one leaf answer per batch and one per navigation node."""
    got = await open_run(
        deps,
        Scope.projects(scope),
        trigger=Trigger.AUTOMATIC,
        enqueue=False,
        options=RunOptions(window=timedelta(days=7)),
        per_batch=per_batch,
    )
    assert isinstance(got, Opened)
    run, owner, token = got.run, got.owner, got.token
    execution = TimedExecution(deps, run.run_id, owner, token, gateway=gateway)
    execution.publish_times = publish_times if publish_times is not None else []
    while True:
        stored = await runs_of(deps).get(run.run_id)
        if stored.run.ledger.batches or stored.run.stopped:
            break
        await execution.step(stored)
    if model is not None:
        # one leaf answer per batch, one navigation answer per node of the navigation tree
        nodes = plan_tree([b.index for b in stored.run.ledger.batches], DEFAULT_FANOUT)
        model.script(
            *[text(leaf(b)) for b in stored.run.ledger.batches], *[text(NAV) for _ in nodes]
        )
    await execution.run()
    return (await runs_of(deps).get(run.run_id)).run


async def throughput(
    deps: Deps,
    gateway: Gateway,
    model: ScriptedModelServer,
    args: argparse.Namespace,
    scope: str,
    start: datetime,
) -> None:
    await push(deps, scope, conversation(args.messages, start), start)
    t0 = time.perf_counter()
    run = await run_once(deps, gateway, scope, args.per_batch, model)
    elapsed = time.perf_counter() - t0
    assert run.status is lc.RunStatus.COMPLETED, run.error
    segments = len(run.ledger.manifest.segments)
    print(
        f"review throughput: {segments} segments, {len(run.ledger.batches)} leaf batches, "
        f"{elapsed:.2f} s -> {segments / elapsed:.0f} segments/s "
        f"({model.calls} model requests)"
    )


def leaf_answer(kinds: bool) -> Callable[[LeafBatch], str]:
    """The leaf answer of the paired measurement: the same facts, each citing its own
    segment of the batch (one passage, one signal of a kind), with or without kinds."""

    def answer(batch: LeafBatch) -> str:
        facts = [
            {
                "text": t.format(i=batch.index),
                "refs": [batch.segments[i % len(batch.segments)].model_dump(mode="json")],
                **({"kind": k} if kinds and k else {}),
            }
            for i, (t, k) in enumerate(SIGNAL_FACTS)
        ]
        return json.dumps({"facts": facts, "summary": "批次"}, ensure_ascii=False)

    return answer


async def recorded_signals(deps: Deps, scope: str) -> tuple[Counter[str], list[str]]:
    """The SignalVersion nodes a run recorded in the scope, by decision, and the ids of
    those whose decision asks for an effect (an effect job was enqueued for each)."""
    records, _, _ = await deps.driver.execute_query(
        "MATCH (v:SignalVersion {scope: $s}) "
        "RETURN coalesce(v.decision_kind, 'undecided') AS d, "
        "collect(CASE WHEN v.decision_effect <> '' THEN v.id END) AS effects, count(v) AS n",
        s=scope,
        database_=deps.settings.neo4j_database,
    )
    return (
        Counter({str(r["d"]): int(r["n"]) for r in records}),
        [str(i) for r in records for i in r["effects"]],
    )


async def drop_scope(deps: Deps, scope: str) -> None:
    await deps.driver.execute_query(
        "MATCH (n {scope: $s}) DETACH DELETE n", s=scope, database_=deps.settings.neo4j_database
    )


async def signals_paired(
    deps: Deps,
    gateway: Gateway,
    model: ScriptedModelServer,
    args: argparse.Namespace,
    tag: str,
    start: datetime,
) -> None:
    """The same review with and without signals (at most 1.2x), the two
    variants alternated round by round (which goes first too) on a fresh scope each. The
    scope's agenda policy has the default rules with the loop on and an owner, the speakers
    are bound: every signal is decided in the publish transaction and asks for an effect
    (a raise or a report), whose job is enqueued after it commits."""
    body = conversation(args.messages, start)
    ratios: list[float] = []
    extras: list[float] = []  # what the publish stage took more with the signals (ms)
    for r in range(args.rounds):
        elapsed: dict[bool, float] = {}
        published: dict[bool, list[float]] = {False: [], True: []}
        for kinds in (False, True) if r % 2 == 0 else (True, False):
            scope = f"{tag}-sig{r}-{int(kinds)}"
            effects: list[str] = []
            try:
                await push(deps, scope, body, start, BOUND)
                await AgendaPolicies(deps.driver, deps.database).save(
                    scope, OWNED, seen_version=1, by="bench", now=start
                )
                model.reset()
                t0 = time.perf_counter()
                run = await run_once(
                    deps,
                    gateway,
                    scope,
                    args.per_batch,
                    model,
                    leaf_answer(kinds),
                    published[kinds],
                )
                elapsed[kinds] = time.perf_counter() - t0
                assert run.status is lc.RunStatus.COMPLETED, run.error
                segments = len(run.ledger.manifest.segments)
                signals, effects = await recorded_signals(deps, scope)
            finally:
                await drop_scope(deps, scope)
                if effects and deps.pool is not None:  # the effect jobs nobody performs here
                    await deps.pool.delete(*[f"arq:job:{effect_job_id(i)}" for i in effects])
            if kinds:
                assert sum(signals.values()) > 0, "the variant with kinds recorded no signal"
                decided = ", ".join(f"{d} {n}" for d, n in sorted(signals.items()))
                recorded = (
                    f"{sum(signals.values())} signals recorded ({decided}), "
                    f"{len(effects)} effect jobs enqueued"
                )
            else:
                assert not signals, "the variant without kinds recorded signals"
        ratio = elapsed[True] / elapsed[False]
        ratios.append(ratio)
        extra = (sum(published[True]) - sum(published[False])) * 1000
        extras.append(extra)
        print(
            f"review with signals, round {r + 1}: {segments} segments, "
            f"without {segments / elapsed[False]:.0f} segments/s ({elapsed[False]:.2f} s), "
            f"with {segments / elapsed[True]:.0f} segments/s ({elapsed[True]:.2f} s), "
            f"ratio {ratio:.2f}x; publish stage without {sum(published[False]) * 1000:.0f} ms, "
            f"with {sum(published[True]) * 1000:.0f} ms; {recorded}"
        )
    print(
        f"review with signals: median ratio {statistics.median(ratios):.2f}x over "
        f"{len(ratios)} rounds (target <= 1.2x), min {min(ratios):.2f}x, max {max(ratios):.2f}x; "
        f"the publish stage took a median {statistics.median(extras):.0f} ms more with them"
    )


async def batch_commit(deps: Deps, scope: str, batches: int) -> None:
    now = deps.clock()
    run = lc.create_run(
        run_id=f"bench_{uuid.uuid4().hex[:12]}",
        scope=Scope.projects(scope),
        trigger=Trigger.MANUAL,
        mode=lc.ReviewMode.INTERVAL,
        worker_id="bench",
        per_batch=100,
        stage_timeout=timedelta(minutes=3),
        now=now,
        interval=(now - timedelta(days=1), now),
    )
    segs = tuple(
        Segment(source_id="chat", version="v1", start=i * 100, end=(i + 1) * 100)
        for i in range(batches)
    )
    run = lc.add_manifest_page(run, ManifestPage(segments=segs), now=now)
    run = lc.finish_collect(run, now=now).state
    await runs_of(deps).create(run, RunOptions())
    costs = []
    for i in range(batches):
        t0 = time.perf_counter()

        def commit(s: StoredRun, index: int = i) -> RunChange:
            leaf = lc.commit_leaf(s.run, index, f"o{index}", now=deps.clock())
            return RunChange(leaf, leaf_outputs={index: LEAF})

        await runs_of(deps).mutate(run.run_id, commit)
        costs.append((time.perf_counter() - t0) * 1000)
    print(
        f"batch commit: {batches} commits, mean {statistics.mean(costs):.1f} ms, "
        f"p50 {statistics.median(costs):.1f} ms, max {max(costs):.1f} ms "
        f"(run with {batches} batch records)"
    )


async def no_change(
    deps: Deps, gateway: Gateway, model: ScriptedModelServer, scopes: list[str], start: datetime
) -> None:
    for scope in scopes:
        await push(deps, scope, conversation(20, start), start)
        first = await run_once(deps, gateway, scope, 100_000, model)
        assert first.status is lc.RunStatus.COMPLETED, first.error
    calls = model.calls
    times = []
    for scope in scopes:
        t0 = time.perf_counter()
        run = await run_once(deps, gateway, scope, 100_000)
        times.append((time.perf_counter() - t0) * 1000)
        assert run.outcome is lc.RunOutcome.NO_CHANGE
    assert model.calls == calls, "no_change called the model"
    print(
        f"no_change end to end: {len(scopes)} scopes, mean {statistics.mean(times):.1f} ms, "
        f"p50 {statistics.median(times):.1f} ms per scope, 0 model requests"
    )


async def main(args: argparse.Namespace) -> None:
    settings = with_redis_password(
        Settings.from_env(queue_name=f"storygraph:bench:{uuid.uuid4().hex[:8]}")
    )
    driver = open_driver(settings)
    redis = await open_pool(settings)  # the supervision FIFO pool lives in Redis
    tag = f"bench-{uuid.uuid4().hex[:8]}"
    scopes = [f"{tag}-{i}" for i in range(args.scopes + 2)]
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(days=2)
    try:
        await migrate(driver, settings.neo4j_database)
        with ScriptedModelServer() as model:
            cfg = settings.model_copy(update={"model_base_url": model.base_url})
            async with httpx.AsyncClient() as http:
                deps = Deps(settings=cfg, driver=driver, pool=redis, worker_id="bench")
                gateway = build_gateway(cfg, http=http)
                if not args.signals_only:
                    await throughput(deps, gateway, model, args, scopes[0], start)
                    model.reset()
                    await batch_commit(deps, scopes[1], args.commits)
                    model.reset()
                    await no_change(deps, gateway, model, scopes[2:], start)
                model.reset()
                await signals_paired(deps, gateway, model, args, tag, start)
    finally:
        for scope in scopes:
            await driver.execute_query(
                "MATCH (n {scope: $s}) DETACH DELETE n", s=scope, database_=settings.neo4j_database
            )
        await driver.execute_query(
            "MATCH (l:ReviewLease) WHERE l.key ENDS WITH $q DELETE l",
            q=settings.queue_name,
            database_=settings.neo4j_database,
        )
        await redis.delete(f"storygraph:pool:{settings.queue_name}", settings.queue_name)
        await redis.aclose()
        await driver.close()


def parse() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--messages", type=int, default=2000)
    p.add_argument("--per-batch", type=int, default=4000)
    p.add_argument("--commits", type=int, default=50)
    p.add_argument("--scopes", type=int, default=5)
    p.add_argument("--rounds", type=int, default=6, help="rounds of the review with signals")
    p.add_argument("--signals-only", action="store_true", help="only the review with signals")
    return p.parse_args()


if __name__ == "__main__":
    asyncio.run(main(parse()))
