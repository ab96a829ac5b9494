"""The offline extractor names only people it has grounds for: a message's speaker, names the
caller knows (`known_entities`), names known to be people (`people`: the batch's other
speakers) and @mentions — never a Chinese substring that merely starts with a surname
character ("李四: 张三的方案我同意" once produced a person "方案我")."""

from __future__ import annotations

import pytest

from engine.llm.tasks import ReviewDocument
from engine.offline.extractor import extract
from engine.story.conversation import speakers

AT = "[2026-11-30T09:08:00+08:00]"


def people(text: str, **kw: list[str]) -> set[str]:
    found = extract(ReviewDocument(source_id="s", text=text, **kw)).entities
    return {e.name for e in found if e.kind == "person"}


def names(text: str, **kw: list[str]) -> set[str]:
    return {e.name for e in extract(ReviewDocument(source_id="s", text=text, **kw)).entities}


def test_agreeing_with_a_plan_names_the_speaker_not_a_substring() -> None:
    assert names(f"{AT} 李四: 张三的方案我同意\n") == {"李四"}


def test_a_name_the_batch_knows_as_a_speaker_is_a_person_of_the_fact() -> None:
    result = extract(
        ReviewDocument(source_id="s", text=f"{AT} 李四: 张三的方案我同意\n", people=["张三"])
    )
    by_id = {e.local_id: (e.name, e.kind) for e in result.entities}
    [fact] = result.facts
    assert {by_id[i] for i in fact.entity_ids} == {("李四", "person"), ("张三", "person")}


def test_a_speaker_of_another_message_in_the_same_text_is_recognised() -> None:
    text = f"{AT} 张三: 临时方案：先用 mock 跑通主流程\n{AT} 李四: 张三的方案我同意\n"
    assert people(text) == {"张三", "李四"}
    assert speakers(text) == ["张三", "李四"]


def test_a_known_entity_is_found_by_its_name() -> None:
    assert names(f"{AT} 李四: 张三的方案我同意\n", known_entities=["张三"]) == {"张三", "李四"}


@pytest.mark.parametrize(
    "said",
    [
        "方案我同意",
        "王五说方案我来写",  # 王五 is neither a speaker nor known here
        "高可用方案我负责",
        "周五前完成联调",
        "金三角的项目先放一放",
        "石三那边还没回复",
        "方总同意了",
        "陈述一下原因：接口超时",
        "黄金周前上线",
    ],
)
def test_running_text_never_yields_a_guessed_chinese_name(said: str) -> None:
    assert people(f"{AT} 李四: {said}\n") == {"李四"}


def test_an_at_mention_is_a_person() -> None:
    assert people(f"{AT} 李四: @王小明 请确认回调地址\n") == {"李四", "王小明"}
