"""The partner session's hand-offs as an MCP resource (docs/rules/watches.md).

`storygraph://{scope}/sessions/{session_id}/watch-handoffs`: the hand-offs the scope's watches
addressed to that session, newest first (at most 50): the verified result, the document's
steps and the bound dependencies, with each one's execution key (report on it with
`reportExecution`) and how its delivery went. Reading it changes nothing. A scope the token
cannot read is NOT_FOUND, as everywhere.
"""

from __future__ import annotations

import json

from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from api.mcp.access import CallerSource, failed
from graph.watch.deliveries import StoredHandOff
from jobs.deps import Deps
from jobs.watch.delivery import session_handoffs

HANDOFFS_URI = "storygraph://{scope}/sessions/{session_id}/watch-handoffs"


def handoff_body(stored: StoredHandOff) -> dict[str, object]:
    h, d = stored.handoff, stored.delivery
    return {
        "execution_key": h.execution_key,
        "watch_id": h.watch_id,
        "run_id": h.run_id,
        "observation_id": h.observation_id,
        "steps": [s.model_dump(mode="json") for s in h.steps],
        "dependencies": list(h.dependencies),
        "created_at": h.created_at.isoformat(),
        "delivery": d.model_dump(mode="json"),
    }


def register(server: MCPServer, caller_of: CallerSource) -> None:
    """Add the partner session's hand-off resource to `server`."""

    @server.resource(
        HANDOFFS_URI,
        name="watch_handoffs",
        description="docs/rules/watches.md: the watch hand-offs addressed to this partner session "
        "— "
        "verified result, document steps, bound dependencies, execution key and delivery "
        "state. Run the execute steps in this session; report back with reportExecution.",
        mime_type="application/json",
    )
    async def handoffs_resource(scope: str, session_id: str, ctx: Context) -> str:
        try:
            caller = caller_of(ctx)
            principal = caller.require("reader", scope)
            deps = Deps(settings=caller.settings, driver=caller.driver, pool=caller.pool)
            found = await session_handoffs(deps, principal, scope, session_id)
        except Exception as exc:  # noqa: BLE001 - the same coded error as a tool's
            body = (failed(exc).structured_content or {}).get("error", {})
            raise MCPError(
                INVALID_PARAMS, f"{body.get('code')}: {body.get('message')}", data=body
            ) from None
        payload = {
            "scope": scope,
            "session_id": session_id,
            "handoffs": [handoff_body(s) for s in found],
        }
        return json.dumps(payload, ensure_ascii=False)
