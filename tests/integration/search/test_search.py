"""search over the real Neo4j: what a person searching would notice."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from engine.errors import Forbidden, InvalidInput
from engine.principal import Principal
from engine.search.ranking import HitKind, Standing
from engine.story.corrections import RelationAction
from engine.story.inputs import EntityEdit
from engine.story.models import Entity, Event
from graph.story import StoryRepository
from jobs.deps import Deps
from jobs.search.reads import SearchAsk, search
from tests.support.fuzz import LUCENE
from tests.support.story import ALICE, RUN, T0, cite, entity, publish, source

READER = Principal("reader-s", frozenset({"*"}), frozenset({"reader"}))


async def _find(deps: Deps, scope: str, text: str, **kw: object):  # type: ignore[no-untyped-def]
    first = kw.pop("first", 20)
    ask = SearchAsk(
        text=text,
        first=first,
        **{k: v for k, v in kw.items() if k in ("kinds", "standings", "after")},
    )  # type: ignore[arg-type]
    extra = {k: v for k, v in kw.items() if k in ("as_of", "valid_at")}
    _, page = await search(deps, READER, scope, ask, **extra)  # type: ignore[arg-type]
    return page


async def test_passage_hit_points_at_its_line_with_highlights(
    repo: StoryRepository, deps: Deps, scope: str
) -> None:
    text = "张三：支付回调接口明天联调\n李四：the callback interface times out\n王五：好的"
    await repo.upsert_source(source(scope, text=text), now=T0)
    page = await _find(deps, scope, "callback interface", kinds=[HitKind.PASSAGE])
    assert [h.passage_ref.locator for h in page.items if h.passage_ref] == ["lines:2-2"]
    hit = page.items[0]
    assert hit.standing is Standing.CONFIRMED and hit.passage.startswith("李四")
    assert [hit.passage[s:e].lower() for s, e in hit.spans] == ["callback", "interface"]
    zh = await _find(deps, scope, "回调接口", kinds=[HitKind.PASSAGE])
    assert [h.passage_ref.locator for h in zh.items if h.passage_ref] == ["lines:1-1"]
    assert [zh.items[0].passage[s:e] for s, e in zh.items[0].spans] == ["回调接口"]


async def test_english_words_find_their_other_forms_and_stop_words_do_not_match(
    repo: StoryRepository, deps: Deps, scope: str
) -> None:
    text = (
        "Bart: I danced at the Christmas party\n李四：圣诞晚会上跳舞\nLisa: the party of the year"
    )
    await repo.upsert_source(source(scope, text=text), now=T0)
    page = await _find(deps, scope, "dancing at parties", kinds=[HitKind.PASSAGE])
    # "dancing" and "danced" share the stem "danc"; "at" is a stop word that matches nothing
    assert [h.passage_ref.locator for h in page.items if h.passage_ref][0] == "lines:1-1"
    the = await _find(deps, scope, "the dances", kinds=[HitKind.PASSAGE])
    assert [h.passage_ref.locator for h in the.items if h.passage_ref] == ["lines:1-1"]
    zh = await _find(deps, scope, "跳舞", kinds=[HitKind.PASSAGE])
    assert [h.passage_ref.locator for h in zh.items if h.passage_ref] == ["lines:2-2"]


async def test_a_chinese_word_is_found_inside_another_compound_and_shared_words_rank_first(
    repo: StoryRepository, deps: Deps, scope: str
) -> None:
    text = "张三：小猫昨天生病了\n李四：今天下雨\n王五：我的猫喜欢吃鱼"
    await repo.upsert_source(source(scope, text=text), now=T0)
    # 我家猫 shares no two-character piece with 小猫昨天生病了: its character 猫 finds it
    page = await _find(deps, scope, "我家猫", kinds=[HitKind.PASSAGE])
    found = [h.passage_ref.locator for h in page.items if h.passage_ref]
    assert "lines:1-1" in found and "lines:2-2" not in found
    # 我的猫 is a word of line 3 (its bigrams), and only a character of line 1
    page = await _find(deps, scope, "我的猫", kinds=[HitKind.PASSAGE])
    assert [h.passage_ref.locator for h in page.items if h.passage_ref][0] == "lines:3-3"


async def test_withdrawn_version_is_no_longer_found(
    repo: StoryRepository, deps: Deps, scope: str
) -> None:
    await repo.upsert_source(source(scope, text="机密：收购计划"), now=T0)
    assert (await _find(deps, scope, "收购计划")).items
    await repo.withdraw_source(
        scope, "conv-1", "v1", reason="redacted", by=ALICE, now=T0 + timedelta(minutes=1)
    )
    assert (await _find(deps, scope, "收购计划")).items == []


async def test_earlier_name_finds_the_entity_as_it_is_now_ranked_below_current_names(
    repo: StoryRepository, deps: Deps, scope: str
) -> None:
    await repo.upsert_source(source(scope), now=T0)
    out = await repo.publish_result(
        publish(
            scope,
            "k1",
            entities=[
                entity("a", "Atlas 网关", kind="system", status="main"),
                entity("b", "Atlas 看板", kind="system", status="main"),
            ],
        ),
        by=RUN,
        now=T0 + timedelta(hours=1),
    )
    ids = {e.name: e.id for e in out.plan.entities}
    renamed = ids["Atlas 网关"]
    await repo.update_entity(
        scope,
        renamed,
        EntityEdit(name="Helios 网关"),
        seen_version=1,
        by=ALICE,
        now=T0 + timedelta(hours=2),
    )
    now = await _find(deps, scope, "Atlas", kinds=[HitKind.ENTITY])
    assert [h.key for h in now.items] == [ids["Atlas 看板"], renamed]  # current name first
    old = now.items[1]
    assert old.current is False and old.field == "earlier_name"
    assert isinstance(old.obj, Entity) and old.obj.name == "Helios 网关"
    assert old.standing is Standing.PERSON_EDITED
    # as of before the rename, the entity answers with its name then, as current text
    before = await _find(
        deps, scope, "Atlas", kinds=[HitKind.ENTITY], as_of=T0 + timedelta(hours=1, minutes=30)
    )
    assert {h.key: h.current for h in before.items} == {ids["Atlas 看板"]: True, renamed: True}
    # as of before anything was published, nothing; the new name is not known earlier
    assert (await _find(deps, scope, "Atlas", as_of=T0 + timedelta(minutes=30))).items == []
    assert (
        await _find(deps, scope, "Helios", as_of=T0 + timedelta(hours=1, minutes=30))
    ).items == []


async def test_pages_follow_the_cursor_without_repeats(
    repo: StoryRepository, deps: Deps, scope: str
) -> None:
    lines = "\n".join(f"第{i}条：部署窗口 deploy window {i}" for i in range(7))
    await repo.upsert_source(source(scope, text=lines), now=T0)
    seen: list[str] = []
    after = None
    while True:
        page = await _find(deps, scope, "deploy window", first=3, after=after)
        assert page.total == 7
        seen += [h.key for h in page.items]
        if not page.has_next:
            break
        last = page.items[-1]
        after = (last.rank, last.mentions, last.key)
    assert len(seen) == 7 == len(set(seen))


@pytest.mark.parametrize("text", LUCENE)
async def test_lucene_syntax_in_user_text_is_searched_as_words(
    repo: StoryRepository, deps: Deps, scope: str, text: str
) -> None:
    await repo.upsert_source(source(scope, text="title x open fuzzy call a b"), now=T0)
    words = [w for w in re.findall(r"[^\W_]+", text) if w]
    if not text.strip() or len(text) > 200 or not words:
        with pytest.raises(InvalidInput):  # empty, too long or wordless: refused
            await _find(deps, scope, text)
        return
    await _find(deps, scope, text)  # searched as words: never a Lucene parse error


@pytest.mark.parametrize("text", ["", "   ", "x" * 201, '"*~:()'])
async def test_empty_long_or_wordless_text_is_invalid_input(
    deps: Deps, scope: str, text: str
) -> None:
    with pytest.raises(InvalidInput):
        await _find(deps, scope, text)


async def test_another_scope_is_forbidden(deps: Deps, scope: str) -> None:
    other = Principal("p", frozenset({"elsewhere"}), frozenset({"reader"}))
    with pytest.raises(Forbidden):
        await search(deps, other, scope, SearchAsk(text="x", first=5))


async def test_confirmed_relation_ranks_above_suggested_with_the_same_text(
    repo: StoryRepository, deps: Deps, scope: str
) -> None:
    await repo.upsert_source(source(scope), now=T0)
    out = await repo.publish_result(
        publish(
            scope,
            "k1",
            entities=[entity("a", "甲"), entity("b", "乙"), entity("c", "丙")],
            relations=[
                {
                    "ref": "r1",
                    "from": "a",
                    "to": "b",
                    "type": "t",
                    "reason": "共同负责灰度发布",
                    "references": [cite()],
                },
                {
                    "ref": "r2",
                    "from": "a",
                    "to": "c",
                    "type": "t",
                    "reason": "共同负责灰度发布",
                    "references": [cite()],
                },
            ],
        ),
        by=RUN,
        now=T0 + timedelta(hours=1),
    )
    second = sorted(r.id for r in out.plan.relations)[1]
    await repo.correct_relation(
        scope, second, RelationAction.CONFIRM, by=ALICE, now=T0 + timedelta(hours=2)
    )
    page = await _find(deps, scope, "灰度发布", kinds=[HitKind.RELATION])
    assert [h.key for h in page.items][0] == second
    assert [h.standing for h in page.items] == [Standing.CONFIRMED, Standing.SUGGESTED]
    only = await _find(deps, scope, "灰度发布", standings=[Standing.SUGGESTED])
    assert [h.key for h in only.items] != [] and second not in [h.key for h in only.items]


async def test_valid_at_keeps_only_events_that_had_happened(
    repo: StoryRepository, deps: Deps, scope: str
) -> None:
    await repo.upsert_source(source(scope), now=T0)
    await repo.publish_result(
        publish(
            scope,
            "k1",
            events=[
                {"ref": "a", "title": "灰度发布 第一批", "at": T0 + timedelta(days=1)},
                {"ref": "b", "title": "灰度发布 第二批", "at": T0 + timedelta(days=5)},
            ],
        ),
        by=RUN,
        now=T0 + timedelta(hours=1),
    )
    between = await _find(deps, scope, "灰度发布", valid_at=T0 + timedelta(days=3))
    assert [h.obj.title for h in between.items if isinstance(h.obj, Event)] == ["灰度发布 第一批"]
    after = await _find(deps, scope, "灰度发布", valid_at=T0 + timedelta(days=6))
    assert len(after.items) == 2
