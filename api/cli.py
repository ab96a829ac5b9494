"""`storygraph`: the one console command.

    storygraph up                     services, migrations, demo data, API and worker
    storygraph serve | worker         one process each
    storygraph neo4j start|stop|status
    storygraph redis start|stop|status
    storygraph down                   stop the local Neo4j and Redis this project started
    storygraph migrate
    storygraph demo load
    storygraph schema export [--check]
    storygraph review --project P | --global [--from T --to T]   (or --run ID)
    storygraph mcp [--token T]        the MCP server over stdio, for a local agent host
    storygraph search backfill [--scope S] [--reset]   vectors for hybrid search

Settings are read from the environment once, here, and passed down. Expected failures
(a missing java, a port in use, an insecure binding) print one sentence and exit 2.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from engine.settings import PROJECT_ROOT, Settings

EXIT_USAGE = 2


class CliError(Exception):
    """One sentence for the person at the terminal."""


def _settings() -> Settings:
    from pydantic import ValidationError

    from local.redis_server import with_redis_password

    try:
        settings = Settings.from_env()
    except ValidationError as exc:
        raise CliError(settings_problem(exc)) from None
    return with_redis_password(settings)


def settings_problem(exc: Exception) -> str:
    """One sentence naming the first bad setting, e.g. `API_TOKENS[0].roles: unknown role
    'edtor' (roles are reader, ...)`; never the value (it may be a secret)."""
    from pydantic import ValidationError

    if not isinstance(exc, ValidationError) or not exc.errors():
        return f"the settings are invalid: {exc}"
    first = exc.errors()[0]
    loc = [str(p) for p in first["loc"]]
    where = (loc[0].upper() if loc else "settings") + "".join(
        f"[{p}]" if p.isdigit() else f".{p}" for p in loc[1:]
    )
    message = first["msg"].removeprefix("Value error, ")
    if first["type"] == "missing":
        message = "it is missing"
        if loc[-1] == "scopes":
            message += ' (a token names its scopes: project ids, "global", or "*" for all)'
    more = len(exc.errors()) - 1
    tail = f" ({more} more problem{'s' if more > 1 else ''})" if more else ""
    return f"the setting {where} is invalid: {message}{tail}."


def _neo4j(settings: Settings, action: str) -> None:
    from local.neo4j_server import LocalNeo4j

    if not settings.manages_neo4j:
        print(f"NEO4J_URI is set ({settings.neo4j_uri}): this project starts no Neo4j.")
        return
    server = LocalNeo4j(settings)
    if action == "start":
        print(server.start().describe())
    elif action == "stop":
        print("Neo4j stopped." if server.stop() else "Neo4j was not running.")
    else:
        status = server.status()
        print(status.describe())
        if not status.running:
            raise SystemExit(3)


def _redis(settings: Settings, action: str) -> None:
    from local.redis_ha import LocalRedisHA
    from local.redis_server import LocalRedis

    if not settings.manages_redis:
        which = "REDIS_SENTINELS" if settings.redis_sentinels else "REDIS_URL"
        print(f"{which} is set ({settings.redacted_redis_url}): this project starts no Redis.")
        return
    server: LocalRedis | LocalRedisHA = (
        LocalRedisHA(settings) if settings.manages_redis_ha else LocalRedis(settings)
    )
    if action == "start":
        print(server.start().describe())
    elif action == "stop":
        print("Redis stopped." if server.stop() else "Redis was not running.")
    else:
        status = server.status()
        print(status.describe())
        if not status.running:
            raise SystemExit(3)


def _migrate(settings: Settings) -> None:
    from graph.driver import open_driver
    from graph.migrate import migrate

    async def go() -> list[str]:
        driver = open_driver(settings)
        try:
            return await migrate(driver, settings.neo4j_database)
        finally:
            await driver.close()

    applied = asyncio.run(go())
    print(f"Applied migrations: {', '.join(applied)}" if applied else "Schema is up to date.")


def _demo(settings: Settings) -> None:
    from api.demo import SCOPE, load_demo_sync
    from api.demo_showcase import load_showcase

    print(load_demo_sync(settings))
    print(f"Showcase in scope {SCOPE!r}: " + asyncio.run(load_showcase(settings, SCOPE)))


def _serve(
    settings: Settings, host: str | None, port: int | None, workers: int | None = None
) -> None:
    """One process, or `workers` uvicorn worker processes on one socket (default: one per
    core), each building its own app from the environment (`api.app.app_from_env`); they
    share only Neo4j and Redis (graphChanged fans out through Redis pub/sub)."""
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    from api.auth import check_binding
    from api.listeners import BALANCED, WorkerListener
    from jobs.logs import configure_logging

    if host:
        settings = settings.model_copy(update={"api_host": host})
    if port:
        settings = settings.model_copy(update={"api_port": port})
    count = workers or settings.api_workers or os.cpu_count() or 1
    configure_logging(settings.log_level, settings.log_format)
    if count == 1:
        from api.app import create_app

        app = create_app(settings)
        uvicorn.run(
            app, host=settings.api_host, port=settings.api_port, log_config=None, access_log=False
        )
        return
    check_binding(settings)  # refuse an open non-loopback binding here, once, not per worker
    _shared_metrics(settings)
    os.environ.update(API_HOST=settings.api_host, API_PORT=str(settings.api_port))
    if not BALANCED:
        uvicorn.run(
            "api.app:app_from_env",
            factory=True,
            workers=count,
            host=settings.api_host,
            port=settings.api_port,
            log_config=None,
            access_log=False,
        )
        return
    # each worker listens on its own SO_REUSEPORT socket (api/listeners.py): the kernel, not
    # the first worker awake, spreads the connections
    config = uvicorn.Config(
        "api.app:app_from_env",
        factory=True,
        workers=count,
        host=settings.api_host,
        port=settings.api_port,
        log_config=None,
        access_log=False,
    )
    try:
        listener = WorkerListener(settings.api_host, settings.api_port)
    except OSError as exc:
        raise SystemExit(
            f"cannot listen on {settings.api_host}:{settings.api_port}: {exc}"
        ) from exc
    Multiprocess(config, sockets=[listener]).run()


def _shared_metrics(settings: Settings) -> None:
    """The workers keep their metrics in one folder, so each /metrics answers the sum over
    all of them: PROMETHEUS_MULTIPROC_DIR emptied now (a file left by an earlier run would be
    counted again), or a fresh temporary folder removed when `serve` exits."""
    import atexit
    import shutil
    import tempfile

    given = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if given:
        folder = Path(given)
        folder.mkdir(parents=True, exist_ok=True)
        for stale in folder.glob("*.db"):
            stale.unlink()
    else:
        folder = Path(tempfile.mkdtemp(prefix=f"storygraph-metrics-{settings.api_port}-"))
        atexit.register(shutil.rmtree, folder, True)
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(folder)


def _worker(settings: Settings) -> None:
    from jobs.logs import configure_logging
    from jobs.worker import run

    configure_logging(settings.log_level, settings.log_format)
    run(settings)


def _schema(check: bool) -> None:
    from api.schema import sdl

    path = PROJECT_ROOT / "schema.graphql"
    text = sdl()
    if check:
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            raise CliError("schema.graphql differs from the code: run `storygraph schema export`.")
        print("schema.graphql matches the code.")
        return
    path.write_text(text, encoding="utf-8")
    print(f"Wrote {path}")


def _urls(settings: Settings) -> str:
    from graph.driver import neo4j_password

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


def _up(settings: Settings, with_demo: bool, redis_ha: bool = False) -> None:
    from local.redis_server import with_redis_password
    from local.services import ensure_services
    from local.supervisor import Supervisor

    if redis_ha:  # the worker and API processes read it from the environment too
        os.environ["REDIS_HA"] = "true"
        settings = _settings()  # the replicated set's password, not the single Redis's
    for line in ensure_services(settings):
        print(line, flush=True)
    settings = with_redis_password(settings)  # a first start has just created it
    _migrate(settings)
    if with_demo:
        _demo(settings)
    # a worker that exits (a crash, a kill, a lost Redis) is started again with backoff
    worker = Supervisor([sys.executable, "-m", "api.cli", "worker"], cwd=PROJECT_ROOT)
    worker.start()
    print(_urls(settings), flush=True)
    # uvicorn stops on SIGTERM and then raises the signal again with the handler it found:
    # the default one would end this process before `finally`, leaving the worker running
    # (a service manager's stop). This handler turns it into an exit that stops the worker.
    signal.signal(signal.SIGTERM, _exit_on_signal)
    try:
        _serve(settings, None, None)
    finally:
        worker.stop()


def _exit_on_signal(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


def _down(settings: Settings) -> None:
    from local.embeddings_server import LocalEmbeddings

    if LocalEmbeddings(settings).stop():
        print("Embedding model stopped.")
    _redis(settings, "stop")
    if settings.manages_redis and not settings.redis_ha:  # a set `up --redis-ha` started
        ha = settings.model_copy(update={"redis_ha": True})
        if (ha.local_dir / f"redis-ha-{ha.redis_ha_primary_port}").exists():
            _redis(ha, "stop")
    _neo4j(settings, "stop")


def _review(settings: Settings, args: argparse.Namespace) -> None:
    from api.review_cli import ReviewCliError, run_review_cli

    try:
        code = run_review_cli(
            settings,
            run_id=args.run,
            projects=args.project,
            is_global=args.is_global,
            start=args.start,
            end=args.end,
            action=args.action,
        )
    except ReviewCliError as exc:
        raise CliError(str(exc)) from None
    if code:
        raise SystemExit(code)


def _mcp(settings: Settings, token: str | None) -> None:
    from api.mcp.server import serve_stdio
    from jobs.logs import configure_logging

    configure_logging(settings.log_level, settings.log_format)  # stderr: stdout is the protocol
    try:
        asyncio.run(serve_stdio(settings, token or os.environ.get("STORYGRAPH_TOKEN")))
    except PermissionError as exc:
        raise CliError(str(exc)) from None


def _scope(settings: Settings, action: str, scope: str | None) -> None:
    from redis.exceptions import RedisError

    from api.scope_cli import run
    from engine.errors import StorygraphError

    if action == "delete" and not scope:
        raise CliError("scope delete needs the scope to delete: storygraph scope delete <scope>")
    try:
        lines = run(settings, action, scope)
    except StorygraphError as exc:
        raise CliError(str(exc)) from None
    except (RedisError, OSError) as exc:
        raise CliError(
            f"Redis is unreachable ({exc}); a scope is deleted only while Redis is up, so "
            "no cached past answer of it outlives the delete"
        ) from None
    print("\n".join(lines))


def _search(settings: Settings, args: argparse.Namespace) -> None:
    from api.search_cli import NoEndpoint, run
    from engine.errors import StorygraphError

    try:
        run(settings, args.scope, args.reset)
    except (StorygraphError, NoEndpoint) as exc:
        raise CliError(str(exc)) from None


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="storygraph", description="storygraph service and tools")
    sub = p.add_subparsers(dest="command", required=True)
    up = sub.add_parser("up", help="services, migrations, demo data, API and worker")
    up.add_argument("--no-demo", action="store_true", help="skip loading the demo data")
    up.add_argument(
        "--redis-ha",
        action="store_true",
        help="a local Redis primary, replica and three sentinels (REDIS_HA)",
    )
    serve = sub.add_parser("serve", help="serve the HTTP API")
    serve.add_argument("--host")
    serve.add_argument("--port", type=int)
    serve.add_argument(
        "--workers", type=int, help="API processes (default API_WORKERS, else one per core)"
    )
    sub.add_parser("worker", help="run an arq worker")
    for name in ("neo4j", "redis"):
        s = sub.add_parser(name, help=f"the local {name} server")
        s.add_argument("action", choices=["start", "stop", "status"])
    sub.add_parser("down", help="stop the local Neo4j and Redis")
    sub.add_parser("migrate", help="apply schema migrations")
    demo = sub.add_parser("demo", help="demo data")
    demo.add_argument("action", choices=["load"])
    schema = sub.add_parser("schema", help="the GraphQL SDL")
    schema.add_argument("action", choices=["export"])
    schema.add_argument("--check", action="store_true", help="fail when schema.graphql drifted")
    review = sub.add_parser("review", help="start or follow a supervision review")
    review.add_argument("--run", help="follow this run instead of starting one")
    review.add_argument("--project", action="append", help="a project of the scope (repeat)")
    review.add_argument("--global", dest="is_global", action="store_true", help="Global scope")
    review.add_argument("--from", dest="start", type=datetime.fromisoformat)
    review.add_argument("--to", dest="end", type=datetime.fromisoformat)
    steer = review.add_mutually_exclusive_group()
    for action in ("pause", "cancel", "continue"):
        steer.add_argument(
            f"--{action}", dest="action", action="store_const", const=action, help=f"{action} --run"
        )
    scope = sub.add_parser("scope", help="list scopes with counts, or delete one (admin)")
    scope.add_argument("action", choices=["list", "delete"])
    scope.add_argument("scope", nargs="?", help="the scope to delete")
    search = sub.add_parser("search", help="hybrid search's vectors (EMBEDDING_BASE_URL)")
    search.add_argument("action", choices=["backfill"])
    search.add_argument("--scope", help="only this scope (default: every scope missing some)")
    search.add_argument(
        "--reset", action="store_true", help="forget every vector first (a new model)"
    )
    mcp = sub.add_parser("mcp", help="the MCP server over stdio (agents)")
    mcp.add_argument("--token", help="act as this API token (default: STORYGRAPH_TOKEN)")
    return p


def dispatch(args: argparse.Namespace, settings: Settings) -> None:
    commands: dict[str, Callable[[], None]] = {
        "up": lambda: _up(settings, not args.no_demo, args.redis_ha),
        "serve": lambda: _serve(settings, args.host, args.port, args.workers),
        "worker": lambda: _worker(settings),
        "neo4j": lambda: _neo4j(settings, args.action),
        "redis": lambda: _redis(settings, args.action),
        "down": lambda: _down(settings),
        "migrate": lambda: _migrate(settings),
        "demo": lambda: _demo(settings),
        "schema": lambda: _schema(args.check),
        "review": lambda: _review(settings, args),
        "mcp": lambda: _mcp(settings, args.token),
        "scope": lambda: _scope(settings, args.action, args.scope),
        "search": lambda: _search(settings, args),
    }
    commands[args.command]()


def main(argv: list[str] | None = None) -> None:
    from neo4j.exceptions import AuthError, ServiceUnavailable

    from api.auth import InsecureBinding
    from local.neo4j_server import LocalServiceError

    args = build_parser().parse_args(argv)
    try:
        dispatch(args, _settings())
    except (CliError, LocalServiceError, InsecureBinding) as exc:
        print(f"storygraph: {exc}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE) from None
    except (ServiceUnavailable, AuthError) as exc:
        settings = _settings()
        what = "refused our credentials" if isinstance(exc, AuthError) else "is not reachable"
        print(
            f"storygraph: Neo4j at {settings.effective_neo4j_uri} {what}; "
            "start the local one with `storygraph neo4j start` "
            "or check NEO4J_URI / NEO4J_PASSWORD.",
            file=sys.stderr,
        )
        raise SystemExit(EXIT_USAGE) from None
    except KeyboardInterrupt:
        raise SystemExit(130) from None


if __name__ == "__main__":
    main()
