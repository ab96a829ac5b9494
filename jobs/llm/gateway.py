"""The one entry point for everything that "thinks": HTTP model or offline rule model.

`build_gateway(settings, http=shared_client, accounting=process_accounting)` returns
- `HttpModelGateway` when `settings.model_base_url` is set: chat / structured / tool loops
  over `OpenAIChatClient` (retry policy; docs/rules/watches.md), and the task methods below asking
  the model for the same shapes the rule model produces;
- `OfflineModelGateway` otherwise: the deterministic rule model (engine/offline/), so
  the product runs and demos offline (docs/architecture/offline-model.md).

Task methods return `Judged[T]`: the value and the `CallStats` to record on the run
(retries, tokens). Failures raise the typed errors of engine/llm/errors.py, which also
carry the stats. The caller owns the `httpx.AsyncClient` (one per process).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Generic, Protocol, TypeVar

import httpx
from pydantic import BaseModel

from engine.concern.loop_output import LoopOutput
from engine.llm import prompts
from engine.llm.accounting import Accounting, AttemptRecord, CallStats
from engine.llm.messages import ChatRequest, ChatResult
from engine.llm.structured import StructuredMode, parse_result, structured_request
from engine.llm.tasks import Extraction, LoopContext, ReviewDocument
from engine.llm.tools import ToolFn, ToolLoopResult, run_tool_loop
from engine.offline.extractor import extract
from engine.offline.rule_model import judge_loop
from engine.settings import Settings
from jobs.llm import ledger
from jobs.llm.client import OpenAIChatClient
from jobs.llm.retry import Clock, Sleep
from jobs.llm.stream import StreamObserver

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)

OFFLINE_MODEL_NAME = "offline-rules"


class Judged(BaseModel, Generic[T]):
    value: T
    stats: CallStats


class ModelGateway(Protocol):
    offline: bool
    model: str
    accounting: Accounting

    async def judge_loop(self, ctx: LoopContext) -> Judged[LoopOutput]: ...

    async def extract_review(self, doc: ReviewDocument) -> Judged[Extraction]: ...


class HttpModelGateway:
    offline = False

    def __init__(
        self, client: OpenAIChatClient, mode: StructuredMode = StructuredMode.JSON_SCHEMA
    ) -> None:
        self.client = client
        self.model = client.model
        self.accounting = client.accounting
        self.mode = mode

    async def chat(
        self, request: ChatRequest, *, observer: StreamObserver | None = None
    ) -> ChatResult:
        """One model request (the retry boundary)."""
        return await self.client.chat(request, observer=observer)

    async def structured(self, request: ChatRequest, schema: type[M]) -> Judged[M]:
        result = await self.client.chat(structured_request(request, schema, self.mode))
        return Judged[schema](value=parse_result(result, schema), stats=result.stats)  # type: ignore[valid-type]

    async def run_tools(
        self, request: ChatRequest, tools: Mapping[str, ToolFn], *, max_turns: int = 8
    ) -> ToolLoopResult:
        return await run_tool_loop(self.chat, request, tools, max_turns=max_turns)

    async def judge_loop(self, ctx: LoopContext) -> Judged[LoopOutput]:
        return await self.structured(prompts.loop_request(ctx), LoopOutput)

    async def extract_review(self, doc: ReviewDocument) -> Judged[Extraction]:
        return await self.structured(prompts.review_request(doc), Extraction)


class OfflineModelGateway:
    """The rule model behind the same interface; its calls are counted like real ones."""

    offline = True
    model = OFFLINE_MODEL_NAME

    def __init__(self, accounting: Accounting | None = None) -> None:
        self.accounting = accounting or Accounting()

    def _stats(self) -> CallStats:
        stats = CallStats(model=self.model, attempts=[AttemptRecord(number=1, outcome="ok")])
        self.accounting.metrics.record(stats)
        return stats

    async def judge_loop(self, ctx: LoopContext) -> Judged[LoopOutput]:
        value = judge_loop(ctx)
        ledger.record_offline(ctx.model_dump_json(), value.model_dump_json())
        return Judged[LoopOutput](value=value, stats=self._stats())

    async def extract_review(self, doc: ReviewDocument) -> Judged[Extraction]:
        return Judged[Extraction](value=extract(doc), stats=self._stats())


def build_gateway(
    settings: Settings,
    *,
    http: httpx.AsyncClient | None = None,
    accounting: Accounting | None = None,
    clock: Clock | None = None,
    sleep: Sleep = asyncio.sleep,
    mode: StructuredMode = StructuredMode.JSON_SCHEMA,
) -> HttpModelGateway | OfflineModelGateway:
    """HTTP when MODEL_BASE_URL is set, else the offline rule model."""
    accounting = accounting or Accounting(settings.model_concurrency)
    if not settings.model_base_url:
        return OfflineModelGateway(accounting)
    if http is None:
        raise ValueError("the HTTP model gateway needs the process's shared httpx.AsyncClient")
    key = settings.model_api_key.get_secret_value() if settings.model_api_key else None
    client = OpenAIChatClient(
        http,
        base_url=settings.model_base_url,
        model=settings.model_name,
        api_key=key,
        deadline_seconds=settings.model_deadline_seconds,
        request_timeout_seconds=settings.model_request_timeout_seconds,
        accounting=accounting,
        clock=clock,
        sleep=sleep,
    )
    return HttpModelGateway(client, mode)
