import asyncio
from pathlib import Path

import pytest
from neo4j import AsyncDriver

from engine.settings import Settings
from graph.migrate import MigrationError, migrate


async def test_second_migrate_does_nothing(neo4j_driver: AsyncDriver, settings: Settings) -> None:
    assert await migrate(neo4j_driver, settings.neo4j_database) == []
    records, _, _ = await neo4j_driver.execute_query(
        "MATCH (m:Migration {name: '001_platform'}) RETURN count(m) AS n",
        database_=settings.neo4j_database,
    )
    assert records[0]["n"] == 1


async def test_migrations_apply_in_order_once_and_refuse_edited_files(
    neo4j_driver: AsyncDriver, settings: Settings, tmp_path: Path
) -> None:
    db = settings.neo4j_database
    label = f"T{tmp_path.name.replace('-', '').replace('_', '')[-12:]}"
    (tmp_path / "001_a.cypher").write_text(
        f"CREATE CONSTRAINT {label.lower()}_id IF NOT EXISTS FOR (n:{label}) REQUIRE n.id IS UNIQUE;\n"
    )
    (tmp_path / "002_b.cypher").write_text(
        f"CREATE INDEX {label.lower()}_name IF NOT EXISTS FOR (n:{label}) ON (n.name)\n"
    )
    try:
        assert await migrate(neo4j_driver, db, root=tmp_path) == ["001_a", "002_b"]
        assert await migrate(neo4j_driver, db, root=tmp_path) == []
        records, _, _ = await neo4j_driver.execute_query(
            "SHOW INDEXES YIELD name WHERE name STARTS WITH $p RETURN collect(name) AS names",
            p=label.lower(),
            database_=db,
        )
        assert sorted(records[0]["names"]) == [f"{label.lower()}_id", f"{label.lower()}_name"]
        (tmp_path / "002_b.cypher").write_text(
            "CREATE INDEX other IF NOT EXISTS FOR (n:X) ON (n.y)\n"
        )
        with pytest.raises(MigrationError, match="002_b was applied with other contents"):
            await migrate(neo4j_driver, db, root=tmp_path)
    finally:
        await neo4j_driver.execute_query(
            f"DROP CONSTRAINT {label.lower()}_id IF EXISTS", database_=db
        )
        await neo4j_driver.execute_query(f"DROP INDEX {label.lower()}_name IF EXISTS", database_=db)
        await neo4j_driver.execute_query(
            "MATCH (m:Migration) WHERE m.name IN ['001_a', '002_b'] DELETE m", database_=db
        )


async def test_processes_that_start_together_both_finish_migrating(
    neo4j_driver: AsyncDriver, settings: Settings, tmp_path: Path
) -> None:
    """The API and a worker started together migrate at once: both must come up, each
    migration is recorded exactly once, and every index exists afterwards."""
    db = settings.neo4j_database
    label = f"R{tmp_path.name.replace('-', '').replace('_', '')[-12:]}"
    low = label.lower()
    names = []
    for i in range(6):
        name = f"{i:03d}_{low}"
        (tmp_path / f"{name}.cypher").write_text(
            f"CREATE CONSTRAINT {low}_c{i} IF NOT EXISTS FOR (n:{label}{i}) REQUIRE n.id IS UNIQUE;\n"
            f"CREATE INDEX {low}_i{i} IF NOT EXISTS FOR (n:{label}{i}) ON (n.name);\n"
            f"MERGE (n:{label}{i} {{id: 'seed'}}) SET n.name = 'seeded'\n"
        )
        names.append(name)
    try:
        first, second = await asyncio.gather(
            migrate(neo4j_driver, db, root=tmp_path), migrate(neo4j_driver, db, root=tmp_path)
        )
        assert sorted(first + second) == names
        records, _, _ = await neo4j_driver.execute_query(
            "MATCH (m:Migration) WHERE m.name IN $names RETURN m.name AS name, count(*) AS n",
            names=names,
            database_=db,
        )
        assert {r["name"]: r["n"] for r in records} == {n: 1 for n in names}
        records, _, _ = await neo4j_driver.execute_query(
            "SHOW INDEXES YIELD name WHERE name STARTS WITH $p RETURN count(*) AS n",
            p=f"{low}_",
            database_=db,
        )
        assert records[0]["n"] == 12
        assert await migrate(neo4j_driver, db, root=tmp_path) == []
    finally:
        for i in range(6):
            await neo4j_driver.execute_query(f"DROP CONSTRAINT {low}_c{i} IF EXISTS", database_=db)
            await neo4j_driver.execute_query(f"DROP INDEX {low}_i{i} IF EXISTS", database_=db)
            await neo4j_driver.execute_query(f"MATCH (n:{label}{i}) DELETE n", database_=db)
        await neo4j_driver.execute_query(
            "MATCH (m:Migration) WHERE m.name IN $names DELETE m", names=names, database_=db
        )
