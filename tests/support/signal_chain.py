"""One signal's chain in a scope, for the surfaces' tests, written the way the product writes
it: a conversation line (the passage) → a commitment signal → the follow-up concern raised
for it → 李四 asked, and his answer in the concern's conversation → the event the review of
that conversation proposes.

Every step is the use case the API or the worker runs, in process, in order (as the demo's
loop is loaded, `api/demo_loop.py`), with the offline rule model (no model configured):
- the scope's agenda policy (`save_agenda_policy`: the loop on, owner 王五 on feishu);
- the conversation pushed with its speaker bound (`upsert_source`: 李四 is p_lisi on feishu)
  and reviewed over the minute around his line (`open_run` + `execute`, as a worker
  executes a review): the review records the commitment signal, due Thursday, and the
  agenda's decision;
- the agenda's effect (`perform_effect`, the `perform_signal_effect` job's use case) raises
  the follow-up `con-<signal id>`;
- its first turn asks 李四 (`run_turn`, the `advance_concern` job's use case); he answers
  (`advance_concern`, as `advanceConcern` records a reply) and the reply's turn reads it:
  the concern resolves, and the review of the concern's conversation (`sup-<concern>-m2`)
  proposes the event "前端部分已提测", by its run, citing his line, and keeps the signal.

Nothing here writes a story object by another path. The concern's sending windows are open
all day (`OPEN_WINDOWS`), so 李四 is asked and answers now, whatever hour the suite runs at:
the chain's records are all at the wall clock, readable as of now. A review needs the
worker's Redis (its FIFO pool and lease): the chain opens its own arq pool on a queue of its
own, and forgets that queue (the effect and turn jobs it enqueued, run here instead) at the end.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

from engine.clock import utcnow
from engine.concern.advance import InboundMessage, Trigger, TriggerKind
from engine.concern.model import Direction
from engine.concern.scheduler import due_trigger
from engine.principal import WORKER
from engine.review.types import Scope
from engine.signal.model import SignalKind
from engine.signal.stored import Signal
from engine.story.models import SourceKind
from jobs.concern import commands
from jobs.concern.agenda import perform_effect
from jobs.concern.channel import OutboxChannel
from jobs.concern.loop import run_turn
from jobs.deps import Deps
from jobs.llm.gateway import OfflineModelGateway
from jobs.queue import open_pool
from jobs.review.runs import Opened, execute, open_run
from jobs.signal.policy import PolicyEdit, agenda_policy, save_agenda_policy
from jobs.signal.record import signal_store
from jobs.story.common import story_repo
from jobs.story.writes import upsert_source
from tests.support.processes import forget_queue_async
from tests.support.review_jobs import clear_deployment

SHANGHAI = ZoneInfo("Asia/Shanghai")
SAID = datetime(2026, 3, 16, 10, 0, tzinfo=SHANGHAI)  # a Monday
# what 李四 promises in the first, second and third conversation reviewed together (one
# subject each: an open concern about the same subject would be supplemented, not raised)
THINGS = ("前端部分", "后端部分", "管理后台")
PROMISE = f"{THINGS[0]}周四能提测"
ANSWER = "已经提测了"
KEPT_TITLE = "前端部分已提测"
QUESTION = "李四，前端部分周四提测了吗？"
LISI = {"name": "李四", "person_id": "p_lisi", "channel": "feishu"}
OPEN_WINDOWS = {
    "concern_work_start": time(0, 0),
    "concern_work_end": time(23, 59, 59, 999999),
    "concern_workdays": [0, 1, 2, 3, 4, 5, 6],
    "concern_extended_start": time(0, 0),
    "concern_extended_end": time(23, 59, 59, 999999),
    "concern_extended_days": [0, 1, 2, 3, 4, 5, 6],
}


def line(said: datetime = SAID, thing: str = THINGS[0]) -> str:
    return f"[{said.isoformat()}] 李四: {thing}周四能提测\n"


@dataclass(frozen=True)
class Chain:
    scope: str
    signal: Signal
    concern_id: str
    event_id: str
    run_id: str  # the review of the concern's conversation that proposed the event
    signal_at: datetime  # record times: the signal, the raise, the answer's event
    raised_at: datetime
    answered_at: datetime


def chain_deps(deps: Deps) -> Deps:
    """`deps` as the API and the worker of this chain have them: no model configured (the
    offline rule model), the seeds' timezone, every sending window open, a queue of its own."""
    settings = deps.settings.model_copy(
        update={
            "model_base_url": None,
            "timezone": "Asia/Shanghai",
            "queue_name": f"{deps.settings.queue_name}:chain:{uuid.uuid4().hex[:6]}",
            **OPEN_WINDOWS,
        }
    )
    return replace(deps, settings=settings, pool=None, clock=utcnow, worker_id="test-chain")


