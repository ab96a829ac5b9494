"""`storyGraphDiff`: what was added, revised, retracted, removed or restored between two
record times, by whom, why, through which result and citing which passage.

The list is paged in the database by a keyset (`api.paging.DIFF`: the object's last change in
the window, id);
every entry equals the difference of the as-of reads at `since` and `until`.
"""

from __future__ import annotations

from datetime import datetime
from enum import Enum

import strawberry
from strawberry.types import Info

from api.context import Context
from api.definitions.base import Actor, actor, build
from api.definitions.pagination import Connection, connection, page_size, wants_total
from api.definitions.story_types import Reference
from api.paging import DIFF, read_after
from engine.language.lang import Lang, lang_of
from engine.page import Page
from engine.story import diff as d
from engine.story import wording as w
from engine.story.wording import Labels
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
    label: str = strawberry.field(
        description="The field's name as a person reads it (from_id of a responsibility: 负责人), "
        "in the deployment's LOCALE."
    )
    before_label: str | None = strawberry.field(
        description="before as a person reads it: an id as the object's name, field lists "
        "and stored words (confirmed, true) as words."
    )
    after_label: str | None = strawberry.field(description="after as a person reads it.")


@strawberry.type(description="One object that changed between since and until.")
class StoryDiffEntry:
    object_kind: str = strawberry.field(
        description="story, event, entity, relation, suggestion, summary or signal"
    )
    object_id: strawberry.ID
    change: DiffChange
    changed_at: datetime = strawberry.field(
        description="The object's last change in the window (its record time)."
    )
    fields: list[FieldChange]
    by: Actor | None = strawberry.field(description="Who made the change: a run or a person.")
    why: str
    result_id: str | None = strawberry.field(description="The result the change came from.")
    via_concern: str | None = strawberry.field(
        description="The concern whose answer made the change (by is then the person)."
    )
    references: list[Reference] = strawberry.field(
        description="The passages the change cites (source version and locator)."
    )
    object_label: str = strawberry.field(
        description="The object as a person calls it (a name, a title, 张三 负责 需求文档); "
        "its id is objectId."
    )
    by_label: str = strawberry.field(
        description="Who made the change as a name (a person, or automatic review with its run)."
    )
    label: str = strawberry.field(
        description="The change as one sentence, in the deployment's LOCALE: who did what to "
        "which object, each revised field's before → after in words."
    )


def entry_type(
    e: d.DiffEntry, cited: list[Reference], labels: Labels, lang: Lang = "zh"
) -> StoryDiffEntry:
    ends = labels.relations.get(e.object_id)
    kind = ends[1] if ends else None
    return StoryDiffEntry(
        object_kind=e.object_kind,
        object_id=strawberry.ID(e.object_id),
        change=DiffChange(e.change.value),
        changed_at=e.changed_at,
        fields=[
            FieldChange(
                field=f.field,
                before=f.before,
                after=f.after,
                label=w.field_word(f.field, lang, kind),
                before_label=w.value_words(f.field, f.before, labels.names, lang, kind),
                after_label=w.value_words(f.field, f.after, labels.names, lang, kind),
            )
            for f in e.fields
        ],
        object_label=w.entry_name(e, labels, lang),
        by_label=w.actor_name(e.by, labels.names, lang),
        label=w.diff_sentence(e, labels, lang),
        by=actor(e.by) if e.by is not None else None,
        why=e.why,
        result_id=e.result_id,
        via_concern=e.via_concern,
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
        answers: list[use_case.StoryDiffAnswer] = []

        async def read(key: tuple[int, str] | None) -> Page[d.DiffEntry]:
            answers.append(
                await use_case.story_diff(
                    info.context.deps,
                    info.context.caller(),
                    scope,
                    since=since,
                    until=until,
                    first=page_size(first, info.context.settings.page_max_first),
                    after=key,
                    with_total=wants_total(info),
                )
            )
            return answers[0].page

        page = await read_after(DIFF, after, read)
        cited, labels = answers[0].cited, answers[0].labels
        lang = lang_of(info.context.settings.locale)
        return connection(
            page,
            lambda e: entry_type(
                e, [build(Reference, r) for r in cited.get(e.object_id, [])], labels, lang
            ),
        )
