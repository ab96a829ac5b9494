"""Neo4j Browser explains the data.

Identity nodes carry a readable caption, written in the same transaction as each new version
(and backfilled by migration 064); every saved query in `cypher/browser/` is ONE Cypher
statement (no `:param` lines, which turn a paste into a script frame that draws no graph)
whose first line `WITH <value> AS <name>, ...` holds what a person edits. Pasted as it is, it
runs; here the values on that line are replaced by ones of data this test creates; each query
must return rows and read through indexes (no label scan, no all-nodes scan), like
tests/integration/platform/test_query_plans.py checks the named queries.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from neo4j import AsyncDriver

from api.demo_showcase import STANDUP, standup
from api.demo_watch import add_watch
from engine.settings import Settings
from engine.story.inputs import EntityEdit
from graph.migrate import SCHEMA_DIR, load_migrations
from graph.queries import CYPHER_DIR
from graph.story import StoryRepository
from jobs.deps import Deps
from tests.support.signal_chain import build_chain
from tests.support.story import ALICE, RUN, StepClock, source, two_people

BROWSER = CYPHER_DIR / "browser"
FILES = sorted(BROWSER.glob("*.cypher"))
TEXT = {p.name: p.read_text(encoding="utf-8") for p in FILES}
WITH_LINE = re.compile(r"^WITH\s+(.+?)\s*(?://.*)?$")
PAIR = re.compile(r"(.+?)\s+AS\s+([A-Za-z_][A-Za-z0-9_]*)\s*(?:,\s*|$)")


def parse(path: Path) -> tuple[dict[str, str], str]:
    """The values of the first `WITH` line (name -> Cypher expression) and the query after it."""
    lines = [
        line
        for line in path.read_text(encoding="utf-8").splitlines()
        if not line.strip().startswith("//")
    ]
    assert not [line for line in lines if line.startswith(":")], f"{path.name}: a Browser command"
    found = WITH_LINE.match(lines[0])
    assert found, f"{path.name}: starts with the `WITH <value> AS <name>` line a person edits"
    params = {name: expr for expr, name in PAIR.findall(found.group(1))}
    query = "\n".join(lines[1:]).strip()
    assert query and ";" not in query, f"{path.name}: one statement"
    return params, query


def operators(plan: dict[str, Any]) -> list[str]:
    found = [plan["operatorType"].split("@")[0]]
    for child in plan.get("children", []):
        found += operators(child)
    return found


def test_every_saved_query_is_listed() -> None:
    names = {p.name for p in FILES}
    assert names == {
        "current_graph.cypher",
        "graph_as_of.cypher",
        "entity_history.cypher",
        "concern_path.cypher",
        "review_run_batches.cypher",
        "search.cypher",
        "signal_chain.cypher",
        "watch_evidence.cypher",
    }
    readme = (BROWSER / "README.md").read_text(encoding="utf-8")
    assert all(n in readme for n in names)


def test_saved_queries_are_not_named_queries() -> None:
    from graph.queries import queries

    assert not [k for k in queries().named() if k.startswith("browser/")]


@pytest.fixture
async def world(neo4j_driver: AsyncDriver, settings: Settings, scope: str) -> dict[str, Any]:
    """A scope with two people, a relation, an edited entity, a concern with a message,
    a supervision run with a stage and two batches, a signal's chain and a checked watch."""
    repo = StoryRepository(neo4j_driver, settings.neo4j_database)
    clock = StepClock()
    await repo.upsert_source(source(scope), now=clock())
    out = await repo.publish_result(two_people(scope, "k1"), by=RUN, now=clock())
    graph = await repo.story_graph(scope, as_of=clock())
    zs = next(e for e in graph.entities if e.name == "张三")
    await repo.update_entity(
        scope, zs.id, EntityEdit(name="张三丰"), seen_version=zs.seq, by=ALICE, now=clock()
    )
    concern_id, run_id = f"concern-{scope}", f"run-{scope}"
    await neo4j_driver.execute_query(
        """
        CREATE (c:Concern {concern_id: $concern_id, scope: $scope, status: 'waiting_reply',
                           title: '催李四提测', goal: '周四提测', revision: 1,
                           created_at: datetime('2026-03-01T09:00:00Z')})
        MERGE (p:Person {scope: $scope, person_id: 'ls'})
        CREATE (c)-[:INVOLVES {role_in_concern: 'owner'}]->(p)
        CREATE (:OutboxMessage {key: $concern_id + ':1', concern_id: $concern_id, scope: $scope,
                                status: 'sent', recipient_person_id: 'ls',
                                deliver_at: datetime('2026-03-01T10:00:00Z')})
        CREATE (r:SupervisionRun {id: $run_id, scope: $scope, status: 'completed',
                                  deployment: 'test', created_at: datetime()})
        CREATE (r)-[:HAS_STAGE]->(:ReviewStage {run_id: $run_id, stage: 'leaves',
                                                 state: 'completed', scope: $scope})
        CREATE (r)-[:HAS_BATCH]->(:ReviewBatch {run_id: $run_id, index: 0, state: 'committed',
                                                attempts: 1, scope: $scope})
        CREATE (r)-[:HAS_BATCH]->(:ReviewBatch {run_id: $run_id, index: 1, state: 'committed',
                                                attempts: 2, scope: $scope})
        """,
        concern_id=concern_id,
        run_id=run_id,
        scope=scope,
        database_=settings.neo4j_database,
    )
    # a signal's chain: passage -> signal -> concern -> answer -> event (tests/support)
    deps = Deps(settings=settings, driver=neo4j_driver, pool=None)
    chain = await build_chain(deps, scope)
    # a watch whose check recorded its evidence: the demo's, over a stand-up of this scope
    await repo.upsert_source(standup(scope), now=clock())
    await add_watch(deps, scope, STANDUP)
    return {
        "scope": scope,
        "signal_id": chain.signal.id,
        "concern_id_of_signal": chain.concern_id,
        "answer_run_id": chain.run_id,
        "entity_id": zs.id,
        "concern_id": concern_id,
        "run_id": run_id,
        "result_id": out.result.id,
    }


