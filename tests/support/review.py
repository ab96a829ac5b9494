"""Review-engine test values: the clock `T0`, and supervision runs built at a given point of
their life through the engine's own steps."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from engine.review import lifecycle as lc
from engine.review.manifest import ManifestPage, NavigationNode, next_pending
from engine.review.types import Scope, Segment, Trigger

T0 = datetime(2026, 9, 23, 9, 0, tzinfo=UTC)
SCOPE = Scope.projects("p1")


def seg(source: str, start: int, end: int, version: str = "v1") -> Segment:
    return Segment(source_id=source, version=version, start=start, end=end)


def new_run(
    run_id: str = "r1",
    *,
    mode: lc.ReviewMode = lc.ReviewMode.INCREMENTAL,
    trigger: Trigger = Trigger.AUTOMATIC,
    per_batch: int = 100,
    scope: Scope = SCOPE,
    worker_id: str = "w1",
    heartbeat_run_id: str | None = None,
) -> lc.SupervisionRun:
    return lc.create_run(
        run_id=run_id,
        scope=scope,
        trigger=trigger,
        mode=mode,
        worker_id=worker_id,
        per_batch=per_batch,
        stage_timeout=timedelta(minutes=5),
        now=T0,
        heartbeat_run_id=heartbeat_run_id,
        interval=(T0 - timedelta(days=1), T0) if mode is lc.ReviewMode.INTERVAL else None,
    )


def collected(run: lc.SupervisionRun, *segments: Segment) -> lc.SupervisionRun:
    run = lc.add_manifest_page(run, ManifestPage(segments=segments), now=T0)
    return lc.finish_collect(run, now=T0).state


def commit_all_leaves(run: lc.SupervisionRun) -> lc.SupervisionRun:
    while (batch := next_pending(run.ledger)) is not None:
        run = lc.commit_leaf(run, batch.index, f"leaf-{batch.index}", now=T0)
    return run


def leaves_done(run: lc.SupervisionRun) -> lc.SupervisionRun:
    return lc.finish_leaves(commit_all_leaves(run), now=T0)


def root_node(run: lc.SupervisionRun) -> NavigationNode:
    return NavigationNode(
        node_id="root",
        leaves=frozenset(b.index for b in run.ledger.batches),
        output_id="nav-root",
        committed_at=T0,
        is_root=True,
    )


def navigated(run: lc.SupervisionRun) -> lc.SupervisionRun:
    run = lc.commit_navigation_node(run, root_node(run), now=T0)
    return lc.finish_navigation(run, now=T0)


def ready_to_publish(run: lc.SupervisionRun, *segments: Segment) -> lc.SupervisionRun:
    return navigated(leaves_done(collected(run, *segments)))
