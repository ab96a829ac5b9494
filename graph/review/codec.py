"""Review models <-> Neo4j property maps.

A supervision run is stored as a `SupervisionRun` node (its scalar fields, the source
manifest, and a JSON document of the rest) plus one node per stage, leaf batch and
navigation node. Those records are what progress and `next_step` read back, so a run
rebuilt from Neo4j is exactly the run that was committed. Times are stored as Neo4j
DateTimes in UTC through `graph.temporal`, the one codec for instants (migration 066 turned
the ISO text stored before into DateTimes).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from engine.clock import EPOCH
from engine.review.compose import story_scope
from engine.review.lifecycle import SupervisionRun
from engine.review.manifest import LeafBatch, NavigationNode
from engine.review.stages import StageRecord
from engine.review.types import STAGE_ORDER
from graph.temporal import from_neo4j, to_neo4j


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


@dataclass(frozen=True)
class RunOptions:
    """What an automatic run reads besides the engine's run: the plan's window and budget."""

    window: timedelta | None = None
    per_run: int | None = None


@dataclass(frozen=True)
class StoredRun:
    run: SupervisionRun
    options: RunOptions


def run_row(run: SupervisionRun, deployment: str, options: RunOptions) -> dict[str, Any]:
    doc = run.model_dump(mode="json", exclude={"stages", "ledger"})
    manifest = run.ledger.manifest.model_dump(mode="json")
    return {
        "id": run.run_id,
        "deployment": deployment,
        "scope": story_scope(run.scope),
        "scope_key": run.scope.key,
        "status": run.status.value,
        "stopped": run.stopped,
        "worker_id": run.worker_id,
        "trigger": run.trigger.value,
        "mode": run.mode.value,
        "created_at": to_neo4j(run.created_at),
        "updated_at": to_neo4j(run.updated_at),
        "ended_at": to_neo4j(run.ended_at),
        "heartbeat_run_id": run.heartbeat_run_id,
        "result_id": run.result_id,
        "outcome": run.outcome.value if run.outcome else None,
        "error": dumps(run.error.model_dump(mode="json")) if run.error else None,
        "doc": dumps(doc),
        "manifest": dumps(manifest),
        "window_s": options.window.total_seconds() if options.window else None,
        "per_run": options.per_run,
    }


def stage_rows(run: SupervisionRun) -> list[dict[str, Any]]:
    return [
        {
            "stage": r.stage.value,
            "state": r.state.value,
            "started_at": to_neo4j(r.started_at),
            "ended_at": to_neo4j(r.ended_at),
            "error": r.error,
        }
        for r in run.stages.records
    ]


def batch_row(batch: LeafBatch, output: str | None = None) -> dict[str, Any]:
    row: dict[str, Any] = {
        "index": batch.index,
        "segments": dumps([s.model_dump(mode="json") for s in batch.segments]),
        "state": batch.state.value,
        "output_id": batch.output_id,
        "committed_at": to_neo4j(batch.committed_at),
        "attempts": batch.attempts,
        "error": batch.error,
    }
    if output is not None:
        row["output"] = output
    return row


def node_row(node: NavigationNode, output: str | None = None) -> dict[str, Any]:
    row: dict[str, Any] = {
        "node_id": node.node_id,
        "leaves": sorted(node.leaves),
        "output_id": node.output_id,
        "committed_at": to_neo4j(node.committed_at),
        "is_root": node.is_root,
    }
    if output is not None:
        row["output"] = output
    return row


def load_run(record: Any) -> StoredRun:
    props = record["run"]
    doc = json.loads(props["doc"])
    order = {s.value: i for i, s in enumerate(STAGE_ORDER)}
    stages = sorted(_decoded(record["stages"]), key=lambda s: order[s["stage"]])
    batches = sorted(_decoded(record["batches"]), key=lambda b: b["index"])
    nodes = sorted(
        _decoded(record["nodes"]), key=lambda n: (n["committed_at"] or EPOCH, n["node_id"])
    )
    ledger = {
        "manifest": json.loads(props["manifest"]),
        "batches": [
            {
                **{k: v for k, v in b.items() if k != "segments"},
                "segments": json.loads(b["segments"]),
            }
            for b in batches
        ],
        "nodes": [{**n, "leaves": frozenset(n["leaves"])} for n in nodes],
    }
    records = [StageRecord.model_validate(s) for s in stages]
    run = SupervisionRun.model_validate(
        {**doc, "stages": {"records": records} if records else {}, "ledger": ledger}
    )
    window = props.get("window_s")
    return StoredRun(
        run=run,
        options=RunOptions(
            window=timedelta(seconds=window) if window is not None else None,
            per_run=props.get("per_run"),
        ),
    )


def _decoded(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Record maps with their Neo4j DateTimes as stdlib-UTC datetimes."""
    return [{k: from_neo4j(v) for k, v in row.items()} for row in rows]
