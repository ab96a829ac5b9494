"""A review writes only what the text grounds, and only once (docs/rules/once.md).

An app pushes the conversation the way it would write it (`name: text` lines, no times),
a review runs, the app pushes v2 with one acknowledgement added, a review runs again, a
manual review of the same interval runs a third time, then v3 adds a line that says
something. Each passage (source, speaker, time, words) maps to the same event, signal and
relation on every review; the acknowledgement adds nothing; the new promise adds exactly
one event and one signal; the agenda raises one concern for 李四's promise through all of
it. Default offline model, real Neo4j, Redis and workers.
"""

from __future__ import annotations

import pytest

from engine.clock import utcnow
from engine.principal import OPEN_PRINCIPAL
from engine.review import lifecycle as lc
from engine.signal.model import SignalKind
from jobs.deps import Deps
from jobs.signal.policy import PolicyEdit, save_agenda_policy
from jobs.signal.record import signal_store
from jobs.story.common import story_repo
from jobs.story.writes import upsert_source
from tests.support.review_jobs import count, review_around_now, snapshot

LISI = {"name": "李四", "person_id": "p_lisi", "channel": "feishu"}
OWNER = PolicyEdit(True, "p_wangwu", "王五", "feishu", frozenset({SignalKind.COMMITMENT}))
V1 = "老板: 张三负责支付模块\n李四: 前端部分周四能提测\n张三: 支付模块卡在第三方回调接口\n"
V2 = V1 + "王五: 好的，收到\n"
V3 = V2 + "王五：沙箱环境明天给到\n"


async def push(deps: Deps, scope: str, text: str, version: str) -> None:
    data = {"scope": scope, "id": "chat-1", "kind": "conversation", "version": version}
    await upsert_source(deps, OPEN_PRINCIPAL, {**data, "text": text, "speakers": [LISI]})


@pytest.mark.timeout(400)  # four reviews and their effect jobs on two busy cores
async def test_a_grown_conversation_reviewed_again_adds_only_what_its_new_lines_say(
    offline_deps: Deps, scope: str
) -> None:
    deps = offline_deps
    await save_agenda_policy(deps, OPEN_PRINCIPAL, scope, OWNER, seen_version=1)
    await push(deps, scope, V1, "v1")
    await review_around_now(deps, scope)
    events, signals, relations = await snapshot(deps, scope)
    assert sorted(events.values()) == sorted(
        ["张三负责支付模块", "前端部分周四能提测", "支付模块卡在第三方回调接口"]
    )
    assert signals == ["blocker", "commitment"] and relations == 1
    graph = await story_repo(deps).story_graph(scope, as_of=utcnow())
    names = sorted(e.name for e in graph.entities)
    assert names == ["张三", "支付模块", "李四", "老板"], names  # no "老板: 支付模块"
    assert all(not e.description for e in graph.entities)  # never the raw lines joined
    [promise] = [
        s
        for s in (await signal_store(deps).page(scope, as_of=utcnow(), first=50)).items
        if s.kind is SignalKind.COMMITMENT
    ]
    assert promise.who == "李四" and promise.what == "前端部分提测"

    await push(deps, scope, V2, "v2")  # + "王五: 好的，收到"
    await review_around_now(deps, scope)
    assert await snapshot(deps, scope) == (events, signals, relations)

    # a manual review of the same interval again: a repeat
    assert await review_around_now(deps, scope) is lc.RunOutcome.REPEAT
    assert await snapshot(deps, scope) == (events, signals, relations)
    graph = await story_repo(deps).story_graph(scope, as_of=utcnow())
    assert all(e.seq == 1 for e in graph.events)  # nothing rewritten either

    await push(deps, scope, V3, "v3")  # + "王五：沙箱环境明天给到"
    assert await review_around_now(deps, scope) is lc.RunOutcome.NEW_RESULT
    now_events, now_signals, now_relations = await snapshot(deps, scope)
    assert {i: now_events[i] for i in events} == events
    assert sorted(set(now_events.values()) - set(events.values())) == ["沙箱环境明天给到"]
    assert now_signals == ["blocker", "commitment", "commitment"] and now_relations == 1
    ids = [s.id for s in (await signal_store(deps).page(scope, as_of=utcnow(), first=50)).items]
    raised = "MATCH (c:Concern) WHERE c.signal_id IN $ids RETURN count(c) AS n"
    assert await count(deps.driver, deps.settings, raised, ids=ids) == 1  # 王五 is bound to nobody
    one = "MATCH (c:Concern) WHERE c.signal_id = $sid RETURN count(c) AS n"
    assert await count(deps.driver, deps.settings, one, sid=promise.id) == 1
