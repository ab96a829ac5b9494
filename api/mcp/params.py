"""What every MCP tool of the story graph shares: its parameters' types and descriptions, the
read-only annotation, and how a tool becomes a reader of one scope."""

from __future__ import annotations

from typing import Annotated

from mcp_types import ToolAnnotations
from pydantic import AwareDatetime, Field

from api.mcp import shape
from api.mcp.access import Caller
from engine.principal import Principal
from engine.scope import check_scope
from jobs.deps import Deps

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
Scope = Annotated[str, Field(description="a project id or 'global'; scopes never mix")]
FromTime = Annotated[
    AwareDatetime | None,
    Field(description="window start (event time), ISO 8601 with an offset, e.g. 2026-03-17T08:00Z"),
]
ToTime = Annotated[AwareDatetime | None, Field(description="window end (event time), offset")]
StoryId = Annotated[str | None, Field(description="only the objects of this story")]
First = Annotated[int, Field(ge=1, le=shape.MAX_PAGE, description="page size (max 50)")]
After = Annotated[str | None, Field(description="the `next` cursor of the previous page")]


def reader(caller: Caller, scope: str) -> tuple[Deps, Principal]:
    """The use cases' deps and the caller; a scope the token may not use is NOT_FOUND here
    (MCP's answer), before the use case checks it again."""
    check_scope(scope)
    principal = caller.require("reader", scope)
    return Deps(settings=caller.settings, driver=caller.driver, pool=caller.pool), principal
