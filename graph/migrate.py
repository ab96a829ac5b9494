"""Schema migrations: ordered files under `cypher/schema/`, each applied once.

A file holds one or more statements separated by `;`: constraints and indexes, all
`IF NOT EXISTS`, or a one-off rewrite of stored data (`051_utc_instants`). Each applied
file is recorded as `(:Migration {name, checksum, applied_at})`, so a second run does
nothing; a recorded file whose text changed is an error rather than a silent re-apply.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from neo4j import AsyncDriver

from graph.queries import CYPHER_DIR

SCHEMA_DIR = CYPHER_DIR / "schema"


@dataclass(frozen=True)
class Migration:
    name: str
    statements: tuple[str, ...]
    checksum: str


class MigrationError(RuntimeError):
    pass


def _statements(text: str) -> tuple[str, ...]:
    lines = [ln for ln in text.splitlines() if not ln.strip().startswith("//")]
    return tuple(s.strip() for s in "\n".join(lines).split(";") if s.strip())


def load_migrations(root: Path = SCHEMA_DIR) -> list[Migration]:
    found = []
    for path in sorted(root.glob("*.cypher")):
        text = path.read_text(encoding="utf-8")
        stmts = _statements(text)
        if not stmts:
            raise MigrationError(f"{path}: no statements")
        found.append(Migration(path.stem, stmts, hashlib.sha256(text.encode()).hexdigest()))
    return found


async def migrate(driver: AsyncDriver, database: str, root: Path = SCHEMA_DIR) -> list[str]:
    """Apply pending migrations in order; return the names applied now."""
    await driver.execute_query(
        "CREATE CONSTRAINT migration_name IF NOT EXISTS FOR (m:Migration) REQUIRE m.name IS UNIQUE",
        database_=database,
    )
    records, _, _ = await driver.execute_query(
        "MATCH (m:Migration) RETURN m.name AS name, m.checksum AS checksum", database_=database
    )
    done = {r["name"]: r["checksum"] for r in records}
    applied = []
    for mig in load_migrations(root):
        if mig.name in done:
            if done[mig.name] != mig.checksum:
                raise MigrationError(
                    f"migration {mig.name} was applied with other contents; add a new file instead"
                )
            continue
        for stmt in mig.statements:
            await driver.execute_query(stmt, database_=database)
        await driver.execute_query(
            "MERGE (m:Migration {name: $name}) "
            "ON CREATE SET m.checksum = $checksum, m.applied_at = datetime()",
            name=mig.name,
            checksum=mig.checksum,
            database_=database,
        )
        applied.append(mig.name)
    return applied
