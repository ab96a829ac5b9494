"""What `make run`'s demo adds so the loop can be seen (docs/rules/loop.md): a conversation
reviewed by the offline model, with a promise and a blocker (signals), and a difference the
responsible person answered through a concern, whose proposal waits in the inbox.

Written through the use cases the API and the worker call, with the demo's clock on its own
timeline (Wednesday 2026-03-18, in working hours):

- the boss's agenda policy: the loop on, owner 王五, acting on commitments and differences;
- 周三同步 is pushed and reviewed (the offline rule model, as with no model configured):
  老板 says 张三 is responsible for 支付模块, 李四 promises 前端回归 for Friday (an open
  commitment, due on the ring) and 王五 reports 对账脚本 blocked on the bank's statement API;
- the boss confirms 张三's responsibility and binds the person entity 张三 to `p_zhangsan`;
- the conversation grows with "支付模块改由李四负责" and is reviewed again: a person's word is
  never overruled, so the reading is a pending difference, its signal raises a concern to
  张三 (the agenda's effect), the loop asks him, he answers "对，已经交给李四了", and the
  loop's reading becomes a new pending version of the difference quoting his answer: the
  first item of the inbox, for an editor to accept.

Loading twice changes nothing: the first review's run is found and nothing is redone.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone

import httpx

from engine.concern.advance import InboundMessage, Trigger, TriggerKind
from engine.concern.scheduler import due_trigger
from engine.principal import Principal
from engine.review.types import Scope
from engine.signal.model import SignalKind
from engine.story.corrections import RelationAction
from engine.story.inputs import SourceInput
from engine.story.models import SourceKind
from jobs.concern import commands
from jobs.concern.agenda import perform_effect
from jobs.concern.channel import channel_from_settings
from jobs.concern.loop import run_turn
from jobs.deps import Deps
from jobs.llm.gateway import OfflineModelGateway
from jobs.review.runs import Opened, execute, open_run
from jobs.signal.bindings import bind_person
from jobs.signal.policy import PolicyEdit, agenda_policy, save_agenda_policy
from jobs.signal.reads import signals_page
from jobs.story.common import story_repo
from jobs.story.writes import correct_relation

CST = timezone(timedelta(hours=8))
BOSS = Principal("boss", frozenset({"*"}), frozenset({"admin"}))
SYNC = "sync-chat"
WEDNESDAY = datetime(2026, 3, 18, 10, 0, tzinfo=CST)


def line(minutes: int, who: str, text: str) -> str:
    return f"[{(WEDNESDAY + timedelta(minutes=minutes)).isoformat()}] {who}: {text}\n"


FIRST = [
    line(0, "老板", "张三负责支付模块"),
    line(2, "李四", "前端回归周五能提测"),
    line(4, "王五", "对账脚本卡在银行对账单接口"),
]
LATER = [line(60, "老板", "支付模块改由李四负责")]
ANSWER = "对，已经交给李四了"


def sync_chat(scope: str, version: str, lines: list[str]) -> SourceInput:
    return SourceInput(
        scope=scope,
        id=SYNC,
        kind=SourceKind.CONVERSATION,
        title="周三同步",
        version=version,
        text="".join(lines),
    )


async def _review(deps: Deps, scope: str, start: datetime, end: datetime) -> None:
    """One review of [start, end), executed in place by the offline rule model (as the
    heartbeat's automatic check executes its run)."""
    opened = await open_run(deps, Scope.projects(scope), interval=(start, end), enqueue=False)
    assert isinstance(opened, Opened)  # nothing else reviews while the demo loads
    await execute(
        deps, BOSS, opened.run.run_id, opened.owner, opened.token, gateway=OfflineModelGateway()
    )


async def _turn(deps: Deps, concern_id: str, trigger: Trigger, http: httpx.AsyncClient) -> None:
    await run_turn(
        deps,
        BOSS,
        concern_id,
        trigger,
        model=OfflineModelGateway(),
        policy=commands.policy_of(deps),
        channel=channel_from_settings(deps.settings, http),
        now=deps.clock(),
    )


async def add_loop(deps: Deps, scope: str) -> list[str]:
    """Write the reviewed conversation and the answered difference into `scope` (after
    `api.demo.load_into`); what it did, in words. A review's stages need the worker's Redis
    (`deps.pool`); the agenda's effect and the loop's turns are performed here, in order."""
    reviewing = deps
    deps = replace(deps, pool=None, clock=lambda: WEDNESDAY + timedelta(hours=1))
    if (await signals_page(deps, BOSS, scope, 1)).items:
        return []
    done: list[str] = []
    repo = story_repo(deps)
    stored = await agenda_policy(deps, BOSS, scope)
    edit = PolicyEdit(
        loop_enabled=True,
        owner_person_id="p_wangwu",
        owner_name="王五",
        owner_channel="chat",
        act_on=frozenset({SignalKind.COMMITMENT, SignalKind.DIFFERENCE}),
    )
    await save_agenda_policy(deps, BOSS, scope, edit, seen_version=stored.policy.version)
    for pid, name in (("p_wangwu", "王五"), ("p_zhangsan", "张三")):
        await commands.upsert_person(
            deps, BOSS, scope, {"person_id": pid, "display_name": name, "channel": "chat"}
        )
    await repo.upsert_source(sync_chat(scope, "v1", FIRST), now=deps.clock())
    await _review(
        replace(reviewing, clock=deps.clock),
        scope,
        WEDNESDAY - timedelta(minutes=5),
        WEDNESDAY + timedelta(minutes=10),
    )
    done.append("周三同步 reviewed: 李四's promise for Friday and 王五's blocker are signals")

    graph = await repo.story_graph(scope, as_of=deps.clock() + timedelta(seconds=1))
    names = {e.id: e.name for e in graph.entities}
    [held] = [
        r
        for r in graph.relations
        if r.type == "responsible_for" and names.get(r.to_id) == "支付模块"
    ]
    later = replace(deps, clock=lambda: WEDNESDAY + timedelta(hours=1, minutes=5))
    await correct_relation(later, BOSS, RelationAction.CONFIRM, scope, held.id, why="对")
    await bind_person(
        later,
        BOSS,
        scope,
        held.from_id,
        person_id="p_zhangsan",
        display_name="张三",
        channel="chat",
    )

    second = replace(deps, clock=lambda: WEDNESDAY + timedelta(hours=1, minutes=10))
    await repo.upsert_source(sync_chat(scope, "v2", FIRST + LATER), now=second.clock())
    await _review(
        replace(reviewing, clock=second.clock),
        scope,
        WEDNESDAY + timedelta(minutes=55),
        WEDNESDAY + timedelta(minutes=65),
    )
    differences = [
        s
        for s in (await signals_page(second, BOSS, scope, 20)).items
        if s.kind is SignalKind.DIFFERENCE
    ]
    if not differences:
        return done
    signal = differences[0]
    performed = await perform_effect(second, BOSS, scope, signal.id)
    cid = performed.concern_id
    if cid is None:
        return done
    async with httpx.AsyncClient() as http:
        found = await commands.find(second, BOSS, cid)
        assert found is not None
        asking = replace(deps, clock=lambda: WEDNESDAY + timedelta(hours=1, minutes=15))
        first = due_trigger(found, asking.clock())
        if first is not None:
            await _turn(asking, cid, first, http)
        answered_at = WEDNESDAY + timedelta(hours=1, minutes=30)
        answering = replace(deps, clock=lambda: answered_at)
        message = InboundMessage(
            person_id="p_zhangsan", text=ANSWER, ts=answered_at, channel="chat"
        )
        await commands.advance_concern(answering, BOSS, cid, message)
        reply = Trigger(kind=TriggerKind.REPLY, event_key=message.event_key, person_id="p_zhangsan")
        await _turn(answering, cid, reply, http)
    done.append(
        "支付模块改由李四负责 differs from the boss's confirmation: 张三 answered a concern "
        f"({ANSWER}) and the proposal waits in the inbox"
    )
    return done
