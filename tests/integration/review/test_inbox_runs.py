"""Stopped supervision runs in the inbox: a run paused over its token budget
and a run that failed wait for a person as PAUSED_RUN and FAILED_RUN items, newest first
beside the suggestions, with what happened, when, why and the mutations that act on them;
counted per kind for badges; continuing a run takes it out of the inbox."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engine.clock import epoch_us
from engine.errors import InvalidInput
from engine.principal import WORKER
from engine.review import lifecycle as lc
from engine.review.types import Scope
from engine.story.inbox import counts
from jobs.deps import Deps
from jobs.review.common import runs_of
from jobs.review.runs import Opened, continue_review, open_run
from jobs.story.inbox import inbox, inbox_counts
from tests.support.grounded_review import review_answer
from tests.support.review_jobs import (
    BASE,
    conversation,
    per_batch_for,
    push_conversation,
    run_worker,
)
from tests.support.scripted_model import LoggedRequest, ScriptedModelServer, ScriptedReply, status


async def start(deps: Deps, scope: str, source: str) -> str:
    body = conversation(30)
    await push_conversation(deps, scope, source, body)
    got = await open_run(
        deps,
        Scope.projects(scope),
        interval=(BASE - timedelta(hours=1), BASE + timedelta(days=1)),
        per_batch=per_batch_for(body, 2),
    )
    assert isinstance(got, Opened)
    return got.run.run_id


async def test_failed_and_paused_runs_wait_in_the_inbox_until_continued(
    deps: Deps, model_server: ScriptedModelServer, scope: str
) -> None:
    refuse = {"on": True}

    def refuse_leaves(req: LoggedRequest) -> ScriptedReply:
        if refuse["on"]:
            return status(400, "scripted: this batch is refused")
        return review_answer(req)

    model_server.answer_with(refuse_leaves)
    failed_id = await start(deps, scope, "chat-1")
    await run_worker(deps.settings)
    assert (await runs_of(deps).get(failed_id)).run.status is lc.RunStatus.FAILED

    refuse["on"] = False
    budget = deps.settings.model_copy(update={"review_run_token_budget": 1})
    paused_id = await start(deps, scope, "chat-2")
    await run_worker(budget)
    assert (await runs_of(deps).get(paused_id)).run.status is lc.RunStatus.PAUSED

    page = await inbox(deps, WORKER, scope, kinds=None, first=10, after=None)
    runs = [i.run for i in page.items if i.run is not None]
    assert [r.run_id for r in runs] == [paused_id, failed_id]  # newest first
    paused, failed = runs
    assert paused.kind == "PAUSED_RUN" and paused.actions == ("continueReview", "cancelReview")
    assert paused.pause_reason and "token" in paused.reason("en")
    assert failed.kind == "FAILED_RUN" and failed.actions == ("continueReview",)
    assert failed.error_stage == "leaves" and "rejected the request (400)" in failed.reason("en")
    assert failed.what("en") == "supervision run failed at the leaves stage"
    assert failed.at >= failed.created_at and paused.at > failed.at

    # keyset paging: one item a page, the cursor is (time, id) of the last one
    first = await inbox(
        deps, WORKER, scope, kinds=["PAUSED_RUN", "FAILED_RUN"], first=1, after=None
    )
    assert [i.id for i in first.items] == [paused_id] and first.has_next
    (last,) = first.items
    rest = await inbox(
        deps, WORKER, scope, kinds=["FAILED_RUN"], first=1, after=(epoch_us(last.at), last.id)
    )
    assert [i.id for i in rest.items] == [failed_id] and not rest.has_next
    only_paused = await inbox(deps, WORKER, scope, kinds=["paused_run"], first=5, after=None)
    assert [i.id for i in only_paused.items] == [paused_id]

    badges = await inbox_counts(deps, WORKER, scope)
    assert badges["FAILED_RUN"] == 1 and badges["PAUSED_RUN"] == 1

    await continue_review(deps, WORKER, failed_id)
    badges = await inbox_counts(deps, WORKER, scope)
    assert badges["FAILED_RUN"] == 0 and badges["PAUSED_RUN"] == 1
    page = await inbox(deps, WORKER, scope, kinds=None, first=10, after=None)
    assert failed_id not in [i.id for i in page.items]


async def test_unknown_kinds_are_invalid_and_counts_name_every_kind(deps: Deps, scope: str) -> None:
    with pytest.raises(InvalidInput):
        await inbox(deps, WORKER, scope, kinds=["STALLED_RUN"], first=5, after=None)
    assert counts({}) == {"FIELD": 0, "DIFFERENCE": 0, "FAILED_RUN": 0, "PAUSED_RUN": 0}
