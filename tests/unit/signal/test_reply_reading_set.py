"""The offline reading of replies against a labelled set (tests.support.labelled_replies.py):
no reply is read as met — kept, moved, or a chosen value — that does not say so. Run through
the reading itself and through the offline model's loop judgement; the confusion tables are
printed (`pytest -s`)."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from engine.llm.tasks import LogEntry, LoopContext, Person
from engine.offline.rule_model import judge_loop
from engine.signal.answers import read_commitment_answer, read_difference_answer
from tests.support.labelled_replies import DIFFERENCE_REPLIES, PROMISE_REPLIES

TZ = "Asia/Shanghai"
SH = ZoneInfo(TZ)
ASKED = datetime(2026, 3, 19, 18, 0, tzinfo=SH)  # a Thursday
ANSWERED = ASKED + timedelta(minutes=30)
PROMISE_LABELS = ("kept", "not_yet", "changed", "dropped", "unclear")
DIFFERENCE_LABELS = ("proposed", "current", "unclear")


def table(title: str, labels: tuple[str, ...], pairs: Counter[tuple[str, str]]) -> str:
    width = max(len(x) for x in labels) + 2
    head = f"{title}: gold \\ read".ljust(width + 14) + "".join(x.rjust(width) for x in labels)
    rows = [
        f"{gold.ljust(width + 14)}" + "".join(str(pairs[gold, got]).rjust(width) for got in labels)
        for gold in labels
    ]
    return "\n".join([head, *rows])


def test_the_labelled_set_is_large_and_in_two_languages() -> None:
    texts = [r.text for r in PROMISE_REPLIES] + [r.text for r in DIFFERENCE_REPLIES]
    assert len(texts) >= 80
    assert len(set(texts)) >= 78
    assert sum(t.isascii() for t in texts) >= 20
    assert sum(not t.isascii() for t in texts) >= 50
    categories = {r.category for r in PROMISE_REPLIES} | {r.category for r in DIFFERENCE_REPLIES}
    for wanted in ("question", "conditional", "sarcasm", "other topic", "mixed", "plan", "ack"):
        assert wanted in categories


def test_no_reply_to_a_promise_is_read_as_met_that_is_not() -> None:
    pairs: Counter[tuple[str, str]] = Counter()
    single: Counter[tuple[str, str]] = Counter()  # replies that are not mixed
    false_met = []
    for r in PROMISE_REPLIES:
        got = read_commitment_answer(r.text, ANSWERED, TZ, r.what).outcome.value
        pairs[r.label, got] += 1
        if r.category != "mixed":
            single[r.label, got] += 1
        if got in ("kept", "changed") and got != r.label:
            false_met.append((r.text, r.label, got))
    print("\n" + table("promise", PROMISE_LABELS, pairs))
    assert false_met == []
    # the reading still reads: most definite replies are read as what they say (a mixed
    # reply is by rule never met, whatever its one kept part)
    for label in ("kept", "changed", "not_yet"):
        total = sum(n for (gold, _), n in single.items() if gold == label)
        assert single[label, label] >= total * 0.8, label


def test_no_answer_to_a_difference_chooses_a_value_it_does_not_state() -> None:
    pairs: Counter[tuple[str, str]] = Counter()
    false_met = []
    for r in DIFFERENCE_REPLIES:
        got = read_difference_answer(r.text, r.current, r.proposed).value
        pairs[r.label, got] += 1
        if got != "unclear" and got != r.label:
            false_met.append((r.text, r.label, got))
    print("\n" + table("difference", DIFFERENCE_LABELS, pairs))
    assert false_met == []
    assert pairs["proposed", "proposed"] >= 4 and pairs["current", "current"] >= 3


def loop_met(goal: str, reply: str) -> bool:
    log = [
        LogEntry(person_id="p", person_name="李四", direction="outbound", text="?", ts=ASKED),
        LogEntry(person_id="p", person_name="李四", direction="inbound", text=reply, ts=ANSWERED),
    ]
    ctx = LoopContext(
        goal=goal,
        now=ANSWERED,
        counterparts=[Person(person_id="p", display_name="李四")],
        initiator=Person(person_id="p_owner", display_name="老板"),
        conversation_log=log,
        replied_by="p",
    )
    return judge_loop(ctx).goal_met


def test_the_offline_model_meets_a_goal_only_on_a_reply_that_states_it() -> None:
    wrong = [
        r.text
        for r in PROMISE_REPLIES
        if loop_met(f"确认{r.what}是否已完成", r.text) and r.label != "kept"
    ]
    wrong += [
        r.text
        for r in DIFFERENCE_REPLIES
        if loop_met(f"确认负责人是{r.current}还是{r.proposed}", r.text) and r.label == "unclear"
    ]
    assert wrong == []


def test_a_mixed_reply_is_read_part_by_part_and_never_met() -> None:
    """One part done and another not yet, moved or left: the promise as a whole is not met;
    parts that agree still read as they say."""
    mixed = [r for r in PROMISE_REPLIES if r.category == "mixed"]
    assert len(mixed) >= 10
    read = {r.text: read_commitment_answer(r.text, ANSWERED, TZ, r.what).outcome for r in mixed}
    assert [t for t, got in read.items() if got in ("kept", "changed")] == []
    assert read["已经提测了，不过接口还没联调"] == "not_yet"
    assert read["the frontend is in test but docs slip to Monday"] == "not_yet"
    both = "前端部分提测并完成接口联调"
    assert (
        read_commitment_answer("都搞定了，提测和联调都完成了", ANSWERED, TZ, both).outcome == "kept"
    )
    moved = read_commitment_answer("还没提测，推迟到周五了", ANSWERED, TZ, "前端部分提测")
    assert moved.outcome == "changed" and moved.new_due is not None
    assert not any(loop_met(f"确认{r.what}是否已完成", r.text) for r in mixed)
