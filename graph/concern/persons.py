"""Person context for concerns (docs/rules/concerns.md).

A concern keeps only person_id, display_name, role_in_concern, comm_status and the last
channel; everything else about a person is a `Person` node read here:
`PersonStore.resolve(person_id)` (the master data) and `concern_slice(person_id)`
(`build_person_context_slice(person_id, "concern")`: the live concerns they take part in,
and which of those wait for their reply). `loop_context` turns the slices of one concern's
people into the engine's `LoopContext` (preferred channels, reachable channels, the owner,
today's report count).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from engine.concern.context import LoopContext
from engine.concern.effects import Recipient
from engine.concern.model import Concern
from engine.concern.policy import ConcernPolicy
from engine.concern.reports import report_recipient
from engine.errors import NotFound
from graph.base import Store
from graph.concern.channel_health import ChannelHealthStore
from graph.concern.codec import concern_from_doc, utc
from graph.concern.outbox import Outbox
from graph.temporal import from_neo4j


@dataclass(frozen=True)
class PersonContext:
    person_id: str
    display_name: str
    preferred_channel: str = ""
    channels: list[str] = field(default_factory=list)
    is_owner: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_props(cls, props: dict[str, Any]) -> PersonContext:
        known = {"person_id", "display_name", "preferred_channel", "channels", "is_owner", "scope"}
        return cls(
            person_id=props["person_id"],
            display_name=props.get("display_name") or props["person_id"],
            preferred_channel=props.get("preferred_channel") or "",
            channels=list(props.get("channels") or []),
            is_owner=bool(props.get("is_owner")),
            extra={k: from_neo4j(v) for k, v in props.items() if k not in known},
        )


@dataclass(frozen=True)
class ConcernSliceItem:
    concern: Concern
    comm_status: str
    role_in_concern: str


@dataclass(frozen=True)
class LoopInputs:
    """One concern with the person slices a loop turn reads."""

    concern: Concern
    scope: str
    persons: dict[str, PersonContext]
    owner: PersonContext | None


def preferred_channels(inputs: LoopInputs) -> dict[str, str]:
    """interaction_policy.preferred_channel of everyone a message may go to: the concern's
    people and the owner (often the initiator, who need not be one of the people)."""
    people = dict(inputs.persons)
    if inputs.owner is not None:
        people.setdefault(inputs.owner.person_id, inputs.owner)
    return {pid: p.preferred_channel for pid, p in people.items() if p.preferred_channel}


class PersonStore(Store):
    async def resolve(self, scope: str, person_id: str) -> PersonContext:
        records = await self.query("concern/person_get", scope=scope, person_id=person_id)
        if not records:
            raise NotFound(f"no person {person_id} in scope {scope}", person_id=person_id)
        return PersonContext.from_props(records[0]["person"])

    async def upsert(self, scope: str, person: dict[str, Any]) -> PersonContext:
        records = await self.query(
            "concern/person_upsert", write=True, scope=scope, person={**person, "scope": scope}
        )
        return PersonContext.from_props(records[0]["person"])

    async def concern_slice(self, scope: str, person_id: str) -> list[ConcernSliceItem]:
        records = await self.query("concern/person_concerns", scope=scope, person_id=person_id)
        return [
            ConcernSliceItem(
                concern_from_doc(r["doc"]), r["comm_status"] or "", r["role_in_concern"] or ""
            )
            for r in records
        ]

    async def loop_inputs(self, concern_id: str) -> LoopInputs:
        records = await self.query("concern/load_context", concern_id=concern_id)
        if not records:
            raise NotFound(f"no concern {concern_id}", concern_id=concern_id)
        r = records[0]
        persons = {p["person_id"]: PersonContext.from_props(p) for p in r["people"]}
        owner = PersonContext.from_props(r["owner"]) if r["owner"] else None
        concern = concern_from_doc(r["doc"])
        return await self._with_initiator(LoopInputs(concern, r["scope"], persons, owner))

    async def known(self, scope: str, person_ids: list[str], now: datetime) -> set[str]:
        """Which of `person_ids` the scope knows (registered or currently bound)."""
        if not person_ids:
            return set()
        records = await self.query(
            "concern/known_people", scope=scope, person_ids=person_ids, now=utc(now)
        )
        return {r["person_id"] for r in records}

    async def by_ids(self, scope: str, person_ids: list[str]) -> dict[str, PersonContext]:
        records = await self.query("concern/persons_by_ids", scope=scope, person_ids=person_ids)
        return {r["person"]["person_id"]: PersonContext.from_props(r["person"]) for r in records}

    async def _with_initiator(self, inputs: LoopInputs) -> LoopInputs:
        """Add the initiator's person context when they are not one of the concern's people."""
        ini = inputs.concern.initiator
        pid = ini.person_id if ini is not None else None
        known = set(inputs.persons) | ({inputs.owner.person_id} if inputs.owner else set())
        if not pid or pid in known:
            return inputs
        extra = await self.by_ids(inputs.scope, [pid])
        return LoopInputs(inputs.concern, inputs.scope, {**inputs.persons, **extra}, inputs.owner)

    async def raise_inputs(self, concern: Concern, scope: str) -> LoopInputs:
        """A concern about to be created: its people, its initiator and the owner, by id."""
        ids = [p.person_id for p in concern.people if p.person_id]
        persons = await self.by_ids(scope, ids) if ids else {}
        records = await self.query("concern/owner_of_scope", scope=scope)
        owner = PersonContext.from_props(records[0]["person"]) if records else None
        return await self._with_initiator(LoopInputs(concern, scope, persons, owner))

    async def last_report_to(
        self, *, scope: str, person_id: str, key_prefix: str
    ) -> datetime | None:
        """When the latest report to `person_id` keyed `key_prefix…` is (to be) delivered."""
        records = await self.query(
            "concern/last_report_to", scope=scope, person_id=person_id, key_prefix=key_prefix
        )
        return from_neo4j(records[0]["at"]) if records else None

    async def reports_today(
        self, *, scope: str, person_id: str, now: datetime, policy: ConcernPolicy
    ) -> int:
        local = now.astimezone(policy.tz)
        start = local.replace(hour=0, minute=0, second=0, microsecond=0)
        records = await self.query(
            "concern/reports_today",
            scope=scope,
            person_id=person_id,
            day_start=utc(start),
            day_end=utc(start + timedelta(days=1)),
        )
        return int(records[0]["n"])

    async def loop_context(
        self,
        inputs: LoopInputs,
        *,
        now: datetime,
        policy: ConcernPolicy,
        unreachable: frozenset[str] | None = None,
    ) -> LoopContext:
        """The loop's view of people and channels; channel health is read unless given."""
        if unreachable is None:
            health = ChannelHealthStore(self.driver, self.database, timeout=self.timeout)
            unreachable = await health.unreachable(inputs.scope, now)
        owner = None
        if inputs.owner is not None:
            o = inputs.owner
            owner = Recipient(
                name=o.display_name,
                channel=o.preferred_channel or (o.channels[0] if o.channels else ""),
                person_id=o.person_id,
            )
        pending = await Outbox(self.driver, self.database, timeout=self.timeout).pending_of(
            inputs.concern.concern_id
        )
        context = LoopContext(
            owner=owner,
            pending_messages=tuple(pending),
            preferred_channels=preferred_channels(inputs),
            unreachable_channels=unreachable,
            person_channels={pid: p.channels for pid, p in inputs.persons.items() if p.channels},
        )
        recipient = report_recipient(inputs.concern, context)
        if recipient is not None and recipient.person_id:
            count = await self.reports_today(
                scope=inputs.scope, person_id=recipient.person_id, now=now, policy=policy
            )
            context = context.model_copy(update={"reports_today": count})
        return context
