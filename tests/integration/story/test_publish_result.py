"""publishResult against Neo4j: one transaction, whole or nothing, idempotent under the key."""

from __future__ import annotations

import pytest
from neo4j import AsyncDriver

from engine.errors import Conflict, InvalidInput
from engine.settings import Settings
from graph.story import StoryRepository
from tests.support.story import (
    RUN,
    T0,
    StepClock,
    at,
    cite,
    publish,
    scope_counts,
    source,
    two_people,
)


async def test_publish_writes_the_whole_result_citing_one_result_id(
    clock: StepClock, repo: StoryRepository, scope: str
) -> None:
    await repo.upsert_source(source(scope), now=clock())
    inp = two_people(
        scope,
        "k1",
        stories=[{"ref": "s", "name": "v2.0 提测"}],
        summaries=[
            {
                "ref": "m",
                "story": "s",
                "text": "提测准备",
                "interval_start": T0,
                "interval_end": at(8),
                "source_ids": ["conv-1"],
                "events": ["e1"],
                "entities": ["zs"],
                "references": [cite()],
            }
        ],
        decisions=["周五提测"],
        open_items=["第三方回调未联调"],
        feedback="提测有风险",
    )
    out = await repo.publish_result(inp, by=RUN, now=clock())
    assert not out.repeat
    view = await repo.result(scope, out.result.id)
    assert view.result.decisions == ["周五提测"] and view.result.open_items == ["第三方回调未联调"]
    assert view.result.feedback == "提测有风险"
    assert len(view.events) == 1 and len(view.entities) == 2 and len(view.relations) == 1
    assert len(view.changes) == 1 and len(view.summaries) == 1 and len(view.references) == 4
    graph = await repo.story_graph(scope, as_of=clock())
    assert {r.result_id for r in graph.references} == {out.result.id}
    assert graph.summaries[0].source_ids == ["conv-1"]


async def test_publish_is_idempotent_under_the_result_key(
    clock: StepClock,
    repo: StoryRepository,
    scope: str,
    neo4j_driver: AsyncDriver,
    settings: Settings,
) -> None:
    await repo.upsert_source(source(scope), now=clock())
    first = await repo.publish_result(two_people(scope, "k1"), by=RUN, now=clock())
    before = await scope_counts(neo4j_driver, settings.neo4j_database, scope)
    again = await repo.publish_result(two_people(scope, "k1"), by=RUN, now=clock())
    assert again.repeat and again.result.id == first.result.id
    assert await scope_counts(neo4j_driver, settings.neo4j_database, scope) == before
    with pytest.raises(Conflict):
        await repo.publish_result(two_people(scope, "k1", feedback="other"), by=RUN, now=clock())


@pytest.mark.parametrize("case", ["missing_version", "other_scope"])
async def test_rejected_publish_writes_nothing(
    clock: StepClock,
    repo: StoryRepository,
    scope: str,
    neo4j_driver: AsyncDriver,
    settings: Settings,
    case: str,
) -> None:
    other = f"{scope}-other"
    try:
        if case == "missing_version":
            await repo.upsert_source(source(scope, version="v2"), now=clock())
        else:
            await repo.upsert_source(source(other), now=clock())
        before = await scope_counts(neo4j_driver, settings.neo4j_database, scope)
        with pytest.raises(InvalidInput) as err:
            await repo.publish_result(two_people(scope, "k1"), by=RUN, now=clock())
        assert err.value.details["missing"] == ["conv-1@v1"]
        assert await scope_counts(neo4j_driver, settings.neo4j_database, scope) == before
    finally:
        await neo4j_driver.execute_query(
            "MATCH (n {scope: $s}) DETACH DELETE n", s=other, database_=settings.neo4j_database
        )


async def test_summary_over_a_source_the_scope_lacks_rejects_the_result(
    clock: StepClock,
    repo: StoryRepository,
    scope: str,
    neo4j_driver: AsyncDriver,
    settings: Settings,
) -> None:
    await repo.upsert_source(source(scope), now=clock())
    before = await scope_counts(neo4j_driver, settings.neo4j_database, scope)
    bad = publish(
        scope,
        "k1",
        entities=[{"ref": "a", "name": "王五"}],
        summaries=[
            {
                "ref": "m",
                "text": "x",
                "interval_start": T0,
                "interval_end": at(1),
                "source_ids": ["note-elsewhere"],
            }
        ],
    )
    with pytest.raises(InvalidInput):
        await repo.publish_result(bad, by=RUN, now=clock())
    assert await scope_counts(neo4j_driver, settings.neo4j_database, scope) == before
