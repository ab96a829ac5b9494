"""`list_signals` (issue 28): the signals of a scope as known now — commitments with who,
what and due time, blockers, risks, questions and differences — each citing its passage.

The same use case as GraphQL's `signals` (`jobs.signal.reads`), under the `reader` role; a
scope the token may not use is NOT_FOUND. No `as_of` (seed 004: MCP 不接受 as_of)."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult
from pydantic import Field

from api.mcp import shape
from api.mcp.access import CallerSource, answer
from api.mcp.story_tools import READ_ONLY, After, First, Scope, reader
from api.paging import SIGNALS, read_after
from engine.signal.model import SignalKind, SignalStatus
from engine.signal.stored import Signal
from jobs.signal.reads import signals_page

Kind = Annotated[SignalKind | None, Field(description="only signals of this kind")]
Status = Annotated[SignalStatus | None, Field(description="only signals in this status")]


def signal_row(s: Signal) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": s.id,
        "kind": s.kind.value,
        "status": s.status.value,
        "text": s.text,
        "who": s.who,
        "what": s.what,
        "due": s.due.isoformat() if s.due is not None else None,
        "cites": {
            "source_id": s.source_id,
            "source_version": s.source_version,
            "locator": s.locator,
        },
        "run_id": s.run_id,
        "recorded_at": s.recorded_at.isoformat(),
    }
    if s.blocks:
        row["blocks"] = s.blocks
    if s.kind is SignalKind.DIFFERENCE:
        row["difference"] = {
            "target": f"{s.target_kind}:{s.target_id}",
            "field": s.field,
            "confirmed": s.confirmed_value,
            "proposed": s.proposed_value,
        }
    return row


def register(server: MCPServer, caller_of: CallerSource) -> None:
    @server.tool(
        name="list_signals",
        description="Signals a review found in a scope (commitments with who/what/due, "
        "blockers, risks, questions, differences), each citing its passage; paged (`next`).",
        annotations=READ_ONLY,
    )
    async def list_signals(
        ctx: Context,
        scope: Scope,
        kind: Kind = None,
        status: Status = None,
        first: First = shape.DEFAULT_PAGE,
        after: After = None,
    ) -> CallToolResult:
        async def work() -> dict[str, Any]:
            deps, principal = reader(caller_of(ctx), scope)
            page = await read_after(
                SIGNALS,
                after,
                lambda key: signals_page(
                    deps,
                    principal,
                    scope,
                    shape.page_size(first),
                    after=key,
                    kind=kind,
                    status=status,
                ),
            )
            return {
                "scope": scope,
                "items": [signal_row(s) for s in page.page.items],
                "next": page.next,
            }

        return await answer(work())
