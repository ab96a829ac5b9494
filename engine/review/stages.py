"""Stage records, progress and the completion rule of a supervision run (docs/rules/reviews.md).

"收集、叶子整理、导航合并和发布分别展示。阶段推进只依据服务记录，最终完成只依据结果事务；
‘六批已保存、剩余零来源’仍可处于合并失败或发布失败。继续保留成功叶子和导航节点，缺失阶段不得
靠错误文本或来源数猜测。"

- Each stage (collect → leaves → navigation → publish) has its own record; a stage starts
  only after the one before it is saved.
- A stage is marked saved only when the stored records back it: collect when the manifest
  is complete, leaves when every batch is committed, navigation when a root node covers every
  leaf. Publish is saved only by the publish transaction (`record_publish`).
- `progress` reads stage and batch records only; it never looks at error text or counts of
  sources.
- `completion_blockers` lists why a run may not complete: unread sources, coverage holes,
  unsaved or failed navigation, and so on.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from engine.errors import Conflict
from engine.review.manifest import (
    BatchState,
    Ledger,
    coverage_holes,
    navigation_root,
    unread_sources,
)
from engine.review.types import STAGE_ORDER, ReviewModel, StageName


class StageState(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    SAVED = "saved"
    FAILED = "failed"
    NO_INPUT = "no_input"  # checked before any model call and found nothing pending


class StageRecord(ReviewModel):
    stage: StageName
    state: StageState = StageState.PENDING
    started_at: datetime | None = None
    ended_at: datetime | None = None
    error: str | None = None


class StageBook(ReviewModel):
    records: tuple[StageRecord, ...] = tuple(StageRecord(stage=s) for s in STAGE_ORDER)

    def get(self, stage: StageName) -> StageRecord:
        return self.records[STAGE_ORDER.index(stage)]

    def put(self, record: StageRecord) -> StageBook:
        records = list(self.records)
        records[STAGE_ORDER.index(record.stage)] = record
        return StageBook(records=tuple(records))

    @property
    def current(self) -> StageRecord | None:
        """The running or most recently failed stage, if any."""
        for record in self.records:
            if record.state in (StageState.RUNNING, StageState.FAILED):
                return record
        return None


def start_stage(book: StageBook, stage: StageName, *, now: datetime) -> StageBook:
    """Start `stage` (or restart it after a failure) once the previous stage is saved."""
    index = STAGE_ORDER.index(stage)
    if index and book.records[index - 1].state is not StageState.SAVED:
        raise Conflict(
            f"{stage.value} cannot start before {STAGE_ORDER[index - 1].value} is saved",
            stage=stage.value,
        )
    record = book.get(stage)
    if record.state is StageState.RUNNING:
        return book
    if record.state not in (StageState.PENDING, StageState.FAILED):
        raise Conflict(f"{stage.value} is already {record.state.value}", stage=stage.value)
    return book.put(
        record.model_copy(
            update={"state": StageState.RUNNING, "started_at": now, "ended_at": None, "error": None}
        )
    )


def _save(book: StageBook, stage: StageName, now: datetime) -> StageBook:
    record = book.get(stage)
    if record.state is not StageState.RUNNING:
        raise Conflict(f"{stage.value} is not running", stage=stage.value, state=record.state.value)
    return book.put(record.model_copy(update={"state": StageState.SAVED, "ended_at": now}))


def finish_collect(book: StageBook, ledger: Ledger, *, now: datetime) -> StageBook:
    if not ledger.manifest.complete:
        raise Conflict("collect is saved only once every manifest page is read")
    return _save(book, StageName.COLLECT, now)


def finish_leaves(book: StageBook, ledger: Ledger, *, now: datetime) -> StageBook:
    pending = [b.index for b in ledger.batches if b.state is not BatchState.COMMITTED]
    if pending:
        raise Conflict("leaves are saved only when every batch is committed", pending=pending)
    return _save(book, StageName.LEAVES, now)


def finish_navigation(book: StageBook, ledger: Ledger, *, now: datetime) -> StageBook:
    if navigation_root(ledger) is None:
        raise Conflict("navigation is saved only when a root node covers every leaf")
    return _save(book, StageName.NAVIGATION, now)


def record_publish(book: StageBook, ledger: Ledger, *, now: datetime) -> StageBook:
    """The publish stage's record, written inside the publish result transaction only."""
    blockers = completion_blockers(book, ledger)
    if blockers:
        raise Conflict("the run cannot complete", blockers=[b.value for b in blockers])
    return _save(book, StageName.PUBLISH, now)


