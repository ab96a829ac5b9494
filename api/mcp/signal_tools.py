"""`list_signals`: the signals of a scope as known now — commitments with who,
what and due time, blockers, risks, questions and differences — each citing its passage.

The same use case as GraphQL's `signals` (`jobs.signal.reads`), under the `reader` role; a
scope the token may not use is NOT_FOUND. No `as_of` (MCP 不接受 as_of; docs/rules/reviews.md)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult
from pydantic import Field

from api.mcp import shape
from api.mcp.access import CallerSource, answer
from api.mcp.params import READ_ONLY, After, First, Scope, reader
from api.paging import SIGNALS, read_after
from engine.concern.model import Concern
from engine.principal import Principal
from engine.signal.model import SignalDecision, SignalKind, SignalStatus
from engine.signal.stored import Signal
from jobs.deps import Deps
from jobs.signal.chain import concerns_of_signals
from jobs.signal.reads import signals_page

Kind = Annotated[SignalKind | None, Field(description="only signals of this kind")]
Status = Annotated[SignalStatus | None, Field(description="only signals in this status")]


def standing(s: Signal, concern: Concern | None) -> dict[str, Any]:
    """Where a signal stands: the agenda's decision (None: undecided, the loop is off) and
    the concern it raised or supplemented, with that concern's status."""
    decision = None
    if s.decision_kind is not None and s.decision_policy_version is not None:
        made = SignalDecision(
            kind=s.decision_kind,
            policy_version=s.decision_policy_version,
            concern_id=s.decision_concern_id,
            reason=s.decision_reason,
        )
        decision = {
            "kind": made.kind.value,
            "label": made.label(),
            "reason": made.reason,
            "policy_version": made.policy_version,
        }
    return {
        "decision": decision,
        "concern_id": concern.concern_id if concern is not None else None,
        "concern_status": concern.status.value if concern is not None else None,
    }


async def signal_rows(
    deps: Deps, principal: Principal, scope: str, signals: list[Signal]
) -> list[dict[str, Any]]:
    """The rows of a page of signals with their standing (one statement for the concerns)."""
    concerns = await concerns_of_signals(
        deps, principal, scope, [(s.id, s.decision_concern_id) for s in signals]
    )
    return [signal_row(s) | standing(s, concerns.get(s.id)) for s in signals]


def signal_row(s: Signal) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": s.id,
        "kind": s.kind.value,
        "status": s.status.value,
        "text": s.text,
        "who": s.who,
        "what": s.what,
        "due": s.due,
        "cites": {
            "source_id": s.source_id,
            "source_version": s.source_version,
            "locator": s.locator,
        },
        "run_id": s.run_id,
        "recorded_at": s.recorded_at,
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


async def open_signals(
    deps: Deps, principal: Principal, scope: str, known_at: datetime
) -> dict[str, Any]:
    """story_graph's open signals as known at its moment: the first page with their
    standing, and the `next` cursor for list_signals(status=open)."""
    page = await signals_page(
        deps, principal, scope, shape.page_size(None), as_of=known_at, status=SignalStatus.OPEN
    )
    items = page.items
    more = SIGNALS.encode(items[-1]) if page.has_next and items else None
    return {"items": await signal_rows(deps, principal, scope, items), "next": more}


def register(server: MCPServer, caller_of: CallerSource) -> None:
    @server.tool(
        name="list_signals",
        description="Signals a review found in a scope (commitments with who/what/due, "
        "blockers, risks, questions, differences), each citing its passage, with its standing: "
        "the agenda's decision and the concern it raised or supplemented (`concern_id`, "
        "`concern_status`); instants ISO 8601 with an offset; paged (`next`).",
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
                "items": await signal_rows(deps, principal, scope, page.page.items),
                "next": page.next,
            }

        return await answer(work())
