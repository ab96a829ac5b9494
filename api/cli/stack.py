"""`storygraph up`, `migrate` and `demo load`: the whole local stack in one command, or its
schema and demo data alone."""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys

from api.cli.common import load_settings
from api.cli.serve import serve
from api.demo import SCOPE, load_demo_sync
from api.demo_showcase import load_showcase
from engine.settings import PROJECT_ROOT, Settings
from graph.driver import neo4j_password, open_driver
from graph.migrate import migrate
from local.redis_server import with_redis_password
from local.services import ensure_services
from local.supervisor import Supervisor


def apply_migrations(settings: Settings) -> None:
    async def go() -> list[str]:
        driver = open_driver(settings)
        try:
            return await migrate(driver, settings.neo4j_database)
        finally:
            await driver.close()

    applied = asyncio.run(go())
    print(f"Applied migrations: {', '.join(applied)}" if applied else "Schema is up to date.")


def load_demo(settings: Settings) -> None:
    print(load_demo_sync(settings))
    print(f"Showcase in scope {SCOPE!r}: " + asyncio.run(load_showcase(settings, SCOPE)))


def urls(settings: Settings) -> str:
    api = f"http://{settings.api_host}:{settings.api_port}"
    lines = [
        "",
        "storygraph is up:",
        f"  GraphiQL        {api}/graphql",
        f"  Graph view      {api}/viz",
        f"  Health          {api}/healthz   metrics {api}/metrics",
    ]
    if settings.manages_neo4j:
        lines += [
            f"  Neo4j Browser   http://127.0.0.1:{settings.neo4j_http_port}/browser/",
            f"                  connect to bolt://127.0.0.1:{settings.neo4j_bolt_port} "
            f"as {settings.neo4j_user} / {neo4j_password(settings)}",
        ]
    else:
        lines.append(f"  Neo4j           {settings.neo4j_uri}")
    return "\n".join(lines) + "\n"


def up(settings: Settings, with_demo: bool, redis_ha: bool = False) -> None:
    if redis_ha:  # the worker and API processes read it from the environment too
        os.environ["REDIS_HA"] = "true"
        settings = load_settings()  # the replicated set's password, not the single Redis's
    for line in ensure_services(settings):
        print(line, flush=True)
    settings = with_redis_password(settings)  # a first start has just created it
    apply_migrations(settings)
    if with_demo:
        load_demo(settings)
    # a worker that exits (a crash, a kill, a lost Redis) is started again with backoff
    worker = Supervisor([sys.executable, "-m", "api.cli", "worker"], cwd=PROJECT_ROOT)
    worker.start()
    print(urls(settings), flush=True)
    # uvicorn stops on SIGTERM and then raises the signal again with the handler it found:
    # the default one would end this process before `finally`, leaving the worker running
    # (a service manager's stop). This handler turns it into an exit that stops the worker.
    signal.signal(signal.SIGTERM, _exit_on_signal)
    try:
        serve(settings, None, None)
    finally:
        worker.stop()


def _exit_on_signal(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


def up_command(args: argparse.Namespace, settings: Settings) -> None:
    up(settings, not args.no_demo, args.redis_ha)


def migrate_command(args: argparse.Namespace, settings: Settings) -> None:
    apply_migrations(settings)


def demo_command(args: argparse.Namespace, settings: Settings) -> None:
    load_demo(settings)
