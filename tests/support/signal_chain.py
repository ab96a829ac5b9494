"""One signal's chain in a scope, for the surfaces' tests: a conversation
line (the passage) → a commitment signal → the follow-up concern raised for it → 李四's
answer in the concern's conversation → the event written by 李四 via the concern.

The signal is recorded through the real `SignalStore`, the concern raised through the real
`raise_concern` use case (`RaiseConcernInput(signal_id=...)`) and the answer recorded through
`advance_concern`. With `keep`, the concern is then ended (resolved, as the offline loop
resolves "已经提测了": proved over HTTP by tests/e2e/test_signal_answers.py and
test_loop_seed_example.py) and its answer goes back into the graph through the real
`jobs.concern.answers.settle_signal_answer`: the conversation as a source version reviewed by
a supervision run, the event by that run via the concern, the signal `kept`. Without `keep` the read tests get a
state the loop never leaves behind on its own, the event written but the signal still open
(`answer_event`), so one scope shows an open signal and an answered event together.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from engine.clock import utcnow
from engine.concern.advance import InboundMessage
from engine.concern.model import (
    ConcernStatus,
    ConcernType,
    Initiator,
    PersonRef,
    Priority,
    RaiseConcernInput,
)
from engine.concern.policy import ConcernPolicy
from engine.principal import OPEN_PRINCIPAL, WORKER
from engine.signal.derive import from_fact
from engine.signal.model import Passage
from engine.signal.stored import Signal
from engine.story.inputs import SourceInput
from engine.story.models import Actor, Event, ObjectKind, Reference, SourceKind, make_id
from graph.story.codec import write_row
from jobs.concern import commands
from jobs.concern.answers import settle_signal_answer
from jobs.deps import Deps
from jobs.signal.policy import policies
from jobs.signal.record import signal_store
from jobs.story.common import story_repo
from tests.support.concern_jobs import upsert_people_of
from tests.support.review_jobs import push_conversation
from tests.support.signal_answers import offline_reading

SHANGHAI = ZoneInfo("Asia/Shanghai")
SAID = datetime(2026, 3, 16, 10, 0, tzinfo=SHANGHAI)  # a Monday
PROMISE = "前端部分周四能提测"
LINE = f"[{SAID.isoformat()}] 李四: {PROMISE}\n"
ANSWER = "已经提测了"
KEPT_TITLE = "前端部分已提测"
OWNER = Initiator(name="王五", channel="feishu", channel_user_id="wangwu", person_id="p_wangwu")


@dataclass(frozen=True)
class Chain:
    scope: str
    signal: Signal
    concern_id: str
    event_id: str
    signal_at: datetime  # record times: the signal, the raise, the answer's event
    raised_at: datetime
    answered_at: datetime


async def record_commitment(deps: Deps, scope: str, *, source_id: str = "chat-1") -> Signal:
    """李四's promise as one open commitment signal due Thursday, citing its exact words,
    with the scope's agenda decision (the default policy: nobody is bound to reach 李四)."""
    await push_conversation(deps, scope, source_id, LINE)
    start = LINE.index(PROMISE)
    passage = Passage(
        source_id=source_id, source_version="v1", locator=f"chars:{start}-{start + len(PROMISE)}"
    )
    draft = from_fact("commitment", f"李四：{PROMISE}", passage, SAID, "Asia/Shanghai")
    assert draft is not None and draft.due is not None
    store = signal_store(deps)

    async def work(tx):  # type: ignore[no-untyped-def]
        policy = await policies(deps).current_in(tx, scope)  # the agenda decides, as a review's
        return await store.record_in(
            tx,
            [draft],
            scope=scope,
            run_id="run-chain",
            result_id="res-chain",
            now=utcnow(),
            policy=policy,
        )

    [signal] = await store.write(work)
    return signal


async def raise_for(deps: Deps, scope: str, signal: Signal) -> str:
    """The follow-up concern the agenda raises for the signal (the real use case)."""
    assert signal.due is not None
    request = RaiseConcernInput(
        type=ConcernType.FOLLOWUP,
        priority=Priority.MEDIUM,
        title=f"跟进：{signal.what}",
        goal=f"确认{signal.what}是否已完成",
        source_detail=signal.text,
        initiator=OWNER,
        people=[PersonRef(person_id="p_lisi", display_name="李四", last_channel="feishu")],
        signal_id=signal.id,
    )
    await upsert_people_of(deps, scope, request)
    concern = await commands.raise_concern(deps, OPEN_PRINCIPAL, request, scope=scope)
    return concern.concern_id


