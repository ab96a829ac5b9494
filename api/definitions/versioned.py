"""The `Versioned` interface every immutable version implements (story objects, signals,
person bindings): its bookkeeping, and the concern whose answer wrote it.

It stands apart from the shared helpers of `api.definitions.base` because it names a domain
type (`Concern`); the concern types name `Signal`, a `Versioned`, only through `strawberry.lazy`,
so no circle runs back here."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.types import Info

from api.context import Context
from api.definitions.base import Actor
from api.definitions.concern_types import Concern
from api.definitions.signal_loaders import concern_by_id


@strawberry.interface(description="An immutable version of a versioned object.")
class Versioned:
    id: strawberry.ID
    scope: str
    seq: int
    recorded_at: datetime
    retracted_at: datetime | None
    by: Actor
    why: str
    via_result: str | None
    via_concern: str | None = strawberry.field(
        description="The concern whose conversation brought this version: what the loop "
        "wrote is `by` a run, never by the person who answered (the review of that "
        "conversation, `sup-<concern>-m<messages>`; for a signal its concern left unresolved, "
        "the concern's run `concern:<id>`); a suggestion an editor then accepted or dismissed "
        "keeps it, `by` that editor (docs/rules/loop-standing.md). Null otherwise."
    )

    @strawberry.field(
        description="The concern (viaConcern) whose answer wrote this version, with its "
        "conversation; null when none or not visible to the caller."
    )
    async def through_concern(self, info: Info[Context, None]) -> Concern | None:
        if not self.via_concern:
            return None
        found = await concern_by_id(info.context, self.scope).load(self.via_concern)
        return Concern.from_model(found) if found is not None else None
