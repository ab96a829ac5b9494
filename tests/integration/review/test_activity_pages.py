"""Activity (docs/rules/reviews.md) is paged in the database: every row can be reached however
many there are (the list used to stop at the newest 500 of each kind), a status filter fills
its pages, and another scope's rows are never read."""

from __future__ import annotations

from datetime import timedelta

from neo4j import AsyncDriver

from engine.principal import Principal
from engine.review import heartbeat as hb
from engine.review.types import Scope, Trigger
from graph.review.codec import RunOptions
from graph.review.heartbeats import heartbeat_row
from jobs.deps import Deps
from jobs.review import reads
from jobs.review.common import runs_of
from tests.support.review import T0, new_run

MANY = 620


def _heartbeat(run_id: str, scope: str, minutes: int, state: hb.HeartbeatState) -> hb.HeartbeatRun:
    at = T0 + timedelta(minutes=minutes)
    return hb.HeartbeatRun(
        run_id=run_id,
        config_id="cfg-1",
        scope=Scope.projects(scope),
        trigger=Trigger.AUTOMATIC,
        state=state,
        claimed_at=at,
        ended_at=at + timedelta(seconds=5),
    )


async def _all_pages(deps: Deps, who: Principal, first: int, **filters: object) -> list[str]:
    seen: list[str] = []
    after = None
    while True:
        page = await reads.activity(
            deps,
            who,
            statuses=filters.get("statuses"),  # type: ignore[arg-type]
            scope=None,
            config_id=None,
            since=None,
            until=None,
            first=first,
            after=after,
            with_total=False,
        )
        seen += [r.id for r in page.items]
        if not page.has_next:
            return seen
        last = page.items[-1]
        after = (last.started_at, last.id)


async def test_every_row_is_reachable_newest_first_and_a_status_filter_fills_its_pages(
    deps: Deps, neo4j_driver: AsyncDriver, scope: str
) -> None:
    other = f"{scope}-other"
    failed = hb.HeartbeatState.FAILED
    done = hb.HeartbeatState.COMPLETED
    beats = [
        _heartbeat(f"{scope}-h{i:04d}", scope, i, failed if i % 50 == 7 else done)
        for i in range(MANY)
    ] + [_heartbeat(f"{scope}-x{i}", other, i, done) for i in range(30)]
    await neo4j_driver.execute_query(
        "UNWIND $rows AS row CREATE (h:HeartbeatRun) SET h = row",
        rows=[heartbeat_row(b, deps.settings.queue_name, f"k:{b.run_id}") for b in beats],
        database_=deps.settings.neo4j_database,
    )
    # a manual run on its own, between heartbeats 300 and 301
    manual = new_run(f"{scope}-manual", scope=Scope.projects(scope), trigger=Trigger.MANUAL)
    manual = manual.model_copy(update={"created_at": T0 + timedelta(minutes=300, seconds=30)})
    await runs_of(deps).create(manual, RunOptions())
    try:
        who = Principal("p-reader", frozenset({scope}), frozenset({"reader"}))
        expected = [f"heartbeat:{scope}-h{i:04d}" for i in reversed(range(MANY))]
        expected.insert(MANY - 301, f"supervision:{scope}-manual")
        assert await _all_pages(deps, who, 100) == expected  # the other scope never shows

        wanted = [f"heartbeat:{scope}-h{i:04d}" for i in reversed(range(MANY)) if i % 50 == 7]
        assert await _all_pages(deps, who, 4, statuses=["failed"]) == wanted
        page = await reads.activity(
            deps,
            who,
            statuses=["failed"],
            scope=None,
            config_id=None,
            since=None,
            until=None,
            first=4,
            after=None,
            with_total=True,
        )
        assert page.total == len(wanted) and page.has_next
    finally:
        await neo4j_driver.execute_query(
            "MATCH (h:HeartbeatRun) WHERE h.scope IN $scopes DETACH DELETE h",
            scopes=[scope, other],
            database_=deps.settings.neo4j_database,
        )