async def loop_on(deps: Deps, scope: str) -> None:
    """The scope's agenda policy: the loop on, acting on commitments, owner 王五 on feishu."""
    stored = await agenda_policy(deps, WORKER, scope)
    if stored.policy.loop_enabled and stored.policy.owner_person_id == "p_wangwu":
        return
    edit = PolicyEdit(
        loop_enabled=True,
        owner_person_id="p_wangwu",
        owner_name="王五",
        owner_channel="feishu",
        act_on=frozenset({SignalKind.COMMITMENT, SignalKind.DIFFERENCE}),
    )
    await save_agenda_policy(deps, WORKER, scope, edit, seen_version=stored.policy.version)
    await commands.upsert_person(
        deps, WORKER, scope, {"person_id": "p_wangwu", "display_name": "王五"}
    )


async def review(deps: Deps, scope: str, start: datetime, end: datetime) -> str:
    """A review of the scope's sources over [start, end), executed in place by the offline
    rule model as a worker executes it (with a Redis pool: the review's FIFO pool and lease
    live there); its run id."""
    pool = await open_pool(deps.settings)
    reviewing = replace(deps, pool=pool)
    try:
        opened = await open_run(
            reviewing, Scope.projects(scope), interval=(start, end), enqueue=False
        )
        assert isinstance(opened, Opened), opened
        run = opened.run.run_id
        await execute(
            reviewing, WORKER, run, opened.owner, opened.token, gateway=OfflineModelGateway()
        )
    finally:
        await forget_queue_async(pool, deps.settings.queue_name)  # the effect jobs: run here
        await pool.aclose()
        await clear_deployment(deps.driver, deps.settings)
    return run


async def record_commitment(
    deps: Deps, scope: str, *, source_id: str = "chat-1", said: datetime = SAID, bound: bool = True
) -> Signal:
    """李四's promise in `source_id`, said at `said`, reviewed: one commitment signal due that
    week's Thursday, citing his words, with the agenda's decision (raise a follow-up when his
    speaker is `bound` to p_lisi; otherwise nobody is reachable, and it is only recorded)."""
    [signal] = await record_commitments(deps, scope, (source_id,), said=said, bound=bound)
    return signal


async def record_commitments(
    deps: Deps, scope: str, sources: tuple[str, ...], *, said: datetime = SAID, bound: bool = True
) -> list[Signal]:
    """`record_commitment` for each of `sources` (up to three, each promising one of
    `THINGS`), pushed first and reviewed once."""
    deps = chain_deps(deps)
    await loop_on(deps, scope)
    for source_id, thing in zip(sources, THINGS, strict=False):
        source = {
            "scope": scope,
            "id": source_id,
            "kind": SourceKind.CONVERSATION,
            "version": "v1",
            "text": line(said, thing),
            "speakers": [LISI] if bound else [],
        }
        await upsert_source(deps, WORKER, source)
    await review(deps, scope, said - timedelta(minutes=1), said + timedelta(minutes=1))
    found = {
        s.source_id: s
        for s in (await signal_store(deps).page(scope, as_of=utcnow(), first=50)).items
        if s.source_id in sources and s.kind is SignalKind.COMMITMENT
    }
    assert sorted(found) == sorted(sources), found
    return [found[s] for s in sources]


