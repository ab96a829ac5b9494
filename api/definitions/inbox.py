"""`inbox` and `inboxCounts`: what waits for a person in a scope, newest first,
paged in the database by a keyset (`api.paging.INBOX`). A suggestion's item carries the cited
evidence (each reference's excerpt from the exact source version, or unavailable once it was
withdrawn), the current and proposed values, and who proposed it and when; a stopped
supervision run's item says what happened, when, why, and which mutations act on it."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.types import Info

from api.context import Context
from api.definitions.base import Actor, actor, build, versioned
from api.definitions.pagination import Connection, connection, page_size, wants_total
from api.definitions.story_types import Reference, Suggestion
from api.paging import INBOX, read_after
from engine.language.lang import Lang, lang_of
from engine.page import Page
from engine.story import wording as w
from engine.story.inbox import InboxItem as Item
from engine.story.inbox import StoppedRun
from engine.story.wording import Labels
from jobs.story import inbox as use_case


@strawberry.type(description="A supervision run that failed or paused and waits for a person.")
class InboxRun:
    id: str
    status: str = strawberry.field(description="failed or paused.")
    trigger: str
    mode: str
    created_at: datetime
    error_stage: str | None
    error_kind: str | None
    error_message: str | None
    pause_reason: str | None = strawberry.field(
        description="Why the service paused it (the token budget); null: a person paused it."
    )
    actions: list[str] = strawberry.field(
        description="The mutations a person can take, each with the run id: continueReview "
        "(failed: retry; paused: go on), cancelReview (paused only)."
    )


@strawberry.type(
    description="One thing waiting for a person: a pending suggestion or difference, or a "
    "failed or paused supervision run."
)
class InboxItem:
    kind: str = strawberry.field(
        description="FIELD (a suggestion), DIFFERENCE, FAILED_RUN or PAUSED_RUN."
    )
    id: str = strawberry.field(description="The suggestion's id or the run's id.")
    at: datetime = strawberry.field(description="When it was proposed, or the run stopped.")
    what: str = strawberry.field(description="What happened, in the deployment's LOCALE.")
    reason: str | None = strawberry.field(
        description=(
            "Why a run stopped (its error, or the pause reason); for a pending difference a"
            " holder answered through a concern, the answer quoted (`suggestion.viaConcern`"
            " names the concern); null for other suggestions."
        )
    )
    run: InboxRun | None = strawberry.field(description="The stopped run (run kinds only).")
    suggestion: Suggestion | None
    current_value: str | None
    proposed_value: str | None
    current_label: str | None = strawberry.field(
        description="The current value as a person reads it: a holder's name for a relation's "
        "end (its value is the entity id), else the value itself."
    )
    proposed_label: str | None = strawberry.field(
        description="The proposed value as a person reads it (see currentLabel)."
    )
    proposed_by: Actor | None = strawberry.field(
        description="Who proposed it: the run (or person)."
    )
    proposed_at: datetime | None
    seen_version: int | None = strawberry.field(
        description="The target's current version: pass it back when acting (stale: CONFLICT)."
    )
    evidence: list[Reference] = strawberry.field(
        description="The cited passages; each excerpt is the exact version's text or unavailable."
    )
    repeat_of: str | None = strawberry.field(
        description="Back on new evidence: the dismissed suggestion it repeats (its evidence too)."
    )
    label: str = strawberry.field(
        description="The item as one sentence, in the deployment's LOCALE: which object, the "
        "field in words, current → proposed, who proposed it (a run: what happened)."
    )
    target_label: str | None = strawberry.field(
        description="The object the suggestion is about as a person calls it (its id is "
        "suggestion.targetId)."
    )
    field_label: str | None = strawberry.field(
        description="The field in words (from_id of a responsibility: 负责人)."
    )
    proposed_by_label: str | None = strawberry.field(
        description="Who proposed it as a name (a person, or automatic review with its run)."
    )


@strawberry.type(description="Pending inbox items per kind (for badges).")
class InboxCounts:
    field: int
    difference: int
    failed_run: int
    paused_run: int
    total: int


SUGGESTION_WHAT = {
    "zh": {"field": "建议修改字段", "difference": "待确认的差异"},
    "en": {"field": "a proposed field change", "difference": "a pending difference"},
}


def run_item(r: StoppedRun, lang: Lang) -> InboxItem:
    return InboxItem(
        kind=r.kind,
        id=r.run_id,
        at=r.at,
        what=r.what(lang),
        reason=r.reason(lang),
        run=InboxRun(
            id=r.run_id,
            status=r.status,
            trigger=r.trigger,
            mode=r.mode,
            created_at=r.created_at,
            error_stage=r.error_stage,
            error_kind=r.error_kind,
            error_message=r.error_message,
            pause_reason=r.pause_reason,
            actions=list(r.actions),
        ),
        suggestion=None,
        current_value=None,
        proposed_value=None,
        current_label=None,
        proposed_label=None,
        proposed_by=None,
        proposed_at=None,
        seen_version=None,
        evidence=[],
        repeat_of=None,
        label=r.what(lang),
        target_label=None,
        field_label=None,
        proposed_by_label=None,
    )


def item_type(i: Item, lang: Lang = "zh", labels: Labels | None = None) -> InboxItem:
    if i.run is not None:
        return run_item(i.run, lang)
    s = i.suggestion
    assert s is not None
    labels = labels or Labels()
    current, proposed = w.suggestion_values(s, labels, lang)
    return InboxItem(
        kind=s.kind.value.upper(),
        id=s.id,
        at=s.recorded_at,
        what=SUGGESTION_WHAT[lang][s.kind.value],
        # a holder's answer through a concern: quoted, for an editor to weigh
        reason=s.why if s.via_concern else None,
        run=None,
        suggestion=versioned(Suggestion, s),
        current_value=s.current_value,
        proposed_value=s.proposed_value,
        current_label=current,
        proposed_label=proposed,
        proposed_by=actor(s.by),
        proposed_at=s.recorded_at,
        seen_version=i.target_version,
        evidence=[build(Reference, r) for r in i.evidence],
        repeat_of=s.repeat_of,
        label=w.suggestion_sentence(s, labels, lang),
        target_label=w.suggestion_target(s, labels, lang),
        field_label=w.suggestion_field(s, labels, lang),
        proposed_by_label=w.actor_name(s.by, labels.names, lang),
    )


@strawberry.type
class Query:
    @strawberry.field(
        description=(
            "What waits for a person in a scope: pending suggestions (FIELD) and pending "
            "differences (DIFFERENCE) with their evidence, failed (FAILED_RUN) and paused "
            "(PAUSED_RUN) supervision runs with the actions on them; newest first. Unknown "
            "kinds: INVALID_INPUT."
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
        labels: list[Labels] = []

        async def read(key: tuple[int, str] | None) -> Page[Item]:
            page = await use_case.inbox(
                info.context.deps,
                info.context.caller(),
                scope,
                kinds=kinds,
                first=page_size(first, info.context.settings.page_max_first),
                after=key,
                with_total=wants_total(info),
            )
            labels.append(
                await use_case.inbox_labels(
                    info.context.deps, info.context.caller(), scope, page.items
                )
            )
            return page

        lang = lang_of(info.context.settings.locale)
        cursored = await read_after(INBOX, after, read)
        return connection(cursored, lambda i: item_type(i, lang, labels[0]))

    @strawberry.field(description="Pending inbox items per kind, for badges.")
    async def inbox_counts(self, info: Info[Context, None], scope: str) -> InboxCounts:
        n = await use_case.inbox_counts(info.context.deps, info.context.caller(), scope)
        return InboxCounts(
            field=n["FIELD"],
            difference=n["DIFFERENCE"],
            failed_run=n["FAILED_RUN"],
            paused_run=n["PAUSED_RUN"],
            total=sum(n.values()),
        )
