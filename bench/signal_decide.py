"""Benchmark: the agenda deciding signals, against real Neo4j.

10k commitment signals (BENCH_SIGNALS) in a dedicated scope, recorded the way a review's
publish records them (`SignalStore.record_in` in one transaction per batch of BENCH_BATCH
signals, the scope's policy read in it), half of them said by a speaker bound to a concern
person: with the default policy (loop on) each is decided — `raised`, or `ignored: no
reachable person` — and, as the baseline in the same run, the same number recorded in a
scope whose loop is off (nothing decided). Prints the time per signal of both, the
statements per batch (counted on the transaction) and the db hits per signal of the
statements deciding adds (PROFILE of the context read of one batch). Deciding calls no model.
The scopes are deleted afterwards. Run: `.venv/bin/python -m bench.signal_decide` with
NEO4J_URI / NEO4J_PASSWORD set (ops/bench.sh does).
"""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from neo4j import AsyncDriver, AsyncManagedTransaction

from engine.clock import utc
from engine.settings import Settings
from engine.signal.binding import SpeakerIn
from engine.signal.derive import from_fact
from engine.signal.model import Passage, SignalDraft
from engine.signal.policy import AgendaPolicy
from engine.signal.reach import candidate_bindings
from engine.signal.stored import signal_id
from engine.story.inputs import SourceInput
from engine.story.models import Actor, SourceKind
from graph.driver import open_driver
from graph.migrate import migrate
from graph.queries import queries
from graph.signal.bindings import OPEN_STATUSES, RESPONSIBLE_TYPES, PersonBindings
from graph.signal.policies import AgendaPolicies
from graph.signal.store import SignalStore
from graph.story.repository import StoryRepository

TZ = "Asia/Shanghai"
SAID = datetime(2035, 6, 4, 10, 0, tzinfo=ZoneInfo(TZ))  # a Monday
SPEAKERS = 100


class CountingTx:
    """Counts the statements a transaction function runs."""

    def __init__(self, tx: AsyncManagedTransaction, counter: list[str]) -> None:
        self._tx, self._counter = tx, counter

    async def run(self, query: Any, *args: Any, **kwargs: Any) -> Any:
        self._counter.append(str(getattr(query, "text", query))[:40])
        return await self._tx.run(query, *args, **kwargs)


def drafts(n: int, offset: int = 0) -> list[SignalDraft]:
    out = []
    for i in range(offset, offset + n):
        d = from_fact(
            "commitment",
            f"成员{i % SPEAKERS}号：模块{i}周四能提测",
            Passage(source_id="chat", source_version="v1", locator=f"chars:{i}-{i + 1}"),
            SAID,
            TZ,
        )
        assert d is not None
        out.append(d)
    return out


async def seed(driver: AsyncDriver, db: str, scope: str) -> None:
    await StoryRepository(driver, db).upsert_source(
        SourceInput(
            scope=scope, id="chat", kind=SourceKind.CONVERSATION, version="v1", text="bench"
        ),
        now=SAID,
    )
    bound = [
        SpeakerIn(name=f"成员{k}号", person_id=f"p_{k}", channel="feishu")
        for k in range(0, SPEAKERS, 2)
    ]
    bindings = PersonBindings(driver, db)

    async def work(tx: AsyncManagedTransaction) -> object:
        return await bindings.bind_speakers_in(
            tx, bound, scope=scope, source_id="chat", by=Actor.user("bench"), now=SAID
        )

    await bindings.write(work)


@dataclass
class Tally:
    seconds: float = 0.0
    statements: list[int] = field(default_factory=list)
    labels: Counter[str] = field(default_factory=Counter)


async def record_batch(
    driver: AsyncDriver, db: str, scope: str, chunk: list[SignalDraft], key: str, tally: Tally
) -> None:
    """One publish transaction's worth of signals, recorded (and decided) as a review does."""
    store = SignalStore(driver, db)
    policies = AgendaPolicies(driver, db)
    counter: list[str] = []

    async def work(tx: AsyncManagedTransaction) -> list[Any]:
        counter.clear()
        counted: Any = CountingTx(tx, counter)
        policy = await policies.current_in(counted, scope)
        return await store.record_in(
            counted, chunk, scope=scope, run_id="run-bench", result_id=key, now=SAID, policy=policy
        )

    started = time.perf_counter()
    recorded = await store.write(work)
    tally.seconds += time.perf_counter() - started
    tally.statements.append(len(counter))
    for s in recorded:
        tally.labels[f"{s.decision_kind}: {s.decision_reason}" if s.decision_kind else "none"] += 1