async def raise_for(deps: Deps, scope: str, signal: Signal) -> str:
    """The agenda's effect of the signal's decision: its follow-up concern raised."""
    performed = await perform_effect(chain_deps(deps), WORKER, scope, signal.id)
    assert performed.outcome == "raised" and performed.concern_id, performed
    return performed.concern_id


async def ask(deps: Deps, concern_id: str) -> None:
    """The concern's first turn, due now (its window is open): the question to 李四. (A
    running worker's scheduler may have taken that turn first; then it is done.)"""
    deps = chain_deps(deps)
    now = utcnow()
    found = await commands.find(deps, WORKER, concern_id)
    assert found is not None
    first = due_trigger(found, now)
    if first is not None:
        await turn(deps, concern_id, first, now)
        found = await commands.find(deps, WORKER, concern_id)
        assert found is not None
    asked = [e.text for e in found.conversation_log if e.direction is Direction.OUTBOUND]
    # once, naming the promise ("李四，<thing>周四提测了吗？")
    assert len(asked) == 1 and asked[0].endswith("周四提测了吗？"), found.conversation_log


async def turn(deps: Deps, concern_id: str, trigger: Trigger, now: datetime) -> None:
    """One turn of the concern's loop, as the worker's `advance_concern` job runs it."""
    await run_turn(
        deps,
        WORKER,
        concern_id,
        trigger,
        model=OfflineModelGateway(),
        policy=commands.policy_of(deps),
        channel=OutboxChannel(),
        now=now,
    )


async def answer(deps: Deps, concern_id: str, words: str = ANSWER, person: str = "p_lisi") -> None:
    """`person` replies `words` (recorded as `advanceConcern` records it, now) and the turn
    the reply triggers reads it."""
    deps = chain_deps(deps)
    message = InboundMessage(person_id=person, text=words, ts=utcnow(), channel="feishu")
    await commands.advance_concern(deps, WORKER, concern_id, message)
    reply = Trigger(kind=TriggerKind.REPLY, event_key=message.event_key, person_id=person)
    await turn(deps, concern_id, reply, message.ts)


async def answered_event(deps: Deps, scope: str, concern_id: str) -> tuple[str, str]:
    """(the event id, the run id) the review of the concern's conversation wrote."""
    graph = await story_repo(deps).story_graph(scope, as_of=utcnow())
    [event] = [e for e in graph.events if e.via_concern == concern_id]
    return event.id, event.by.id


async def build_chain(
    deps: Deps, scope: str, *, words: str = ANSWER, said: datetime = SAID
) -> Chain:
    """The chain: 李四's promise reviewed, its concern raised, 李四 asked, his answer (`words`)
    read and reviewed back into the graph: by default "已经提测了", which keeps the signal
    and brings the event "前端部分已提测", by the review's run."""
    [chain] = await build_chains(deps, scope, ("chat-1",), words=words, said=said)
    return chain


async def build_chains(
    deps: Deps,
    scope: str,
    sources: tuple[str, ...],
    *,
    words: str = ANSWER,
    said: datetime = SAID,
) -> list[Chain]:
    """`build_chain` for each of `sources` (one review of them all, then each concern)."""
    signals = await record_commitments(deps, scope, sources, said=said)
    chains = []
    for signal in signals:
        concern_id = await raise_for(deps, scope, signal)
        raised_at = utcnow()
        await ask(deps, concern_id)
        await answer(deps, concern_id, words)
        event_id, run_id = await answered_event(deps, scope, concern_id)
        chains.append(
            Chain(
                scope=scope,
                signal=signal,
                concern_id=concern_id,
                event_id=event_id,
                run_id=run_id,
                signal_at=signal.recorded_at,
                raised_at=raised_at,
                answered_at=utcnow(),
            )
        )
    return chains
