"""Concurrent writers: the store, not process memory, decides (docs/operations/scale-out.md)."""

from __future__ import annotations

import asyncio

from engine.errors import Conflict
from engine.story.inputs import EntityEdit
from graph.story import StoryRepository
from tests.support.story import ALICE, RUN, StepClock, entity, publish, source, two_people


async def test_concurrent_publishes_of_one_key_write_one_result(
    clock: StepClock, repo: StoryRepository, scope: str
) -> None:
    await repo.upsert_source(source(scope), now=clock())
    outcomes = await asyncio.gather(
        *(repo.publish_result(two_people(scope, "same-key"), by=RUN, now=clock()) for _ in range(4))
    )
    assert len({o.result.id for o in outcomes}) == 1
    assert sum(not o.repeat for o in outcomes) == 1
    assert len((await repo.story_graph(scope, as_of=clock())).entities) == 2


async def test_concurrent_edits_of_one_seen_version_let_exactly_one_win(
    clock: StepClock, repo: StoryRepository, scope: str
) -> None:
    out = await repo.publish_result(
        publish(scope, "k", entities=[entity("a", "张三")]), by=RUN, now=clock()
    )
    eid = out.plan.entities[0].id
    results = await asyncio.gather(
        *(
            repo.update_entity(
                scope, eid, EntityEdit(name=f"张三{i}"), seen_version=1, by=ALICE, now=clock()
            )
            for i in range(4)
        ),
        return_exceptions=True,
    )
    winners = [r for r in results if not isinstance(r, BaseException)]
    assert len(winners) == 1
    assert all(isinstance(r, Conflict) for r in results if isinstance(r, BaseException))
    view = await repo.entity(scope, eid, as_of=clock())
    assert [v.seq for v in view.history] == [1, 2] and view.entity.name == winners[0].name