async def test_identity_nodes_carry_the_current_caption(
    neo4j_driver: AsyncDriver, settings: Settings, world: dict[str, Any]
) -> None:
    records, _, _ = await neo4j_driver.execute_query(
        """
        MATCH (n:StoryObject) WHERE n.scope = $scope AND NOT n:Change
        RETURN labels(n) AS labels, n.name AS name, n {.*} AS props ORDER BY name
        """,
        scope=world["scope"],
        database_=settings.neo4j_database,
    )
    by_label: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for r in records:
        key = tuple(sorted(set(r["labels"]) - {"StoryObject"}))
        by_label.setdefault(key, []).append(r["props"])
    # the correction renamed 张三: the identity follows it in the same write
    assert sorted(p["name"] for p in by_label[("Entity",)]) == ["张三丰", "李四"]
    assert [p["kind"] for p in by_label[("Entity",)]] == ["person", "person"]
    (relation,) = by_label[("Relation",)]
    assert (relation["name"], relation["type"], relation["confirmation"], relation["removed"]) == (
        "works_with",
        "works_with",
        "suggested",
        False,
    )
    # the meeting, and the signal chain's: the promise its review read, the event the review
    # of the concern's conversation proposed from the answer
    events = by_label[("Event",)]
    assert sorted(e["title"] for e in events) == [
        "前端部分周四能提测",
        "前端部分已提测",
        "提测会议",
    ]
    assert all(e["name"] == e["title"] for e in events)


