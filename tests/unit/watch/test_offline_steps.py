"""The offline checker's step rules (engine/offline/watch_steps; docs/rules/watches.md)."""

from __future__ import annotations

import pytest

from engine.offline.watch_steps import classify, criterion_of, extract_steps, find_evidence
from engine.watch.model import StepKind

DOC = """发布流程
1. 核对官网版本号必须为 v2.3（检查时核验）。
2、生成发布草稿。
（3）确认草稿标题
普通段落 1 不是步骤
| 步骤 | 类型 | 完成标准 |
|---|---|---|
| 检查素材目录 | 检查 | 素材齐全 |
| 上传封面 | 执行 | 封面已上传 |
"""


def test_numbered_lines_and_table_rows_become_steps_in_document_order() -> None:
    drafts = extract_steps("doc:l/d", DOC)
    assert [(d.line, d.kind, d.criterion) for d in drafts] == [
        (1, StepKind.CHECK, "v2.3"),
        (2, StepKind.EXECUTE, "生成发布草稿。"),
        (3, StepKind.CHECK, "确认草稿标题"),
        (7, StepKind.CHECK, "素材齐全"),
        (8, StepKind.EXECUTE, "封面已上传"),
    ]
    assert drafts[0].verify_in_check and not drafts[2].verify_in_check
    assert all(d.source == "doc:l/d" for d in drafts)


@pytest.mark.parametrize(
    ("text", "kind", "in_check"),
    [
        ("核对发布页的版本", StepKind.CHECK, False),  # 核对 comes before 发布
        ("发布后检查链接", StepKind.EXECUTE, False),  # 发布 comes first
        ("发布前在检查中核验授权", StepKind.CHECK, True),  # the document says: in the check
        ("整理目录", StepKind.CHECK, False),  # no keyword: never executed
        ("Publish the draft", StepKind.EXECUTE, False),
    ],
)
def test_kind_is_decided_by_the_documented_keyword_rules(
    text: str, kind: StepKind, in_check: bool
) -> None:
    assert classify(text) == (kind, in_check)


def test_criterion_prefers_an_explicit_part_then_a_stated_value_then_the_text() -> None:
    assert criterion_of("检查首页，完成标准：页脚显示 2026") == "页脚显示 2026"
    assert criterion_of("版本号应为 v3，否则停止") == "v3"
    assert criterion_of("查看日志") == "查看日志"


def test_evidence_is_only_a_literal_line_other_than_the_step_itself() -> None:
    texts = {"doc:l/d": DOC, "note:n": "周报\n官网当前版本号：v2.3"}
    assert find_evidence("v2.3", texts, ("doc:l/d", 1)) == "note:n L2: 官网当前版本号：v2.3"
    assert find_evidence("v2.3", {"doc:l/d": DOC}, ("doc:l/d", 1)) is None
    assert find_evidence("v2.4", texts, ("doc:l/d", 1)) is None
