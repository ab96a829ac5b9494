"""Writes to a scope's story graph (docs/rules/reviews.md): an app's source versions and
withdrawals, a whole organising result, and a person's corrections (entity edits, relation and
suggestion actions).

Each checks the `editor` role and the scope first (FORBIDDEN, naming no scope); the actor
is the principal (`Principal.actor_id`); the repository reads, lets the engine decide and
writes in one transaction at the use case's one `now` (`deps.clock()`); graphChanged
subscribers hear of it after the commit.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal

from neo4j import AsyncManagedTransaction

from engine.errors import InvalidInput
from engine.principal import Principal
from engine.scope import require_scope
from engine.signal.binding import SpeakersIn
from engine.story import inputs as engine_inputs
from engine.story.conversation import render
from engine.story.corrections import RelationAction
from engine.story.models import Actor, Entity, Relation, Source, SourceVersion, Suggestion
from engine.story.publish import PublishPlan
from graph.signal.bindings import PersonBindings
from graph.story.publish import PublishOutcome
from jobs import past_epoch
from jobs.deps import Deps
from jobs.story.common import announce, editor, story_repo

SuggestionAction = Literal["accept", "dismiss"]


async def upsert_source(deps: Deps, principal: Principal, data: Mapping[str, Any]) -> Source:
    """Record an app's version(s) of a source; `data` is the input as plain values: `text`,
    or `messages` ({speaker, at, text}) recorded as text in the one message format
    (`engine.story.conversation.render`). Its `speakers` (name, person id, channel) bind
    each speaker of this source to a concern person, in the same transaction (how the
    agenda reaches who said something); binding needs the operator role, like `bindPerson`."""
    by = editor(principal, str(data["scope"]))
    fields = dict(data)
    messages = fields.pop("messages", None)
    if messages is not None:
        if fields.get("text") is not None:
            raise InvalidInput("give the conversation as text or as messages, not both")
        fields["text"] = render(messages)
    speakers = engine_inputs.parse_input(
        SpeakersIn, {"speakers": fields.pop("speakers", None) or []}
    ).speakers
    if speakers:
        # a speaker binding decides who concerns may message, as bindPerson does: the
        # same role (operator) for both ways of binding
        principal.require("operator", str(data["scope"]))
    parsed = engine_inputs.parse_input(engine_inputs.SourceInput, fields)
    now = deps.clock()

    async def bind(tx: AsyncManagedTransaction) -> object:
        return await PersonBindings(deps.driver, deps.database).bind_speakers_in(
            tx, speakers, scope=parsed.scope, source_id=parsed.id, by=by, now=now
        )

    stored = await story_repo(deps).upsert_source(parsed, now=now, also=bind if speakers else None)
    await announce(deps, parsed.scope, "source", [stored.id], by)
    return stored


async def withdraw_source(
    deps: Deps, principal: Principal, scope: str, source_id: str, version: str, reason: str = ""
) -> SourceVersion:
    by = editor(principal, scope)
    # cached past answers of the scope stop (jobs.past_epoch): before and after the write
    await past_epoch.move(deps.pool, scope)
    stored = await story_repo(deps).withdraw_source(
        scope, source_id, version, reason=reason, by=by, now=deps.clock()
    )
    await past_epoch.move(deps.pool, scope)
    await announce(deps, scope, "source", [source_id], by)
    return stored


async def publish_result(
    deps: Deps, principal: Principal, data: Mapping[str, Any], run_id: str | None = None
) -> PublishOutcome:
    """One whole organising result in one transaction (idempotent by key), recorded as the
    run that produced it, or as `api:<token name>`."""
    scope = require_scope(principal, "editor", str(data["scope"]))
    parsed = engine_inputs.parse_input(engine_inputs.PublishResultInput, dict(data))
    by = Actor.run(run_id or f"api:{principal.name}")
    outcome = await story_repo(deps).publish_result(parsed, by=by, now=deps.clock())
    if not outcome.repeat:
        await announce(deps, scope, "result", [outcome.result.id], by)
    return outcome


async def publish_run_result(
    deps: Deps,
    inp: engine_inputs.PublishResultInput,
    *,
    run_id: str,
    within: Callable[[AsyncManagedTransaction, PublishPlan], Awaitable[None]],
) -> PublishOutcome:
    """The publish stage of a supervision run: its result, recorded as the run, with the
    run's own records written by `within` in the same transaction. The scope was checked
    when the run was started (`jobs.review.runs`), so no principal is asked here;
    graphChanged subscribers hear of it like of any other published result."""
    by = Actor.run(run_id)
    outcome = await story_repo(deps).publish_result(inp, by=by, now=deps.clock(), within=within)
    if not outcome.repeat:
        await announce(deps, inp.scope, "result", [outcome.result.id], by)
    return outcome


async def update_entity(
    deps: Deps,
    principal: Principal,
    scope: str,
    entity_id: str,
    edit: Mapping[str, Any],
    *,
    seen_version: int,
    why: str = "",
    user_id: str | None = None,
) -> Entity:
    """A person's edit against the version they saw (stale: CONFLICT)."""
    by = editor(principal, scope, user_id)
    parsed = engine_inputs.parse_input(engine_inputs.EntityEdit, dict(edit))
    updated = await story_repo(deps).update_entity(
        scope, entity_id, parsed, seen_version=seen_version, by=by, why=why, now=deps.clock()
    )
    await announce(deps, scope, "entity", [updated.id], by)
    return updated


async def correct_relation(
    deps: Deps,
    principal: Principal,
    action: RelationAction,
    scope: str,
    relation_id: str,
    *,
    why: str = "",
    seen_version: int | None = None,
    user_id: str | None = None,
) -> Relation:
    """Confirm, reject, remove or restore a relation (docs/rules/story-graph.md)."""
    by = editor(principal, scope, user_id)
    relation = await story_repo(deps).correct_relation(
        scope,
        relation_id,
        action,
        by=by,
        why=why,
        seen_version=seen_version,
        now=deps.clock(),
    )
    await announce(deps, scope, "relation", [relation.id], by)
    return relation


async def resolve_suggestion(
    deps: Deps,
    principal: Principal,
    action: SuggestionAction,
    scope: str,
    suggestion_id: str,
    *,
    why: str = "",
    user_id: str | None = None,
    seen_version: int | None = None,
    value: str | None = None,
) -> Suggestion:
    """Accept (it becomes the person's edit; `value` is the person's edit of the proposal)
    or dismiss a suggestion; `seen_version` is the target's version they saw (stale:
    CONFLICT)."""
    by = editor(principal, scope, user_id)
    suggestion = await story_repo(deps).resolve_suggestion(
        scope,
        suggestion_id,
        accept=action == "accept",
        by=by,
        why=why,
        now=deps.clock(),
        seen_version=seen_version,
        value=value,
    )
    await announce(deps, scope, "suggestion", [suggestion.id, suggestion.target_id], by)
    return suggestion
