"""`inbox` and `inboxCounts` (issue 29): what waits for a person in a scope, newest first,
paged in the database by a keyset (`api.paging.INBOX`). Each item carries the cited
evidence (each reference's excerpt from the exact source version, or unavailable once it was
withdrawn), the current and proposed values, and who proposed it and when."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.types import Info

from api.context import Context
from api.definitions.pagination import Connection, connection, page_size
from api.definitions.story_types import Actor, Reference, Suggestion, actor, build, versioned
from api.paging import INBOX, read_after
from engine.page import Page
from engine.story.inbox import InboxItem as Item
from jobs.story import inbox as use_case


@strawberry.type(description="One thing waiting for a person: a pending suggestion or difference.")
class InboxItem:
    kind: str = strawberry.field(description="FIELD (a suggestion) or DIFFERENCE.")
    suggestion: Suggestion
    current_value: str
    proposed_value: str
    proposed_by: Actor = strawberry.field(description="Who proposed it: the run (or person).")
    proposed_at: datetime
    seen_version: int = strawberry.field(
        description="The target's current version: pass it back when acting (stale: CONFLICT)."
    )
    evidence: list[Reference] = strawberry.field(
        description="The cited passages; each excerpt is the exact version's text or unavailable."
    )
    repeat_of: str | None = strawberry.field(
        description="Back on new evidence: the dismissed suggestion it repeats (its evidence too)."
    )


@strawberry.type(description="Pending inbox items per kind (for badges).")
class InboxCounts:
    field: int
    difference: int
    total: int


def item_type(i: Item) -> InboxItem:
    s = i.suggestion
    return InboxItem(
        kind=s.kind.value.upper(),
        suggestion=versioned(Suggestion, s),
        current_value=s.current_value,
        proposed_value=s.proposed_value,
        proposed_by=actor(s.by),
        proposed_at=s.recorded_at,
        seen_version=i.target_version,
        evidence=[build(Reference, r) for r in i.evidence],
        repeat_of=s.repeat_of,
    )


@strawberry.type
class Query:
    @strawberry.field(
        description=(
            "What waits for a person in a scope: pending suggestions (FIELD) and pending "
            "differences (DIFFERENCE), newest first, with their evidence. Unknown kinds: "
            "INVALID_INPUT."
        )
    )
    async def inbox(
        self,
        info: Info[Context, None],
        scope: str,
        kinds: list[str] | None = None,
        first: int | None = 50,
        after: str | None = None,
    ) -> Connection[InboxItem]:
        async def read(key: tuple[int, str] | None) -> Page[Item]:
            return await use_case.inbox(
                info.context.deps,
                info.context.caller(),
                scope,
                kinds=kinds,
                first=page_size(first, info.context.settings.page_max_first),
                after=key,
            )

        return connection(await read_after(INBOX, after, read), item_type)

    @strawberry.field(description="Pending inbox items per kind, for badges.")
    async def inbox_counts(self, info: Info[Context, None], scope: str) -> InboxCounts:
        n = await use_case.inbox_counts(info.context.deps, info.context.caller(), scope)
        return InboxCounts(field=n["FIELD"], difference=n["DIFFERENCE"], total=sum(n.values()))
