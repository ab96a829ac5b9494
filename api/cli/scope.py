"""`storygraph scope list | delete <scope>`: what each scope holds, and removing one
(benchmark and test data in a dev database). The terminal acts as an admin of every scope,
like `storygraph review`; a delete is recorded as `cli` and logged."""

from __future__ import annotations

import argparse
import asyncio

from redis.exceptions import RedisError

from api.cli.common import CLI_PRINCIPAL, CliError
from engine.errors import StorygraphError
from engine.settings import Settings
from graph.driver import open_driver
from jobs import scopes
from jobs.deps import Deps
from jobs.queue import open_pool

COLUMNS = ("events", "entities", "relations", "sources", "concerns", "watches")


async def _run(settings: Settings, action: str, scope: str | None) -> list[str]:
    driver = open_driver(settings)
    # a delete moves the scope's past-cache counter in Redis (jobs.past_epoch): with Redis
    # unreachable the delete is refused, so no cached answer of the scope outlives it
    pool = await open_pool(settings) if action == "delete" else None
    try:
        deps = Deps(settings=settings, driver=driver, pool=pool, worker_id="cli")
        if action == "list":
            found = await scopes.list_scopes(deps, CLI_PRINCIPAL)
            width = max([len("scope"), *(len(c.scope) for c in found)])
            lines = ["scope".ljust(width) + "".join(f"{c:>10}" for c in COLUMNS)]
            for c in found:
                counts = "".join(f"{getattr(c, k):>10}" for k in COLUMNS)
                lines.append(c.scope.ljust(width) + counts)
            return lines
        assert scope is not None
        done = await scopes.delete_scope(deps, CLI_PRINCIPAL, scope)
        return [f"deleted scope {done.scope}: {done.deleted_nodes} nodes (record {done.id})"]
    finally:
        if pool is not None:
            await pool.aclose()
        await driver.close()


def run(settings: Settings, action: str, scope: str | None) -> list[str]:
    """The lines to print for `scope list` or `scope delete <scope>`."""
    return asyncio.run(_run(settings, action, scope))


def command(args: argparse.Namespace, settings: Settings) -> None:
    if args.action == "delete" and not args.scope:
        raise CliError("scope delete needs the scope to delete: storygraph scope delete <scope>")
    try:
        lines = run(settings, args.action, args.scope)
    except StorygraphError as exc:
        raise CliError(str(exc)) from None
    except (RedisError, OSError) as exc:
        raise CliError(
            f"Redis is unreachable ({exc}); a scope is deleted only while Redis is up, so "
            "no cached past answer of it outlives the delete"
        ) from None
    print("\n".join(lines))
