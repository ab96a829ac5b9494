"""`upsert_source` over MCP: the twin of GraphQL `upsertSource`. An agent host
pushes a conversation, note or knowledge document version, with the speakers of a
conversation bound to concern persons (name, person id, channel): the agenda reaches a
speaker only through such a binding, never by an equal name (docs/rules/story-graph.md).
`editor` role; another scope is NOT_FOUND; bad input is INVALID_INPUT and writes nothing."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, ToolAnnotations
from pydantic import BaseModel, Field

from api.mcp.access import CallerSource, answer
from api.mcp.params import Scope
from engine.scope import check_scope
from jobs.deps import Deps
from jobs.story.writes import upsert_source


class Speaker(BaseModel):
    name: str = Field(description="the speaker's name as the conversation writes it")
    person_id: str = Field(description="the concern person who said it")
    channel: str = Field(default="", description="how to reach them (feishu, wecom, …)")
    display_name: str = ""


def register(server: MCPServer, caller_of: CallerSource) -> None:
    @server.tool(
        name="upsert_source",
        description="Push a version of a source (a conversation, note or knowledge document) "
        "for reviews to read. A conversation's lines read '[ISO time] name: text', "
        "'name: text' or 'name：text'; a line without one continues the message before it. "
        "`speakers` binds each speaker of this source to a concern person (person id and "
        "channel), so a promise a speaker makes can be followed up with them; without it "
        "nobody is reachable. Needs the `editor` role.",
        annotations=ToolAnnotations(
            read_only_hint=False, destructive_hint=False, idempotent_hint=True
        ),
    )
    async def upsert_source_tool(
        ctx: Context,
        scope: Scope,
        source_id: Annotated[str, Field(description="the app's id of the source")],
        kind: Literal["conversation", "note", "knowledge"],
        version: Annotated[str, Field(description="the app's version label")],
        text: str,
        title: str = "",
        speakers: list[Speaker] | None = None,
    ) -> CallToolResult:
        async def work() -> dict[str, Any]:
            caller = caller_of(ctx)
            check_scope(scope)
            principal = caller.require("editor", scope)
            deps = Deps(settings=caller.settings, driver=caller.driver, pool=caller.pool)
            data = {
                "scope": scope,
                "id": source_id,
                "kind": kind,
                "version": version,
                "text": text,
                "title": title,
                "speakers": [s.model_dump() for s in speakers or []],
            }
            stored = await upsert_source(deps, principal, data)
            return {"id": stored.id, "current_version": stored.current_version}

        return await answer(work())
