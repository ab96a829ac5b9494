"""The inbox in Neo4j: a scope's pending suggestions and differences, newest
first, paged by a keyset in Cypher, each with the evidence it cites."""

from __future__ import annotations

import pytest

from engine.clock import epoch_us
from engine.errors import Conflict
from engine.story.inputs import EntityEdit
from engine.story.models import SuggestionStatus
from graph.story import StoryRepository
from graph.story.inbox import StoryInbox
from tests.support.story import ALICE, RUN, StepClock, cite, entity, publish, source, two_people


async def _field_suggestion(
    clock: StepClock, repo: StoryRepository, scope: str, key: str, description: str, zs: str
) -> str:
    out = await repo.publish_result(
        publish(
            scope,
            key,
            entities=[
                entity(
                    "z",
                    "张三",
                    id=zs,
                    description=description,
                    references=[cite(locator="chars:0-4")],
                )
            ],
        ),
        by=RUN,
        now=clock(),
    )
    (sugg,) = out.plan.suggestions
    return sugg.id


async def test_inbox_lists_pending_suggestions_newest_first_with_evidence(
    clock: StepClock, repo: StoryRepository, scope: str
) -> None:
    await repo.upsert_source(source(scope), now=clock())
    out = await repo.publish_result(two_people(scope, "k1"), by=RUN, now=clock())
    zs = next(e.id for e in out.plan.entities if e.name == "张三")
    await repo.update_entity(
        scope, zs, EntityEdit(description="验收负责人"), seen_version=1, by=ALICE, now=clock()
    )
    first = await _field_suggestion(clock, repo, scope, "k2", "开发", zs)
    second = await _field_suggestion(clock, repo, scope, "k3", "运维", zs)
    inbox = StoryInbox(repo.driver, repo.database)

    page = await inbox.page(scope, ["difference", "field"], None, 1)
    assert [i.suggestion.id for i in page.items] == [second] and page.has_next
    (item,) = page.items
    assert item.suggestion.current_value == "验收负责人"
    assert item.suggestion.proposed_value == "运维" and item.suggestion.by == RUN
    assert [(r.source_id, r.source_version, r.locator) for r in item.evidence] == [
        ("conv-1", "v1", "chars:0-4")
    ]
    key = (epoch_us(item.suggestion.recorded_at), item.suggestion.id)
    rest = await inbox.page(scope, ["difference", "field"], key, 5)
    assert [i.suggestion.id for i in rest.items] == [first] and not rest.has_next
    assert (await inbox.page(scope, ["difference"], None, 5)).items == []
    assert await inbox.counts(scope) == {"field": 2}

    await repo.resolve_suggestion(scope, second, accept=False, by=ALICE, now=clock())
    assert [i.suggestion.id for i in (await inbox.page(scope, ["field"], None, 5)).items] == [first]
    assert await inbox.counts(scope) == {"field": 1}


async def test_acting_on_an_item_checks_the_version_seen_and_takes_an_edited_value(
    clock: StepClock, repo: StoryRepository, scope: str
) -> None:
    await repo.upsert_source(source(scope), now=clock())
    out = await repo.publish_result(two_people(scope, "k1"), by=RUN, now=clock())
    zs = next(e.id for e in out.plan.entities if e.name == "张三")
    await repo.update_entity(
        scope, zs, EntityEdit(description="验收负责人"), seen_version=1, by=ALICE, now=clock()
    )
    sid = await _field_suggestion(clock, repo, scope, "k2", "开发", zs)
    inbox = StoryInbox(repo.driver, repo.database)
    (item,) = (await inbox.page(scope, ["field"], None, 5)).items
    seen = item.target_version
    assert seen == 2
    # someone edits the target after the person looked: their accept is stale
    await repo.update_entity(
        scope, zs, EntityEdit(description="负责人"), seen_version=2, by=ALICE, now=clock()
    )
    with pytest.raises(Conflict):
        await repo.resolve_suggestion(
            scope, sid, accept=True, by=ALICE, now=clock(), seen_version=seen
        )
    assert (await repo.entity(scope, zs, as_of=clock())).entity.description == "负责人"
    (item,) = (await inbox.page(scope, ["field"], None, 5)).items
    accepted = await repo.resolve_suggestion(
        scope,
        sid,
        accept=True,
        by=ALICE,
        now=clock(),
        seen_version=item.target_version,
        value="开发负责人",
    )
    assert accepted.status is SuggestionStatus.ACCEPTED
    view = await repo.entity(scope, zs, as_of=clock())
    assert view.entity.description == "开发负责人" and view.entity.by == ALICE
    assert (await inbox.page(scope, ["field"], None, 5)).items == []
    with pytest.raises(Conflict):  # dismissing an accepted item
        await repo.resolve_suggestion(scope, sid, accept=False, by=ALICE, now=clock())


