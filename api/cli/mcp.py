"""`storygraph mcp [--token T]`: the MCP server over stdio, for a local agent host."""

from __future__ import annotations

import argparse
import asyncio
import os

from api.cli.common import CliError
from api.mcp.server import serve_stdio
from engine.settings import Settings
from jobs.logs import configure_logging


def command(args: argparse.Namespace, settings: Settings) -> None:
    configure_logging(settings.log_level, settings.log_format)  # stderr: stdout is the protocol
    try:
        asyncio.run(serve_stdio(settings, args.token or os.environ.get("STORYGRAPH_TOKEN")))
    except PermissionError as exc:
        raise CliError(str(exc)) from None
