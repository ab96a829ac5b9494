"""`storygraph schema export [--check]`: the GraphQL SDL in schema.graphql."""

from __future__ import annotations

import argparse

from api.cli.common import CliError
from api.schema import sdl
from engine.settings import PROJECT_ROOT, Settings


def command(args: argparse.Namespace, settings: Settings) -> None:
    path = PROJECT_ROOT / "schema.graphql"
    text = sdl()
    if args.check:
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            raise CliError("schema.graphql differs from the code: run `storygraph schema export`.")
        print("schema.graphql matches the code.")
        return
    path.write_text(text, encoding="utf-8")
    print(f"Wrote {path}")
