"""Review instants are stored like every other instant: Neo4j DateTimes in UTC (docs/architecture/index.md
"Time"). Runs stored before as ISO-8601 text are rewritten by migration 066; until then the
runs list could not page past them (a text never compares with a DateTime)."""

from __future__ import annotations

from datetime import timedelta

from neo4j import AsyncDriver

from engine.review.types import Scope
from engine.settings import Settings
from graph.migrate import load_migrations
from graph.review.codec import RunOptions
from jobs.deps import Deps
from jobs.review.common import runs_of
from tests.support.review import T0, collected, commit_all_leaves, new_run, seg

TEXT_INSTANTS = (
    "MATCH (n) WHERE n.scope = $scope AND (n:SupervisionRun OR n:ReviewStage OR n:ReviewBatch) "
    "UNWIND keys(n) AS k WITH n, k, n[k] AS v WHERE valueType(v) STARTS WITH 'ZONED DATETIME' "
    "SET n[k] = toString(datetime({datetime: v, timezone: '+08:00'}))"
)
KINDS = (
    "MATCH (n) WHERE n.scope = $scope AND (n:SupervisionRun OR n:ReviewStage OR n:ReviewBatch) "
    "UNWIND [k IN keys(n) WHERE k ENDS WITH '_at'] AS k WITH n[k] AS v WHERE v IS NOT NULL "
    "RETURN collect(DISTINCT valueType(v)) AS kinds, "
    "collect(DISTINCT CASE WHEN v IS :: ZONED DATETIME THEN v.offset END) AS offsets"
)


async def _ids_by_pages(deps: Deps, scope: str) -> list[str]:
    seen: list[str] = []
    after = None
    while True:
        page = await runs_of(deps).recent(scopes=[scope], after=after, limit=2)
        seen += [s.run.run_id for s in page]
        if len(page) < 2:
            return seen
        last = page[-1].run
        after = (last.created_at, last.run_id)


async def test_runs_stored_with_text_times_page_again_after_the_migration(
    deps: Deps, neo4j_driver: AsyncDriver, services: Settings, scope: str
) -> None:
    db = services.neo4j_database
    for i in range(5):
        run = new_run(f"{scope}-r{i}", scope=Scope.projects(scope))
        run = commit_all_leaves(collected(run, seg("s1", 0, 10)))
        run = run.model_copy(update={"created_at": T0 + timedelta(minutes=i)})
        await runs_of(deps).create(run, RunOptions())
    newest_first = [f"{scope}-r{i}" for i in reversed(range(5))]
    records, _, _ = await neo4j_driver.execute_query(KINDS, scope=scope, database_=db)
    assert records[0]["kinds"] == ["ZONED DATETIME NOT NULL"]
    assert records[0]["offsets"] == ["Z"]
    assert await _ids_by_pages(deps, scope) == newest_first

    # As the review codec stored them before 066: ISO text (here with another offset).
    await neo4j_driver.execute_query(TEXT_INSTANTS, scope=scope, database_=db)
    assert await _ids_by_pages(deps, scope) != newest_first  # the cursor finds no text

    (migration,) = [m for m in load_migrations() if m.name.endswith("_review_instants")]
    for statement in migration.statements:
        await neo4j_driver.execute_query(statement, database_=db)
    records, _, _ = await neo4j_driver.execute_query(KINDS, scope=scope, database_=db)
    assert records[0]["kinds"] == ["ZONED DATETIME NOT NULL"]
    assert records[0]["offsets"] == ["Z"]
    assert await _ids_by_pages(deps, scope) == newest_first
    stored = (await runs_of(deps).get(f"{scope}-r3")).run
    assert stored.created_at == T0 + timedelta(minutes=3)
    assert [b.committed_at for b in stored.ledger.batches] == [T0]
