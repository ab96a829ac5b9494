"""An app withdraws a source version it deleted or redacted (docs/rules/story-graph.md#time; docs/rules/story-graph.md
不可恢复时提示，不以当前原文冒充旧版): the text leaves Neo4j, references answer "unavailable"
with a warning, never another version's text, and the objects citing it stay."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from neo4j import AsyncDriver

from engine.errors import Conflict, NotFound
from engine.review.types import Scope
from engine.settings import Settings
from graph.review.sources import ReviewSources
from graph.story import StoryRepository
from tests.support.story import ALICE, RUN, T0, StepClock, cite, entity, publish, relation, source

SECRET = "张三说：支付密钥是 sk-123"


async def _cited(clock: StepClock, repo: StoryRepository, scope: str) -> None:
    await repo.upsert_source(source(scope, version="v1", text=SECRET), now=clock())
    await repo.publish_result(
        publish(
            scope,
            "k1",
            events=[{"ref": "e1", "title": "提测会议", "at": T0, "references": [cite()]}],
            entities=[
                entity("zs", "张三", references=[cite()]),
                entity("pay", "支付模块"),
            ],
            relations=[relation("r1", "zs", "pay", references=[cite()])],
            changes=[
                {"event": "e1", "entity": "zs", "kind": "proposed"},
                {"event": "e1", "entity": "pay", "kind": "proposed"},
            ],
        ),
        by=RUN,
        now=clock(),
    )


async def _stored_keys(driver: AsyncDriver, database: str, scope: str, version: str) -> list[str]:
    records, _, _ = await driver.execute_query(
        "MATCH (v:SourceVersion {scope: $scope, source_id: 'conv-1', version: $version}) "
        "RETURN keys(v) AS keys",
        scope=scope,
        version=version,
        database_=database,
    )
    return sorted(records[0]["keys"])


async def test_withdrawn_text_is_gone_from_neo4j_and_citing_objects_stay(
    repo: StoryRepository,
    scope: str,
    clock: StepClock,
    neo4j_driver: AsyncDriver,
    settings: Settings,
) -> None:
    await _cited(clock, repo, scope)
    before = clock()
    withdrawn = await repo.withdraw_source(
        scope, "conv-1", "v1", reason="用户删除了消息", by=ALICE, now=clock()
    )
    assert withdrawn.text is None and withdrawn.withdrawn_at is not None
    keys = await _stored_keys(neo4j_driver, settings.neo4j_database, scope, "v1")
    assert "text" not in keys and "withdrawn_at" in keys
    records, _, _ = await neo4j_driver.execute_query(
        "MATCH (n {scope: $scope}) UNWIND keys(n) AS k WITH n[k] AS v "
        "WHERE v = $secret OR (v IS :: STRING AND v CONTAINS 'sk-123') RETURN count(*) AS n",
        scope=scope,
        secret=SECRET,
        database_=settings.neo4j_database,
    )
    assert records[0]["n"] == 0
    graph = await repo.story_graph(scope, as_of=clock())
    assert [e.title for e in graph.events] == ["提测会议"]
    assert {e.name for e in graph.entities} == {"张三", "支付模块"}
    assert len(graph.relations) == 1 and len(graph.references) == 3
    excerpts = await repo.reference_excerpts(scope, [r.id for r in graph.references])
    for ex in excerpts.values():
        assert not ex.available and ex.text is None and ex.withdrawn_at is not None
        assert ex.warning and "撤回" in ex.warning
    # A replay of a moment before the withdrawal cannot bring the text back: it is gone.
    then = await repo.story_graph(scope, as_of=before)
    assert len(then.references) == 3
    old = await repo.reference_excerpt(scope, then.references[0].id)
    assert not old.available and old.text is None and old.warning


async def test_a_withdrawn_version_never_shows_another_versions_text(
    clock: StepClock, repo: StoryRepository, scope: str
) -> None:
    await _cited(clock, repo, scope)
    await repo.upsert_source(source(scope, version="v2", text="今天的正文"), now=clock())
    await repo.withdraw_source(scope, "conv-1", "v1", reason="redacted", by=ALICE, now=clock())
    graph = await repo.story_graph(scope, as_of=clock())
    ex = await repo.reference_excerpt(scope, graph.references[0].id)
    assert ex.version == "v1" and not ex.available and ex.text is None
    assert (await repo.source_excerpt(scope, "conv-1", "v2", "chars:0-5")).text == "今天的正文"
    with pytest.raises(Conflict):
        await repo.upsert_source(source(scope, version="v1", text=SECRET), now=clock())


async def test_withdrawing_again_is_idempotent_and_an_unknown_version_is_not_found(
    clock: StepClock, repo: StoryRepository, scope: str
) -> None:
    await _cited(clock, repo, scope)
    first = await repo.withdraw_source(scope, "conv-1", "v1", reason="删除", by=ALICE, now=clock())
    again = await repo.withdraw_source(
        scope, "conv-1", "v1", reason="再次删除", by=ALICE, now=clock()
    )
    assert again.withdrawn_at == first.withdrawn_at
    assert again.withdrawal_reason == "删除"
    with pytest.raises(NotFound):
        await repo.withdraw_source(scope, "conv-1", "v9", reason="", by=ALICE, now=clock())
    with pytest.raises(NotFound):
        await repo.withdraw_source(
            f"{scope}-other", "conv-1", "v1", reason="", by=ALICE, now=clock()
        )


async def test_reviews_read_no_text_of_a_withdrawn_version(
    clock: StepClock,
    repo: StoryRepository,
    scope: str,
    neo4j_driver: AsyncDriver,
    settings: Settings,
) -> None:
    await _cited(clock, repo, scope)
    await repo.withdraw_source(scope, "conv-1", "v1", reason="删除", by=ALICE, now=clock())
    review = ReviewSources(neo4j_driver, settings.neo4j_database)
    texts = await review.texts(Scope(project_ids=(scope,)), [("conv-1", "v1")])
    assert SECRET not in texts.values() and all(not t for t in texts.values())
    states = await review.states(Scope(project_ids=(scope,)), now=datetime.now(UTC))
    assert [len(s.spans) for s in states] == [0]