async def test_migration_backfills_captions(
    neo4j_driver: AsyncDriver, settings: Settings, world: dict[str, Any]
) -> None:
    db = settings.neo4j_database
    await neo4j_driver.execute_query(
        "MATCH (n:Entity) WHERE n.scope = $scope REMOVE n.name, n.kind",
        scope=world["scope"],
        database_=db,
    )
    (mig,) = [m for m in load_migrations(SCHEMA_DIR) if m.name == "064_identity_captions"]
    for stmt in mig.statements:  # idempotent: the same values the writes set
        await neo4j_driver.execute_query(stmt, database_=db)
    records, _, _ = await neo4j_driver.execute_query(
        "MATCH (n:Entity) WHERE n.scope = $scope RETURN n.name AS name ORDER BY name",
        scope=world["scope"],
        database_=db,
    )
    assert [r["name"] for r in records] == ["张三丰", "李四"]


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
async def test_saved_query_runs_as_pasted_and_uses_indexes(
    neo4j_driver: AsyncDriver, settings: Settings, world: dict[str, Any], path: Path
) -> None:
    db = settings.neo4j_database
    params_text, body = parse(path)
    assert params_text, f"{path.name} starts with the values a person edits"
    # pasted as it is (comments and all), it is one statement that runs
    await neo4j_driver.execute_query(TEXT[path.name], database_=db)
    params: dict[str, Any] = {}
    for name, expr in params_text.items():
        records, _, _ = await neo4j_driver.execute_query(f"RETURN {expr} AS value", database_=db)
        params[name] = records[0]["value"]
    assert not re.findall(r"\$[A-Za-z_]", body), f"{path.name}: no parameters to set first"
    params.update({k: world[k] for k in params if k in world})
    query = "WITH " + ", ".join(f"${n} AS {n}" for n in params) + "\n" + body

    records, _, _ = await neo4j_driver.execute_query(query, params, database_=db)
    assert records, f"{path.name} returned no rows"
    _, summary, _ = await neo4j_driver.execute_query("EXPLAIN " + query, params, database_=db)
    assert summary.plan is not None
    ops = operators(summary.plan)
    assert not any(op.startswith(("NodeByLabelScan", "AllNodesScan")) for op in ops), (
        path.name,
        ops,
    )

    if path.stem == "graph_as_of":
        assert {r["name_then"] for r in records} == {"张三丰", "李四"}
    if path.stem == "entity_history":
        assert [(r["seq"], r["name"]) for r in records] == [(1, "张三"), (2, "张三丰")]
        assert str(records[-1]["retracted_at"]).startswith("9999-12-31")
    if path.stem == "search":  # the entity renamed 张三丰 and the source line, by the index
        assert "NodeIndexSeek" in " ".join(ops) or "ProcedureCall" in ops, ops
        found = {(r["kind"], r["matched_in"], r["now_called"]) for r in records}
        assert ("EntityVersion", "current", "张三丰") in found
        assert any(r["kind"] == "Passage" and r["locator"] == "lines:1-1" for r in records)
    if path.stem == "review_run_batches":
        assert [r["batch"] for r in records] == [0, 1]
    if path.stem == "watch_evidence":  # what it reads, each step, the latest check
        assert [r["step"] for r in records] == ["1 reads", "1 reads", "2 step", "2 step", "3 check"]
        assert records[1]["what"] == f"note {STANDUP} 「周三站会」"
        assert records[2]["what"].startswith("s1 · check · done · 完成标准: mock 跑主流程")
        assert "evidence: note:standup-chat L1: 张三: 沙箱还没到" in records[2]["what"]
        assert records[3]["what"].startswith("s2 · execute · pending")
        assert " · success · " in records[4]["what"] and "hand-off: delivered" in records[4]["what"]


async def test_the_signal_chain_shows_each_step_in_order(
    neo4j_driver: AsyncDriver, settings: Settings, world: dict[str, Any]
) -> None:
    """passage → signal → concern → the answer's line → the event 李四 wrote."""
    params, body = parse(BROWSER / "signal_chain.cypher")
    query = "WITH $scope AS scope, $signal_id AS signal_id\n" + body
    records, _, _ = await neo4j_driver.execute_query(
        query,
        scope=world["scope"],
        signal_id=world["signal_id"],
        database_=settings.neo4j_database,
    )
    steps = [(r["step"], r["what"]) for r in records]
    assert [s for s, _ in steps] == ["1 passage", "2 signal", "3 concern", "4 answer", "5 event"]
    assert steps[0][1].startswith("chat-1 v1 @ chars:")
    assert f"commitment · kept · raised {world['concern_id_of_signal']}" in steps[1][1]
    assert "确认前端部分提测是否已完成" in steps[2][1]
    assert steps[3][1] == f"concern-{world['concern_id_of_signal']} m2 @ lines:2-2"
    # 李四's answer is read by the review of the concern's conversation, citing him
    assert steps[4][1] == (
        f"前端部分已提测 (by run:{world['answer_run_id']} via {world['concern_id_of_signal']})"
    )