async def test_a_dismissal_is_remembered_until_new_evidence_brings_it_back(
    clock: StepClock, repo: StoryRepository, scope: str
) -> None:
    await repo.upsert_source(source(scope), now=clock())
    out = await repo.publish_result(two_people(scope, "k1"), by=RUN, now=clock())
    zs = next(e.id for e in out.plan.entities if e.name == "张三")
    await repo.update_entity(
        scope, zs, EntityEdit(description="验收负责人"), seen_version=1, by=ALICE, now=clock()
    )
    first = await _field_suggestion(clock, repo, scope, "k2", "开发", zs)
    await repo.resolve_suggestion(scope, first, accept=False, by=ALICE, now=clock())
    inbox = StoryInbox(repo.driver, repo.database)

    # a later run proposes the same change on the same passage: a dismissed repeat
    again = await _field_suggestion(clock, repo, scope, "k3", "开发", zs)
    assert again != first
    graph = await repo.story_graph(scope, as_of=clock())
    (repeat,) = [s for s in graph.suggestions if s.id == again]
    assert repeat.repeat_of == first and repeat.status is SuggestionStatus.DISMISSED
    assert (await inbox.page(scope, ["field"], None, 5)).items == []
    assert await inbox.counts(scope) == {}

    # another passage of the same source: back, citing the old and the new passage
    out = await repo.publish_result(
        publish(
            scope,
            "k4",
            entities=[
                entity(
                    "z", "张三", id=zs, description="开发", references=[cite(locator="chars:5-9")]
                )
            ],
        ),
        by=RUN,
        now=clock(),
    )
    (back,) = (await inbox.page(scope, ["field"], None, 5)).items
    assert back.suggestion.id == out.plan.suggestions[0].id
    assert back.suggestion.repeat_of == first
    assert sorted(r.locator for r in back.evidence) == ["chars:0-4", "chars:5-9"]
    # a different proposal on the same passage is not a repeat
    other = await _field_suggestion(clock, repo, scope, "k5", "测试", zs)
    assert other in {i.suggestion.id for i in (await inbox.page(scope, ["field"], None, 5)).items}


async def test_another_version_of_the_source_is_new_evidence(
    clock: StepClock, repo: StoryRepository, scope: str
) -> None:
    await repo.upsert_source(source(scope), now=clock())
    out = await repo.publish_result(two_people(scope, "k1"), by=RUN, now=clock())
    zs = next(e.id for e in out.plan.entities if e.name == "张三")
    await repo.update_entity(
        scope, zs, EntityEdit(description="验收负责人"), seen_version=1, by=ALICE, now=clock()
    )
    first = await _field_suggestion(clock, repo, scope, "k2", "开发", zs)
    await repo.resolve_suggestion(scope, first, accept=False, by=ALICE, now=clock())
    await repo.upsert_source(source(scope, version="v2"), now=clock())
    await repo.publish_result(
        publish(
            scope,
            "k3",
            entities=[
                entity(
                    "z",
                    "张三",
                    id=zs,
                    description="开发",
                    references=[cite(version="v2", locator="chars:0-4")],
                )
            ],
        ),
        by=RUN,
        now=clock(),
    )
    inbox = StoryInbox(repo.driver, repo.database)
    (back,) = (await inbox.page(scope, ["field"], None, 5)).items
    assert back.suggestion.repeat_of == first
    assert sorted(r.source_version for r in back.evidence) == ["v1", "v2"]
