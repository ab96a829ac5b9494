"""A promise followed up by the loop, for the tests of a reply's review over a real worker:
李四's commitment recorded as an open signal on Monday (the moved clock of
tests/support/concern_jobs.py, March 2035), its follow-up concern raised as the agenda raises
it (`signal_id`, first due at the promised time), and what the review of a reply wrote."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from engine.concern.model import (
    ConcernType,
    Initiator,
    PersonRef,
    Priority,
    RaiseConcernInput,
)
from engine.principal import WORKER
from engine.signal.derive import from_fact
from engine.signal.model import Passage
from engine.signal.stored import Signal
from engine.story.inputs import SourceInput
from engine.story.models import SourceKind
from graph.concern.outbox import Outbox
from graph.concern.repository import ConcernRepository
from graph.story.sources import StorySources
from jobs.concern.commands import raise_concern
from jobs.deps import Deps
from jobs.signal.record import signal_store
from jobs.tasks.concern_scheduler import run_concern_scheduler
from tests.support.concern_jobs import T0, TZ, upsert_people_of
from tests.support.signal_answers import FOLLOW_UP

PROMISE = "李四：前端部分周四能提测"  # said on Monday T0, due Thursday 18:00
DUE = datetime(2035, 3, 22, 18, 0, tzinfo=TZ)
OWNER = Initiator(name="老板", channel="telegram", channel_user_id="123", person_id="p_owner")


async def promised(deps: Deps, scope: str) -> Signal:
    """李四's promise as an open commitment signal, citing the chat line it was said in."""
    await StorySources(deps.driver, deps.database).upsert_source(
        SourceInput(
            scope=scope, id="chat-1", kind=SourceKind.CONVERSATION, version="v1", text=PROMISE
        ),
        now=T0,
    )
    passage = Passage(source_id="chat-1", source_version="v1", locator="chars:3-12")
    draft = from_fact("commitment", PROMISE, passage, T0, "Asia/Shanghai")
    assert draft is not None and draft.due == DUE
    store = signal_store(deps)

    async def work(tx):  # type: ignore[no-untyped-def]
        return await store.record_in(
            tx, [draft], scope=scope, run_id="run-1", result_id="res-1", now=T0
        )

    [signal] = await store.write(work)
    return signal


async def follow_up(deps: Deps, scope: str, signal: Signal) -> str:
    """The follow-up concern the agenda raises for the signal, first due at the promised time."""
    goal = FOLLOW_UP  # the promise's goal (engine.signal.policy.goal_of)
    request = RaiseConcernInput(
        type=ConcernType.FOLLOWUP,
        priority=Priority.MEDIUM,
        title=goal,
        goal=goal,
        source_detail=signal.text,
        initiator=OWNER,
        people=[PersonRef(person_id="p_lisi", display_name="李四", last_channel="feishu")],
        agenda_role="signal",
        signal_id=signal.id,
    )
    await upsert_people_of(deps, scope, request)
    raised = await raise_concern(
        deps, WORKER, request, scope=scope, at=T0 + timedelta(minutes=5), first_at=DUE
    )
    return raised.concern_id


async def asked(deps: Deps, cid: str) -> list[str]:
    rows = await Outbox(deps.driver, deps.database).of_concern(cid)
    return [r.text for r in rows if r.kind == "send_message"]


async def events_of(deps: Deps, scope: str) -> list[dict[str, Any]]:
    records, _, _ = await deps.driver.execute_query(
        """MATCH (e:EventVersion {scope: $scope})
           OPTIONAL MATCH (r:Reference {scope: $scope, owner_id: e.id})
           RETURN e.title AS title, e.by AS by, collect([r.source_id, r.locator]) AS refs""",
        scope=scope,
        database_=deps.database,
    )
    return [dict(r) for r in records]


async def signal_versions(deps: Deps, scope: str) -> list[tuple[int, str]]:
    """(seq, status) of every version of the scope's signals, oldest first."""
    records, _, _ = await deps.driver.execute_query(
        "MATCH (v:SignalVersion {scope: $scope}) RETURN v.seq AS seq, v.status AS status"
        " ORDER BY v.seq",
        scope=scope,
        database_=deps.database,
    )
    return [(r["seq"], r["status"]) for r in records]


async def ask_when_due(
    deps: Deps, job_ctx: dict[str, Any], drain: Any, scope: str, cid: str, **worker: Any
) -> tuple[str, datetime]:
    """The scheduler at the promised time and a worker's turn: 李四 is asked (in the sending
    window); the question and when it was sent."""
    await run_concern_scheduler(job_ctx, now=(DUE + timedelta(minutes=1)).isoformat(), scope=scope)
    await drain(**worker)
    [question] = await asked(deps, cid)
    stored = await ConcernRepository(deps.driver, deps.database).load(cid)
    [sent_at] = [e.ts for e in stored.concern.conversation_log]
    return question, sent_at
