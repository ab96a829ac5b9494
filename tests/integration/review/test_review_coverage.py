"""A review over sources that became unavailable records what it covered and what it missed,
with why, and is never presented as complete (docs/rules/reviews.md: 部分来源不可用…显示已覆盖与遗漏范围；
部分结果不标为完整). Real Neo4j, Redis, a real arq worker and the prompt-grounded model."""

from __future__ import annotations

from datetime import timedelta

from engine.principal import WORKER
from engine.review import lifecycle as lc
from engine.review.activity import ActivityStatus
from engine.review.runner import StepKind, next_step
from engine.review.types import MissedRange, MissReason, Scope, Segment
from engine.story.models import Actor
from jobs.deps import Deps
from jobs.review import reads
from jobs.review.common import runs_of
from jobs.review.execution import Execution
from jobs.review.model import Gateway
from jobs.review.runs import Opened, open_run, start_review
from jobs.story.common import story_repo
from tests.support.grounded_review import leaf_requests, review_answer
from tests.support.review_jobs import (
    BASE,
    conversation,
    push_conversation,
    run_worker,
    scope_activity,
)
from tests.support.scripted_model import ScriptedModelServer

APP = Actor.user("app")
WINDOW = (BASE - timedelta(hours=1), BASE + timedelta(days=1))


async def _activity_row(deps: Deps, scope: str, run_id: str) -> tuple[ActivityStatus, int]:
    [row] = [r for r in await scope_activity(deps, scope) if r.supervision_run_id == run_id]
    return row.status, row.missed


async def test_a_source_withdrawn_before_the_review_is_reported_missed_not_complete(
    deps: Deps, model_server: ScriptedModelServer, scope: str
) -> None:
    model_server.answer_with(review_answer)
    body = conversation(4)
    await push_conversation(deps, scope, "chat-1", body)
    await push_conversation(deps, scope, "chat-2", conversation(3))
    await story_repo(deps).withdraw_source(
        scope, "chat-2", "v1", reason="用户删除", by=APP, now=deps.clock()
    )

    run = await start_review(deps, WORKER, Scope.projects(scope), *WINDOW)
    await run_worker(deps.settings)
    done = await reads.get_run(deps, WORKER, run.run_id)
    assert done.status is lc.RunStatus.COMPLETED and done.result_id, done.error
    assert not done.complete
    assert done.display_status is lc.DisplayStatus.PARTIAL  # never plain "completed"
    assert done.missed == (
        MissedRange(source_id="chat-2", version="v1", reason=MissReason.WITHDRAWN),
    )
    assert done.covered() == [Segment(source_id="chat-1", version="v1", start=0, end=len(body))]
    assert {s["source_id"] for r in leaf_requests(model_server) for s in r["segments"]} == {
        "chat-1"
    }

    result = (await story_repo(deps).result(scope, done.result_id)).result
    assert result.complete is False
    assert result.coverage is not None and '"reason":"withdrawn"' in result.coverage
    assert await _activity_row(deps, scope, run.run_id) == (ActivityStatus.PARTIAL, 1)


async def test_text_gone_after_collection_is_missed_not_read_as_empty(
    deps: Deps, gateway: Gateway, model_server: ScriptedModelServer, scope: str
) -> None:
    model_server.answer_with(review_answer)
    body = conversation(4)
    await push_conversation(deps, scope, "chat-1", body)
    await push_conversation(deps, scope, "chat-2", conversation(2))
    got = await open_run(deps, Scope.projects(scope), interval=WINDOW, enqueue=False)
    assert isinstance(got, Opened)
    execution = Execution(deps, got.run.run_id, got.owner, got.token, gateway=gateway)
    stored = await runs_of(deps).get(got.run.run_id)
    while next_step(stored.run).kind is not StepKind.LEAF:  # collected: both sources planned
        assert await execution.step(stored)
        stored = await runs_of(deps).get(got.run.run_id)
    planned = {s.source_id for b in stored.run.ledger.batches for s in b.segments}
    assert planned == {"chat-1", "chat-2"}

    await story_repo(deps).withdraw_source(
        scope, "chat-1", "v1", reason="用户删除", by=APP, now=deps.clock()
    )
    assert await execution.run() == "partial"  # a source it could not read
    done = (await runs_of(deps).get(got.run.run_id)).run
    assert not done.complete
    assert done.missed == (
        MissedRange(
            source_id="chat-1", version="v1", start=0, end=len(body), reason=MissReason.GONE
        ),
    )
    assert [s.source_id for s in done.covered()] == ["chat-2"]
    sent = [s for r in leaf_requests(model_server) for s in r["segments"]]
    assert sent and all(s["source_id"] == "chat-2" and s["text"] for s in sent)

    assert done.result_id is not None
    result = (await story_repo(deps).result(scope, done.result_id)).result
    assert result.complete is False and '"reason":"gone"' in (result.coverage or "")
    assert await _activity_row(deps, scope, done.run_id) == (ActivityStatus.PARTIAL, 1)


async def test_a_review_that_read_everything_is_complete(
    deps: Deps, model_server: ScriptedModelServer, scope: str
) -> None:
    model_server.answer_with(review_answer)
    await push_conversation(deps, scope, "chat-1", conversation(3))
    run = await start_review(deps, WORKER, Scope.projects(scope), *WINDOW)
    await run_worker(deps.settings)
    done = await reads.get_run(deps, WORKER, run.run_id)
    assert done.complete and done.missed == () and done.result_id
    assert (await story_repo(deps).result(scope, done.result_id)).result.complete
    assert await _activity_row(deps, scope, run.run_id) == (ActivityStatus.COMPLETED, 0)
