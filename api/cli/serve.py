"""`storygraph serve [--host H] [--port P] [--workers N]`: the HTTP API."""

from __future__ import annotations

import argparse
import atexit
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import uvicorn
from uvicorn.supervisors import Multiprocess

from api.auth import check_binding
from api.listeners import BALANCED, WorkerListener
from engine.settings import Settings
from jobs.logs import configure_logging


def serve(
    settings: Settings, host: str | None, port: int | None, workers: int | None = None
) -> None:
    """One process, or `workers` uvicorn worker processes on one socket (default: one per
    core), each building its own app from the environment (`api.app.app_from_env`); they
    share only Neo4j and Redis (graphChanged fans out through Redis pub/sub)."""
    if host:
        settings = settings.model_copy(update={"api_host": host})
    if port:
        settings = settings.model_copy(update={"api_port": port})
    count = workers or settings.api_workers or os.cpu_count() or 1
    configure_logging(settings.log_level, settings.log_format)
    if count == 1:
        # imported here, not at the top: the app's metrics are created when it is imported,
        # and with several workers they must be created only after PROMETHEUS_MULTIPROC_DIR
        # is set up (_shared_metrics), in the workers
        from api.app import create_app

        app = create_app(settings)
        uvicorn.run(
            app, host=settings.api_host, port=settings.api_port, log_config=None, access_log=False
        )
        return
    check_binding(settings)  # refuse an open non-loopback binding here, once, not per worker
    _shared_metrics(settings)
    os.environ.update(API_HOST=settings.api_host, API_PORT=str(settings.api_port))
    workers_app: dict[str, Any] = {
        "factory": True,
        "workers": count,
        "host": settings.api_host,
        "port": settings.api_port,
        "log_config": None,
        "access_log": False,
    }
    if not BALANCED:
        uvicorn.run("api.app:app_from_env", **workers_app)
        return
    # each worker listens on its own SO_REUSEPORT socket (api/listeners.py): the kernel, not
    # the first worker awake, spreads the connections
    config = uvicorn.Config("api.app:app_from_env", **workers_app)
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


def command(args: argparse.Namespace, settings: Settings) -> None:
    serve(settings, args.host, args.port, args.workers)
