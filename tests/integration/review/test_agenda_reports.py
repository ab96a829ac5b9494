"""The agenda's reports of a blocker or risk to the owner keep the report rules like every
report: the 30-minute gap after the previous one, and the off-hours delay to the next working
period (whatever the priority)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from neo4j import AsyncManagedTransaction

from engine.clock import utcnow
from engine.principal import OPEN_PRINCIPAL, WORKER
from engine.signal.derive import from_fact
from engine.signal.model import DecisionKind, Passage
from engine.signal.policy import AgendaPolicy
from engine.signal.stored import Signal
from graph.temporal import from_neo4j
from jobs.concern.agenda import perform_effect
from jobs.concern.channel import OutboxChannel
from jobs.concern.commands import concern_messages
from jobs.concern.scheduler import deliver_outbox
from jobs.deps import Deps
from jobs.signal.record import signal_store
from jobs.story.writes import upsert_source

SH = ZoneInfo("Asia/Shanghai")
TEXT = "张三：支付模块卡在第三方回调接口\n李四：测试环境的证书下周过期\n王五：回调签名还在排查\n"


def next_monday() -> datetime:
    today = utcnow().astimezone(SH).date()
    monday = today + timedelta(days=7 - today.weekday())
    return datetime(monday.year, monday.month, monday.day, 10, 0, tzinfo=SH)


MONDAY = next_monday()
POLICY = AgendaPolicy(owner_person_id="p_wangwu", owner_name="王五", owner_channel="feishu")


async def blocker(deps: Deps, scope: str, line: int, kind: str = "blocker") -> Signal:
    sentence = TEXT.splitlines()[line - 1]
    draft = from_fact(
        kind,
        sentence,
        Passage(source_id="chat-1", source_version="v1", locator=f"lines:{line}-{line}"),
        MONDAY,
        "Asia/Shanghai",
    )
    assert draft is not None
    store = signal_store(deps)

    async def work(tx: AsyncManagedTransaction) -> list[Signal]:
        return await store.record_in(
            tx,
            [draft],
            scope=scope,
            run_id=f"run-{line}",
            result_id=f"res-{line}",
            now=MONDAY,
            policy=POLICY,
        )

    [signal] = await store.write(work)
    assert signal.decision_kind is DecisionKind.REPORTED
    return signal


async def delivery_times(deps: Deps, scope: str) -> dict[str, datetime]:
    records, _, _ = await deps.driver.execute_query(
        "MATCH (o:OutboxMessage {scope: $scope}) WHERE o.key STARTS WITH 'signal-report:' "
        "RETURN o.key AS key, o.deliver_at AS at",
        scope=scope,
        database_=deps.settings.neo4j_database,
    )
    return {r["key"].split(":", 1)[1]: from_neo4j(r["at"]) for r in records}  # type: ignore[misc]


async def test_agenda_reports_keep_the_gap_and_wait_for_working_hours(
    offline_deps: Deps, scope: str
) -> None:
    deps = offline_deps
    source = {"scope": scope, "id": "chat-1", "kind": "conversation", "version": "v1"}
    await upsert_source(deps, OPEN_PRINCIPAL, {**source, "text": TEXT})
    first = await blocker(deps, scope, 1)
    second = await blocker(deps, scope, 3)
    late = await blocker(deps, scope, 2, "risk")

    await perform_effect(replace(deps, clock=lambda: MONDAY), WORKER, scope, first.id)
    five = MONDAY + timedelta(minutes=5)
    await perform_effect(replace(deps, clock=lambda: five), WORKER, scope, second.id)
    night = MONDAY.replace(hour=23)
    await perform_effect(replace(deps, clock=lambda: night), WORKER, scope, late.id)

    at = await delivery_times(deps, scope)
    assert at[first.id] == MONDAY  # in working hours, nothing before it: at once
    assert at[second.id] == MONDAY + timedelta(minutes=30)  # 30 minutes after the previous
    assert at[late.id] == (MONDAY + timedelta(days=1)).replace(hour=9)  # the next morning


async def test_an_agenda_report_row_carries_its_signal_and_no_concern_id(
    offline_deps: Deps, scope: str
) -> None:
    """The owner's report of a signal that raised no concern: its row's `concern_id` is empty
    and the signal has its own field; delivered by its key like any row."""
    deps = offline_deps
    source = {"scope": scope, "id": "chat-1", "kind": "conversation", "version": "v1"}
    await upsert_source(deps, OPEN_PRINCIPAL, {**source, "text": TEXT})
    signal = await blocker(deps, scope, 1)
    at_monday = replace(deps, clock=lambda: MONDAY)
    await perform_effect(at_monday, WORKER, scope, signal.id)
    page = await concern_messages(deps, OPEN_PRINCIPAL, scope, "p_wangwu", first=10)
    [row] = page.items
    assert (row.concern_id, row.signal_id, row.kind) == (None, signal.id, "report")
    sent = await deliver_outbox(at_monday, WORKER, OutboxChannel(), None, key=row.key)
    assert sent.sent == [row.key]
