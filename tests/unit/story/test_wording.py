"""Changes and inbox items read as sentences: field names in words, ids as names, the actor as
a name (`engine.story.wording`)."""

from __future__ import annotations

from datetime import UTC, datetime

from engine.story.diff import DiffEntry, DiffKind, FieldChange
from engine.story.models import (
    Actor,
    ObjectKind,
    Suggestion,
    SuggestionKind,
)
from engine.story.wording import Labels, diff_sentence, ids_in, suggestion_sentence, value_words

T = datetime(2026, 3, 16, 10, tzinfo=UTC)
LABELS = Labels(
    names={"ent_a": "张三", "ent_b": "李四", "ent_doc": "需求文档", "alice": "Alice Wang"},
    relations={"rel_1": ("ent_a", "responsible_for", "ent_doc")},
)


def test_a_revised_holder_reads_as_names_and_the_field_in_words() -> None:
    e = DiffEntry(
        object_kind="relation",
        object_id="rel_1",
        change=DiffKind.REVISED,
        changed_at=T,
        fields=(
            FieldChange(field="from_id", before="ent_a", after="ent_b"),
            FieldChange(field="confirmation", before="suggested", after="confirmed"),
            FieldChange(field="user_fields", before=None, after="from_id, confirmation"),
        ),
        by=Actor.user("alice"),
    )
    text = diff_sentence(e, LABELS)
    assert text.startswith("Alice Wang修改了关系「张三 负责 需求文档」")
    assert "负责人「张三」 → 「李四」" in text
    assert "确认状态「待确认」 → 「已确认」" in text
    assert "人工编辑的字段「（空）」 → 「负责人、确认状态」" in text  # a list of fields in words
    assert "ent_" not in text and "from_id" not in text and "user_fields" not in text


def test_a_run_reads_as_automatic_review_and_an_added_entity_by_name() -> None:
    e = DiffEntry(
        object_kind="entity",
        object_id="ent_a",
        change=DiffKind.ADDED,
        changed_at=T,
        fields=(FieldChange(field="name", before=None, after="张三"),),
        by=Actor.run("run_7"),
    )
    assert diff_sentence(e, LABELS) == "自动整理（run_7）新增了实体「张三」"
    assert diff_sentence(e, LABELS, "en") == "automatic review (run_7) added entity “张三”"
    assert ids_in([e]) == ["ent_a"]


def test_an_unknown_id_reads_as_itself_and_stored_words_translate() -> None:
    assert value_words("from_id", "ent_zzz", LABELS.names) == "ent_zzz"
    assert value_words("removed", "true", LABELS.names) == "是"
    assert value_words("removed", "true", LABELS.names, "en") == "true"


def test_a_difference_reads_as_one_sentence() -> None:
    s = Suggestion(
        id="sug_1",
        scope="p1",
        seq=1,
        recorded_at=T,
        by=Actor.run("run_9"),
        result_id="res_1",
        kind=SuggestionKind.DIFFERENCE,
        target_kind=ObjectKind.RELATION,
        target_id="rel_1",
        field="from_id",
        current_value="ent_a",
        proposed_value="ent_b",
    )
    assert suggestion_sentence(s, LABELS) == (
        "待确认的差异：「张三 负责 需求文档」的负责人「张三」 → 「李四」（自动整理（run_9）提出）"
    )
    english = suggestion_sentence(s, LABELS, "en")
    assert "responsible person" in english and "from_id" not in english
