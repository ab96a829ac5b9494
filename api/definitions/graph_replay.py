"""graphReplay: every version of a scope's graph objects, for the graph view page to replay.

`graphView(asOf)` answers one moment; re-reading it for each slider move costs a full read
of the scope. The page instead reads these compact tables once, lays out the union of what
the scope ever had (stable positions, keyed by id) and shows a moment T in the browser with
the same record-time rule as `asOf` (a version counts when recorded <= T < retracted).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, cast

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from api.context import Context
from jobs.story import reads

TABLES_DOC = (
    "Rows (times are epoch milliseconds, UTC; by is who recorded the version, `user:<id>`, "
    "`run:<id>` or `person:<id>`; viaConcern the concern whose answer wrote it): entities "
    "[id, seq, name, kind, status, recorded, retracted, by, viaConcern]; relations [id, seq, "
    "fromId, toId, type, confirmation, removed, recorded, retracted, by, viaConcern]; "
    "events [id, seq, title, at, storyId, recorded, retracted, by, viaConcern]; "
    "changes [id, eventId, entityId, kind, recorded]; summaries [id, start, end, text, "
    "recorded]; moments [recorded, ...] (results and corrections, ascending); signals "
    "[id, seq, kind, status, text, due, decisionKind, decisionConcernId, decisionReason, "
    "recorded, retracted, by, who, what, viaConcern]."
)


@strawberry.type(description="Every version of a scope's graph objects (graph view replay).")
class GraphReplay:
    scope: str
    tables: JSON = strawberry.field(description=TABLES_DOC)


@strawberry.type
class Query:
    @strawberry.field(
        description="Every version of the scope's events, entities, relations, changes and "
        "summaries, with the record moments: the graph view replays them in the browser."
    )
    async def graph_replay(
        self,
        info: Info[Context, None],
        scope: str,
        from_: Annotated[datetime | None, strawberry.argument(name="from")] = None,
        to: datetime | None = None,
    ) -> GraphReplay:
        tables = await reads.graph_replay(
            info.context.deps, info.context.caller(), scope, from_=from_, to=to
        )
        return GraphReplay(scope=scope, tables=cast(JSON, tables))
