"""Concern tools (docs/rules/concerns.md): `raise_concern`, `advance_concern`,
`check_concerns`, `change_concern_priority` (docs/rules/concerns.md), and the conversation context
of a person as a resource.

`resolve_concern` is deliberately absent: only the agent loop closes a concern. Each tool
calls the use case the GraphQL field calls (`jobs.concern`) with its caller's principal
(`agenda` to act, `reader` to look; a scope the token cannot use reads as NOT_FOUND, checked
by `Caller.require` first); the arguments are GraphQL's inputs, converted by the same
`to_model`, so validation and error codes are the same.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult, ToolAnnotations
from pydantic import AwareDatetime, BaseModel, Field

from api.mcp import shape
from api.mcp.access import Caller, CallerSource, answer, failed, instants_iso
from api.paging import CONCERNS, read_after
from engine.concern import model as m
from engine.concern.advance import InboundMessage
from engine.scope import check_scope
from jobs.concern import commands
from jobs.concern.context import conversation_context
from jobs.deps import Deps

Scope = Annotated[str, Field(description="a project id or 'global'")]
ACTIVE = ("pending", "in_progress", "waiting_reply", "escalated")
CONTEXT_URI = "storygraph://{scope}/people/{person_id}/context"


class Initiator(BaseModel):
    name: str
    channel: str
    channel_user_id: str = ""
    person_id: str | None = None


class Person(BaseModel):
    person_id: str
    display_name: str
    role_in_concern: str = "当事人"
    last_channel: str = ""


class ScheduleTrigger(BaseModel):
    next_run_at: AwareDatetime
    every_seconds: int | None = None
    mode: m.ScheduleMode = m.ScheduleMode.DIRECT
    until: AwareDatetime | None = None

    def to_model(self) -> m.ScheduleTrigger:
        every = timedelta(seconds=self.every_seconds) if self.every_seconds else None
        return m.ScheduleTrigger(
            next_run_at=self.next_run_at, every=every, mode=self.mode, until=self.until
        )


def _deps(caller: Caller) -> Deps:
    return Deps(settings=caller.settings, driver=caller.driver, pool=caller.pool)


def _register_raise(server: MCPServer, caller_of: CallerSource) -> None:
    """Raising a concern about people the scope knows."""

    @server.tool(
        name="raise_concern",
        description="Create a follow-up item with a goal (the completion condition). Only for "
        "items the cognitive hub admitted to the agenda (needs the `agenda` role). A delegation "
        "needs an initiator and the people to ask; the agent loop makes the first contact.",
        annotations=ToolAnnotations(
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=False,
            open_world_hint=True,
        ),
    )
    async def raise_concern(
        ctx: Context,
        scope: Scope,
        title: str,
        goal: Annotated[
            str, Field(description="what counts as done; the loop judges replies by it")
        ],
        type: m.ConcernType = m.ConcernType.DELEGATION,
        priority: m.Priority = m.Priority.MEDIUM,
        source_detail: str = "",
        initiator: Initiator | None = None,
        people: list[Person] | None = None,
        needs_all_replies: bool = True,
        trigger: ScheduleTrigger | None = None,
        agenda_role: str = "tracking",
        first_action: str = "",
        at: Annotated[AwareDatetime | None, Field(description="when asked (default now)")] = None,
    ) -> CallToolResult:
        async def work() -> dict[str, Any]:
            caller = caller_of(ctx)
            check_scope(scope)
            principal = caller.require("agenda", scope)
            data = m.RaiseConcernInput.asking(
                title=title,
                goal=goal,
                type=type,
                priority=priority,
                source_detail=source_detail,
                initiator=m.Initiator(**initiator.model_dump()) if initiator else None,
                people=[m.PersonRef(**p.model_dump()) for p in people or []],
                needs_all_replies=needs_all_replies,
                trigger=trigger.to_model() if trigger else None,
                agenda_role=agenda_role,
                first_action=first_action,
            )
            concern = await commands.raise_concern(
                _deps(caller), principal, data, scope=scope, at=at
            )
            return {"scope": scope, "concern": shape.concern(concern)}

        return await answer(work())


def _register_moves(server: MCPServer, caller_of: CallerSource) -> None:
    """Advancing a concern and changing its priority."""

    @server.tool(
        name="advance_concern",
        description="Record a counterpart's reply to a concern; the agent loop then judges the "
        "goal and decides the next step. It never resolves by itself (needs `agenda`). The same "
        "channel message (message_id) twice is recorded once.",
        annotations=ToolAnnotations(
            read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=True
        ),
    )
    async def advance_concern(
        ctx: Context,
        scope: Scope,
        concern_id: str,
        person_id: Annotated[str, Field(description="who replied")],
        text: Annotated[str, Field(description="what they said, verbatim")],
        channel: str = "",
        message_id: str | None = None,
        at: Annotated[AwareDatetime | None, Field(description="when written (default now)")] = None,
    ) -> CallToolResult:
        async def work() -> dict[str, Any]:
            caller = caller_of(ctx)
            principal = caller.require("agenda")
            deps = _deps(caller)
            when = commands.event_time(deps, at)
            message = InboundMessage(
                person_id=person_id, text=text, ts=when, channel=channel, message_id=message_id
            )
            done = await commands.advance_concern(deps, principal, concern_id, message, scope=scope)
            return {
                "scope": scope,
                "concern": shape.concern(done.concern),
                "job_id": done.job_id,
                "enqueued": done.enqueued,
            }

        return await answer(work())

    @server.tool(
        name="change_concern_priority",
        description="Change a concern's priority (needs `agenda`): the Agenda entry, the "
        "follow-up intervals and the sending window of held messages follow the new priority; "
        "the timeline records it. A closed concern answers CONFLICT.",
        annotations=ToolAnnotations(
            read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=True
        ),
    )
    async def change_concern_priority(
        ctx: Context,
        scope: Scope,
        concern_id: str,
        priority: m.Priority,
        at: Annotated[AwareDatetime | None, Field(description="when decided (default now)")] = None,
    ) -> CallToolResult:
        async def work() -> dict[str, Any]:
            caller = caller_of(ctx)
            check_scope(scope)
            principal = caller.require("agenda", scope)
            concern = await commands.change_priority(
                _deps(caller), principal, concern_id, priority, scope=scope, at=at
            )
            return {"scope": scope, "concern": shape.concern(concern)}

        return await answer(work())


def _register_check(server: MCPServer, caller_of: CallerSource) -> None:
    """The open concerns of a scope."""

    @server.tool(
        name="check_concerns",
        description="The concerns of a scope, newest first: by default the active ones "
        "(pending, in_progress, waiting_reply, escalated); optionally of one person or status. "
        "Pages of at most 50 with a `next` cursor.",
        annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False),
    )
    async def check_concerns(
        ctx: Context,
        scope: Scope,
        person_id: str | None = None,
        status: Literal[
            "pending", "in_progress", "waiting_reply", "escalated", "resolved", "dropped"
        ]
        | None = None,
        first: Annotated[int, Field(ge=1, le=shape.MAX_PAGE)] = shape.DEFAULT_PAGE,
        after: str | None = None,
    ) -> CallToolResult:
        async def work() -> dict[str, Any]:
            caller = caller_of(ctx)
            check_scope(scope)
            principal = caller.require("reader", scope)
            got = await read_after(
                CONCERNS,
                after,
                lambda key: commands.list_concerns(
                    _deps(caller),
                    principal,
                    scope,
                    statuses=[status] if status else list(ACTIVE),
                    person_id=person_id,
                    first=first,
                    after=key,
                    with_total=True,
                ),
            )
            return {
                "scope": scope,
                "total": got.page.total,
                "items": [shape.concern(c) for c in got.page.items],
                "next": got.next,
            }

        return await answer(work())


def _register_context(server: MCPServer, caller_of: CallerSource) -> None:
    """A person's conversation context, as a resource."""

    @server.resource(
        CONTEXT_URI,
        name="conversation_context",
        description="docs/rules/concerns.md: inject into a conversation with this person — their "
        "person "
        "slice, the concerns they are part of (summaries) and those awaiting their reply "
        "(record their answer with advance_concern).",
        mime_type="application/json",
    )
    async def context_resource(scope: str, person_id: str, ctx: Context) -> str:
        try:
            caller = caller_of(ctx)
            check_scope(scope)
            principal = caller.require("reader", scope)
            got = await conversation_context(_deps(caller), principal, scope, person_id)
        except Exception as exc:  # noqa: BLE001 - the same coded error as a tool's
            error = failed(exc).structured_content or {}
            body = error.get("error", {})
            raise MCPError(
                INVALID_PARAMS, f"{body.get('code')}: {body.get('message')}", data=body
            ) from None
        p = got.person
        return json.dumps(
            {
                "scope": scope,
                "person": {
                    "person_id": p.person_id,
                    "display_name": p.display_name,
                    "preferred_channel": p.preferred_channel,
                    "channels": list(p.channels),
                    "is_owner": p.is_owner,
                },
                "concerns": [shape.concern(c) for c in got.concerns],
                "awaiting_reply": [
                    {
                        "concern_id": c.concern_id,
                        "title": c.title,
                        "goal": c.goal,
                        # what we last said to this person in it (a scheduled item handed to
                        # their conversation reads here)
                        "asked": next(
                            (
                                e.text
                                for e in reversed(c.conversation_log)
                                if e.person_id == person_id and e.direction == m.Direction.OUTBOUND
                            ),
                            "",
                        ),
                        "hint": "if this message answers it, call advance_concern",
                    }
                    for c in got.awaiting_reply
                ],
            },
            ensure_ascii=False,
            default=instants_iso,
        )


def register(server: MCPServer, caller_of: CallerSource) -> None:
    """Add the concern tools and the conversation-context resource to `server`."""
    _register_raise(server, caller_of)
    _register_moves(server, caller_of)
    _register_check(server, caller_of)
    _register_context(server, caller_of)
