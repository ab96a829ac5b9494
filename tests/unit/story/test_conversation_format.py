"""The one message format of a conversation: `[time] name: text`, `name: text`, `name：text`,
a line without a header (or indented) continuing the message before it; structured
messages rendered into it and checked message by message."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engine.errors import InvalidInput
from engine.story.conversation import messages, render, said, speakers

AT = datetime(2026, 9, 21, 9, 0, tzinfo=UTC)


def test_every_header_form_is_a_message_with_its_speaker_and_time() -> None:
    text = (
        "老板: 张三负责支付模块\n"
        "李四：前端部分周四能提测\n"
        "[2026-09-21T10:00:00+08:00] 张三: 支付模块卡在第三方回调接口\n"
        "Li Si: the frontend is ready\n"
        "  and tested\n"
        "see https://example.com/x: not a speaker\n"
    )
    found = messages(text)
    assert [m.speaker for m in found] == ["老板", "李四", "张三", "Li Si"]
    assert [m.at for m in found][:2] == [None, None]
    assert found[2].at == datetime(2026, 9, 21, 2, 0, tzinfo=UTC)
    assert text[found[0].body : found[0].end] == "张三负责支付模块\n"
    # the indented line and the line that is no header both continue Li Si's message
    assert text[found[3].body : found[3].end].endswith("not a speaker\n")
    assert speakers(text) == ["老板", "李四", "张三", "Li Si"]


@pytest.mark.parametrize(
    "line", ["15:00 开会", "https://x.io/a", "- item: value", "一句很长的话，带着逗号: 不是名字"]
)
def test_a_line_that_is_no_header_names_nobody(line: str) -> None:
    assert messages(line + "\n") == []


def test_a_fact_text_splits_into_speaker_and_sentence() -> None:
    assert said("李四：前端部分周四能提测") == ("李四", "前端部分周四能提测")
    assert said("[2026-09-21T10:00:00Z] 李四: 提测") == ("李四", "提测")
    assert said("前端部分周四能提测") == ("", "前端部分周四能提测")


def test_structured_messages_render_to_lines_that_read_back_as_the_same_messages() -> None:
    text = render(
        [
            {"speaker": "老板", "text": "张三负责支付模块"},
            {"speaker": "Li Si", "at": AT, "text": "ready\nChecked: all green"},
        ]
    )
    assert text == (
        "老板: 张三负责支付模块\n[2026-09-21T09:00:00+00:00] Li Si: ready\n  Checked: all green\n"
    )
    found = messages(text)
    assert [(m.speaker, m.at) for m in found] == [("老板", None), ("Li Si", AT)]


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ({"speaker": "张三", "text": "  "}, "text"),
        ({"speaker": " ", "text": "好"}, "speaker"),
        ({"speaker": "张三: 老板", "text": "好"}, "speaker"),
        ({"speaker": "张三", "at": datetime(2026, 9, 21, 9, 0), "text": "好"}, "at"),
        ({"speaker": "张三", "at": "2026-09-21T09:00:00", "text": "好"}, "at"),
    ],
)
def test_a_bad_message_is_invalid_input_naming_its_index(
    bad: dict[str, object], field: str
) -> None:
    good = {"speaker": "李四", "text": "前端部分周四能提测"}
    with pytest.raises(InvalidInput) as caught:
        render([good, bad])
    assert caught.value.details == {"index": 1, "field": field}
    assert caught.value.message.startswith("message 1:")
