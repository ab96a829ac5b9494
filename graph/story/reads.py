"""The story graph as known at a moment: storyGraph, graphView, entity (with its history)
and result (–; docs/rules/reviews.md). Every read names its scope and its `as_of`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from neo4j import AsyncManagedTransaction

from engine.clock import instant, recorded_within
from engine.errors import NotFound
from engine.scope import check_scope
from engine.story.models import (
    Amendment,
    Change,
    Entity,
    Mention,
    ObjectKind,
    Reference,
    Result,
    Suggestion,
    SuggestionStatus,
    Summary,
    Version,
)
from engine.story.views import (
    EntityMentionView,
    EntityView,
    GraphView,
    ResultView,
    StoryGraph,
    build_graph_view,
    select_graph,
)
from graph.story.codec import from_props
from graph.story.kinds import VERSIONED
from graph.story.store import StoryStore
from graph.story.window import WHOLE_SCOPE_READS, graph_from_lists, window_params


class StoryReads(StoryStore):
    async def story_graph(
        self,
        scope: str,
        *,
        as_of: datetime,
        valid_at: datetime | None = None,
        from_: datetime | None = None,
        to: datetime | None = None,
        story_id: str | None = None,
        include_removed: bool = False,
    ) -> StoryGraph:
        """storyGraph: what was recorded and not retracted at `as_of`.

        A window (`from_`/`to` or `story_id`) is read by `story/window_graph` in one round
        trip that touches only the window's neighbourhood; a whole-scope read filters by
        `valid_at` in Cypher. Either way `select_graph` is the one definition of the answer.
        """
        check_scope(scope)
        at = instant(as_of, "asOf")
        valid = instant(valid_at, "validAt")
        from_, to = instant(from_, "from"), instant(to, "to")
        windowed = from_ is not None or to is not None or story_id is not None

        async def work(tx: AsyncManagedTransaction) -> StoryGraph:
            p = {"scope": scope, "as_of": at, "valid_at": valid}
            lists = {
                name: [r[column] for r in await self.rows(tx, key, **p)]
                for name, key, column in WHOLE_SCOPE_READS
            }
            return graph_from_lists(scope, at, lists)

        if windowed:
            params = window_params(scope, at, valid, from_, to, story_id)
            rows = await self.read_one("story/window_graph", **params)
            full = graph_from_lists(scope, at, rows[0])
        else:
            full = await self.read(work)
        return select_graph(
            full,
            valid_at=valid,
            from_=from_,
            to=to,
            story_id=story_id,
            include_removed=include_removed,
        ).canonical()

    async def objects_graph(
        self, scope: str, ids: list[str], *, as_of: datetime, include_removed: bool = False
    ) -> StoryGraph:
        """storyObjects: the objects `ids` as believed at `as_of` with what their details
        show (`story/objects_graph`: one round trip over their neighbourhood only), as the
        whole-scope storyGraph shows them (`select_graph` is the one definition)."""
        check_scope(scope)
        at = instant(as_of, "asOf")
        rows = await self.read_one("story/objects_graph", scope=scope, as_of=at, ids=ids)
        full = graph_from_lists(scope, at, rows[0])
        return select_graph(full, include_removed=include_removed).canonical()

    async def graph_view(
        self,
        scope: str,
        *,
        as_of: datetime,
        from_: datetime | None = None,
        to: datetime | None = None,
    ) -> GraphView:
        """graphView: nodes, edges and timeline of the same objects storyGraph returns
        (docs/rules/story-graph.md#views-knowledge-and-discussion)."""
        graph = await self.story_graph(scope, as_of=as_of, from_=from_, to=to)
        return build_graph_view(graph)

    async def entity(self, scope: str, entity_id: str, *, as_of: datetime) -> EntityView:
        """entity(id, asOf) with its history; an id of another scope is NOT_FOUND."""
        check_scope(scope)
        at = instant(as_of, "asOf")

        async def work(tx: AsyncManagedTransaction) -> tuple[list[Version], list[Any]]:
            return (
                await self._versions(tx, ObjectKind.ENTITY, scope, [entity_id]),
                await self.rows(tx, "story/suggestions_about", scope=scope, target_id=entity_id),
            )

        versions, sugg_rows = await self.read(work)
        known = [v for v in versions if isinstance(v, Entity) and v.recorded_at <= at]
        believed = [v for v in known if recorded_within(v.recorded_at, v.retracted_at, at)]
        if not believed:
            raise NotFound(
                f"no entity {entity_id} in scope {scope} as of {at.isoformat()}",
                id=entity_id,
                scope=scope,
            )
        history = [
            v.model_copy(
                update={
                    "retracted_at": v.retracted_at
                    if v.retracted_at and v.retracted_at <= at
                    else None
                }
            )
            for v in sorted(known, key=lambda v: v.seq)
        ]
        pending = [
            s
            for s in (from_props(Suggestion, r["v"]) for r in sugg_rows)
            if recorded_within(s.recorded_at, s.retracted_at, at)
            and s.status is SuggestionStatus.PENDING
        ]
        return EntityView(entity=believed[0], history=history, pending_suggestions=pending)

    async def result(self, scope: str, result_id: str) -> ResultView:
        """result(id): recap, feedback and graph delta, all citing this one result
        (docs/rules/story-graph.md#objects)."""
        check_scope(scope)

        async def work(tx: AsyncManagedTransaction) -> ResultView:
            rows = await self.rows(tx, "story/result_by_id", scope=scope, id=result_id)
            if not rows:
                raise NotFound("no such result in this scope", id=result_id, scope=scope)
            p = {"scope": scope, "result_id": result_id}

            async def delta(kind: ObjectKind) -> list[Any]:
                q = VERSIONED[kind]
                return [from_props(q.model, r["v"]) for r in await self.rows(tx, q.in_result, **p)]

            amendments = [
                from_props(Amendment, r["a"])
                for r in await self.rows(tx, "story/result_amendments", result_id=result_id)
            ]
            mentions = []
            for r in await self.rows(tx, "story/result_mentions", result_id=result_id):
                mention = Mention(
                    result_id=result_id,
                    entity_id=r["entity_id"],
                    name=r["name"],
                    description=r["description"] or "",
                )
                amended = {a.field: a.value for a in amendments if a.entity_id == mention.entity_id}
                mentions.append(EntityMentionView(mention=mention, amended=amended))
            return ResultView(
                result=from_props(Result, rows[0]["r"]),
                events=await delta(ObjectKind.EVENT),
                entities=await delta(ObjectKind.ENTITY),
                relations=await delta(ObjectKind.RELATION),
                suggestions=await delta(ObjectKind.SUGGESTION),
                changes=[
                    from_props(Change, r["n"])
                    for r in await self.rows(tx, "story/result_changes", **p)
                ],
                summaries=[
                    from_props(Summary, r["n"])
                    for r in await self.rows(tx, "story/result_summarys", **p)
                ],
                references=[
                    from_props(Reference, r["n"])
                    for r in await self.rows(tx, "story/result_references", **p)
                ],
                mentions=mentions,
            )

        return await self.read(work)
