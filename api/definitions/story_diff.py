"""`storyGraphDiff`: what was added, revised, retracted, removed or restored between two
record times, by whom, why, through which result and citing which passage (issue 29).

The list is paged in the database by a keyset (the object's last change in the window, id);
every entry equals the difference of the as-of reads at `since` and `until`.
"""

from __future__ import annotations

from datetime import datetime
from enum import Enum

import strawberry
from strawberry.types import Info

from api.context import Context
from api.definitions.pagination import Connection, decode_keyset, keyset_connection, page_size
from api.definitions.story_types import Actor, Reference, actor, build
from engine.story import diff as d
from graph.temporal import to_epoch_us
from jobs.story import diff as use_case


@strawberry.enum(description="How an object changed between since and until.")
class DiffChange(Enum):
    ADDED = "added"
    REVISED = "revised"
    RETRACTED = "retracted"
    REMOVED = "removed"
    RESTORED = "restored"


@strawberry.type(description="One field's value believed at since (before) and at until (after).")
class FieldChange:
    field: str
    before: str | None
    after: str | None


@strawberry.type(description="One object that changed between since and until.")
class StoryDiffEntry:
    object_kind: str
    object_id: strawberry.ID
    change: DiffChange
    changed_at: datetime = strawberry.field(
        description="The object's last change in the window (its record time)."
    )
    fields: list[FieldChange]
    by: Actor | None = strawberry.field(description="Who made the change: a run or a person.")
    why: str
    result_id: str | None = strawberry.field(description="The result the change came from.")
    references: list[Reference] = strawberry.field(
        description="The passages the change cites (source version and locator)."
    )


def entry_type(e: d.DiffEntry, cited: list[Reference]) -> StoryDiffEntry:
    return StoryDiffEntry(
        object_kind=e.object_kind,
        object_id=strawberry.ID(e.object_id),
        change=DiffChange(e.change.value),
        changed_at=e.changed_at,
        fields=[FieldChange(field=f.field, before=f.before, after=f.after) for f in e.fields],
        by=actor(e.by) if e.by is not None else None,
        why=e.why,
        result_id=e.result_id,
        references=cited,
    )


@strawberry.type
class Query:
    @strawberry.field(
        description=(
            "What changed in a scope's story graph between two record times (since, until]: "
            "added, revised, retracted, removed or restored objects with before/after values, "
            "who, why, the result and the cited passages. until defaults to now. Paged in the "
            "database by (changedAt, id)."
        )
    )
    async def story_graph_diff(
        self,
        info: Info[Context, None],
        scope: str,
        since: datetime,
        until: datetime | None = None,
        first: int | None = 50,
        after: str | None = None,
    ) -> Connection[StoryDiffEntry]:
        key = decode_keyset("diff", after, (int, str))
        answer = await use_case.story_diff(
            info.context.deps,
            info.context.caller(),
            scope,
            since=since,
            until=until,
            first=page_size(first, info.context.settings.page_max_first),
            after=(key[0], key[1]) if key else None,
        )
        nodes = [
            entry_type(e, [build(Reference, r) for r in answer.cited.get(e.object_id, [])])
            for e in answer.entries
        ]
        return keyset_connection(
            "diff",
            nodes,
            lambda n: (to_epoch_us(n.changed_at), str(n.object_id)),
            has_next=answer.has_next,
            after=after,
            total=None,
        )
