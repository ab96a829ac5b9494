"""The `storygraph` command line: its parser, and each command's module loaded only when that
command runs (`neo4j status` does not import the HTTP app)."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable
from datetime import datetime

from neo4j.exceptions import AuthError, ServiceUnavailable

from api.auth import InsecureBinding
from api.cli.common import EXIT_USAGE, CliError, load_settings
from engine.settings import Settings
from local.process import LocalServiceError

Command = Callable[[argparse.Namespace, Settings], None]

# each command: "module:function" under api.cli, imported when it runs
COMMANDS: dict[str, str] = {
    "up": "stack:up_command",
    "serve": "serve:command",
    "worker": "worker:command",
    "neo4j": "servers:neo4j_command",
    "redis": "servers:redis_command",
    "down": "servers:down_command",
    "migrate": "stack:migrate_command",
    "demo": "stack:demo_command",
    "schema": "schema:command",
    "review": "review:command",
    "mcp": "mcp:command",
    "scope": "scope:command",
    "search": "search:command",
}


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


def command(name: str) -> Command:
    module, function = COMMANDS[name].split(":")
    found: Command = getattr(importlib.import_module(f"api.cli.{module}"), function)
    return found


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    try:
        settings = load_settings()
        command(args.command)(args, settings)
    except (CliError, LocalServiceError, InsecureBinding) as exc:
        print(f"storygraph: {exc}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE) from None
    except (ServiceUnavailable, AuthError) as exc:
        settings = load_settings()
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
