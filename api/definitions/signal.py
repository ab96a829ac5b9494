"""`signals(scope, asOf, kind, status, first, after)`: the signals of a scope believed at asOf,
paged in the database (keyset cursors), `reader` role."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.types import Info

from api.context import Context
from api.definitions.pagination import Connection, connection, page_size, wants_total
from api.definitions.signal_types import Signal, SignalKind, SignalStatus
from api.paging import SIGNALS, read_after
from jobs.signal import policy as policies
from jobs.signal.chain import signal_at
from jobs.signal.reads import signals_page


@strawberry.type
class Query:
    @strawberry.field(
        description=(
            "Signals (commitments, blockers, risks, questions, differences) believed at asOf "
            "in id order, optionally of one kind and status, paged in the database."
        )
    )
    async def signals(
        self,
        info: Info[Context, None],
        scope: str,
        as_of: datetime | None = None,
        kind: SignalKind | None = None,
        status: SignalStatus | None = None,
        first: int | None = 50,
        after: str | None = None,
    ) -> Connection[Signal]:
        page = await read_after(
            SIGNALS,
            after,
            lambda key: signals_page(
                info.context.deps,
                info.context.caller(),
                scope,
                page_size(first, info.context.settings.page_max_first),
                as_of=as_of,
                after=key,
                kind=kind,
                status=status,
                with_total=wants_total(info),
            ),
        )
        return connection(page, Signal.from_model)

    @strawberry.field(
        description="One signal as believed at asOf (default now), with its passage, its "
        "decision and concern: the start of its chain. Another scope's reads as missing."
    )
    async def signal(
        self,
        info: Info[Context, None],
        scope: str,
        id: strawberry.ID,
        as_of: datetime | None = None,
    ) -> Signal:
        found = await signal_at(
            info.context.deps, info.context.caller(), scope, str(id), as_of=as_of
        )
        return Signal.from_model(found)


async def story_graph_signals(
    info: Info[Context, None],
    scope: str,
    as_of: datetime,
    kind: SignalKind | None,
    status: SignalStatus | None,
    first: int,
) -> list[Signal]:
    """storyGraph's `signals`: the first page of the signals believed at its asOf."""
    page = await signals_page(
        info.context.deps,
        info.context.caller(),
        scope,
        page_size(first, info.context.settings.page_max_first),
        as_of=as_of,
        kind=kind,
        status=status,
    )
    return [Signal.from_model(s) for s in page.items]


@strawberry.type(description="One version of a scope's agenda policy.")
class AgendaPolicy:
    scope: str
    version: int
    loop_enabled: bool
    owner_person_id: str | None
    owner_name: str
    owner_channel: str
    act_on: list[SignalKind]  # the kinds the agenda acts on; signals of others are ignored
    by: str  # who saved this version ("" for the defaults)
    recorded_at: datetime | None


def policy_type(scope: str, stored: policies.StoredPolicy) -> AgendaPolicy:
    p = stored.policy
    return AgendaPolicy(
        scope=scope,
        version=p.version,
        loop_enabled=p.loop_enabled,
        owner_person_id=p.owner_person_id,
        owner_name=p.owner_name,
        owner_channel=p.owner_channel,
        act_on=[k for k in SignalKind if p.rule(k).act],
        by=stored.by,
        recorded_at=stored.recorded_at,
    )


@strawberry.input
class AgendaPolicyInput:
    loop_enabled: bool
    act_on: list[SignalKind]
    owner_person_id: str | None = None
    owner_name: str = ""
    owner_channel: str = ""


@strawberry.type
class PolicyQuery:
    @strawberry.field(description="The scope's current agenda policy (operator or admin).")
    async def agenda_policy(self, info: Info[Context, None], scope: str) -> AgendaPolicy:
        stored = await policies.agenda_policy(info.context.deps, info.context.caller(), scope)
        return policy_type(scope, stored)


@strawberry.type
class Mutation:
    @strawberry.mutation(
        description="A new version of the scope's agenda policy, made against seenVersion "
        "(stale: CONFLICT, nothing written); operator or admin."
    )
    async def save_agenda_policy(
        self,
        info: Info[Context, None],
        scope: str,
        policy: AgendaPolicyInput,
        seen_version: int,
    ) -> AgendaPolicy:
        edit = policies.PolicyEdit(
            loop_enabled=policy.loop_enabled,
            owner_person_id=policy.owner_person_id,
            owner_name=policy.owner_name,
            owner_channel=policy.owner_channel,
            act_on=frozenset(policy.act_on),
        )
        stored = await policies.save_agenda_policy(
            info.context.deps, info.context.caller(), scope, edit, seen_version=seen_version
        )
        return policy_type(scope, stored)
