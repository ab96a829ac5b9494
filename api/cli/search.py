"""`storygraph search backfill [--scope S] [--reset]`: compute the vectors hybrid search is
missing, from a terminal, with progress.

Embeds, scope by scope (the given one, else every scope with texts that have no vector), the
same way the background jobs do (`jobs.search.embed.embed_scope`: each batch committed and
recorded on an embed run), printing a line per batch. `--reset` first forgets every vector
and the vector index (after a change of EMBEDDING_MODEL or EMBEDDING_DIMENSIONS, which is
refused otherwise). The terminal acts as an admin of every scope, like `storygraph scope`.
"""

from __future__ import annotations

import argparse
import asyncio

import httpx

from api.cli.common import CLI_PRINCIPAL, CliError
from engine.errors import StorygraphError
from engine.settings import Settings
from graph.driver import open_driver
from jobs.deps import Deps
from jobs.llm.embeddings import build_embedder
from jobs.search.embed import embed_scope, reset_vectors, scopes_to_embed


class NoEndpoint(Exception):
    """EMBEDDING_BASE_URL is not set: there is nothing to embed with."""


async def _run(settings: Settings, scope: str | None, reset: bool) -> None:
    async with httpx.AsyncClient() as http:
        embedder = build_embedder(settings, http)
        if embedder is None:
            raise NoEndpoint(
                "EMBEDDING_BASE_URL is not set: search is lexical and there is nothing to "
                "embed with (set EMBEDDING_BASE_URL, EMBEDDING_MODEL, EMBEDDING_DIMENSIONS)"
            )
        driver = open_driver(settings)
        try:
            deps = Deps(settings=settings, driver=driver, pool=None, worker_id="cli")
            if reset:
                cleared = await reset_vectors(deps, CLI_PRINCIPAL)
                print(f"reset: forgot {cleared} vectors and the vector index", flush=True)
            scopes = [scope] if scope else await scopes_to_embed(deps, CLI_PRINCIPAL)
            if not scopes:
                print("every searchable text has its vector", flush=True)
            for name in scopes:

                def show(embedded: int, missing: int, name: str = name) -> None:
                    print(f"{name}: embedded {embedded}, {missing} still missing", flush=True)

                report = await embed_scope(deps, CLI_PRINCIPAL, embedder, name, progress=show)
                print(
                    f"{name}: {report.status} — {report.embedded} embedded, "
                    f"{report.missing} missing (embed run {report.run_id or '-'})"
                    + (
                        f"; {report.cut} texts longer than the model takes were embedded up to "
                        "a sentence end"
                        if report.cut
                        else ""
                    ),
                    flush=True,
                )
        finally:
            await driver.close()


def run(settings: Settings, scope: str | None, reset: bool) -> None:
    asyncio.run(_run(settings, scope, reset))


def command(args: argparse.Namespace, settings: Settings) -> None:
    try:
        run(settings, args.scope, args.reset)
    except (StorygraphError, NoEndpoint) as exc:
        raise CliError(str(exc)) from None
