"""Known events of a review leaf (docs/rules/reviews.md): a message re-read by a
manual re-review is matched to its stored event by the text its reference cites, and the
leaf answer and the composed result carry that event's id instead of a second event."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from engine.review.compose import compose_result
from engine.review.known_events import KnownEvent, match_event, relevant_events
from engine.review.manifest import BatchState, LeafBatch
from engine.review.outputs import parse_leaf_output, parse_navigation_output
from engine.settings import Settings
from jobs.llm.gateway import OfflineModelGateway, build_gateway
from jobs.review.model import leaf_answer
from tests.support.review import SCOPE, T0, seg

AT = datetime.fromisoformat("2026-11-30T09:00:00+08:00")
SANDBOX = KnownEvent(id="evt_wang", title="王五：我来协调沙箱", at=AT, cited=["我来协调沙箱"])


def test_only_events_whose_cited_text_the_batch_says_are_offered_earliest_first() -> None:
    later = KnownEvent(id="evt_b", title="b", at=AT + timedelta(hours=1), cited=["前端部分"])
    gone = KnownEvent(id="evt_c", title="c", at=AT, cited=["别的话", "好"])
    offered = relevant_events([later, gone, SANDBOX], ["…我来协调沙箱\n前端部分周四…好"])
    assert [e.id for e in offered] == ["evt_wang", "evt_b"]  # "好" is too short to go on
    assert relevant_events([later, SANDBOX], ["前端部分 我来协调沙箱"], limit=1) == [SANDBOX]


def test_an_event_matches_only_the_same_text_at_the_same_time_and_never_two_guesses() -> None:
    assert match_event([SANDBOX], "我来协调沙箱", AT) == "evt_wang"
    assert match_event([SANDBOX], "我来协调沙箱", AT + timedelta(minutes=9)) is None
    assert match_event([SANDBOX], "我来协调", AT) is None
    assert match_event([SANDBOX], "我来协调沙箱", None) is None
    assert match_event([SANDBOX], "我来协调沙箱", AT, taken={"evt_wang"}) is None
    twin = SANDBOX.model_copy(update={"id": "evt_twin"})
    assert match_event([SANDBOX, twin], "我来协调沙箱", AT) is None


async def test_offline_leaf_names_a_re_read_message_by_its_stored_event_and_grounded_people() -> (
    None
):
    gateway = build_gateway(Settings(model_base_url=None))
    assert isinstance(gateway, OfflineModelGateway)
    lines = [
        f"[{AT.isoformat()}] 王五: 我来协调沙箱\n",
        f"[{(AT + timedelta(minutes=1)).isoformat()}] 张三: 临时方案：先用 mock 跑通主流程\n",
        f"[{(AT + timedelta(minutes=2)).isoformat()}] 李四: 张三的方案我同意\n",
    ]
    body = "".join(lines)
    bounds = [sum(len(x) for x in lines[:i]) for i in range(len(lines) + 1)]
    segments = [seg("chat", bounds[i], bounds[i + 1], version="v2") for i in range(len(lines))]
    raw = await leaf_answer(
        gateway,
        segments,
        {("chat", "v2"): body},
        times={("chat", "v2", s.start): AT + timedelta(minutes=i) for i, s in enumerate(segments)},
        known_events=[SANDBOX],
    )
    out = json.loads(raw)
    # the plain remark "临时方案：先用 mock 跑通主流程" names no time, thing or undertaking
    assert [f.get("id") for f in out["facts"]] == ["evt_wang", None]
    assert sorted(e["name"] for e in out["entities"]) == ["张三", "李四", "王五"]  # no 方案我
    refs = {e["ref"]: e["name"] for e in out["entities"]}
    assert sorted(refs[r] for r in out["facts"][-1]["entities"]) == ["张三", "李四"]


def _leaf(index: int, facts: list[dict[str, object]]) -> tuple[LeafBatch, object]:
    batch = LeafBatch(
        index=index,
        segments=(seg("chat", index * 10, index * 10 + 10, version="v2"),),
        state=BatchState.COMMITTED,
    )
    return batch, parse_leaf_output(json.dumps({"facts": facts}, ensure_ascii=False))


def test_compose_passes_a_stored_event_id_on_and_joins_two_facts_naming_it() -> None:
    def fact(start: int, **kw: object) -> dict[str, object]:
        ref = {"source_id": "chat", "version": "v2", "start": start, "end": start + 5}
        return {"text": "王五：我来协调沙箱", "refs": [ref], **kw}

    data = compose_result(
        run_id="r1",
        scope=SCOPE,
        leaves=[_leaf(0, [fact(0, id="evt_wang")]), _leaf(1, [fact(10, id="evt_wang"), fact(12)])],  # type: ignore[list-item]
        root=parse_navigation_output('{"summary": "阶段"}'),
        segment_times={},
        now=T0,
    )
    reused = [e for e in data["events"] if e.get("id") == "evt_wang"]
    assert len(reused) == 1 and len(data["events"]) == 2
    assert [r["locator"] for r in reused[0]["references"]] == ["chars:0-5", "chars:10-15"]
    assert data["summaries"][0]["events"] == [e["ref"] for e in data["events"]]
