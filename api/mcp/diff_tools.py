"""`story_diff`: what changed in a scope's story graph between two record times.

The same use case as GraphQL's `storyGraphDiff` (`jobs.story.diff`), under the `reader` role;
a scope the token may not use is NOT_FOUND. Every instant is ISO 8601 with its offset.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult
from pydantic import AwareDatetime, Field

from api.mcp import shape
from api.mcp.access import CallerSource, answer
from api.mcp.params import READ_ONLY, After, First, Scope, reader
from api.paging import DIFF, read_after
from engine.language.lang import Lang, lang_of
from engine.page import Page
from engine.story import wording as w
from engine.story.diff import DiffEntry
from engine.story.models import Reference
from engine.story.wording import Labels
from jobs.story.diff import story_diff

Since = Annotated[
    AwareDatetime,
    Field(description="from this record time (exclusive), ISO 8601 with an offset"),
]
Until = Annotated[
    AwareDatetime | None,
    Field(description="up to this record time (inclusive), ISO 8601 with an offset; default now"),
]


def entry_row(
    e: DiffEntry, cited: list[Reference], labels: Labels, lang: Lang = "zh"
) -> dict[str, Any]:
    ends = labels.relations.get(e.object_id)
    kind = ends[1] if ends else None
    return {
        "kind": e.object_kind,
        "id": e.object_id,
        "name": w.entry_name(e, labels, lang),
        "label": w.diff_sentence(e, labels, lang),
        "change": e.change.value,
        "changed_at": e.changed_at.isoformat(),
        "fields": [
            {
                **f.model_dump(),
                "label": w.field_word(f.field, lang, kind),
                "before_label": w.value_words(f.field, f.before, labels.names, lang, kind),
                "after_label": w.value_words(f.field, f.after, labels.names, lang, kind),
            }
            for f in e.fields
        ],
        "by": e.by.label() if e.by is not None else None,
        "by_name": w.actor_name(e.by, labels.names, lang),
        "why": e.why,
        "result_id": e.result_id,
        "via_concern": e.via_concern,
        "cites": [
            {"source_id": r.source_id, "source_version": r.source_version, "locator": r.locator}
            for r in cited
        ],
    }


def register(server: MCPServer, caller_of: CallerSource) -> None:
    @server.tool(
        name="story_diff",
        description="What was added, revised, retracted, removed or restored in a scope's story "
        "graph between two record times, with before/after values, who, why and the cited "
        "passages; paged (`next`). " + shape.STANDING_NOTE,
        annotations=READ_ONLY,
    )
    async def story_diff_tool(
        ctx: Context,
        scope: Scope,
        since: Since,
        until: Until = None,
        first: First = shape.DEFAULT_PAGE,
        after: After = None,
    ) -> CallToolResult:
        async def work() -> dict[str, Any]:
            deps, principal = reader(caller_of(ctx), scope)
            lang = lang_of(deps.settings.locale)
            answers = []

            async def read(key: tuple[int, str] | None) -> Page[DiffEntry]:
                answers.append(
                    await story_diff(
                        deps,
                        principal,
                        scope,
                        since=since,
                        until=until,
                        first=shape.page_size(first),
                        after=key,
                    )
                )
                return answers[0].page

            page = await read_after(DIFF, after, read)
            found = answers[0]
            return {
                "scope": scope,
                "since": found.since.isoformat(),
                "until": found.until.isoformat(),
                "items": [
                    entry_row(e, found.cited.get(e.object_id, []), found.labels, lang)
                    for e in page.page.items
                ],
                "next": page.next,
            }

        return await answer(work())
