"""The review repositories and timings, built from a use case's `Deps` (jobs/README.md).

`ReviewServices.from_deps(deps)` is the one way a review use case gets its resources: the
`Deps` an API request or an arq job carries (settings, driver, pool, clock, ids, worker id),
plus the model gateway a worker opened at start-up (`from_ctx`).
Timings a run keeps are fixed here: the stage timeout is frozen into the run when it is
created (seed 004: 监督超时在 run 创建时保存), and the lease outlives the longest model request.
Model work of reviews queues in the FIFO pool (`review_pool`, bounded by `pool_slots`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from arq.connections import ArqRedis
from neo4j import AsyncDriver

from engine.clock import Clock, utcnow
from engine.ids import Ids, new_id
from engine.review.navigation import DEFAULT_FANOUT
from engine.review.pool import DEFAULT_SLOTS, PoolTimings
from engine.settings import Settings
from graph.review.activity import ActivityReads
from graph.review.app import AppSettingsStore, PlanStore
from graph.review.checkpoints import Checkpoints
from graph.review.heartbeats import HeartbeatRuns
from graph.review.known import KnownEntities, KnownEvents
from graph.review.lease import ReviewLease
from graph.review.runs import SupervisionRuns
from graph.review.sources import ReviewSources
from jobs.deps import Deps
from jobs.review.model import Gateway
from jobs.review.pool import ReviewPool

DEFAULT_PER_BATCH = 4000  # characters of source text per leaf batch
DEFAULT_WINDOW = timedelta(days=30)  # review window when a run has no plan
QUEUED = "queued"  # worker id of a run no worker has picked up yet


@dataclass
class ReviewServices:
    settings: Settings
    driver: AsyncDriver
    worker_id: str
    pool: ArqRedis | None = None
    gateway: Gateway | None = None
    clock: Clock = utcnow
    ids: Ids = new_id
    pool_slots: int = DEFAULT_SLOTS  # review_pool_slots: the FIFO pool's bound
    nav_fanout: int = DEFAULT_FANOUT  # children per navigation node
    runs: SupervisionRuns = field(init=False)
    lease: ReviewLease = field(init=False)
    checkpoints: Checkpoints = field(init=False)
    sources: ReviewSources = field(init=False)
    known: KnownEntities = field(init=False)
    known_events: KnownEvents = field(init=False)
    heartbeats: HeartbeatRuns = field(init=False)
    app: AppSettingsStore = field(init=False)
    plans: PlanStore = field(init=False)
    activity: ActivityReads = field(init=False)

    def __post_init__(self) -> None:
        args = (self.driver, self.settings.neo4j_database, self.deployment)
        self.runs = SupervisionRuns(*args)
        self.lease = ReviewLease(*args)
        self.checkpoints = Checkpoints(*args)
        self.sources = ReviewSources(*args)
        self.known = KnownEntities(*args)
        self.known_events = KnownEvents(*args)
        self.heartbeats = HeartbeatRuns(*args)
        self.app = AppSettingsStore(*args)
        self.plans = PlanStore(*args)
        self.activity = ActivityReads(*args)

    @property
    def deployment(self) -> str:
        return self.settings.queue_name

    @property
    def stage_timeout(self) -> timedelta:
        return timedelta(seconds=self.settings.model_deadline_seconds)

    @property
    def lease_ttl(self) -> timedelta:
        """Longer than one model request, so a live holder renews before it expires."""
        return self.stage_timeout + timedelta(seconds=60)

    @property
    def review_pool(self) -> ReviewPool:
        """The supervision FIFO pool shared by every worker on this queue (seed 004)."""
        if self.pool is None:
            raise RuntimeError("the review pool needs the worker's Redis connection")
        return ReviewPool(
            self.pool, self.settings.queue_name, timings=PoolTimings(slots=self.pool_slots)
        )

    def now(self) -> datetime:
        return self.clock()

    @property
    def deps(self) -> Deps:
        return Deps(
            settings=self.settings,
            driver=self.driver,
            pool=self.pool,
            clock=self.clock,
            ids=self.ids,
            worker_id=self.worker_id,
        )

    @classmethod
    def from_deps(cls, deps: Deps, *, gateway: Gateway | None = None) -> ReviewServices:
        return cls(
            settings=deps.settings,
            driver=deps.driver,
            worker_id=deps.worker_id,
            pool=deps.pool,
            gateway=gateway,
            clock=deps.clock,
            ids=deps.ids,
        )

    @classmethod
    def from_ctx(cls, ctx: Mapping[str, Any]) -> ReviewServices:
        """A worker's: its job's `Deps` plus the gateway opened in `review_startup`."""
        return cls.from_deps(Deps.from_ctx(ctx), gateway=ctx.get("gateway"))
