"""Scopes can be listed and removed: `scopes` counts what each scope holds
through index seeks, a limited token sees only its own scopes, `deleteScope` removes every
node of one scope (batched) and nothing of another, is admin-only and recorded; the
`storygraph scope list|delete` commands do the same from a terminal."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from neo4j import AsyncDriver

from engine.errors import Forbidden
from engine.principal import Principal
from engine.settings import Settings
from graph.story import StoryRepository
from jobs import scopes
from jobs.deps import Deps
from tests.support.story import RUN, StepClock, scope_counts, source, two_people

ADMIN = Principal("ops", frozenset({"*"}), frozenset({"admin"}))


@pytest_asyncio.fixture
async def other_scope(neo4j_driver: AsyncDriver, settings: Settings) -> AsyncIterator[str]:
    name = f"test-{uuid.uuid4().hex[:12]}"
    yield name
    await neo4j_driver.execute_query(
        "MATCH (n {scope: $scope}) DETACH DELETE n", scope=name, database_=settings.neo4j_database
    )


async def fill(driver: AsyncDriver, settings: Settings, scope: str, extra_key: str) -> None:
    """Two entities, a relation, an event, a source, a concern with a person and a watch."""
    repo = StoryRepository(driver, settings.neo4j_database)
    clock = StepClock()
    await repo.upsert_source(source(scope), now=clock())
    await repo.publish_result(two_people(scope, extra_key), by=RUN, now=clock())
    await driver.execute_query(
        """
        CREATE (c:Concern {concern_id: $scope + ':c1', scope: $scope, status: 'pending',
                           priority: 'normal'})
        MERGE (p:Person {scope: $scope, person_id: 'zs'})
        CREATE (c)-[:INVOLVES]->(p)
        CREATE (:Watch {id: $scope + ':w1', scope: $scope, created_at: datetime()})
        """,
        scope=scope,
        database_=settings.neo4j_database,
    )


@pytest.fixture
def deps(neo4j_driver: AsyncDriver, settings: Settings) -> Deps:
    return Deps(settings=settings, driver=neo4j_driver, pool=None, worker_id="test")


def as_dict(c: Any) -> dict[str, Any]:
    return {k: getattr(c, k) for k in ("events", "entities", "relations", "sources")} | {
        "concerns": c.concerns,
        "watches": c.watches,
    }


EXPECTED = {"events": 1, "entities": 2, "relations": 1, "sources": 1, "concerns": 1, "watches": 1}


async def test_counts_match_and_a_limited_token_sees_only_its_scopes(
    neo4j_driver: AsyncDriver, settings: Settings, deps: Deps, scope: str, other_scope: str
) -> None:
    await fill(neo4j_driver, settings, scope, "k1")
    await fill(neo4j_driver, settings, other_scope, "k2")

    limited = Principal("app", frozenset({scope, "never-written"}), frozenset({"reader"}))
    found = await scopes.list_scopes(deps, limited)
    assert [c.scope for c in found] == sorted([scope, "never-written"])
    by_name = {c.scope: as_dict(c) for c in found}
    assert by_name[scope] == EXPECTED
    assert set(by_name["never-written"].values()) == {0}

    everything = {c.scope: as_dict(c) for c in await scopes.list_scopes(deps, ADMIN)}
    assert everything[scope] == EXPECTED and everything[other_scope] == EXPECTED


async def test_delete_removes_the_scope_and_nothing_else(
    neo4j_driver: AsyncDriver, settings: Settings, deps: Deps, scope: str, other_scope: str
) -> None:
    db = settings.neo4j_database
    await fill(neo4j_driver, settings, scope, "k1")
    await fill(neo4j_driver, settings, other_scope, "k2")
    before_other = await scope_counts(neo4j_driver, db, other_scope)
    nodes = sum((await scope_counts(neo4j_driver, db, scope)).values())
    held, _, _ = await neo4j_driver.execute_query(
        "MATCH (n {scope: $scope}) RETURN count(n) AS n", scope=scope, database_=db
    )

    reader = Principal("app", frozenset({scope}), frozenset({"reader", "editor", "operator"}))
    with pytest.raises(Forbidden):
        await scopes.delete_scope(deps, reader, scope)
    assert held[0]["n"] > 0 and nodes >= held[0]["n"]

    done = await scopes.delete_scope(deps, ADMIN, scope)
    assert done.deleted_nodes == held[0]["n"] and done.by == "ops"
    assert await scope_counts(neo4j_driver, db, scope) == {}
    assert await scope_counts(neo4j_driver, db, other_scope) == before_other
    record, _, _ = await neo4j_driver.execute_query(
        "MATCH (d:ScopeDeletion {id: $id}) RETURN d {.*} AS d", id=done.id, database_=db
    )
    d = record[0]["d"]
    assert (d["deleted_scope"], d["by"], d["deleted_nodes"]) == (scope, "ops", done.deleted_nodes)
    assert "scope" not in d
    await neo4j_driver.execute_query(
        "MATCH (d:ScopeDeletion {id: $id}) DELETE d", id=done.id, database_=db
    )


def storygraph(*args: str) -> subprocess.CompletedProcess[str]:
    exe = os.path.join(os.path.dirname(sys.executable), "storygraph")
    return subprocess.run(
        [exe, *args], capture_output=True, text=True, timeout=120, env=dict(os.environ)
    )


async def test_cli_lists_and_deletes(
    neo4j_driver: AsyncDriver, settings: Settings, scope: str, other_scope: str
) -> None:
    db = settings.neo4j_database
    await fill(neo4j_driver, settings, scope, "k1")
    await fill(neo4j_driver, settings, other_scope, "k2")

    listed = storygraph("scope", "list")
    assert listed.returncode == 0, listed.stderr
    header, *rows = listed.stdout.splitlines()
    assert header.split() == ["scope", *EXPECTED]
    mine = [r.split() for r in rows if r.split()[0] == scope]
    assert mine == [[scope, *(str(v) for v in EXPECTED.values())]]

    missing = storygraph("scope", "delete")
    assert missing.returncode == 2 and "needs the scope" in missing.stderr

    deleted = storygraph("scope", "delete", scope)
    assert deleted.returncode == 0, deleted.stderr
    assert deleted.stdout.startswith(f"deleted scope {scope}: ")
    assert await scope_counts(neo4j_driver, db, scope) == {}
    assert await scope_counts(neo4j_driver, db, other_scope) != {}
    record_id = deleted.stdout.rsplit("(record ", 1)[1].rstrip(")\n")
    await neo4j_driver.execute_query(
        "MATCH (d:ScopeDeletion {id: $id}) DELETE d", id=record_id, database_=db
    )
