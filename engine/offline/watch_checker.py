"""The deterministic offline checker: a gateway-like stand-in for the model (docs/rules/watches.md).

Without `MODEL_BASE_URL` the product still runs (docs/architecture/offline-model.md): the checker
job talks to `OfflineWatchChecker.chat(request)` exactly as it talks to the HTTP model, so every
boundary of the real loop applies unchanged — tools only while the budget is open
(docs/rules/watches.md), redacted tool results, evidence batches that are all or nothing, the
outcome judgement with bounded corrections, and the hand-off gate.

Each request is answered from the conversation alone (no hidden state), so a retried or
resumed request yields the same turn:

1. read every bound note/document (`- <sourceKey> 「title」` lines of the opening message)
   page by page through `heartbeat_read_note_source` / `heartbeat_read_knowledge_source`, one
   call per source per round; a `restart` result (revision changed while paging) starts that
   source again (the older tool names in a transcript are read the same way);
2. register the steps found by `engine.offline.watch_steps` with `heartbeat_check_workflow`
   `steps`;
3. send one `heartbeat_check_workflow` `update.updates` batch: a check step is `done` only
   where some other line of the bound sources literally contains its completion criterion
   (the evidence cites that line); otherwise it is `blocked`, saying so. Execute steps are
   left pending;
4. answer with the final JSON observation (also in the closing round, or after a
   correction prompt — it cannot do better, so a blocked check ends `blocked` honestly).

Limits: it understands only what `offline_steps` documents; it cannot open web pages, run
commands or read whole libraries (a library binding has no document to page through, so a
check over a library alone ends without steps); it never judges whether the sources changed
(`changed` is always false); literal containment is not proof that a fact holds in the
world — it is the only evidence this checker will record.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from engine.llm.accounting import Accounting, AttemptRecord, CallStats
from engine.llm.messages import ChatMessage, ChatRequest, ChatResult, ToolCall
from engine.offline.watch_steps import StepDraft, extract_steps, find_evidence
from engine.watch.budget import (
    CHECK_WORKFLOW,
    READ_KNOWLEDGE,
    READ_NOTE,
    canonical,
    records_evidence,
)
from engine.watch.model import StepKind

OFFLINE_CHECKER_MODEL = "offline-watch-checker"
PAGE = 4000
_BOUND = re.compile(r"^- (?P<key>(?:note:[^\s/:]+)|(?:doc:[^\s/:]+/[^\s/:]+)) 「", re.MULTILINE)


@dataclass
class _Source:
    key: str
    revision: str | None = None
    pages: dict[int, str] = field(default_factory=dict)
    next_offset: int = 0
    done: bool = False
    error: str | None = None

    def text(self) -> str:
        return "".join(self.pages[o] for o in sorted(self.pages))


@dataclass
class _Transcript:
    """What the conversation so far says: reads, registration, batches, answers."""

    sources: dict[str, _Source]
    registered: bool = False
    workflow_failed: bool = False
    batch_sent: bool = False
    answered: bool = False
    rounds: int = 0


def _result_of(messages: list[ChatMessage]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for m in messages:
        if m.role == "tool" and m.tool_call_id is not None:
            try:
                value = json.loads(m.content or "{}")
            except ValueError:
                value = {"error": "unreadable tool result"}
            out[m.tool_call_id] = value if isinstance(value, dict) else {"error": "not an object"}
    return out


def _read(source: _Source, result: dict[str, Any]) -> None:
    if "error" in result:
        source.error, source.done = str(result["error"]), True
        return
    if result.get("restart"):
        source.pages, source.done, source.next_offset = {}, False, 0
    if "text" not in result:
        return
    source.revision = str(result.get("revision"))
    offset = int(result.get("offset") or 0)
    source.pages[offset] = str(result["text"])
    source.next_offset = int(result.get("nextOffset") or offset + len(result["text"]))
    source.done = not result.get("hasMore")


def transcript(request: ChatRequest) -> _Transcript:
    opening = next((m.content or "" for m in request.messages if m.role == "user"), "")
    sources = {k: _Source(k) for k in dict.fromkeys(_BOUND.findall(opening))}
    state = _Transcript(sources=sources)
    results = _result_of(request.messages)
    for m in request.messages:
        if m.role != "assistant":
            continue
        if not m.tool_calls:
            state.answered = True
            continue
        state.rounds += 1
        for call in m.tool_calls:
            result = results.get(call.id, {"error": "no result"})
            args = _args(call)
            name = canonical(call.name)
            if name in (READ_NOTE, READ_KNOWLEDGE):
                key = str(result.get("sourceKey") or args.get("sourceKey") or "")
                if key in state.sources:
                    _read(state.sources[key], result)
                    if result.get("restart"):
                        state.registered = state.batch_sent = False
            elif records_evidence(call.name, args):
                state.batch_sent = True
            elif name == CHECK_WORKFLOW:
                state.registered = "error" not in result
                state.workflow_failed = "error" in result
    return state


def _args(call: ToolCall) -> dict[str, Any]:
    try:
        return call.parsed_arguments()
    except ValueError:
        return {}


def drafts_of(state: _Transcript) -> list[StepDraft]:
    drafts: list[StepDraft] = []
    for key, source in state.sources.items():
        if source.error is None:
            drafts += extract_steps(key, source.text())
    return drafts


def _step_id(index: int) -> str:
    return f"s{index + 1}"


def workflow_of(drafts: list[StepDraft]) -> list[dict[str, Any]]:
    """The `check_workflow` steps; an execute step's preconditions are its source's checks."""
    steps = []
    for index, d in enumerate(drafts):
        checks = [
            _step_id(i)
            for i, o in enumerate(drafts)
            if o.source == d.source and o.kind is StepKind.CHECK and i < index
        ]
        steps.append(
            {
                "stepId": _step_id(index),
                "kind": d.kind.value,
                "source": d.source,
                "method": d.method,
                "completionCriteria": d.criterion,
                "preconditions": [f"{c} done" for c in checks]
                if d.kind is StepKind.EXECUTE
                else [],
                "verifyInCheck": d.verify_in_check,
            }
        )
    return steps


def evidence_batch(state: _Transcript, drafts: list[StepDraft]) -> list[dict[str, str]]:
    """`done` where the criterion is literally in another line of a bound source, else
    `blocked` with the reason; execute steps are not in the batch (they stay pending)."""
    texts = {k: s.text() for k, s in state.sources.items() if s.error is None}
    batch = []
    for index, d in enumerate(drafts):
        if d.kind is StepKind.EXECUTE:
            continue
        found = find_evidence(d.criterion, texts, (d.source, d.line))
        if found is not None:
            batch.append({"stepId": _step_id(index), "status": "done", "evidence": found})
        else:
            batch.append(
                {
                    "stepId": _step_id(index),
                    "status": "blocked",
                    "evidence": f"离线检查器未在绑定依据中找到完成标准「{d.criterion}」的原文，无法核实",  # noqa: E501
                }
            )
    return batch


def final_answer(state: _Transcript, drafts: list[StepDraft]) -> str:
    batch = evidence_batch(state, drafts)
    done = sum(1 for e in batch if e["status"] == "done")
    unread = [k for k, s in state.sources.items() if s.error is not None or not s.done]
    parts = [
        f"离线检查：读取 {len(state.sources) - len(unread)}/{len(state.sources)} 个依据，"
        f"识别 {len(drafts)} 个步骤；{done} 个检查步骤在依据原文中找到完成标准，"
        f"{len(batch) - done} 个受阻"
    ]
    if not drafts:
        parts.append("依据中没有编号步骤或表格")
    if unread:
        parts.append("未读完：" + ", ".join(unread))
    return json.dumps({"summary": "；".join(parts) + "。", "changed": False}, ensure_ascii=False)


class OfflineWatchChecker:
    """Answers checker requests by the rules above; used where the HTTP gateway would be."""

    offline = True
    model = OFFLINE_CHECKER_MODEL

    def __init__(self, accounting: Accounting | None = None) -> None:
        self.accounting = accounting or Accounting()

    def _result(self, text: str = "", calls: list[ToolCall] | None = None) -> ChatResult:
        stats = CallStats(model=self.model, attempts=[AttemptRecord(number=1, outcome="ok")])
        self.accounting.metrics.record(stats)
        return ChatResult(
            text=text,
            tool_calls=calls or [],
            model=self.model,
            stats=stats,
            finish_reason="tool_calls" if calls else "stop",
        )

    def _call(self, state: _Transcript, index: int, name: str, args: dict[str, Any]) -> ToolCall:
        return ToolCall(
            id=f"offline-{state.rounds + 1}-{index}",
            name=name,
            arguments=json.dumps(args, ensure_ascii=False),
        )

    async def chat(self, request: ChatRequest) -> ChatResult:
        state = transcript(request)
        drafts = drafts_of(state)
        if not request.tools or state.answered:
            return self._result(final_answer(state, drafts))
        reads = [s for s in state.sources.values() if not s.done and s.error is None]
        if reads:
            return self._result(
                calls=[
                    self._call(
                        state,
                        i,
                        READ_NOTE if s.key.startswith("note:") else READ_KNOWLEDGE,
                        {"sourceKey": s.key, "offset": s.next_offset, "limit": PAGE},
                    )
                    for i, s in enumerate(reads)
                ]
            )
        if drafts and not state.registered and not state.workflow_failed:
            return self._result(
                calls=[self._call(state, 0, CHECK_WORKFLOW, {"steps": workflow_of(drafts)})]
            )
        batch = evidence_batch(state, drafts) if state.registered else []
        if batch and not state.batch_sent:
            update = {"update": {"updates": batch}}
            return self._result(calls=[self._call(state, 0, CHECK_WORKFLOW, update)])
        return self._result(final_answer(state, drafts))
