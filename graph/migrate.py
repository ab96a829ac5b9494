"""Schema migrations: ordered files under `cypher/schema/`, each applied once.

A file holds one or more statements separated by `;`: constraints and indexes, all
`IF NOT EXISTS`, or a one-off rewrite of stored data (`051_utc_instants`). Each applied
file is recorded as `(:Migration {name, checksum, applied_at})`, so a second run does
nothing; a recorded file whose text changed is an error rather than a silent re-apply.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from dataclasses import dataclass
from pathlib import Path

from neo4j import AsyncDriver
from neo4j.exceptions import ClientError, TransientError

from graph.queries import CYPHER_DIR, queries

SCHEMA_DIR = CYPHER_DIR / "schema"


@dataclass(frozen=True)
class Migration:
    name: str
    statements: tuple[str, ...]
    checksum: str


class MigrationError(RuntimeError):
    pass


# What a schema statement or the Migration record answers when another process applies the
# same migration at the same moment (two workers, or the API and a worker, started together).
RACE_CODES = frozenset(
    {
        "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists",
        "Neo.ClientError.Schema.ConstraintAlreadyExists",
        "Neo.ClientError.Schema.IndexAlreadyExists",
        "Neo.ClientError.Schema.ConstraintValidationFailed",
        "Neo.ClientError.Schema.ConstraintWithNameAlreadyExists",
        "Neo.ClientError.Schema.IndexWithNameAlreadyExists",
    }
)
RACE_ATTEMPTS = 8


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
    """Apply pending migrations in order; return the names this call recorded.

    Processes that start together may migrate at once: every statement is idempotent
    (`IF NOT EXISTS`, rewrites that match only unconverted data), a statement that loses a
    race with the other process is retried after reading again what is recorded, and the
    `Migration` node is recorded once, by whichever process creates it first.
    """
    migrations = load_migrations(root)
    applied: list[str] = []
    for attempt in range(RACE_ATTEMPTS):
        try:
            await _apply_pending(driver, database, migrations, applied)
            return applied
        except (ClientError, TransientError) as exc:
            if exc.code not in RACE_CODES and not isinstance(exc, TransientError):
                raise
            if attempt == RACE_ATTEMPTS - 1:
                raise
            await asyncio.sleep(0.05 * (attempt + 1))
    return applied


async def _apply_pending(
    driver: AsyncDriver, database: str, migrations: list[Migration], applied: list[str]
) -> None:
    q = queries()
    await driver.execute_query(q["platform/migration_constraint"], database_=database)
    records, _, _ = await driver.execute_query(q["platform/migrations_applied"], database_=database)
    done = {r["name"]: r["checksum"] for r in records}
    mark = secrets.token_hex(8)
    for mig in migrations:
        if mig.name in done:
            if done[mig.name] != mig.checksum:
                raise MigrationError(
                    f"migration {mig.name} was applied with other contents; add a new file instead"
                )
            continue
        for stmt in mig.statements:
            await driver.execute_query(stmt, database_=database)
        records, _, _ = await driver.execute_query(
            q["platform/migration_record"],
            name=mig.name,
            checksum=mig.checksum,
            mark=mark,
            database_=database,
        )
        if records[0]["checksum"] != mig.checksum:
            raise MigrationError(
                f"migration {mig.name} was applied with other contents; add a new file instead"
            )
        if records[0]["mine"]:
            applied.append(mig.name)
