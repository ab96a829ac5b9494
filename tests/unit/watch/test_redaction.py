"""Redaction of tool results and resume summaries (docs/rules/watches.mdJSON 工具结果逐字段脱敏")."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.watch.redaction import (
    REDACTED,
    ToolSummary,
    build_resume_summary,
    find_urls,
    is_credential_key,
    redact_json,
    redact_text,
    redact_tool_result,
)


def test_credential_field_does_not_swallow_the_evidence_after_it() -> None:
    result = json.dumps(
        {
            "status": 200,
            "Authorization": "Bearer abc.def.ghi",
            "api_key": "sk-123",
            "evidence": "页面显示版本 v2.3，发布时间 3 月 2 日",
            "nested": {"password": "p@ss\nword", "checked": "标题一致"},
        },
        ensure_ascii=False,
    )
    out = json.loads(redact_tool_result(result))
    assert out["Authorization"] == REDACTED and out["api_key"] == REDACTED
    assert out["evidence"] == "页面显示版本 v2.3，发布时间 3 月 2 日"
    assert out["nested"] == {"password": REDACTED, "checked": "标题一致"}
    assert out["status"] == 200


def test_credential_inside_a_text_field_is_cut_at_the_token() -> None:
    out = redact_json({"log": "token=abc123，证据：版本一致", "tokens_used": 12})
    assert out == {"log": f"token={REDACTED}，证据：版本一致", "tokens_used": 12}


def test_text_result_redacts_tokens_and_keeps_following_lines() -> None:
    text = (
        "Authorization: Bearer eyJhbGciOi.x.y\n"
        "password=hunter2 证据：页面已更新\n"
        "api_key: sk-9;下一项"
    )
    out = redact_tool_result(text)
    assert "eyJhbGciOi" not in out and "hunter2" not in out and "sk-9" not in out
    assert "证据：页面已更新" in out and ";下一项" in out
    assert out.count("\n") == 2


def test_url_ends_before_chinese_full_stop_and_keeps_the_text_after() -> None:
    text = "见 https://example.org/a?token=s3cret&page=2。后续证据：已核对"
    assert find_urls(text) == ["https://example.org/a?token=s3cret&page=2"]
    assert (
        redact_text(text) == f"见 https://example.org/a?token={REDACTED}&page=2。后续证据：已核对"
    )


@pytest.mark.parametrize("stop", list("。，；：！？、）」』】"))
def test_url_ends_before_every_chinese_punctuation(stop: str) -> None:
    assert find_urls(f"https://example.org/x{stop}正文") == ["https://example.org/x"]


def test_url_ends_before_a_backtick_and_a_newline() -> None:
    text = "地址 `https://u:pw@example.org/p?sig=abc`后文\nhttps://example.org/q?x=1\n下一行"
    assert find_urls(text) == ["https://u:pw@example.org/p?sig=abc", "https://example.org/q?x=1"]
    out = redact_text(text)
    assert (
        out
        == f"地址 `https://{REDACTED}@example.org/p?sig={REDACTED}`后文\nhttps://example.org/q?x=1\n下一行"
    )


def test_url_trailing_ascii_punctuation_is_not_part_of_it() -> None:
    assert find_urls("see https://example.org/a. Next") == ["https://example.org/a"]


def test_numeric_credentials_are_redacted_but_flags_are_kept() -> None:
    out = redact_json({"pin_password": 123456, "token": None, "has_token": True, "密码": "abc"})
    assert out == {"pin_password": REDACTED, "token": None, "has_token": True, "密码": REDACTED}


def test_bearer_header_keeps_its_scheme_word() -> None:
    assert redact_text("Authorization: Bearer abc.def") == f"Authorization: Bearer {REDACTED}"


def test_credential_key_recognition() -> None:
    for key in ("password", "accessToken", "X-Api-Key", "client_secret", "Set-Cookie", "sig"):
        assert is_credential_key(key), key
    for key in ("evidence", "title", "design", "signal", "status"):
        assert not is_credential_key(key), key


@settings(deadline=None)
@given(
    st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=40),
    st.sampled_from(["。", "，", "`", "\n", "）", "！"]),
)
def test_text_after_a_url_boundary_survives_redaction(after: str, stop: str) -> None:
    suffix = f"{stop}证据{after}"
    out = redact_text(f"https://example.org/p?token=abc{suffix}")
    assert out == f"https://example.org/p?token={REDACTED}" + redact_text(suffix)
    assert out.startswith(f"https://example.org/p?token={REDACTED}{stop}证据")


def test_short_resume_summary_is_kept_whole() -> None:
    summary = build_resume_summary(
        [ToolSummary(tool="read_note_source", source_key="note:n1", text="全文")]
    )
    assert not summary.truncated and summary.text == "[read_note_source note:n1] 全文"


def test_long_resume_summary_is_capped_and_says_what_to_reread() -> None:
    entries = [
        ToolSummary(tool="read_note_source", source_key="note:n1", text="甲" * 300),
        ToolSummary(tool="read_knowledge_source", source_key="doc:lib1/d1", text="乙" * 300),
        ToolSummary(tool="bash", text='{"token": "abc", "out": "丙"}'),
    ]
    summary = build_resume_summary(entries, cap=500)
    assert summary.truncated and len(summary.text) <= 500
    assert summary.reread == ("doc:lib1/d1", "bash")
    assert "re-read: doc:lib1/d1, bash" in summary.text
    assert summary.omitted_chars > 0
    assert "abc" not in summary.text


def test_summary_cap_must_leave_room_for_the_marker() -> None:
    with pytest.raises(ValueError):
        build_resume_summary([], cap=50)


@settings(deadline=None)
@given(st.lists(st.text(max_size=300), max_size=8), st.integers(min_value=200, max_value=2000))
def test_resume_summary_never_exceeds_its_cap(texts: list[str], cap: int) -> None:
    entries = [ToolSummary(tool="t", source_key=f"note:n{i}", text=t) for i, t in enumerate(texts)]
    summary = build_resume_summary(entries, cap=cap)
    assert len(summary.text) <= cap
    assert summary.truncated == bool(summary.reread)
