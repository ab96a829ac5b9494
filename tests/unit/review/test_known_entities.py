"""Known entities of a review request and how a result uses them (docs/rules/reviews.md: 跨 run 仅允许引用
同 scope 的 Main 候选实体，模型局部 ID 和同名均不构成身份), and event titles that read as the
event, not as a copied message header."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from engine.review.compose import compose_result, earlier_entities, event_text
from engine.review.known import KnownEntity, by_name, lookup_keys, relevant
from engine.review.manifest import BatchState, LeafBatch
from engine.review.outputs import parse_leaf_output, parse_navigation_output
from engine.settings import Settings
from jobs.llm.gateway import OfflineModelGateway, build_gateway
from jobs.review.model import leaf_answer
from tests.support.review import SCOPE, T0, seg

ZHANG = KnownEntity(id="ent_zhang", name="张三", kind="person", aliases=["小张"])
LI = KnownEntity(id="ent_li", name="李四", kind="person")


def test_lookup_keys_cover_every_name_in_the_text_and_grow_with_the_text_only() -> None:
    keys = lookup_keys(["张三: 好的", "v2.0"])
    assert {"张三", "三:", "好的", "v2", "2.", ".0"} <= set(keys)
    assert not any(" " in k for k in keys)
    assert len(keys) <= len("张三: 好的") + len("v2.0")


def test_only_entities_the_text_names_are_offered_most_named_first_and_bounded() -> None:
    texts = ["张三说好的。李四也在。张三明天提测。", "小张确认"]
    other = KnownEntity(id="ent_wang", name="王五")
    assert [k.id for k in relevant([LI, other, ZHANG], texts)] == ["ent_zhang", "ent_li"]
    assert [k.id for k in relevant([LI, ZHANG], texts, limit=1)] == ["ent_zhang"]


def test_an_alias_in_the_text_offers_the_entity_and_an_ambiguous_name_maps_to_none() -> None:
    assert [k.id for k in relevant([ZHANG], ["小张确认了"])] == ["ent_zhang"]
    twin = KnownEntity(id="ent_zhang2", name="张三", kind="person")
    names = by_name([ZHANG, twin, LI])
    assert "张三" not in names  # an equal name is not an identity: no guess between two
    assert names["小张"].id == "ent_zhang" and names["李四"].id == "ent_li"


def test_event_text_is_the_sentence_without_its_speaker_or_a_copied_header() -> None:
    raw = "[2026-09-20T10:00:00+08:00] 李四: 前端部分周四能提测"
    assert event_text(raw) == "前端部分周四能提测"
    assert event_text("[2026-09-20T10:00:00Z] 周四能提测") == "周四能提测"
    assert event_text("李四：前端部分周四能提测") == "前端部分周四能提测"
    assert event_text("Li Si: frontend ready Thursday") == "frontend ready Thursday"
    assert event_text("15:00 开会") == "15:00 开会"  # a clock time is no speaker


def _leaf(index: int, entities: list[dict[str, object]]) -> tuple[LeafBatch, object]:
    batch = LeafBatch(
        index=index,
        segments=(seg("chat", index * 10, index * 10 + 10),),
        state=BatchState.COMMITTED,
    )
    output = parse_leaf_output(
        json.dumps(
            {
                "facts": [
                    {
                        "text": f"[2026-09-20T10:0{index}:00+08:00] 张三: 第{index}批",
                        "entities": [e["ref"] for e in entities],
                    }
                ],
                "entities": entities,
            },
            ensure_ascii=False,
        )
    )
    return batch, output


def test_two_batches_naming_one_stored_id_give_one_entity_with_both_descriptions() -> None:
    a = {"ref": "n0", "name": "张三", "id": "ent_zhang", "description": "张三：第0批"}
    b = {"ref": "n0", "name": "张三", "id": "ent_zhang", "description": "张三：第1批"}
    fresh = {"ref": "n1", "name": "李四"}
    data = compose_result(
        run_id="r1",
        scope=SCOPE,
        leaves=[_leaf(0, [a, fresh]), _leaf(1, [b])],  # type: ignore[list-item]
        root=parse_navigation_output('{"summary": "阶段"}'),
        segment_times={},
        now=T0,
    )
    [zhang] = [e for e in data["entities"] if e["name"] == "张三"]
    assert zhang["id"] == "ent_zhang" and zhang["description"] == "张三：第0批；张三：第1批"
    assert {c["entity"] for c in data["changes"]} == {zhang["ref"], "b0.n1"}
    assert all(e["status"] == "main" for e in data["entities"])  # reusable by a later run
    assert [e["title"] for e in data["events"]] == ["第0批", "第1批"]  # the speaker is linked


async def test_offline_leaf_reuses_a_known_entity_by_id_and_titles_drop_the_header() -> None:
    gateway = build_gateway(Settings(model_base_url=None))
    assert isinstance(gateway, OfflineModelGateway)
    at = datetime.fromisoformat("2026-09-20T10:00:00+08:00")
    body = (
        f"[{at.isoformat()}] 李四: 前端部分周四能提测\n"
        f"[{(at + timedelta(minutes=1)).isoformat()}] 王五: 小张确认了\n"
    )
    first, second = (
        seg("chat", 0, body.index("\n") + 1),
        seg("chat", body.index("\n") + 1, len(body)),
    )
    raw = await leaf_answer(
        gateway,
        [first, second],
        {("chat", "v1"): body},
        times={("chat", "v1", 0): at},
        known_entities=[ZHANG, LI],
    )
    out = json.loads(raw)
    titles = [f["text"] for f in out["facts"]]
    assert titles == ["李四：前端部分周四能提测", "王五：小张确认了"]
    assert not any(t.startswith("[") for t in titles)
    by_entity = {e["name"]: e for e in out["entities"]}
    assert by_entity["李四"]["id"] == "ent_li"
    assert by_entity["张三"]["id"] == "ent_zhang"  # named by its alias 小张, stored name kept
    assert "id" not in by_entity["王五"]  # not known: a new entity, never a guessed id
    assert "description" not in by_entity["李四"]  # never the raw lines joined
    commitment = out["facts"][0]
    assert commitment["at"] == at.isoformat()  # promised when said; 周四 is the due time
    ref = commitment["refs"][0]
    assert body[ref["start"] : ref["end"]] == "前端部分周四能提测"


def test_an_entity_linked_to_an_earlier_batch_of_the_run_is_the_same_entity() -> None:
    first = {"ref": "n0", "name": "王五", "kind": "person", "description": "王五：第0批"}
    again = {"ref": "n0", "name": "王五", "same_as": "b0.n0", "description": "王五：第1批"}
    unlinked = {"ref": "n1", "name": "王五"}  # the model did not link it: a new entity
    leaves = [_leaf(0, [first]), _leaf(1, [again, unlinked])]
    data = compose_result(
        run_id="r1",
        scope=SCOPE,
        leaves=leaves,  # type: ignore[arg-type]
        root=parse_navigation_output('{"summary": "阶段"}'),
        segment_times={},
        now=T0,
    )
    assert [(e["ref"], e.get("description")) for e in data["entities"]] == [
        ("b0.n0", "王五：第0批；王五：第1批"),
        ("b1.n1", None),
    ]
    offered = earlier_entities([(batch.index, out) for batch, out in leaves])  # type: ignore[misc]
    assert offered == [("b0.n0", "王五", "person"), ("b1.n1", "王五", "")]
