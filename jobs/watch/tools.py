"""The checker's tools (seed 000 读取 → 识别 → 核验): what the model may call during a check.

- `read_note_source` / `read_knowledge_source`: paged reads of the current version of a
  story-graph Source, authorised by `engine.watch.access` (scope, mounts, tag limits, the
  single-document cross-project grant) and recorded by `engine.watch.run.read_page`; every
  result carries the `sourceKey`. A knowledge title is matched verbatim.
- `read_record_baseline`: the watch's last checkpoints (the baseline record).
- `check_workflow`: registers the whole step list or rejects it whole.
- `update_workflow`: `updates` — a batch of `{stepId, status, evidence}`, all or nothing.
- `record_checkpoint`: validated by `engine.watch.checkpoint.record_checkpoint`, saved, and
  synced later by its own durable task.

Each tool returns JSON text. Expected failures become `{"error": ...}` results and mark the
call failed (a failed call makes its round a verification round, seed 000 budgets). The step
list is saved after every change, so a revision change that revokes it is persisted at once.
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
        name="read_note_source",
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
        name="read_knowledge_source",
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
        name="read_record_baseline",
        description="The watch's last saved checkpoints.",
        parameters={"type": "object", "properties": {}},
    ),
    ToolSpec(
        name="check_workflow",
        description="Register the whole list of workflow steps.",
        parameters={
            "type": "object",
            "properties": {"steps": {"type": "array", "items": _STEP}},
            "required": ["steps"],
        },
    ),
    ToolSpec(
        name="update_workflow",
        description="Record step status and evidence as one all-or-nothing batch.",
        parameters={
            "type": "object",
            "properties": {"updates": {"type": "array", "items": _UPDATE}},
            "required": ["updates"],
        },
    ),
    ToolSpec(
        name="record_checkpoint",
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
            "read_note_source": self.read_note_source,
            "read_knowledge_source": self.read_knowledge_source,
            "read_record_baseline": self.read_record_baseline,
            "check_workflow": self.check_workflow,
            "update_workflow": self.update_workflow,
            "record_checkpoint": self.record_checkpoint,
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
        steps = args.get("steps")
        if not isinstance(steps, list):
            raise ToolFailed({"error": "steps must be a list", "field": "steps"})
        try:
            self.run = register_workflow(self.run, self.watch, steps)
        except StorygraphError as exc:
            raise _error(exc) from exc
        await self._save_steps()
        return {"registered": [s.step_id for s in self.run.steps]}

    async def update_workflow(self, args: dict[str, Any]) -> dict[str, Any]:
        updates = args.get("updates")
        if not isinstance(updates, list):
            raise ToolFailed({"error": "updates must be a list", "field": "updates"})
        try:
            self.run = record_evidence(self.run, self.watch, updates, self.clock())
        except StorygraphError as exc:
            raise _error(exc) from exc
        await self._save_steps()
        return {"updated": [u.get("stepId") or u.get("step_id") for u in updates]}

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


async def call_tool(tools: dict[str, ToolImpl], name: str, raw: str) -> tuple[str, bool]:
    """Run one tool call; the JSON result text and whether it succeeded."""
    impl = tools.get(name)
    if impl is None:
        return json.dumps({"error": f"unknown tool {name}"}), False
    try:
        args = json.loads(raw) if raw.strip() else {}
        if not isinstance(args, dict):
            raise ValueError("arguments must be a JSON object")
    except ValueError as exc:
        return json.dumps({"error": f"bad arguments: {exc}"}), False
    try:
        result = await impl(args)
    except ToolFailed as failed:
        return json.dumps(failed.payload, ensure_ascii=False, default=str), False
    return json.dumps(result, ensure_ascii=False, default=str), True
