"""The MCP `search` tool: the story graph's text as known now, for agents.

No `as_of` (MCP 不接受 as_of; docs/rules/reviews.md): an agent searches what is known now;
`valid_at` (what held in the world then) is allowed, as in the story tools. The same use case
as GraphQL `search` (`jobs.search.reads.search`), under the `reader` role; a scope the
token may not use is NOT_FOUND. Each hit names its object and version, standing, the matched
passage with highlight offsets, its score, and — for a source line — its locator. The answer
says `mode: hybrid` when an embedding endpoint adds semantic hits, else `lexical` and why.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult
from pydantic import AwareDatetime, Field

from api.mcp import shape
from api.mcp.access import CallerSource, answer
from api.mcp.params import READ_ONLY, After, First, Scope, reader
from api.paging import SEARCH
from engine.search.hits import Hit
from engine.search.ranking import HitKind, Standing
from engine.story import models as m
from jobs.search.reads import SearchAsk, search


def hit_row(hit: Hit) -> dict[str, Any]:
    row: dict[str, Any] = {
        "kind": hit.kind.value,
        "id": hit.key,
        "standing": hit.standing.value.replace("_", "-"),
        "current": hit.current,
        "field": hit.field,
        "passage": hit.passage,
        "highlights": [[s, e] for s, e in hit.spans],
        "score": round(hit.score, 4),
        "rank": round(hit.rank, 4),
        "mentions": hit.mentions,
    }
    if hit.similarity is not None:
        row["similarity"] = round(hit.similarity, 4)
    obj = hit.obj
    if isinstance(obj, m.Version):
        row["version"] = obj.seq
    if isinstance(obj, m.Entity):
        row["name"] = obj.name
    elif isinstance(obj, m.Event):
        row["title"] = obj.title
        row["at"] = obj.at.isoformat()
    if hit.passage_ref is not None:
        ref = hit.passage_ref
        row["source"] = {
            "source_id": ref.source_id,
            "version": ref.version,
            "locator": ref.locator,
        }
    return row


def register(server: MCPServer, caller_of: CallerSource) -> None:
    """Add the `search` tool to `server`."""

    @server.tool(
        name="search",
        description="Search a scope's story graph as known now: entity names (earlier names "
        "too) and descriptions, event titles, relation reasons, stage summaries and source "
        "lines. The text is searched as words (no query syntax). Hits are ranked by match, "
        "then standing (confirmed or person-edited above suggested), current above earlier "
        "text, then mentions; each carries the matched passage with highlight offsets and, "
        "for a source line, its locator. Pass `next` back as `after`. `standing`: `confirmed` "
        "and `person-edited` are a person's word (a source line is the app's own record: "
        "confirmed); `suggested` is an automatic reading nobody confirmed (say 'suggested', "
        "never state it as fact); `removed` was withdrawn by a person. `mode` says `hybrid` "
        "when an embedding endpoint adds semantic hits (fused by reciprocal rank, "
        "`similarity` set), else `lexical`, with a `note` saying why.",
        annotations=READ_ONLY,
    )
    async def search_tool(
        ctx: Context,
        scope: Scope,
        text: Annotated[str, Field(description="words to find, Chinese or English")],
        valid_at: Annotated[
            AwareDatetime | None, Field(description="only what held in the world then")
        ] = None,
        kinds: list[Literal["entity", "event", "relation", "summary", "passage"]] | None = None,
        standing: list[Literal["confirmed", "person-edited", "suggested", "removed"]] | None = None,
        first: First = shape.DEFAULT_PAGE,
        after: After = None,
    ) -> CallToolResult:
        async def work() -> dict[str, Any]:
            caller = caller_of(ctx)
            deps, principal = reader(caller, scope)
            deps = replace(deps, embedder=caller.embedder)
            known_at, page = await search(
                deps,
                principal,
                scope,
                SearchAsk(
                    text=text,
                    first=shape.page_size(first),
                    kinds=[HitKind(k) for k in kinds] if kinds else None,
                    standings=[Standing(s.replace("-", "_")) for s in standing]
                    if standing
                    else None,
                    after=SEARCH.decode(after),
                ),
                valid_at=valid_at,
            )
            last = page.items[-1] if page.items else None
            return {
                "scope": scope,
                "known_at": known_at.isoformat(),
                "mode": page.mode.value,
                "note": page.note,
                "total": page.total,
                "items": [hit_row(h) for h in page.items],
                "next": SEARCH.encode(last) if page.has_next and last else None,
            }

        return await answer(work())
