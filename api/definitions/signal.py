"""`signals(scope, asOf, kind, status, first, after)`: the signals of a scope believed at asOf,
paged in the database (keyset cursors), `reader` role (issue 28)."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.types import Info

from api.context import Context
from api.definitions.pagination import Connection, connection, page_size
from api.definitions.signal_types import Signal, SignalKind, SignalStatus, signal_type
from api.paging import SIGNALS, read_after
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
            ),
        )
        return connection(page, signal_type)


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
    return [signal_type(s) for s in page.items]
