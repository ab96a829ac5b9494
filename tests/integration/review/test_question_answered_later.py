"""An open question answered in a later version of its conversation (docs/rules/reviews.md):
the review that reads the answer records the question's signal ANSWERED, by its run, citing
the answer's line; nothing else is written twice. The asker speaking again is no answer.
Default offline model, real Neo4j, Redis and workers."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engine.clock import utcnow
from engine.principal import OPEN_PRINCIPAL
from engine.signal.model import SignalKind, SignalStatus
from engine.signal.stored import Signal
from engine.story.models import Actor
from jobs.deps import Deps
from jobs.signal.record import signal_store
from jobs.story.writes import upsert_source
from tests.support.review_jobs import review_around_now as review
from tests.support.review_jobs import snapshot

AT = utcnow().replace(microsecond=0) - timedelta(minutes=30)
ASK = f"[{AT.isoformat()}] 张三: 李四，能不能把测试报告发我一下？\n"
REPLY = f"[{(AT + timedelta(minutes=5)).isoformat()}] 李四: 刚发你邮箱了\n"
AGAIN = f"[{(AT + timedelta(minutes=5)).isoformat()}] 张三: 在吗，能不能快点\n"


async def push(deps: Deps, scope: str, text: str, version: str) -> None:
    data = {"scope": scope, "id": "chat-q", "kind": "conversation", "version": version}
    await upsert_source(deps, OPEN_PRINCIPAL, {**data, "text": text})


async def questions(deps: Deps, scope: str) -> list[Signal]:
    page = await signal_store(deps).page(scope, as_of=utcnow(), first=50)
    return [s for s in page.items if s.kind is SignalKind.QUESTION]


async def asked(deps: Deps, scope: str) -> Signal:
    await push(deps, scope, ASK, "v1")
    await review(deps, scope)
    [question] = await questions(deps, scope)
    assert question.status is SignalStatus.OPEN and question.who == "张三"
    return question


@pytest.mark.timeout(300)  # two reviews and their effect jobs on busy cores
async def test_a_later_review_that_reads_the_answer_answers_the_question(
    offline_deps: Deps, scope: str
) -> None:
    deps = offline_deps
    question = await asked(deps, scope)
    events, _, relations = await snapshot(deps, scope)

    await push(deps, scope, ASK + REPLY, "v2")
    run_outcome = await review(deps, scope)
    [answered] = await questions(deps, scope)
    assert answered.id == question.id, "the same signal, no new one"
    assert answered.status is SignalStatus.ANSWERED
    assert answered.seq == 2 and answered.by.kind is Actor.run("x").kind
    assert answered.by.id != question.by.id  # the later review's run
    # it cites the answer's line in the version that brought it
    start = len(ASK)
    assert answered.source_version == "v2"
    assert answered.locator == f"chars:{start}-{start + len(REPLY) - 1}"
    assert "李四" in answered.why and "刚发你邮箱了" in answered.why
    now_events, now_signals, now_relations = await snapshot(deps, scope)
    assert {i: now_events[i] for i in events} == events  # nothing of v1 written twice
    assert now_signals.count("question") == 1 and now_relations == relations
    assert run_outcome is not None


@pytest.mark.timeout(300)
async def test_the_asker_speaking_again_leaves_the_question_open(
    offline_deps: Deps, scope: str
) -> None:
    deps = offline_deps
    question = await asked(deps, scope)
    await push(deps, scope, ASK + AGAIN, "v2")
    await review(deps, scope)
    still = [q for q in await questions(deps, scope) if q.id == question.id]
    assert [(q.status, q.seq) for q in still] == [(SignalStatus.OPEN, 1)]
