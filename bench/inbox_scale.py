"""`inbox` at 1x and 10x history (a page costs what waits, not the history).

    .venv/bin/python -m bench.inbox_scale [--resolved 2000] [--pending 100] [--runs 30]

Writes two scopes: the same `--pending` pending suggestions (FIELD and DIFFERENCE) and
`--pending / 10` failed and paused supervision runs, beside a history of `--resolved`
(1x) or 10x as many suggestions that were proposed and then dismissed (two versions each)
and as many completed supervision runs. Times the first page (50) and the page after it of
the inbox in process (the use case's repository, no HTTP), rounds alternated between the
scopes, and prints p50 at 1x and 10x, the ratio (target <= 1.3) and the PROFILE db hits of
the page statement at both sizes (target ratio <= 1.3), and the badges' counts beside.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import uuid
from datetime import timedelta
from typing import Any

from neo4j import AsyncDriver

from bench.diff_scale import timed
from bench.page_scale import START, _write, drop
from bench.story_profile import db_hits
from engine.clock import FOREVER, epoch_us
from engine.settings import Settings
from engine.story.inbox import inbox_kinds, split_kinds
from engine.story.models import Actor, ObjectKind, Suggestion, SuggestionKind, SuggestionStatus
from graph.driver import open_driver
from graph.migrate import migrate
from graph.queries import queries
from graph.story.inbox import StoryInbox
from local.redis_server import with_redis_password

RUNS = """UNWIND $rows AS row
CREATE (r:SupervisionRun)
SET r = row, r.created_at = datetime(row.created_at), r.updated_at = datetime(row.updated_at)"""


def suggestion(scope: str, i: int, seq: int, status: SuggestionStatus, pending: bool) -> Suggestion:
    at = START + timedelta(days=60 if pending else 0, seconds=i)
    return Suggestion(
        id=f"{scope}:sugg:{'p' if pending else 'h'}{i:06d}",
        scope=scope,
        seq=seq,
        recorded_at=at + timedelta(hours=seq - 1),
        by=Actor.run("bench"),
        result_id="r",
        kind=SuggestionKind.DIFFERENCE if i % 4 == 0 else SuggestionKind.FIELD,
        target_kind=ObjectKind.ENTITY,
        target_id=f"{scope}:entity:{i % 50:06d}",
        field="description",
        current_value="old",
        proposed_value=f"new {i}",
        status=status,
    )


def run_row(scope: str, i: int, status: str, at_days: int) -> dict[str, Any]:
    at = START + timedelta(days=at_days, seconds=i)
    error = {"stage": "leaves", "kind": "model", "message": "bench failure"}
    return {
        "id": f"{scope}:run:{status}:{i:06d}",
        "deployment": "bench",
        "scope": scope,
        "scope_key": f"p:{scope}",
        "status": status,
        "stopped": True,
        "trigger": "manual",
        "mode": "incremental",
        "created_at": at.isoformat(),
        "updated_at": (at + timedelta(minutes=5)).isoformat(),
        "error": json.dumps(error) if status == "failed" else None,
        "doc": json.dumps({"pause_reason": "token budget" if status == "paused" else None}),
    }


async def seed(driver: AsyncDriver, db: str, scope: str, resolved: int, pending: int) -> None:
    history = [suggestion(scope, i, 1, SuggestionStatus.PENDING, False) for i in range(resolved)]
    await _write(driver, db, "suggestion", list(history))
    dismissed = [
        suggestion(scope, i, 2, SuggestionStatus.DISMISSED, False) for i in range(resolved)
    ]
    await _write(driver, db, "suggestion", list(dismissed))
    waiting = [suggestion(scope, i, 1, SuggestionStatus.PENDING, True) for i in range(pending)]
    await _write(driver, db, "suggestion", list(waiting))
    runs = [run_row(scope, i, "completed", 1) for i in range(resolved)]
    runs += [run_row(scope, i, ("failed", "paused")[i % 2], 61) for i in range(pending // 10)]
    for at in range(0, len(runs), 2000):
        await driver.execute_query(RUNS, rows=runs[at : at + 2000], database_=db)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--resolved", type=int, default=2000)
    parser.add_argument("--pending", type=int, default=100)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    settings = with_redis_password(Settings.from_env())
    driver = open_driver(settings)
    db = settings.neo4j_database
    await migrate(driver, db)
    await driver.execute_query("CALL db.awaitIndexes(300)", database_=db)
    store = StoryInbox(driver, db)
    kinds = inbox_kinds(None)
    run_id = uuid.uuid4().hex[:8]
    scopes = {1: f"bench-inbox-{run_id}-x1", 10: f"bench-inbox-{run_id}-x10"}
    try:
        for factor, scope in scopes.items():
            await seed(driver, db, scope, args.resolved * factor, args.pending)
        first = await store.page(scopes[1], kinds, None, 50)
        last = first.items[-1]
        second = (epoch_us(last.at), last.id)
        print(
            f"history: {args.resolved} and {args.resolved * 10} dismissed suggestions and "
            f"completed runs; the same {args.pending} pending suggestions and "
            f"{args.pending // 10} failed/paused runs waiting"
        )
        print(f"{'inbox page':28} {'p50 1x':>9} {'p50 10x':>9} {'ratio':>6} "
              f"{'hits 1x':>8} {'hits 10x':>9} {'ratio':>6}")  # fmt: skip
        text = queries().text("inbox/pending_page")
        suggestion_kinds, statuses = split_kinds(kinds)
        for label, after in (("first 50", None), ("50 after 50", second)):
            times: dict[int, list[float]] = {1: [], 10: []}
            for _ in range(args.runs):
                for factor, scope in scopes.items():

                    async def call(
                        scope: str = scope, after: tuple[int, str] | None = after
                    ) -> None:
                        page = await store.page(scope, kinds, after, 50)
                        assert len(page.items) == 50

                    times[factor].append(await timed(call))
            hits = {}
            for factor, scope in scopes.items():
                params = {
                    "scope": scope,
                    "kinds": suggestion_kinds,
                    "statuses": statuses,
                    "forever": FOREVER,
                    "after_at": FOREVER if after is None else last.at,
                    "after_id": "" if after is None else last.id,
                    "limit": 51,
                }
                _, summary, _ = await driver.execute_query("PROFILE " + text, params, database_=db)
                hits[factor] = db_hits(summary.profile)
            p1, p10 = statistics.median(times[1]), statistics.median(times[10])
            print(
                f"{label:28} {p1:8.1f}ms {p10:8.1f}ms {p10 / p1:6.2f} "
                f"{hits[1]:8d} {hits[10]:9d} {hits[10] / max(hits[1], 1):6.2f}"
            )
        counted: dict[int, list[float]] = {1: [], 10: []}
        for _ in range(args.runs):
            for factor, scope in scopes.items():

                async def badges(scope: str = scope) -> None:
                    await store.counts(scope)

                counted[factor].append(await timed(badges))
        c1, c10 = statistics.median(counted[1]), statistics.median(counted[10])
        print(f"{'inboxCounts (badges)':28} {c1:8.1f}ms {c10:8.1f}ms {c10 / c1:6.2f}")
    finally:
        for scope in scopes.values():
            await drop(driver, db, scope)
        await driver.close()


if __name__ == "__main__":
    asyncio.run(main())
