"""A signal's concern ended: its outcome written in ONE transaction (the decision is
`engine/signal/outcome.py`).

The transaction reads the signal's current version and, for a difference, its pending
suggestion with the target's current version; it decides, then writes what the review of the
concern's conversation proposes, inside that review's result transaction (`settle_in`): the
event and its references, the pending suggestion's new version quoting the answer (never its
target: only a person overrules a person), the signal's new version, and a moved
commitment's new signal (decided by the scope's agenda policy like every signal). Without a
review (`settle`) only the loop's bookkeeping is written: a signal left unresolved. A
concurrent writer of the same outcome loses on the version constraints and writes nothing.
The conversation itself is written as a source version first (`write_conversation`).
"""

from __future__ import annotations

from datetime import datetime

from neo4j import AsyncManagedTransaction

from engine.clock import FOREVER, utc
from engine.concern.model import Concern
from engine.errors import InvalidInput
from engine.signal.model import SignalKind
from engine.signal.outcome import (
    OutcomePlan,
    Review,
    conversation_source,
    conversation_speakers,
    decide_outcome,
    reader_of,
    suggestion_for,
)
from engine.signal.policy import Reachable
from engine.signal.stored import Signal
from engine.story.models import Entity, ObjectKind, Relation, SourceVersion, Suggestion
from graph.search.passages import write_passages
from graph.signal.bindings import PersonBindings
from graph.signal.policies import AgendaPolicies
from graph.signal.store import SignalStore
from graph.story.codec import from_props, to_props, version_row, write_row
from graph.story.store import StoryStore


def answerer_of(concern: Concern, plan: OutcomePlan) -> Reachable | None:
    """The concern person whose answer states a new signal (a moved commitment), reachable
    on the channel the concern talks to them on, so the loop goes on with them."""
    if plan.answer is None:
        return None
    person = concern.person(plan.answer.entry.person_id)
    if person is None or not person.last_channel:
        return None
    return Reachable(
        person_id=person.person_id, display_name=person.display_name, channel=person.last_channel
    )


class SignalAnswers(StoryStore):
    async def settle(
        self,
        concern: Concern,
        scope: str,
        *,
        now: datetime,
        locale: str = "zh",
    ) -> tuple[OutcomePlan | None, list[Signal]]:
        """Write what `concern`'s end says about its signal when no answer is to be read
        (the signal left unresolved); (None, []) when there is nothing (left) to write. A
        readable answer is written only by the review of the conversation (`settle_in`)."""
        return await self._write(
            lambda tx: self.settle_in(tx, concern, scope, now=now, locale=locale)
        )

    async def settle_in(
        self,
        tx: AsyncManagedTransaction,
        concern: Concern,
        scope: str,
        *,
        now: datetime,
        locale: str = "zh",
        review: Review | None = None,
    ) -> tuple[OutcomePlan | None, list[Signal]]:
        """Decide and write in `tx` (a review's result transaction when `review` is given).
        Returns the plan and the new signals it recorded."""
        signal_id = concern.source.signal_id
        if signal_id is None:
            return None, []
        now = utc(now)
        rows = await self.rows(
            tx, "signal/signal_current", scope=scope, id=signal_id, forever=FOREVER
        )
        if not rows:
            return None, []
        signal = from_props(Signal, rows[0]["v"])
        suggestion, target = await self._difference(tx, signal)
        plan = decide_outcome(
            signal,
            concern,
            now=now,
            locale=locale,
            suggestion=suggestion,
            target=target,
            review=review,
        )
        if plan is None:
            return None, []
        return plan, await self._write_plan(tx, plan, answerer_of(concern, plan))

    async def write_conversation(
        self, concern: Concern, scope: str, *, at: datetime, tz: str, locale: str = "zh"
    ) -> SourceVersion:
        """The concern's conversation as a source version of its scope (written once per
        version; its lines searchable like any source's), its speakers bound to their
        concern people in the same transaction (`conversation_speakers`), by the loop."""
        source, version = conversation_source(concern, scope, at=utc(at), tz=tz, locale=locale)
        speakers = conversation_speakers(concern)
        bindings = PersonBindings(self.driver, self.database)

        async def work(tx: AsyncManagedTransaction) -> SourceVersion:
            known = {
                r["version"]
                for r in await self.rows(
                    tx, "story/source_versions_of", scope=scope, ids=[source.id]
                )
            }
            if version.version in known:
                return version
            await self.rows(
                tx,
                "story/write_source",
                source=to_props(source),
                versions=[to_props(version)],
            )
            await write_passages(tx, [version])
            await bindings.bind_speakers_in(
                tx,
                speakers,
                scope=scope,
                source_id=source.id,
                by=reader_of(concern.concern_id),
                now=utc(at),
                why="the concern's conversation",
            )
            return version

        return await self._write(work)

    async def _difference(
        self, tx: AsyncManagedTransaction, signal: Signal
    ) -> tuple[Suggestion | None, Entity | Relation | None]:
        if signal.kind is not SignalKind.DIFFERENCE:
            return None, None
        rows = await self.rows(
            tx,
            "signal/pending_differences",
            scope=signal.scope,
            target_id=signal.target_id,
            forever=FOREVER,
        )
        suggestion = suggestion_for(signal, [from_props(Suggestion, r["v"]) for r in rows])
        if suggestion is None:
            return None, None
        target = await self._current(tx, suggestion.target_kind, signal.scope, suggestion.target_id)
        assert isinstance(target, Entity | Relation)
        return suggestion, target

    async def _write_plan(
        self, tx: AsyncManagedTransaction, plan: OutcomePlan, answerer: Reachable | None
    ) -> list[Signal]:
        await self._write_versions(tx, ObjectKind.EVENT, plan.events)
        if plan.suggestion is not None:  # still pending: the answer is its evidence
            await self._write_versions(tx, ObjectKind.SUGGESTION, [plan.suggestion])
        if plan.references:
            rows = await self.rows(
                tx, "story/write_references", rows=[write_row(r) for r in plan.references]
            )
            if rows[0]["written"] != len(plan.references):
                raise InvalidInput("an answer's reference lost its source; nothing was written")
        rows = await self.rows(
            tx, "signal/write_signal_versions", rows=[version_row(plan.signal)], forever=FOREVER
        )
        if not rows or rows[0]["written"] != 1 or rows[0]["orphaned"]:
            raise InvalidInput("the signal changed concurrently; nothing was written")
        if not plan.drafts or plan.result_id is None:
            return []
        policy = await AgendaPolicies(self.driver, self.database).current_in(tx, plan.signal.scope)
        answered = plan.signal
        return await SignalStore(self.driver, self.database).record_in(
            tx,
            plan.drafts,
            scope=answered.scope,
            run_id=plan.run_id or "",
            result_id=plan.result_id,
            now=answered.recorded_at,
            policy=policy,
            by=answered.by,
            why=f"answer in concern {answered.via_concern}",
            via_concern=answered.via_concern,
            answerer=answerer,
        )