def db_hits(plan: Any) -> int:
    return int(plan.get("dbHits", 0)) + sum(db_hits(c) for c in plan.get("children", []))


async def context_hits(driver: AsyncDriver, db: str, scope: str, batch: int) -> int:
    """db hits of the context read for one batch of new signals (PROFILE)."""
    fresh = drafts(batch, offset=10_000_000)
    rows = [
        {
            "key": signal_id(scope, d.fingerprint),
            "binding_ids": candidate_bindings(scope, d),
            "target_kind": d.target_kind,
            "target_id": d.target_id,
            "subject": d.subject,
        }
        for d in fresh
    ]
    _, summary, _ = await driver.execute_query(
        "PROFILE " + queries().text("signal/decide_context"),
        {
            "scope": scope,
            "now": utc(SAID),
            "rows": rows,
            "responsible_types": list(RESPONSIBLE_TYPES),
            "open_statuses": list(OPEN_STATUSES),
        },
        database_=db,
    )
    assert summary.profile is not None
    return db_hits(summary.profile)


async def policy_hits(driver: AsyncDriver, db: str, scope: str) -> int:
    _, summary, _ = await driver.execute_query(
        "PROFILE " + queries().text("signal/agenda_policy_current"), {"scope": scope}, database_=db
    )
    assert summary.profile is not None
    return db_hits(summary.profile)


async def drop(driver: AsyncDriver, db: str, scope: str) -> None:
    async with driver.session(database=db) as session:
        result = await session.run(
            "MATCH (n {scope: $scope}) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS",
            scope=scope,
        )
        await result.consume()


async def main() -> None:
    settings = Settings()
    n = int(os.environ.get("BENCH_SIGNALS", "10000"))
    batch = int(os.environ.get("BENCH_BATCH", "100"))
    driver = open_driver(settings)
    db = settings.neo4j_database
    await migrate(driver, db)
    on, off = f"bench-decide-{uuid.uuid4().hex[:8]}", f"bench-nodecide-{uuid.uuid4().hex[:8]}"
    try:
        for scope in (on, off):
            await seed(driver, db, scope)
        owner = AgendaPolicy(owner_person_id="p_owner", owner_name="老板", owner_channel="feishu")
        await AgendaPolicies(driver, db).save(on, owner, seen_version=1, by="bench", now=SAID)
        quiet = AgendaPolicy(loop_enabled=False)
        await AgendaPolicies(driver, db).save(off, quiet, seen_version=1, by="bench", now=SAID)
        all_drafts = drafts(n)
        base, decided = Tally(), Tally()
        for i in range(0, n, batch):  # interleaved, so both see the same machine
            chunk = all_drafts[i : i + batch]
            await record_batch(driver, db, off, chunk, f"res-{i}", base)
            await record_batch(driver, db, on, chunk, f"res-{i}", decided)
        base_s, base_stmts = base.seconds, base.statements
        dec_s, dec_stmts, labels = decided.seconds, decided.statements, decided.labels
        ctx_hits = await context_hits(driver, db, on, batch)
        pol_hits = await policy_hits(driver, db, on)
    finally:
        for scope in (on, off):
            await drop(driver, db, scope)
        await driver.close()
    print(f"signal_decide: {n} commitment signals, {batch} per publish transaction")
    for label, count in sorted(labels.items()):
        print(f"  decided {label}: {count}")
    print(
        f"  loop on (decided):   {dec_s:.2f} s, {dec_s / n * 1e6:.0f} µs/signal, "
        f"statements per batch {max(dec_stmts)} (policy, known ids, context, write)"
    )
    print(
        f"  loop off (baseline): {base_s:.2f} s, {base_s / n * 1e6:.0f} µs/signal, "
        f"statements per batch {max(base_stmts)} (policy, known ids, write)"
    )
    print(
        f"  deciding: {max(dec_stmts) - 1} statements per batch (policy, context, the write "
        f"that records the decision), {max(dec_stmts) - max(base_stmts)} more than recording "
        f"alone; 0 model calls; ratio {dec_s / base_s:.2f}x"
    )
    print(
        f"  db hits per signal: context read {ctx_hits / batch:.1f}, policy read "
        f"{pol_hits / batch:.2f} (one per batch of {batch})"
    )


if __name__ == "__main__":
    asyncio.run(main())
