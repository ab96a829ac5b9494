"""The agenda's effects on concerns, performed once (，再创建或补充; docs/rules/loop.md).

The decision is recorded on the signal in the review's publish transaction, with the effect
it asks for; after that transaction commits, an arq job (`perform_signal_effect`, one job id
per signal, queued by `jobs/signal/effects.py`) performs it here, with the concerns whose
use case it is:

- raise: the follow-up concern `con-<signal id>` (type FOLLOWUP, `signal_id` set, initiator
  the policy's owner, people the reachable person), its first contact due at the promised
  time moved into the priority's sending window (`engine.concern.window.
  first_contact_time`), not at once. The concern id is the signal's: a repeat, a retried or
  redelivered job or a second worker finds it created ("already done", not an error);
- supplement: the covering open concern receives the signal as a related fact
  (`jobs.concern.commands.report_fact`, keyed by the signal id: its loop reads it once);
- report: a message to the owner through the concern outbox (key `signal-report:<id>`,
  MERGEd, in working hours like every report), delivered by the outbox's workers.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.concern.effects import Recipient, ReportKind
from engine.concern.effects import ReportToOwner as OutboxReport
from engine.concern.model import Priority
from engine.concern.reports import schedule_report
from engine.concern.window import first_contact_time
from engine.errors import Conflict, NotFound
from engine.principal import Principal
from engine.scope import require_scope
from engine.signal.model import SignalStatus
from engine.signal.policy import RaiseFromSignal, ReportToOwner, SupplementConcern
from engine.signal.stored import Signal, effect_of
from engine.signal.wording import owner_report_text
from graph.concern.codec import outbox_row
from graph.concern.outbox import Outbox
from graph.concern.persons import PersonStore
from jobs.concern import commands
from jobs.concern.effects import enqueue_delivery
from jobs.deps import Deps
from jobs.signal.record import signal_store


@dataclass(frozen=True)
class Performed:
    signal_id: str
    outcome: str  # raised | supplemented | reported | already | answered | none
    concern_id: str | None = None


async def perform_effect(deps: Deps, principal: Principal, scope: str, signal_id: str) -> Performed:
    """Perform what the signal's recorded decision asks for; a repeat does nothing more."""
    scope = require_scope(principal, "agenda", scope)
    now = deps.clock()
    signal = await signal_store(deps).get(scope, signal_id, now=now)
    if signal is None:
        raise NotFound(f"no signal {signal_id}", signal_id=signal_id)
    if signal.status is SignalStatus.ANSWERED:
        return Performed(signal_id, "answered")  # answered in its conversation: nobody to ask
    effect = effect_of(signal)
    if isinstance(effect, RaiseFromSignal):
        policy = commands.policy_of(deps)
        first = first_contact_time(effect.first_contact_at, now, effect.request.priority, policy)
        try:
            await commands.raise_concern(
                deps,
                principal,
                effect.request,
                scope=scope,
                at=now,
                concern_id=effect.concern_id,
                first_at=first,
            )
        except Conflict:
            return Performed(signal_id, "already", effect.concern_id)
        return Performed(signal_id, "raised", effect.concern_id)
    if isinstance(effect, SupplementConcern):
        fact = commands.Fact(
            fact_id=signal_id, kind=str(signal.kind), source="signal", detail=effect.fact
        )
        await commands.report_fact(deps, principal, effect.concern_id, fact)
        return Performed(signal_id, "supplemented", effect.concern_id)
    if isinstance(effect, ReportToOwner):
        await _report(deps, signal, effect)
        return Performed(signal_id, "reported")
    return Performed(signal_id, "none")


REPORT_KEY = "signal-report:"


async def _report(deps: Deps, signal: Signal, effect: ReportToOwner) -> None:
    """The agenda's report of a blocker or risk keeps the report rules like every report:
    the 30-minute gap after the owner's previous agenda report, the daily cap (beyond it,
    the next working day) and the off-hours delay (`engine/concern/reports.schedule_report`)."""
    policy = commands.policy_of(deps)
    now = deps.clock()
    persons = PersonStore(deps.driver, deps.database)
    last = today = None
    if effect.person_id:
        last = await persons.last_report_to(
            scope=signal.scope, person_id=effect.person_id, key_prefix=REPORT_KEY
        )
        today = await persons.reports_today(
            scope=signal.scope, person_id=effect.person_id, now=now, policy=policy
        )
    slot = schedule_report(
        (ReportKind.OWNER_UPDATE,),
        now=now,
        last_report_at=last,
        reports_today=today or 0,
        priority=Priority.HIGH,
        policy=policy,
    )
    assert slot.deliver_at is not None  # an owner update is deferred, never skipped
    report = OutboxReport(
        key=f"{REPORT_KEY}{signal.id}",
        concern_id="",
        signal_id=signal.id,
        recipient=Recipient(name=effect.name, channel=effect.channel, person_id=effect.person_id),
        text=owner_report_text(signal.kind, signal.who, effect.text, policy.locale),
        report_kinds=(ReportKind.OWNER_UPDATE,),
        deliver_at=slot.deliver_at,
    )
    row = outbox_row(report, scope=signal.scope, seq=0, now=now)
    assert row is not None
    await Outbox(deps.driver, deps.database).record([row])
    if deps.pool is not None and report.deliver_at <= now:
        await enqueue_delivery(
            deps.pool, deps.settings.queue_name, concern_id=None, key=report.key, now=now
        )
