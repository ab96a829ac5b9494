"""Concern tools (seed 002 §九 对话侧能力): `raise_concern`, `advance_concern`,
`check_concerns`, and the conversation context of a person as a resource.

`resolve_concern` is deliberately absent: only the agent loop closes a concern. Each tool
calls the use case the GraphQL field calls (`jobs.concern`) with its caller's principal
(`agenda` to act, `reader` to look; a scope the token cannot use reads as NOT_FOUND, checked
by `Caller.require` first); the arguments are GraphQL's inputs, converted by the same
`to_model`, so validation and error codes are the same.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult, ToolAnnotations
from pydantic import AwareDatetime, BaseModel, Field

from api.definitions import concern_inputs as gql
from api.definitions.pagination import decode_keyset, encode_keyset
from api.mcp import shape
from api.mcp.access import Caller, CallerSource, answer, failed, instants_iso
from engine.concern import model as m
from engine.concern.advance import InboundMessage
from engine.story.inputs import check_scope
from graph.temporal import from_epoch_us, to_epoch_us
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


def _deps(caller: Caller) -> Deps:
    return Deps(settings=caller.settings, driver=caller.driver, pool=caller.pool)


def register(server: MCPServer, caller_of: CallerSource) -> None:
    """Add the concern tools and the conversation-context resource to `server`."""

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
            data = gql.RaiseConcernInput(
                scope=scope,
                title=title,
                goal=goal,
                type=type,
                priority=priority,
                source_detail=source_detail,
                initiator=gql.InitiatorInput(**initiator.model_dump()) if initiator else None,
                people=[gql.ConcernPersonInput(**p.model_dump()) for p in people or []],
                needs_all_replies=needs_all_replies,
                trigger=gql.ScheduleTriggerInput(**trigger.model_dump()) if trigger else None,
                agenda_role=agenda_role,
                first_action=first_action,
                at=at,
            )
            concern = await commands.raise_concern(
                _deps(caller), principal, data.to_model(), scope=scope, at=at
            )
            return {"scope": scope, "concern": shape.concern(concern)}

        return await answer(work())

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
            key = decode_keyset("concern", after, (int, str))
            got = await commands.list_concerns(
                _deps(caller),
                principal,
                scope,
                statuses=[status] if status else list(ACTIVE),
                person_id=person_id,
                first=first,
                after=(from_epoch_us(key[0]), key[1]) if key else None,
                with_total=True,
            )
            last = got.concerns[-1] if got.concerns else None
            return {
                "scope": scope,
                "total": got.total,
                "items": [shape.concern(c) for c in got.concerns],
                "next": encode_keyset("concern", [to_epoch_us(last.created_at), last.concern_id])
                if last is not None and got.has_next
                else None,
            }

        return await answer(work())

    @server.resource(
        CONTEXT_URI,
        name="conversation_context",
        description="seed 002 §九: inject into a conversation with this person — their person "
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
                        "hint": "if this message answers it, call advance_concern",
                    }
                    for c in got.awaiting_reply
                ],
            },
            ensure_ascii=False,
            default=instants_iso,
        )
