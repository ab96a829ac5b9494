"""What the story use cases share: the editor check, the repositories built from `Deps`,
and the change hint sent after a write committed."""

from __future__ import annotations

from engine.principal import Principal
from engine.scope import require_scope
from engine.story.models import Actor
from graph.story.discussion import DiscussionRepository
from graph.story.knowledge import KnowledgeRepository
from graph.story.pages import StoryPages
from graph.story.repository import StoryRepository
from jobs.deps import Deps
from jobs.notify import graph_changed
from jobs.search.embed import embed_soon


def editor(principal: Principal, scope: str, user_id: str | None = None) -> Actor:
    """A correction is made by a person: the token's name; an explicit user id only from an
    admin token, recorded with that token's name (Principal.actor_id)."""
    require_scope(principal, "editor", scope)
    return Actor.user(principal.actor_id(user_id))


def story_repo(deps: Deps) -> StoryRepository:
    return StoryRepository(deps.driver, deps.database, locale=deps.settings.locale)


def pages(deps: Deps) -> StoryPages:
    return StoryPages(deps.driver, deps.database)


def knowledge_repo(deps: Deps) -> KnowledgeRepository:
    return KnowledgeRepository(deps.driver, deps.database)


def discussion_repo(deps: Deps) -> DiscussionRepository:
    return DiscussionRepository(deps.driver, deps.database, locale=deps.settings.locale)


async def announce(deps: Deps, scope: str, kind: str, ids: list[str], by: Actor) -> None:
    """Tell graphChanged subscribers and, with an embedding endpoint, enqueue the scope's
    embed job; the write already committed, so a lost hint loses nothing (the embed sweep
    catches up). Without a pool (a use case run inline) nothing is sent."""
    if deps.pool is not None:
        await graph_changed(deps.pool, scope, kind=kind, ids=ids, by=by.label())
        await embed_soon(deps, scope)  # hybrid search: the new texts' vectors
