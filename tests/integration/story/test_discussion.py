"""Continue the discussion (docs/rules/story-graph.md): the preview is the exact context
and writes nothing; confirming adds one conversation Source and changes nothing else."""

from __future__ import annotations

import pytest
from neo4j import AsyncDriver

from engine.errors import Conflict
from engine.search.passages import split_passages
from engine.settings import Settings
from engine.story.inputs import EntityEdit
from engine.story.models import ObjectKind, SourceKind
from engine.story.previews import ObjectRef, PreviewKind, PreviewRequest, decode
from graph.story import StoryRepository
from graph.story.discussion import DiscussionRepository
from tests.support.story import ALICE, RUN, StepClock, scope_counts, source, two_people


@pytest.fixture
def talk(neo4j_driver: AsyncDriver, settings: Settings, clock: StepClock) -> DiscussionRepository:
    return DiscussionRepository(neo4j_driver, settings.neo4j_database)


def ask(scope: str, *objects: ObjectRef, **kw: object) -> PreviewRequest:
    return PreviewRequest(kind=PreviewKind.DISCUSSION, scope=scope, objects=list(objects), **kw)


async def _selection(clock: StepClock, repo: StoryRepository, scope: str) -> list[ObjectRef]:
    out = await repo.publish_result(two_people(scope, "k1"), by=RUN, now=clock())
    zs = next(e for e in out.plan.entities if e.name == "张三")
    return [
        ObjectRef(kind=ObjectKind.ENTITY, id=zs.id),
        ObjectRef(kind=ObjectKind.RELATION, id=out.plan.relations[0].id),
    ]


async def test_preview_is_the_exact_context_and_writes_nothing(
    clock: StepClock,
    repo: StoryRepository,
    talk: DiscussionRepository,
    scope: str,
    neo4j_driver: AsyncDriver,
    settings: Settings,
) -> None:
    await repo.upsert_source(source(scope, text="张三说：支付回调明天联调"), now=clock())
    refs = await _selection(clock, repo, scope)
    before = await scope_counts(neo4j_driver, settings.neo4j_database, scope)
    _, ctx = await talk.preview(ask(scope, *refs), now=clock())
    assert await scope_counts(neo4j_driver, settings.neo4j_database, scope) == before
    assert [(o.kind, o.id, o.seq) for o in ctx.objects] == [(r.kind, r.id, 1) for r in refs]
    assert [(c.owner_id, c.excerpt.version, c.excerpt.text) for c in ctx.excerpts] == [
        (refs[1].id, "v1", "张三说：支付回调")
    ]
    assert ctx.warnings == [] and "测试负责人" in ctx.text and "张三说：支付回调" in ctx.text


async def test_an_unrecoverable_cited_version_is_a_warning_not_todays_text(
    clock: StepClock, repo: StoryRepository, talk: DiscussionRepository, scope: str
) -> None:
    await repo.upsert_source(
        source(scope, version="v2", text="今天的正文", previous=[{"version": "v1"}]), now=clock()
    )
    refs = await _selection(clock, repo, scope)
    _, ctx = await talk.preview(ask(scope, *refs), now=clock())
    [cited] = ctx.excerpts
    assert not cited.excerpt.available and cited.excerpt.text is None
    assert ctx.warnings and "今天的正文" not in ctx.text


async def test_confirm_adds_only_the_conversation_source(
    clock: StepClock,
    repo: StoryRepository,
    talk: DiscussionRepository,
    scope: str,
    neo4j_driver: AsyncDriver,
    settings: Settings,
) -> None:
    await repo.upsert_source(source(scope), now=clock())
    refs = await _selection(clock, repo, scope)
    preview_id, ctx = await talk.preview(ask(scope, *refs, title="继续聊支付"), now=clock())
    graph_before = await repo.story_graph(scope, as_of=clock())
    counts_before = await scope_counts(neo4j_driver, settings.neo4j_database, scope)
    outcome = await talk.confirm(decode(preview_id, clock()), now=clock())
    conv = outcome.conversation
    assert (
        not outcome.repeat and conv.kind is SourceKind.CONVERSATION and conv.title == "继续聊支付"
    )
    counts_after = await scope_counts(neo4j_driver, settings.neo4j_database, scope)
    assert counts_after == {
        **counts_before,
        "Source": counts_before["Source"] + 1,
        "SourceVersion": counts_before["SourceVersion"] + 1,
        # its lines, searchable
        "Passage": counts_before.get("Passage", 0) + len(split_passages(ctx.text)),
    }
    graph_after = await repo.story_graph(scope, as_of=clock())
    assert graph_after.model_dump(exclude={"as_of"}) == graph_before.model_dump(exclude={"as_of"})
    opening = await repo.source_excerpt(scope, conv.id, conv.current_version, "chars:0-2000")
    assert opening.text == ctx.text
    again = await talk.confirm(decode(preview_id, clock()), now=clock())
    assert again.repeat and again.conversation.id == conv.id
    assert await scope_counts(neo4j_driver, settings.neo4j_database, scope) == counts_after


async def test_a_live_preview_is_conflict_after_an_edit_but_a_pinned_moment_is_not(
    repo: StoryRepository, talk: DiscussionRepository, scope: str, clock: StepClock
) -> None:
    await repo.upsert_source(source(scope), now=clock())
    refs = await _selection(clock, repo, scope)
    moment = clock()
    live_id, _ = await talk.preview(ask(scope, *refs), now=clock())
    pinned_id, pinned = await talk.preview(ask(scope, *refs, as_of=moment), now=clock())
    await repo.update_entity(
        scope,
        refs[0].id,
        EntityEdit(description="改为开发负责人"),
        seen_version=1,
        by=ALICE,
        now=clock(),
    )
    with pytest.raises(Conflict):
        await talk.confirm(decode(live_id, clock()), now=clock())
    kept = await talk.confirm(decode(pinned_id, clock()), now=clock())
    text = await repo.source_excerpt(scope, kept.conversation.id, "v1", "chars:0-2000")
    assert text.text == pinned.text and "测试负责人" in pinned.text
