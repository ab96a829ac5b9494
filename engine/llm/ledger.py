"""The cost ledger of model calls: one entry per model request.

An entry says which stage asked (leaf, navigation, heartbeat report, concern loop, watch
check), which model answered, the prompt and completion tokens the response's `usage`
reported, the retries and the latency, and what it is attributed to (supervision run and
batch, concern, watch, scope). A server that omits `usage` gets an estimate marked
`estimated: true`: ceil(characters / 4) for the prompt and for the completion (the common
rule of thumb for English; CJK text is under-counted by it, which the flag makes visible).
The offline rule model makes no HTTP call; its calls are recorded with model "offline" and
estimated tokens.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel

from engine.llm.accounting import CallStats

CHARS_PER_TOKEN = 4
OFFLINE_LEDGER_MODEL = "offline"


class Stage(StrEnum):
    LEAF = "leaf"
    NAVIGATION = "navigation"
    REPORT = "heartbeat_report"
    CONCERN_LOOP = "concern_loop"
    WATCH_CHECK = "watch_check"
    EMBEDDING = "embedding"  # an embed run's texts (hybrid search's vectors)
    SEARCH_QUERY = "search_query"  # a hybrid search's query text
    OTHER = "other"


def estimate_tokens(chars: int) -> int:
    """The documented estimate when a server omits `usage`: ceil(chars / 4)."""
    return -(-max(0, chars) // CHARS_PER_TOKEN)


class Attribution(BaseModel):
    """What a call is charged to. `scope` is the story scope key of the owner."""

    stage: Stage
    scope: str
    run_id: str | None = None
    batch: str | None = None  # a leaf's batch index or a navigation node id
    concern_id: str | None = None
    watch_id: str | None = None


class LedgerEntry(BaseModel):
    id: str
    stage: Stage
    model: str
    scope: str
    run_id: str | None = None
    batch: str | None = None
    concern_id: str | None = None
    watch_id: str | None = None
    outcome: str = "ok"
    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False
    retries: int = 0
    latency_ms: float = 0.0
    at: datetime

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def entry(entry_id: str, who: Attribution, stats: CallStats, *, at: datetime) -> LedgerEntry:
    return LedgerEntry(
        id=entry_id,
        **who.model_dump(),
        model=stats.model,
        outcome=stats.outcome,
        prompt_tokens=stats.prompt_tokens,
        completion_tokens=stats.completion_tokens,
        estimated=stats.estimated,
        retries=stats.retries,
        latency_ms=round(stats.latency_seconds * 1000, 3),
        at=at,
    )


def offline_stats(prompt_chars: int, completion_chars: int) -> CallStats:
    """The stats of one offline rule-model call: no HTTP, tokens estimated."""
    return CallStats(
        model=OFFLINE_LEDGER_MODEL,
        prompt_tokens=estimate_tokens(prompt_chars),
        completion_tokens=estimate_tokens(completion_chars),
        estimated=True,
    )


class CostSum(BaseModel):
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    retries: int = 0
    estimated_calls: int = 0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def total(entries: Iterable[LedgerEntry]) -> CostSum:
    out = CostSum()
    for e in entries:
        out.calls += 1
        out.prompt_tokens += e.prompt_tokens
        out.completion_tokens += e.completion_tokens
        out.retries += e.retries
        out.estimated_calls += int(e.estimated)
    return out


class CostLine(BaseModel):
    """The sum of the ledger entries sharing one owner, stage and model."""

    stage: str
    model: str
    run_id: str | None = None
    batch: str | None = None
    concern_id: str | None = None
    watch_id: str | None = None
    cost: CostSum


def add(a: CostSum, b: CostSum) -> CostSum:
    return CostSum(
        calls=a.calls + b.calls,
        prompt_tokens=a.prompt_tokens + b.prompt_tokens,
        completion_tokens=a.completion_tokens + b.completion_tokens,
        retries=a.retries + b.retries,
        estimated_calls=a.estimated_calls + b.estimated_calls,
    )


def sum_lines(lines: Iterable[CostLine]) -> CostSum:
    out = CostSum()
    for line in lines:
        out = add(out, line.cost)
    return out


def by_owner(lines: Iterable[CostLine], owner: str) -> dict[str, CostSum]:
    """Sums per `owner` ("run_id", "concern_id" or "watch_id"); lines without one are left out."""
    out: dict[str, CostSum] = {}
    for line in lines:
        key = getattr(line, owner)
        if key is not None:
            out[key] = add(out.get(key, CostSum()), line.cost)
    return out


def by_stage(lines: Iterable[CostLine]) -> dict[tuple[str, str], CostSum]:
    out: dict[tuple[str, str], CostSum] = {}
    for line in lines:
        key = (line.stage, line.model)
        out[key] = add(out.get(key, CostSum()), line.cost)
    return out


BUDGET_REASON = {
    "zh": (
        "已超出每次运行的 token 预算 {budget}（本次已用 {spent}）；"
        "继续回顾（continueReview）可接着运行"
    ),
    "en": "token budget of {budget} per run exceeded ({spent} used); continueReview goes on",
}


def over_budget(spent: int, budget: int | None) -> bool:
    """A run execution that has spent its token budget stops before its next model call."""
    return budget is not None and spent >= budget


def budget_reason(spent: int, budget: int, locale: str = "zh") -> str:
    template = BUDGET_REASON.get(locale, BUDGET_REASON["zh"])
    return template.format(budget=budget, spent=spent)
