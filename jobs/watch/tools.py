"""The checker's tools (→ 识别 → 核验; docs/rules/watches.md): what the model may call during a
check.

The names of docs/rules/watches.md are offered (`engine.watch.budget`); the older bare names
stay callable as aliases of the same tools, and the round budget counts them the same way.

- `heartbeat_read_note_source` / `heartbeat_read_knowledge_source`: paged reads of the
  current version of a story-graph Source, authorised by `engine.watch.access` (scope,
  mounts, tag limits, the single-document cross-project grant) and recorded by
  `engine.watch.run.read_page`; every result carries the `sourceKey`. A knowledge title is
  matched verbatim.
- `heartbeat_read_record_baseline`: the watch's last checkpoints (the baseline record).
- `heartbeat_check_workflow`: `steps` registers the whole step list or rejects it whole;
  `update.updates` records a batch of `{stepId, status, evidence}`, all or nothing (the
  alias `update_workflow` takes the batch as `updates`).
- `heartbeat_record_checkpoint`: validated by `engine.watch.checkpoint.record_checkpoint`,
  saved, and synced later by its own durable task.

There is no command tool: the checker reads sources and records; a model that asks for
`bash` or another command tool is told so (DISABLED) and the round counts as verification.

Each tool returns JSON text. Expected failures become `{"error": ...}` results and mark the
call failed (a failed call makes its round a verification round, budgets; docs/rules/watches.md).
. The step list is saved after every change, so a revision change that revokes it is persisted at
once.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from engine.errors import StorygraphError
from engine.ids import new_id
from engine.llm.messages import ToolSpec
from engine.watch import access
from engine.watch.budget import (
    CHECK_WORKFLOW,
    EVIDENCE_ALIAS,
    READ_BASELINE,
    READ_KNOWLEDGE,
    READ_NOTE,
    RECORD_CHECKPOINT,
    ToolCall,
    canonical,
    records_evidence,
)
from engine.watch.checkpoint import record_checkpoint
from engine.watch.model import SourceKey, SourceKind, Watch
from engine.watch.outcome import check_problems
from engine.watch.paging import PageRead
from engine.watch.run import CheckRun, read_page, record_evidence, register_workflow
from graph.watch.catalogue import SourceCatalogue
from graph.watch.records import WatchRecords
from graph.watch.repository import WatchRepository

DEFAULT_PAGE = 2000
MAX_PAGE = 4000

ToolImpl = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


class ToolFailed(Exception):
    """A tool call that returns an error result to the model."""

    def __init__(self, payload: dict[str, Any]) -> None:
        super().__init__(payload.get("error"))
        self.payload = payload


def _error(exc: StorygraphError) -> ToolFailed:
    details = dict(exc.details)
    if "code" in details:  # a field-specific problem code (checkpoint errors)
        details["problem"] = details.pop("code")
    return ToolFailed({**details, "error": exc.message, "code": exc.code.value})


_PAGING = {
    "offset": {"type": "integer", "minimum": 0, "description": "character offset"},
    "limit": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE},
}
_STEP = {
    "type": "object",
    "properties": {
        "stepId": {"type": "string"},
        "kind": {"enum": ["check", "execute"]},
        "source": {"type": "string", "description": "a sourceKey returned by a read"},
        "method": {"type": "string"},
        "preconditions": {"type": "array", "items": {"type": "string"}},
        "completionCriteria": {"type": "string"},
        "verifyInCheck": {"type": "boolean"},
    },
    "required": ["stepId", "kind", "source", "completionCriteria"],
}
_UPDATE = {
    "type": "object",
    "properties": {
        "stepId": {"type": "string"},
        "status": {"enum": ["done", "blocked", "pending", "deferred"]},
        "evidence": {"type": "string"},
    },
    "required": ["stepId", "status", "evidence"],
}

TOOL_SPECS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name=READ_NOTE,
        description="Read one page of a bound note.",
        parameters={
            "type": "object",
            "properties": {
                "noteId": {"type": "string"},
                "sourceKey": {"type": "string"},
                **_PAGING,
            },
        },
    ),
    ToolSpec(
        name=READ_KNOWLEDGE,
        description="Read one page of a knowledge document by sourceKey, by library and "
        "document id, or by its exact title.",
        parameters={
            "type": "object",
            "properties": {
                "sourceKey": {"type": "string"},
                "libraryId": {"type": "string"},
                "documentId": {"type": "string"},
                "title": {"type": "string"},
                **_PAGING,
            },
        },
    ),
    ToolSpec(
        name=READ_BASELINE,
        description="The watch's last saved checkpoints.",
        parameters={"type": "object", "properties": {}},
    ),
    ToolSpec(
        name=CHECK_WORKFLOW,
        description="Register the whole list of workflow steps (`steps`), and/or record step "
        "status and evidence as one all-or-nothing batch (`update.updates`).",
        parameters={
            "type": "object",
            "properties": {
                "steps": {"type": "array", "items": _STEP},
                "update": {
                    "type": "object",
                    "properties": {"updates": {"type": "array", "items": _UPDATE}},
                    "required": ["updates"],
                },
            },
        },
    ),
    ToolSpec(
        name=RECORD_CHECKPOINT,
        description="Save a check artefact for the record location (synced separately).",
        parameters={
            "type": "object",
            "properties": {
                "watchId": {"type": "string"},
                "location": {"type": "string"},
                "data": {"type": "object"},
                "instructions": {"type": "string"},
            },
            "required": ["watchId", "data", "instructions"],
        },
    ),
)


@dataclass
class CheckSession:
    """One check run's mutable shell state around the engine's `CheckRun` value."""

    scope: str
    watch: Watch
    mounted: frozenset[str]
    run: CheckRun
    repo: WatchRepository
    records: WatchRecords
    catalogue: SourceCatalogue
    clock: Callable[[], datetime]
    checkpoints: list[str] = field(default_factory=list)

    def tools(self) -> dict[str, ToolImpl]:
        return {
            READ_NOTE: self.read_note_source,
            READ_KNOWLEDGE: self.read_knowledge_source,
            READ_BASELINE: self.read_record_baseline,
            CHECK_WORKFLOW: self.check_workflow,
            RECORD_CHECKPOINT: self.record_checkpoint,
        }

    async def _save_steps(self) -> None:
        await self.repo.save_steps(self.scope, self.watch.watch_id, self.run.steps, self.run.run_id)

    # --- reading ------------------------------------------------------------------------

    async def _page(self, target: access.ReadTarget, args: dict[str, Any]) -> dict[str, Any]:
        offset, limit = args.get("offset", 0), args.get("limit", DEFAULT_PAGE)
        if not isinstance(offset, int) or offset < 0:
            raise ToolFailed({"error": "offset must be a non-negative integer", "field": "offset"})
        if not isinstance(limit, int) or limit < 1:
            raise ToolFailed({"error": "limit must be a positive integer", "field": "limit"})
        try:
            access.authorize_read(self.watch, target, self.mounted)
        except StorygraphError as exc:
            raise _error(exc) from exc
        current = await self.catalogue.current(target.project, target.key.item_id)
        if current is None or current.text is None:
            raise ToolFailed(
                {
                    "error": f"{target.key.value} has no readable current version",
                    "sourceKey": target.key.value,
                }
            )
        text = current.text
        page = PageRead(
            key=target.key,
            revision=current.revision,
            offset=min(offset, len(text)),
            text=text[offset : offset + min(limit, MAX_PAGE)],
            total_length=len(text),
        )
        before = self.run.steps
        try:
            self.run, outcome = read_page(
                self.run,
                self.watch,
                target.model_copy(update={"title": current.title}),
                page,
                self.mounted,
                self.clock(),
            )
        except StorygraphError as exc:
            raise _error(exc) from exc
        if outcome.effects and before:
            await self._save_steps()
        return {**outcome.result, "title": current.title, "totalLength": len(text)}

    def _key_arg(self, args: dict[str, Any], kind: SourceKind) -> SourceKey | None:
        raw = args.get("sourceKey")
        if raw is None:
            return None
        try:
            key = SourceKey.parse(str(raw))
        except ValueError as exc:
            raise ToolFailed({"error": str(exc), "field": "sourceKey"}) from exc
        if key.kind is not kind:
            raise ToolFailed({"error": f"{key.value} is not a {kind.value}", "field": "sourceKey"})
        return key

    async def read_note_source(self, args: dict[str, Any]) -> dict[str, Any]:
        key = self._key_arg(args, SourceKind.NOTE)
        if key is None:
            note_id = args.get("noteId")
            if not isinstance(note_id, str) or not note_id:
                raise ToolFailed({"error": "give noteId or sourceKey", "field": "noteId"})
            key = SourceKey(kind=SourceKind.NOTE, item_id=note_id)
        # Local sources use the original session's permission: the watch's own project.
        return await self._page(access.ReadTarget(key=key, project=self.watch.scope), args)

    def _projects(self) -> list[str]:
        """The projects this watch may read library entries of: its own, then its bindings'
        (each one of the creating token's scopes)."""
        own = [self.watch.scope]
        return own + sorted({b.project for b in self.watch.bindings} - set(own))

    def _libraries(self) -> set[str]:
        bound = {b.library_id for b in self.watch.bindings if b.library_id is not None}
        return set(self.mounted) | bound

    async def read_knowledge_source(self, args: dict[str, Any]) -> dict[str, Any]:
        key = self._key_arg(args, SourceKind.KNOWLEDGE_DOCUMENT)
        if key is None and isinstance(args.get("title"), str):
            candidates = await self.catalogue.titled(
                self._libraries(), args["title"], self._projects()
            )
            try:
                target = access.resolve_title(args["title"], candidates)
            except StorygraphError as exc:
                raise _error(exc) from exc
            return await self._page(target, args)
        if key is None:
            library, document = args.get("libraryId"), args.get("documentId")
            if not isinstance(library, str) or not isinstance(document, str):
                raise ToolFailed(
                    {
                        "error": "give sourceKey, libraryId and documentId, or title",
                        "field": "sourceKey",
                    }
                )
            try:
                key = SourceKey(
                    kind=SourceKind.KNOWLEDGE_DOCUMENT, library_id=library, item_id=document
                )
            except ValueError as exc:
                raise ToolFailed({"error": str(exc), "field": "sourceKey"}) from exc
        assert key.library_id is not None
        found = await self.catalogue.document(key.library_id, key.item_id, self._projects())
        if found is None:
            bound = next((b for b in self.watch.bindings if b.key == key), None)
            if bound is None:
                raise ToolFailed(
                    {"error": f"no knowledge document {key.value}", "sourceKey": key.value}
                )
            found = access.ReadTarget(key=key, project=bound.project, title=bound.title)
        return await self._page(found, args)

    async def read_record_baseline(self, args: dict[str, Any]) -> dict[str, Any]:
        saved = await self.records.checkpoints(self.scope, self.watch.watch_id, limit=3)
        return {
            "checkpoints": [
                {
                    "checkpointId": cp.checkpoint_id,
                    "runId": cp.run_id,
                    "location": cp.location,
                    "data": cp.data,
                    "recordedAt": cp.recorded_at.isoformat(),
                    "syncStatus": cp.sync_status.value,
                    "referenceOnly": True,
                }
                for cp, _ in saved
            ]
        }

    # --- steps and evidence -------------------------------------------------------------

    async def check_workflow(self, args: dict[str, Any]) -> dict[str, Any]:
        steps, update = args.get("steps"), args.get("update")
        if steps is None and update is None:
            raise ToolFailed({"error": "give steps, update.updates or both", "field": "steps"})
        result: dict[str, Any] = {}
        if steps is not None:
            if not isinstance(steps, list):
                raise ToolFailed({"error": "steps must be a list", "field": "steps"})
            try:
                self.run = register_workflow(self.run, self.watch, steps)
            except StorygraphError as exc:
                raise _error(exc) from exc
            await self._save_steps()
            result["registered"] = [s.step_id for s in self.run.steps]
        if update is not None:
            updates = update.get("updates") if isinstance(update, dict) else None
            if not isinstance(updates, list):
                raise ToolFailed({"error": "update.updates must be a list", "field": "update"})
            try:
                self.run = record_evidence(self.run, self.watch, updates, self.clock())
            except StorygraphError as exc:
                raise _error(exc) from exc
            await self._save_steps()
            result["updated"] = [u.get("stepId") or u.get("step_id") for u in updates]
        return result

    # --- checkpoints --------------------------------------------------------------------

    async def record_checkpoint(self, args: dict[str, Any]) -> dict[str, Any]:
        complete = not check_problems(
            self.run.steps, self.run.run_id, self.watch.bound_keys(), self.run.reading
        )
        try:
            checkpoint = record_checkpoint(
                args,
                watches={self.watch.watch_id: self.watch},
                verification_complete=complete,
                run_id=self.run.run_id,
                checkpoint_id=new_id("cp"),
                now=self.clock(),
            )
        except StorygraphError as exc:
            raise _error(exc) from exc
        saved = await self.records.save_checkpoint(self.scope, checkpoint)
        self.checkpoints.append(saved.checkpoint_id)
        return {"checkpointId": saved.checkpoint_id, "syncStatus": saved.sync_status.value}


COMMAND_TOOLS = frozenset({"bash", "shell", "run_command", "heartbeat_run_command", "exec"})
NO_COMMANDS = (
    "this checker runs no commands: it reads the bound sources and records steps, evidence "
    "and checkpoints; anything a command would do belongs to the partner session's execution"
)


def _arguments(name: str, raw: str) -> dict[str, Any]:
    """The call's arguments, an alias's reshaped to its tool's (`update_workflow`'s
    `updates` become `update.updates`)."""
    args = json.loads(raw) if raw.strip() else {}
    if not isinstance(args, dict):
        raise ValueError("arguments must be a JSON object")
    if name == EVIDENCE_ALIAS:
        return {"update": {"updates": args.get("updates")}}
    return args


async def call_tool(tools: dict[str, ToolImpl], name: str, raw: str) -> tuple[str, ToolCall]:
    """Run one tool call (a tool's name or its older alias): the JSON result text and the call
    as the round budget counts it."""
    impl = tools.get(canonical(name))
    if impl is None:
        payload: dict[str, Any] = {"error": f"unknown tool {name}", "tools": sorted(tools)}
        if name in COMMAND_TOOLS:
            payload = {"error": NO_COMMANDS, "code": "DISABLED", "tools": sorted(tools)}
        return json.dumps(payload, ensure_ascii=False), ToolCall(name=name, succeeded=False)
    try:
        args = _arguments(name, raw)
    except ValueError as exc:
        failed = json.dumps({"error": f"bad arguments: {exc}"})
        return failed, ToolCall(name=name, succeeded=False)
    call = ToolCall(name=name, succeeded=True, evidence=records_evidence(name, args))
    try:
        result = await impl(args)
    except ToolFailed as failure:
        text = json.dumps(failure.payload, ensure_ascii=False, default=str)
        return text, call.model_copy(update={"succeeded": False})
    return json.dumps(result, ensure_ascii=False, default=str), call
