"""Who is responsible for what, as the offline model reads it and the story engine records it (docs/rules/story-graph.md): a statement ("张三负责支付模块") is a responsibility
relation person -> thing; a change ("支付模块改由李四负责") against a confirmed holder is a
pending difference on that relation, never a second relation nor a silent overwrite."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from engine.errors import InvalidInput
from engine.llm.tasks import ReviewDocument
from engine.offline.extractor import extract
from engine.signal.responsibility import find_responsibility
from engine.signal.stored import drafts_from_suggestions
from engine.story.corrections import resolve_suggestion
from engine.story.inputs import PublishResultInput, parse_input
from engine.story.models import (
    RESPONSIBLE_FOR,
    Actor,
    Confirmation,
    Entity,
    EntityStatus,
    Relation,
    SuggestionKind,
)
from engine.story.publish import PublishContext, decide_publish

SH = ZoneInfo("Asia/Shanghai")
AT = "[2026-03-16T10:00:00+08:00]"
NOW = datetime(2026, 3, 17, 2, 0, tzinfo=ZoneInfo("UTC"))


@pytest.mark.parametrize(
    ("said", "person", "target"),
    [
        ("张三负责支付模块", "张三", "支付模块"),
        ("支付模块由张三负责", "张三", "支付模块"),
        ("支付模块的负责人是张三", "张三", "支付模块"),
        ("Zhang San is responsible for the payment module", "Zhang San", "payment module"),
        ("The payment module is owned by Zhang San", "Zhang San", "payment module"),
    ],
)
def test_a_statement_of_responsibility_is_a_holder_not_a_change(
    said: str, person: str, target: str
) -> None:
    [claim] = find_responsibility(said)
    assert (claim.person, claim.target, claim.change) == (person, target, False)


@pytest.mark.parametrize(
    ("said", "person", "target"),
    [
        ("支付模块改由李四负责", "李四", "支付模块"),
        ("支付模块交给李四负责了", "李四", "支付模块"),
        ("李四接手支付模块", "李四", "支付模块"),
        ("Li Si now owns the payment module", "Li Si", "payment module"),
        ("The payment module is now owned by Li Si", "Li Si", "payment module"),
    ],
)
def test_a_change_of_the_responsible_person_is_a_change(
    said: str, person: str, target: str
) -> None:
    [claim] = find_responsibility(said)
    assert (claim.person, claim.target, claim.change) == (person, target, True)


@pytest.mark.parametrize(
    "said", ["我负责支付模块", "张三负责的支付模块今天提测", "高可用方案我负责", "支付模块今天提测"]
)
def test_no_holder_where_the_sentence_names_no_one(said: str) -> None:
    assert find_responsibility(said) == []


@pytest.mark.parametrize(
    ("said", "change"),
    [
        ("张三负责支付模块", False),
        ("支付模块改由张三负责", True),
        ("张三接手支付模块", True),
    ],
)
def test_the_offline_model_records_the_holder_as_a_person_and_a_relation(
    said: str, change: bool
) -> None:
    text = f"{AT} 王五: {said}\n"
    result = extract(ReviewDocument(source_id="s", text=text))
    by_id = {e.local_id: (e.name, e.kind) for e in result.entities}
    [rel] = result.relations
    assert by_id[rel.from_id] == ("张三", "person")
    assert by_id[rel.to_id][0] == "支付模块"
    assert (rel.type, rel.change) == (RESPONSIBLE_FOR, change)
    assert (
        said in text[rel.span.start : rel.span.end] or text[rel.span.start : rel.span.end] in said
    )


# --- the story engine: what a stated holder does to a stored one -------------------------


def entity(eid: str, name: str, kind: str = "person") -> Entity:
    return Entity(
        id=eid,
        scope="p",
        seq=1,
        recorded_at=NOW - timedelta(days=1),
        by=Actor.run("run-1"),
        name=name,
        kind=kind,
        status=EntityStatus.MAIN,
    )


ZHANG, PAY = entity("ent_" + "a" * 24, "张三"), entity("ent_" + "b" * 24, "支付模块", "other")


def holder(confirmation: Confirmation) -> Relation:
    return Relation(
        id="rel_1",
        scope="p",
        seq=2 if confirmation is not Confirmation.SUGGESTED else 1,
        recorded_at=NOW - timedelta(hours=1),
        by=Actor.user("u1"),
        from_id=ZHANG.id,
        to_id=PAY.id,
        type=RESPONSIBLE_FOR,
        confirmation=confirmation,
    )


def change_to_lisi() -> PublishResultInput:
    return parse_input(
        PublishResultInput,
        {
            "scope": "p",
            "key": "review:run-2",
            "entities": [
                {"ref": "li", "name": "李四", "kind": "person", "status": "main"},
                {"ref": "pay", "name": "支付模块", "id": PAY.id, "status": "main"},
            ],
            "relations": [
                {
                    "ref": "r",
                    "from": "li",
                    "to": "pay",
                    "type": RESPONSIBLE_FOR,
                    "references": [
                        {"source_id": "chat", "source_version": "v2", "locator": "chars:5-15"}
                    ],
                }
            ],
        },
    )


def publish(held: Relation) -> tuple[object, ...]:
    ctx = PublishContext(
        entities={PAY.id: PAY},
        holders=[(held, "张三")],
        source_versions={"chat": frozenset({"v2"})},
    )
    plan = decide_publish(change_to_lisi(), ctx, NOW, Actor.run("run-2"))
    lisi = next(e.id for e in plan.entities if e.name == "李四")
    return plan, lisi


def test_a_new_holder_of_a_confirmed_relation_is_a_pending_difference() -> None:
    plan, lisi = publish(holder(Confirmation.CONFIRMED))
    assert plan.relations == []  # neither a parallel relation nor a retraction
    [sug] = plan.suggestions
    assert sug.kind is SuggestionKind.DIFFERENCE and sug.target_id == "rel_1"
    assert (sug.field, sug.current_value, sug.proposed_value) == ("from_id", ZHANG.id, lisi)
    assert (sug.current_label, sug.proposed_label) == ("张三", "李四")
    assert [r.owner_id for r in plan.references if r.owner_id == sug.id] == [sug.id]
    # the signal reads with names and the field a person calls it by
    [draft] = drafts_from_suggestions(plan.suggestions, plan.references)
    assert (draft.field, draft.confirmed_value, draft.proposed_value) == ("负责人", "张三", "李四")
    # naming the thing it is about
    assert draft.suggestion_id == sug.id and draft.text == "支付模块 负责人：张三 → 李四"
    [en] = drafts_from_suggestions(plan.suggestions, plan.references, "en")
    assert en.field == "responsible person"
    # accepting it is the person's edit: the relation's holder becomes 李四 as a new version
    _, moved = resolve_suggestion(
        sug, holder(Confirmation.CONFIRMED), True, NOW, Actor.user("u1"), ""
    )
    assert isinstance(moved, Relation)
    assert (moved.from_id, moved.seq, moved.confirmation) == (lisi, 3, Confirmation.CONFIRMED)
    with pytest.raises(InvalidInput):  # an end is taken as proposed, never edited to any id
        resolve_suggestion(
            sug, holder(Confirmation.CONFIRMED), True, NOW, Actor.user("u1"), "", value="x"
        )


def test_a_new_holder_of_a_run_recorded_relation_revises_it() -> None:
    plan, lisi = publish(holder(Confirmation.SUGGESTED))
    assert plan.suggestions == []
    [moved] = plan.relations
    assert (moved.id, moved.seq, moved.from_id) == ("rel_1", 2, lisi)


def test_a_rejected_holder_does_not_stand_in_the_way() -> None:
    plan, lisi = publish(holder(Confirmation.REJECTED))
    assert plan.suggestions == []
    [new] = plan.relations
    assert new.id != "rel_1" and new.from_id == lisi


def test_a_result_stating_two_holders_says_the_last_one_holds_it() -> None:
    """A review of the whole conversation ("张三负责支付模块" … "支付模块改由李四负责") after
    李四 was confirmed proposes nothing: the conversation's last word is the confirmed one."""
    both = change_to_lisi().model_dump(by_alias=True)
    both["entities"].insert(0, {"ref": "zh", "name": "张三", "id": ZHANG.id, "status": "main"})
    earlier = {**both["relations"][0], "ref": "r0", "from": "zh"}
    both["relations"].insert(0, earlier)
    lisi = entity("ent_" + "c" * 24, "李四")
    both["entities"][1]["id"] = lisi.id
    held = holder(Confirmation.CONFIRMED).model_copy(update={"from_id": lisi.id})
    ctx = PublishContext(
        entities={PAY.id: PAY, ZHANG.id: ZHANG, lisi.id: lisi},
        relations=[held],
        holders=[(held, "李四")],
        source_versions={"chat": frozenset({"v2"})},
    )
    plan = decide_publish(parse_input(PublishResultInput, both), ctx, NOW, Actor.run("run-3"))
    assert plan.suggestions == [] and plan.relations == []
