"""Messages to people read as a person would write them (docs/rules/concerns.md
"老板想了解提测什么时候能给？"): worded from what the initiator asked, in the configured
locale, never the goal sentence."""

from __future__ import annotations

import pytest

from engine.concern.effects import SendMessage
from engine.concern.loop import decide
from engine.concern.loop_output import LoopStep
from engine.concern.model import ConcernStatus, Source
from engine.concern.policy import ConcernPolicy
from engine.concern.scheduler import due_trigger
from engine.concern.wording import counterpart_message, the_ask
from tests.support.concern import POLICY, at, out, person, raised


def seed_example():  # type: ignore[no-untyped-def]
    c = raised(people=[person("p_zhangsan", "张三"), person("p_lisi", "李四")])
    source = Source(
        type="delegation",
        detail="帮我问一下张三李四，v2.0 什么时候能提测",
        initiator=c.source.initiator,
    )
    return c.model_copy(
        update={
            "source": source,
            "title": "问张三和李四 v2.0 提测时间",
            "goal": "拿到张三和李四各自 v2.0 的提测时间",
        }
    )


def test_the_ask_is_the_initiators_question_without_the_delegation_and_names() -> None:
    assert the_ask(seed_example()) == "v2.0 什么时候能提测"
    assert the_ask(raised()) == "提测什么时候能给"


def test_the_first_contact_reads_like_a_person_and_never_pastes_the_goal() -> None:
    c = seed_example()
    trig = due_trigger(c, at(0))
    assert trig is not None
    d = decide(c, trig, out(LoopStep.FOLLOW_UP), at(0), POLICY)
    texts = {e.person_name: e.text for e in d.effects if isinstance(e, SendMessage)}
    assert texts == {
        "张三": "你好，老板想了解一下 v2.0 什么时候能提测？",
        "李四": "你好，老板想了解一下 v2.0 什么时候能提测？",
    }
    assert d.new_concern.status == ConcernStatus.WAITING_REPLY
    assert all(c.goal not in t for t in texts.values())


@pytest.mark.parametrize(
    ("kind", "zh", "en"),
    [
        (
            "initial",
            "你好，老板想了解一下 v2.0 什么时候能提测？",
            "Hi, 老板 would like to know: v2.0 什么时候能提测?",
        ),
        (
            "normal",
            "再跟你确认一下，v2.0 什么时候能提测？方便的时候回我一下。",
            "Just following up: v2.0 什么时候能提测? Let me know when you can.",
        ),
        (
            "soft",
            "不着急，你忙完了告诉我一声就行：v2.0 什么时候能提测？",
            "No rush — whenever you're done, just let me know: v2.0 什么时候能提测?",
        ),
    ],
)
def test_each_message_kind_in_both_locales(kind: str, zh: str, en: str) -> None:
    c = seed_example()
    assert counterpart_message(c, kind, "zh") == zh
    assert counterpart_message(c, kind, "en") == en


def test_without_a_request_the_title_is_worded_as_a_question_to_confirm() -> None:
    c = raised()
    c = c.model_copy(update={"source": c.source.model_copy(update={"detail": ""})})
    assert counterpart_message(c, "initial") == "你好，老板想跟你确认一下提测时间。"
    assert counterpart_message(c, "normal") == "跟进一下提测时间的事，方便的时候回我一下。"


def test_english_locale_sends_english_templates() -> None:
    c = seed_example()
    trig = due_trigger(c, at(0))
    assert trig is not None
    d = decide(c, trig, out(LoopStep.FOLLOW_UP), at(0), ConcernPolicy(locale="en"))
    texts = [e.text for e in d.effects if isinstance(e, SendMessage)]
    assert texts and all(t.startswith("Hi, 老板 would like to know") for t in texts)


def test_a_yes_no_ask_ending_in_mei_reads_as_a_question() -> None:
    """ "帮我问问王五周报交了没" asks a question: the message ends with a question mark."""
    from engine.concern.wording import is_question

    assert is_question("周报交了没")
    assert is_question("周报交了没有")
