"""Supervision review tools: start a review of one scope and follow a run.

They call the use cases the GraphQL mutations call (`jobs.review.runs`), under the
same roles (`operator` to start, `reader` to look). The heartbeat app switch holds here as it
does in GraphQL (docs/rules/reviews.md): with the app off, `start_review` refuses with DISABLED
and claims nothing. Another scope's run reads as NOT_FOUND, exactly like a missing one.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, ToolAnnotations
from pydantic import AwareDatetime, Field

from api.mcp.access import Caller, CallerSource, answer
from engine.errors import InvalidInput, NotFound
from engine.review.lifecycle import SupervisionRun
from engine.review.stages import progress
from engine.review.types import Scope
from engine.scope import GLOBAL
from jobs.deps import Deps
from jobs.review import reads, runs

StoryScope = Annotated[str, Field(description="a project id, or 'global'")]


def _deps(caller: Caller) -> Deps:
    return Deps(settings=caller.settings, driver=caller.driver, pool=caller.pool, worker_id="mcp")


def _review_scope(scope: str) -> Scope:
    if scope == GLOBAL:
        return Scope(is_global=True, project_ids=())
    return Scope(is_global=False, project_ids=(scope,))


def run_view(run: SupervisionRun) -> dict[str, Any]:
    """What an agent needs of a run: where it stands, per stage, and its result."""
    prog = progress(run.stages, run.ledger)
    return {
        "id": run.run_id,
        "status": run.display_status.value,
        "result_id": run.published_result_id,
        "fraction": prog.fraction,
        "stages": [
            {"stage": s.stage.value, "state": s.state.value, "done": s.done, "total": s.total}
            for s in prog.stages
        ],
        "error": run.error.message if run.error else None,
    }


def register(server: MCPServer, caller_of: CallerSource) -> None:
    """Add the review tools to `server`."""

    @server.tool(
        name="start_review",
        description="Start a supervision review of one scope over [from_time, to_time): the "
        "service reads that interval's sources, organises them and publishes one result into "
        "the scope's story graph. Needs the `operator` role and the heartbeat app switched on "
        "(DISABLED otherwise); only one review runs at a time (BUSY). Follow it with "
        "review_status.",
        annotations=ToolAnnotations(
            read_only_hint=False, destructive_hint=False, idempotent_hint=False
        ),
    )
    async def start_review_tool(
        ctx: Context,
        scope: StoryScope,
        from_time: Annotated[AwareDatetime, Field(description="start, with a time zone")],
        to_time: Annotated[AwareDatetime, Field(description="end, with a time zone")],
    ) -> CallToolResult:
        async def work() -> dict[str, Any]:
            caller = caller_of(ctx)
            principal = caller.require("operator", scope)  # MCP: another scope is NOT_FOUND
            if from_time >= to_time:
                raise InvalidInput("from_time must be before to_time")
            run = await runs.start_review(
                _deps(caller), principal, _review_scope(scope), from_time, to_time
            )
            return run_view(run)

        return await answer(work())

    @server.tool(
        name="review_status",
        description="Where a supervision run stands: status (running, paused, failed, "
        "cancelling, cancelled, completed), each stage's progress, its result id once "
        "published, and the error of a failed run.",
        annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True),
    )
    async def review_status(ctx: Context, run_id: str) -> CallToolResult:
        async def work() -> dict[str, Any]:
            caller = caller_of(ctx)
            principal = caller.require("reader")
            try:
                run = await reads.get_run(_deps(caller), principal, run_id)
            except NotFound:
                raise NotFound("no such supervision run", id=run_id) from None
            return run_view(run)

        return await answer(work())
