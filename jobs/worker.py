"""The arq worker: its own Neo4j driver opened in on_startup and closed in on_shutdown.

`storygraph worker` builds Settings once and calls `run(settings)`; tests run the same
`create_worker(settings)` in burst mode or as a subprocess.
"""

from __future__ import annotations

import logging
import os
import socket
from typing import Any

import httpx
from arq.connections import ArqRedis
from arq.cron import CronJob, cron
from arq.worker import func
from neo4j import AsyncDriver
from prometheus_client import REGISTRY, start_http_server

from engine.llm.accounting import Accounting
from engine.settings import Settings
from graph.driver import open_driver
from graph.startup import migrate_when_available
from jobs.llm.embeddings import build_embedder
from jobs.llm.gateway import ModelGateway, build_gateway
from jobs.llm.metrics import ModelCollector, StageTokenCollector
from jobs.redis_client import queue_pool
from jobs.resilient_worker import ResilientWorker
from jobs.serialization import SERIALIZERS
from jobs.tasks.concern_loop import advance_concern, settle_concern_answer
from jobs.tasks.concern_scheduler import (
    deliver_concern_outbox,
    run_concern_scheduler,
    scheduler_cron,
)
from jobs.tasks.heartbeat import (
    heartbeat_report,
    heartbeat_retention,
    heartbeat_tick,
    supervise_automatic,
)
from jobs.tasks.probe import probe
from jobs.tasks.reconcile import reconcile_cron
from jobs.tasks.review import supervise
from jobs.tasks.review_worker import review_shutdown, review_startup
from jobs.tasks.search_embed import RETRY_TRIES, embed_scope, embed_sweep_cron
from jobs.tasks.signal_effects import perform_signal_effect
from jobs.tasks.watch import WATCH_FUNCTIONS
from jobs.tasks.watch_heartbeat import watch_heartbeat_tick

log = logging.getLogger("storygraph.worker")

FUNCTIONS = [
    func(probe, name="probe", max_tries=3),
    func(advance_concern, name="advance_concern", max_tries=8),
    func(settle_concern_answer, name="settle_concern_answer", max_tries=200),  # waits: lease
    func(deliver_concern_outbox, name="deliver_concern_outbox", max_tries=8),
    func(run_concern_scheduler, name="run_concern_scheduler", max_tries=2),
    func(perform_signal_effect, name="perform_signal_effect", max_tries=8),
    *WATCH_FUNCTIONS,
    func(supervise, name="supervise", max_tries=20),
    func(heartbeat_report, name="heartbeat_report", max_tries=20),
    func(supervise_automatic, name="supervise_automatic", max_tries=200),
    func(embed_scope, name="embed_scope", max_tries=RETRY_TRIES, keep_result=0),
]

# Cron slots: schedulers of later capabilities (concern scans, due heartbeat plans) register
# here; each cron job must be idempotent because arq may run it on several workers.
CRON_JOBS: list[CronJob] = [
    scheduler_cron(),
    cron(heartbeat_tick, name="heartbeat_tick", second=0, run_at_startup=True, unique=True),
    cron(watch_heartbeat_tick, name="watch_heartbeat_tick", minute={0, 30}, second=0, unique=True),
    cron(heartbeat_retention, name="heartbeat_retention", minute=17, second=0, unique=True),
    reconcile_cron(),
    embed_sweep_cron(),
]


def worker_context(
    settings: Settings,
    *,
    driver: AsyncDriver,
    http: httpx.AsyncClient,
    worker_id: str | None = None,
    redis: ArqRedis | None = None,
    gateway: ModelGateway | None = None,
) -> dict[str, Any]:
    """What a job finds in its ctx: settings, worker id, Neo4j driver, the process's one
    httpx client, model accounting and one model gateway (docs/rules/watches.md policy lives
    in the gateway; the job that calls it records the retries on its run).

    `on_startup` fills a worker's ctx with it (arq adds `redis`); tests that call a job
    function directly build the same ctx from their own driver, client and pool.
    """
    accounting = getattr(gateway, "accounting", None) or Accounting(settings.model_concurrency)
    ctx: dict[str, Any] = {
        "settings": settings,
        "worker_id": worker_id or f"{socket.gethostname()}:{os.getpid()}",
        "driver": driver,
        "http": http,
        "accounting": accounting,
        "gateway": gateway or build_gateway(settings, http=http, accounting=accounting),
        # hybrid search's embeddings client (None without EMBEDDING_BASE_URL)
        "embedder": build_embedder(settings, http, accounting=accounting),
    }
    if redis is not None:
        ctx["redis"] = redis
    return ctx


def _on_startup(settings: Settings):  # type: ignore[no-untyped-def]
    async def on_startup(ctx: dict[str, Any]) -> None:
        ctx["settings"] = settings
        ctx["worker_id"] = f"{socket.gethostname()}:{os.getpid()}"
        ctx["driver"] = open_driver(settings)
        # started during a Neo4j outage: wait for it here (jobs stay queued), then migrate
        await migrate_when_available(ctx["driver"], settings.neo4j_database)
        ctx.update(
            worker_context(
                settings,
                driver=ctx["driver"],
                http=httpx.AsyncClient(),
                worker_id=ctx["worker_id"],
            )
        )
        if settings.worker_metrics_port:
            REGISTRY.register(ModelCollector(ctx["accounting"]))
            REGISTRY.register(StageTokenCollector())
            start_http_server(settings.worker_metrics_port, addr="127.0.0.1")
        await review_startup(ctx)
        fields = {"worker_id": ctx["worker_id"], "queue": settings.queue_name}
        log.info("worker started", extra={"fields": fields})

    return on_startup


async def _on_shutdown(ctx: dict[str, Any]) -> None:
    await review_shutdown(ctx)
    if ctx.get("http") is not None:
        await ctx["http"].aclose()
    driver = ctx.get("driver")
    if driver is not None:
        await driver.close()
    log.info("worker stopped", extra={"fields": {"worker_id": ctx.get("worker_id")}})


def create_worker(
    settings: Settings, *, burst: bool = False, crons: bool = True
) -> ResilientWorker:
    """The worker process's arq worker; tests of one job kind run it in burst mode, without
    the crons (which would add their own jobs)."""
    return ResilientWorker(
        functions=FUNCTIONS,
        cron_jobs=CRON_JOBS if crons else [],
        # the one pool factory (jobs/redis_client.py): Sentinel or URL, replicated enqueues
        redis_pool=queue_pool(settings),
        queue_name=settings.queue_name,
        on_startup=_on_startup(settings),
        on_shutdown=_on_shutdown,
        burst=burst,
        handle_signals=not burst,
        max_jobs=10,
        job_timeout=600,
        keep_result=3600,
        health_check_interval=30,
        **SERIALIZERS,
    )


def worker_for(settings: Settings) -> ResilientWorker:
    """`storygraph worker`'s worker: the crons run unless WORKER_CRONS is false."""
    return create_worker(settings, crons=settings.worker_crons)


def run(settings: Settings) -> None:
    worker_for(settings).run()
