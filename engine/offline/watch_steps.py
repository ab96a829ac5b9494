"""Workflow steps from plain text, by fixed keyword rules (offline checker; docs/rules/watches.md).

The offline checker (engine/offline/watch_checker.py) is not a language model; this module is its
whole "understanding" of a source. It recognises exactly two shapes:

- **numbered lines**: `1. …`, `1、…`, `1) …`, `（1）…`, `第1步 …`, `Step 1: …`;
- **Markdown tables**: the first row is the header; a column named 步骤/事项/内容/step/task is
  the step text (else the first column), 类型/kind/type gives the kind (检查/check or
  执行/execute), 完成标准/标准/criteria/done gives the criterion, 方法/method the method.

Kind (check | execute), in this order:
1. the text says the condition is verified during the check (检查时核验, 检查中核验,
   检查时确认, 在检查中, verify during check) -> check, `verifyInCheck` (docs/rules/watches.md);
2. an explicit table kind;
3. the earliest keyword in the text decides — check words 核对/检查/核验/核实/确认/查看/验证/
   check/verify/confirm/ensure; execute words 生成/发布/提交/发送/撰写/成稿/起草/草稿/执行/上传/
   publish/generate/draft/submit/send/post/upload/write;
4. no keyword -> check (a step nobody can classify must be verified, never executed).

Completion criterion: an explicit `完成标准:`/`criteria:` part or table cell; else the words
after 必须为/必须是/应为/应是/须为/需为/等于/must be/should be/equals, up to the next bracket or
punctuation; else the step text itself. Nothing names a site, proxy or platform.

Not recognised: bullet lists (`-`, `*`), steps spread over several lines, nested numbering
(1.1), HTML tables, conditions ("如果…则…"), and criteria phrased any other way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from engine.watch.model import Frozen, StepKind

_NUMBERED = re.compile(
    r"^\s*(?:(?:第\s*\d+\s*步)|(?:step\s*\d+)|(?:[（(]\s*\d+\s*[)）])|(?:\d+\s*[.、)）]))"
    r"\s*[:：]?\s*(?P<text>\S.*)$",
    re.IGNORECASE,
)
_VERIFY_IN_CHECK = re.compile(
    r"检查时核验|检查中核验|检查时确认|在检查中|verify during (?:the )?check", re.IGNORECASE
)
CHECK_WORDS = (
    "核对",
    "检查",
    "核验",
    "核实",
    "确认",
    "查看",
    "验证",
    "check",
    "verify",
    "confirm",
    "ensure",
)
EXECUTE_WORDS = (
    "生成",
    "发布",
    "提交",
    "发送",
    "撰写",
    "成稿",
    "起草",
    "草稿",
    "执行",
    "上传",
    "publish",
    "generate",
    "draft",
    "submit",
    "send",
    "post",
    "upload",
    "write",
)
_EXPLICIT_CRITERION = re.compile(
    r"(?:完成标准|标准|criteria|done when)\s*[:：]\s*(?P<c>.+)$", re.IGNORECASE
)
_CRITERION = re.compile(
    r"(?:必须为|必须是|应为|应是|须为|需为|等于|must be|should be|equals?)"
    r"\s*(?P<c>[^（(，,。；;！!？?\n]+)",
    re.IGNORECASE,
)
_HEADERS = {
    "text": ("步骤", "事项", "内容", "step", "task"),
    "kind": ("类型", "kind", "type"),
    "criterion": ("完成标准", "标准", "criteria", "done"),
    "method": ("方法", "method"),
}


class StepDraft(Frozen):
    """A step found in a source: where it was, what it says, how it is classified."""

    source: str
    line: int  # 0-based line index in the source text
    text: str
    kind: StepKind
    criterion: str
    method: str
    verify_in_check: bool


def _earliest(text: str, words: Sequence[str]) -> int | None:
    lowered = text.lower()
    found = [i for w in words if (i := lowered.find(w)) >= 0]
    return min(found) if found else None


def classify(text: str, explicit: str | None = None) -> tuple[StepKind, bool]:
    """The kind of a step and whether the document requires verifying it in the check."""
    if _VERIFY_IN_CHECK.search(text):
        return StepKind.CHECK, True
    if explicit:
        word = explicit.strip().lower()
        if word in ("执行", "execute", "execution"):
            return StepKind.EXECUTE, False
        if word in ("检查", "check", "核验"):
            return StepKind.CHECK, False
    check, execute = _earliest(text, CHECK_WORDS), _earliest(text, EXECUTE_WORDS)
    if execute is not None and (check is None or execute < check):
        return StepKind.EXECUTE, False
    return StepKind.CHECK, False


def criterion_of(text: str) -> str:
    """The completion criterion stated in a step's text (see the module rules)."""
    explicit = _EXPLICIT_CRITERION.search(text)
    if explicit:
        return explicit["c"].strip()
    stated = _CRITERION.search(text)
    if stated and stated["c"].strip():
        return stated["c"].strip()
    return text.strip()


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _is_separator(line: str) -> bool:
    return bool(re.fullmatch(r"\|?[\s:\-|]+\|?", line.strip())) and "-" in line