async def answer_event(deps: Deps, scope: str, concern_id: str, at: datetime) -> str:
    """李四 answers through the concern, and (stand-in for loop-answers) what his answer
    brings is recorded: the concern's conversation as a source version (`concern-<id>`, one
    line per message), and an event by the loop's run (`run:concern:<id>`) via the concern citing his line."""
    message = InboundMessage(person_id="p_lisi", text=ANSWER, ts=at, channel="feishu")
    advanced = await commands.advance_concern(deps, OPEN_PRINCIPAL, concern_id, message)
    log = advanced.concern.conversation_log
    lines = [f"[{e.ts.isoformat()}] {e.person_name or e.person_id}: {e.text}" for e in log]
    source_id = f"concern-{concern_id}"
    repo = story_repo(deps)
    await repo.upsert_source(
        # the loop's own write: `concern-` is refused on the public input, so unchecked here
        SourceInput.model_construct(
            scope=scope,
            id=source_id,
            kind=SourceKind.CONVERSATION,
            version="v1",
            text="\n".join(lines) + "\n",
        ),
        now=utcnow(),
    )
    line = len(lines)  # the answer is the newest line
    now = utcnow()
    event = Event(
        id=make_id("evt", scope, concern_id),
        scope=scope,
        seq=1,
        recorded_at=now,
        by=Actor.run(f"concern:{concern_id}"),
        why=ANSWER,
        via_concern=concern_id,
        title=KEPT_TITLE,
        at=at,
        result_id=f"answer-{concern_id}",
    )
    cite = Reference(
        id=make_id("ref", scope, concern_id),
        scope=scope,
        result_id=event.result_id,
        owner_kind=ObjectKind.EVENT,
        owner_id=event.id,
        source_id=source_id,
        source_version="v1",
        locator=f"lines:{line}-{line}",
        recorded_at=now,
    )

    async def work(tx):  # type: ignore[no-untyped-def]
        await repo._write_versions(tx, ObjectKind.EVENT, [event])
        await repo.rows(tx, "story/write_references", rows=[write_row(cite)])

    await repo.write(work)
    return event.id


async def settle_answer(deps: Deps, scope: str, concern_id: str, at: datetime) -> str:
    """李四 answers through the concern; the concern ends resolved and its answer comes back
    into the graph through the real way back (`settle_signal_answer`); the event's id."""
    message = InboundMessage(person_id="p_lisi", text=ANSWER, ts=at, channel="feishu")
    advanced = await commands.advance_concern(deps, OPEN_PRINCIPAL, concern_id, message)
    ended = advanced.concern.model_copy(update={"status": ConcernStatus.RESOLVED})
    # what the offline loop read in the answer (its `LoopOutput.reading`), kept on the concern
    ended = ended.model_copy(update={"reading": offline_reading(ended)})
    policy = ConcernPolicy.from_settings(deps.settings)
    plan, _ = await settle_signal_answer(deps, WORKER, ended, scope, policy=policy, now=utcnow())
    assert plan is not None and len(plan.events) == 1, plan
    return plan.events[0].id


async def build_chain(deps: Deps, scope: str, *, keep: bool = False) -> Chain:
    """The chain; with `keep`, the signal's status turns `kept` by the answer, as
    loop-answers writes it (otherwise it stays open, as before the way back lands)."""
    signal = await record_commitment(deps, scope)
    concern_id = await raise_for(deps, scope, signal)
    raised_at = utcnow()
    assert signal.due is not None
    answered = signal.due + timedelta(hours=-2)
    if keep:
        event_id = await settle_answer(deps, scope, concern_id, answered)
    else:
        event_id = await answer_event(deps, scope, concern_id, answered)
    return Chain(
        scope=scope,
        signal=signal,
        concern_id=concern_id,
        event_id=event_id,
        signal_at=signal.recorded_at,
        raised_at=raised_at,
        answered_at=utcnow(),
    )
