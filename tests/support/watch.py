"""Builders for watch engine tests: plain values, no services; and `until`, the e2e tests'
poll of a condition with a deadline."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from engine.watch.model import (
    Evidence,
    SourceBinding,
    SourceKey,
    SourceKind,
    StepKind,
    StepStatus,
    Watch,
    WorkflowStep,
)
from engine.watch.paging import PageRead, ReadingState, record_page
from tests.support import polling

NOW = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)
LATER = NOW + timedelta(minutes=5)
RUN = "run-2"
OLD_RUN = "run-1"


def until(probe: Callable[[], Any], timeout: float = 40) -> Any:
    """The first truthy value `probe` returns (tests/support/polling.py)."""
    return polling.until(probe, timeout=timeout)


def note_binding(
    note_id: str = "n1", project: str = "p1", binding_id: str = "b-note"
) -> SourceBinding:
    return SourceBinding(
        binding_id=binding_id,
        kind=SourceKind.NOTE,
        project=project,
        note_id=note_id,
        title="每周检查笔记",
        bound_at=NOW,
    )


def doc_binding(
    library: str = "lib1",
    document: str = "d1",
    project: str = "p1",
    binding_id: str = "b-doc",
    title: str = "发布流程 v2（内部）",
) -> SourceBinding:
    return SourceBinding(
        binding_id=binding_id,
        kind=SourceKind.KNOWLEDGE_DOCUMENT,
        project=project,
        library_id=library,
        document_id=document,
        title=title,
        bound_at=NOW,
    )


def library_binding(
    library: str = "lib2", project: str = "p1", binding_id: str = "b-lib"
) -> SourceBinding:
    return SourceBinding(
        binding_id=binding_id,
        kind=SourceKind.KNOWLEDGE_LIBRARY,
        project=project,
        library_id=library,
        title="资料库",
        bound_at=NOW,
    )


def make_watch(
    watch_id: str = "w1",
    bindings: Sequence[SourceBinding] | None = None,
    *,
    scope: str = "p1",
    execution_enabled: bool = False,
    tag_limits: frozenset[str] = frozenset(),
    record_location: str | None = None,
) -> Watch:
    return Watch(
        watch_id=watch_id,
        scope=scope,
        session_id=f"session-{watch_id}",
        bindings=tuple(bindings if bindings is not None else (note_binding(), doc_binding())),
        tag_limits=tag_limits,
        execution_enabled=execution_enabled,
        record_location=record_location,
        created_at=NOW,
    )


def note_key(note_id: str = "n1") -> SourceKey:
    return SourceKey(kind=SourceKind.NOTE, item_id=note_id)


def doc_key(library: str = "lib1", document: str = "d1") -> SourceKey:
    return SourceKey(kind=SourceKind.KNOWLEDGE_DOCUMENT, library_id=library, item_id=document)


def read_fully(
    watch: Watch, run_id: str = RUN, keys: Sequence[SourceKey] | None = None, revision: str = "r1"
) -> ReadingState:
    """A reading state in which every given (default: bound) source was read to its end."""
    state = ReadingState(watch_id=watch.watch_id, run_id=run_id)
    for key in keys if keys is not None else watch.bound_keys():
        page = PageRead(key=key, revision=revision, offset=0, text="全文", total_length=2)
        state = record_page(state, (), page, NOW).reading
    return state


def step(
    step_id: str,
    kind: StepKind = StepKind.CHECK,
    source: str = "note:n1",
    *,
    status: StepStatus = StepStatus.PENDING,
    evidence: str | None = None,
    run_id: str = RUN,
    verify_in_check: bool = False,
) -> WorkflowStep:
    return WorkflowStep(
        step_id=step_id,
        kind=kind,
        source=source,
        method="按文档核对",
        completion_criteria="页面显示最新版本",
        status=status,
        verify_in_check=verify_in_check,
        evidence=Evidence(text=evidence, run_id=run_id, recorded_at=NOW) if evidence else None,
    )
