"""docs/rules/concerns.md: what a conversation with one person is given — their person slice, the
summaries of the concerns they are part of, and those awaiting their reply (the candidates
for `advance_concern`). GraphQL `conversationContext` and the MCP resource both read this."""

from __future__ import annotations

from dataclasses import dataclass

from engine.concern import model as m
from engine.principal import Principal
from engine.scope import require_scope
from graph.concern.persons import PersonContext, PersonStore
from jobs.deps import Deps


@dataclass(frozen=True)
class ConversationContext:
    person: PersonContext
    concerns: list[m.Concern]
    awaiting_reply: list[m.Concern]


async def conversation_context(
    deps: Deps, principal: Principal, scope: str, person_id: str
) -> ConversationContext:
    """NOT_FOUND when the scope has no such person."""
    scope = require_scope(principal, "reader", scope)
    persons = PersonStore(deps.driver, deps.database)
    person = await persons.resolve(scope, person_id)
    items = await persons.concern_slice(scope, person_id)
    waiting = str(m.CommStatus.WAITING_REPLY)
    return ConversationContext(
        person=person,
        concerns=[i.concern for i in items],
        awaiting_reply=[i.concern for i in items if i.comm_status == waiting],
    )
