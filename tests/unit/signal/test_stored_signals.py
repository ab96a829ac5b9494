"""Which signals a review result yields: facts of kind commitment, blocker, risk and
question cite the segment the fact cites and are said at its time; a pending difference cites
the suggestion's passage; one signal per fingerprint, none for one the scope already holds."""

from __future__ import annotations

from datetime import UTC, datetime

from engine.review.manifest import LeafBatch
from engine.review.outputs import LeafOutput
from engine.review.types import Segment
from engine.signal.model import SignalKind
from engine.signal.stored import (
    drafts_from_leaves,
    drafts_from_suggestions,
    new_signals,
    signal_id,
)
from engine.story.models import (
    Actor,
    ObjectKind,
    Reference,
    Suggestion,
    SuggestionKind,
    SuggestionStatus,
)

NOW = datetime(2026, 3, 16, 3, 0, tzinfo=UTC)
SAID = datetime(2026, 3, 16, 2, 0, tzinfo=UTC)  # Monday 10:00 in Shanghai
LINE = Segment(source_id="chat", version="v1", start=0, end=42)


def leaf(*facts: dict[str, object]) -> tuple[LeafBatch, LeafOutput]:
    return (
        LeafBatch(index=0, segments=(LINE,)),
        LeafOutput.model_validate({"facts": list(facts), "summary": ""}),
    )


def test_signal_kinds_of_facts_become_drafts_citing_the_fact_segment() -> None:
    cited = {"source_id": "chat", "version": "v1", "start": 32, "end": 41}
    drafts = drafts_from_leaves(
        [
            leaf(
                {"text": "李四：前端部分周四能提测", "kind": "commitment", "refs": [cited]},
                {"text": "张三：支付模块卡在第三方回调接口", "kind": "blocker"},
                {"text": "王五：我来协调沙箱", "kind": "plan"},
                {"text": "没有分类的事实"},
            )
        ],
        {("chat", "v1", 0): SAID},
        "Asia/Shanghai",
    )
    assert [d.kind for d in drafts] == [SignalKind.COMMITMENT, SignalKind.BLOCKER]
    promise, blocker = drafts
    assert promise.passage.locator == "chars:32-41" and promise.said_at == SAID
    assert promise.due == datetime(2026, 3, 19, 10, 0, tzinfo=UTC)  # Thursday 18:00 +08
    assert blocker.passage.locator == "chars:0-42" and blocker.blocks == "支付模块"


def suggestion(sid: str, kind: SuggestionKind, status: SuggestionStatus) -> Suggestion:
    return Suggestion(
        id=sid,
        scope="p1",
        seq=1,
        recorded_at=NOW,
        by=Actor.run("r1"),
        result_id="res-1",
        kind=kind,
        target_kind=ObjectKind.ENTITY,
        target_id="ent-1",
        field="description",
        current_value="张三负责支付模块",
        proposed_value="李四负责支付模块",
        status=status,
    )


def reference(owner: str) -> Reference:
    return Reference(
        id=f"ref-{owner}",
        scope="p1",
        result_id="res-1",
        owner_kind=ObjectKind.SUGGESTION,
        owner_id=owner,
        source_id="chat",
        source_version="v2",
        locator="chars:0-20",
        recorded_at=NOW,
    )


def test_only_pending_differences_with_a_passage_become_signals() -> None:
    drafts = drafts_from_suggestions(
        [
            suggestion("s1", SuggestionKind.DIFFERENCE, SuggestionStatus.PENDING),
            suggestion("s2", SuggestionKind.FIELD, SuggestionStatus.PENDING),
            suggestion("s3", SuggestionKind.DIFFERENCE, SuggestionStatus.DISMISSED),
            suggestion("s4", SuggestionKind.DIFFERENCE, SuggestionStatus.PENDING),  # unsourced
        ],
        [reference("s1"), reference("s2"), reference("s3")],
    )
    [diff] = drafts
    assert diff.kind is SignalKind.DIFFERENCE and diff.target_id == "ent-1"
    assert (diff.confirmed_value, diff.proposed_value) == ("张三负责支付模块", "李四负责支付模块")
    assert diff.passage.source_version == "v2" and diff.passage.locator == "chars:0-20"


def test_one_signal_per_fingerprint_and_none_for_a_known_one() -> None:
    [draft] = drafts_from_leaves(
        [leaf({"text": "李四：前端部分周四能提测", "kind": "commitment"})],
        {("chat", "v1", 0): SAID},
        "Asia/Shanghai",
    )
    made = new_signals([draft, draft], scope="p1", run_id="r1", result_id="res-1", now=NOW)
    assert [s.id for s in made] == [signal_id("p1", draft.fingerprint)]
    assert made[0].by == Actor.run("r1") and made[0].run_id == "r1"
    known = [signal_id("p1", draft.fingerprint)]
    assert new_signals([draft], scope="p1", run_id="r2", result_id="r", now=NOW, known=known) == []
    assert signal_id("p2", draft.fingerprint) != known[0]  # another scope's is another signal