def _columns(header: Sequence[str]) -> dict[str, int]:
    roles: dict[str, int] = {}
    for index, cell in enumerate(header):
        name = cell.lower()
        for role, words in _HEADERS.items():
            if role not in roles and any(w in name for w in words):
                roles[role] = index
                break
    return roles


def _draft(
    source: str,
    line: int,
    text: str,
    *,
    kind: str | None = None,
    criterion: str | None = None,
    method: str | None = None,
) -> StepDraft:
    step_kind, in_check = classify(text, kind)
    return StepDraft(
        source=source,
        line=line,
        text=text.strip(),
        kind=step_kind,
        criterion=(criterion or "").strip() or criterion_of(text),
        method=(method or "").strip() or text.strip(),
        verify_in_check=in_check,
    )


def _table(source: str, lines: Sequence[tuple[int, str]]) -> list[StepDraft]:
    rows = [(i, _cells(text)) for i, text in lines if not _is_separator(text)]
    if len(rows) < 2:
        return []
    roles = _columns(rows[0][1])
    drafts = []
    for index, cells in rows[1:]:

        def cell(role: str, row: list[str] = cells) -> str | None:
            at = roles.get(role)
            return row[at] if at is not None and at < len(row) else None

        text = cell("text") or (cells[0] if cells else "")
        if not text:
            continue
        drafts.append(
            _draft(
                source,
                index,
                text,
                kind=cell("kind"),
                criterion=cell("criterion"),
                method=cell("method"),
            )
        )
    return drafts


def extract_steps(source: str, text: str) -> list[StepDraft]:
    """Every numbered line and table row of one source, in document order."""
    drafts: list[StepDraft] = []
    table: list[tuple[int, str]] = []
    for index, line in enumerate(text.splitlines()):
        if line.strip().startswith("|"):
            table.append((index, line))
            continue
        if table:
            drafts += _table(source, table)
            table = []
        match = _NUMBERED.match(line)
        if match:
            drafts.append(_draft(source, index, match["text"]))
    if table:
        drafts += _table(source, table)
    return drafts


def find_evidence(criterion: str, texts: Mapping[str, str], exclude: tuple[str, int]) -> str | None:
    """A source line that literally contains the criterion, other than the step's own line.

    Returns `"<sourceKey> L<n>: <line>"` or None. Only literal containment counts: the
    offline checker never infers that a fact holds.
    """
    needle = criterion.strip()
    if not needle:
        return None
    for key in sorted(texts):
        for index, line in enumerate(texts[key].splitlines()):
            if (key, index) == exclude:
                continue
            if needle in line:
                return f"{key} L{index + 1}: {line.strip()[:300]}"
    return None