def fail_stage(book: StageBook, stage: StageName, error: str, *, now: datetime) -> StageBook:
    record = book.get(stage)
    if record.state in (StageState.SAVED, StageState.NO_INPUT):
        raise Conflict(f"{stage.value} is already {record.state.value}", stage=stage.value)
    return book.put(
        record.model_copy(
            update={
                "state": StageState.FAILED,
                "ended_at": now,
                "error": error,
                "started_at": record.started_at or now,
            }
        )
    )


def record_no_input(book: StageBook, *, now: datetime) -> StageBook:
    """Collect found nothing pending: every stage is recorded as no input, no model call."""
    collect = book.get(StageName.COLLECT)
    if collect.state is not StageState.RUNNING:
        raise Conflict("no input is decided while collecting", state=collect.state.value)
    records = tuple(
        r.model_copy(
            update={
                "state": StageState.NO_INPUT,
                "started_at": r.started_at or now,
                "ended_at": now,
            }
        )
        for r in book.records
    )
    return StageBook(records=records)


class Blocker(StrEnum):
    COLLECT_NOT_SAVED = "collect_not_saved"
    MANIFEST_INCOMPLETE = "manifest_incomplete"
    UNREAD_SOURCES = "unread_sources"
    COVERAGE_HOLES = "coverage_holes"
    LEAVES_NOT_SAVED = "leaves_not_saved"
    NAVIGATION_FAILED = "navigation_failed"
    NAVIGATION_NOT_SAVED = "navigation_not_saved"


def completion_blockers(book: StageBook, ledger: Ledger) -> list[Blocker]:
    """Why this run may not be marked completed yet; empty means publish may commit."""
    blockers: list[Blocker] = []
    if book.get(StageName.COLLECT).state is not StageState.SAVED:
        blockers.append(Blocker.COLLECT_NOT_SAVED)
    if not ledger.manifest.complete:
        blockers.append(Blocker.MANIFEST_INCOMPLETE)
    if unread_sources(ledger):
        blockers.append(Blocker.UNREAD_SOURCES)
    if coverage_holes(ledger):
        blockers.append(Blocker.COVERAGE_HOLES)
    if book.get(StageName.LEAVES).state is not StageState.SAVED:
        blockers.append(Blocker.LEAVES_NOT_SAVED)
    navigation = book.get(StageName.NAVIGATION).state
    if navigation is StageState.FAILED:
        blockers.append(Blocker.NAVIGATION_FAILED)
    elif navigation is not StageState.SAVED or navigation_root(ledger) is None:
        blockers.append(Blocker.NAVIGATION_NOT_SAVED)
    return blockers


class StageProgress(ReviewModel):
    stage: StageName
    state: StageState
    done: int
    total: int | None  # None while unknown (collect before the last page)
    error: str | None = None


class Progress(ReviewModel):
    stages: tuple[StageProgress, ...]
    fraction: float  # 0..1, from stored records only


def progress(book: StageBook, ledger: Ledger | None) -> Progress:
    """Per-stage progress for `runProgress` and the terminal bars, from stored records only."""
    batches = ledger.batches if ledger else ()
    committed = sum(1 for b in batches if b.state is BatchState.COMMITTED)
    items: list[StageProgress] = []
    for record in book.records:
        done: int
        total: int | None
        if record.stage is StageName.COLLECT:
            pages = ledger.manifest.pages_read if ledger else 0
            complete = bool(ledger and ledger.manifest.complete)
            done, total = pages, (pages if complete else None)
        elif record.stage is StageName.LEAVES:
            done, total = committed, (len(batches) if batches else None)
        else:
            saved = record.state in (StageState.SAVED, StageState.NO_INPUT)
            done, total = int(saved), 1
        if record.state is StageState.NO_INPUT:
            done, total = 0, 0
        items.append(
            StageProgress(
                stage=record.stage, state=record.state, done=done, total=total, error=record.error
            )
        )
    finished = sum(1 for r in book.records if r.state in (StageState.SAVED, StageState.NO_INPUT))
    fraction = finished / len(book.records)
    leaves = book.get(StageName.LEAVES)
    if leaves.state is not StageState.SAVED and batches:
        fraction += (committed / len(batches)) / len(book.records)
    return Progress(stages=tuple(items), fraction=min(fraction, 1.0))
