"""Heartbeat reports are readable and follow their plan's retention (docs/rules/reviews.md: 心跳报告沿用计划
的历史保留和删除规则; 删除报告或计划不重置来源进度), over real Neo4j, Redis and a real arq
worker, with the prompt-grounded review model."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta

import pytest

from engine.errors import NotFound
from engine.principal import WORKER
from engine.review import heartbeat as hb
from engine.review.checkpoints import CheckpointKey, Track
from engine.review.lifecycle import RunStatus
from engine.review.types import Scope
from jobs.deps import Deps
from jobs.review import plans, reads
from jobs.review.common import checkpoints_of, heartbeats_of
from jobs.review.heartbeat import claim_due, expire_history
from jobs.story.common import story_repo
from tests.support.grounded_review import review_answer
from tests.support.review_jobs import (
    BASE,
    conversation,
    push_conversation,
    run_worker,
    scope_activity,
)
from tests.support.scripted_model import ScriptedModelServer


def at(deps: Deps, moment: datetime) -> Deps:
    return dataclasses.replace(deps, clock=lambda: moment)


async def _plan(deps: Deps, scope: str, retention: timedelta) -> str:
    data = {
        "name": "每日回顾",
        "scope": Scope.projects(scope),
        "schedule": {"every": timedelta(hours=1), "anchor": BASE - timedelta(days=1)},
        "window": timedelta(days=7),
        "budget": {"per_batch": 100_000},
        "retention": retention,
    }
    return (await plans.save_plan(deps, WORKER, Scope.projects(scope), data)).config_id


async def _progress(deps: Deps, scope: str) -> list[dict[str, object]]:
    """Both tracks' source positions of `scope` (what 来源进度 means)."""
    store = checkpoints_of(deps)
    return [
        (await store.get(CheckpointKey.of(track, Scope.projects(scope)))).model_dump()["positions"]
        for track in (Track.REPORT, Track.SUPERVISION)
    ]


async def _heartbeat(deps: Deps) -> str:
    [claimed] = await claim_due(deps, WORKER)
    await run_worker(deps.settings)  # the report, then the automatic supervision
    return claimed.run_id


async def test_a_report_reads_back_and_goes_with_its_plans_retention_keeping_progress(
    deps: Deps, model_server: ScriptedModelServer, scope: str
) -> None:
    model_server.answer_with(review_answer)
    await push_conversation(deps, scope, "chat-1", conversation(5))
    config_id = await _plan(deps, scope, retention=timedelta(hours=2))
    beat_id = await _heartbeat(deps)

    beat, report = await reads.heartbeat_run(deps, WORKER, beat_id)
    assert beat.state is hb.HeartbeatState.COMPLETED and beat.supervision_run_id
    assert report == "报告：5 段新内容"  # the model's answer for the five new messages
    run = await reads.get_run(deps, WORKER, beat.supervision_run_id)
    assert run.status is RunStatus.COMPLETED and run.result_id
    progress = await _progress(deps, scope)
    assert all(progress), "both tracks moved past the five messages"

    claimed = beat.claimed_at
    assert await expire_history(at(deps, claimed + timedelta(hours=1)), WORKER) == 0
    assert (await reads.heartbeat_run(deps, WORKER, beat_id))[1] == report  # kept 2 hours
    assert await expire_history(at(deps, claimed + timedelta(hours=2, minutes=1)), WORKER) == 1
    with pytest.raises(NotFound):
        await reads.heartbeat_run(deps, WORKER, beat_id)

    # the supervision run and its result stay readable; activity shows the run on its own
    assert (await reads.get_run(deps, WORKER, run.run_id)).status is RunStatus.COMPLETED
    result = await story_repo(deps).result(scope, run.result_id)
    assert result.result.id == run.result_id and result.events  # its facts are there
    rows = await scope_activity(deps, scope)
    assert [(r.supervision_run_id, r.result_id) for r in rows] == [(run.run_id, run.result_id)]
    # removing the report reset no source progress: the next heartbeat finds nothing new
    assert await _progress(deps, scope) == progress
    await plans.run_plan_now(deps, WORKER, config_id)
    calls = model_server.calls
    await run_worker(deps.settings)
    assert model_server.calls == calls, "no model request: nothing pending"


async def test_deleting_a_plan_resets_no_source_progress(
    deps: Deps, model_server: ScriptedModelServer, scope: str
) -> None:
    model_server.answer_with(review_answer)
    await push_conversation(deps, scope, "chat-1", conversation(5))
    config_id = await _plan(deps, scope, retention=timedelta(days=1))
    beat_id = await _heartbeat(deps)
    progress = await _progress(deps, scope)
    await plans.delete_plan(deps, WORKER, config_id)

    assert await _progress(deps, scope) == progress
    # the deleted plan's report stays readable until the default retention (30 days)
    assert (await reads.heartbeat_run(deps, WORKER, beat_id))[1] == "报告：5 段新内容"
    assert await expire_history(at(deps, BASE + timedelta(days=3)), WORKER) == 0
    # a new plan of the same scope starts from the progress already made
    again = await _plan(deps, scope, retention=timedelta(days=1))
    beat = await plans.run_plan_now(deps, WORKER, again)
    calls = model_server.calls
    await run_worker(deps.settings)
    assert model_server.calls == calls
    done = await heartbeats_of(deps).get(beat.run_id)
    assert done.state is hb.HeartbeatState.NO_CHANGE
