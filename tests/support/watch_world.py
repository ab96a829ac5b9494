"""Builders for watch tests over real Neo4j: seeded sources, a watch, scripted model turns.
(Engine unit tests use tests/support/watch.py.)"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from neo4j import AsyncDriver

from engine.clock import utcnow
from engine.story.inputs import SourceInput
from engine.story.models import SourceKind as StoryKind
from engine.watch.model import SourceBinding, SourceKind, Watch
from graph.story.repository import StoryRepository
from graph.watch.catalogue import LibraryEntry, SourceCatalogue
from graph.watch.records import StoredObservation, WatchRecords
from graph.watch.repository import WatchRepository, WatchState
from jobs.tasks.watch import run_watch_check
from tests.support.scripted_model import ScriptedReply

NOTE_TEXT = "每周一检查发布页。"
DOC_TEXT = "1. 核对官网版本号必须为 v2.3（检查时核验）。\n2. 生成发布草稿。"
NOW = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)


@dataclass
class World:
    driver: AsyncDriver
    database: str
    scope: str
    library: str
    note_key: str
    doc_key: str

    @property
    def story(self) -> StoryRepository:
        return StoryRepository(self.driver, self.database)

    @property
    def repo(self) -> WatchRepository:
        return WatchRepository(self.driver, self.database)

    @property
    def records(self) -> WatchRecords:
        return WatchRecords(self.driver, self.database)

    @property
    def catalogue(self) -> SourceCatalogue:
        return SourceCatalogue(self.driver, self.database)

    async def put_source(
        self,
        source_id: str,
        text: str,
        *,
        kind: StoryKind = StoryKind.NOTE,
        version: str = "r1",
        title: str = "",
        scope: str | None = None,
    ) -> None:
        await self.story.upsert_source(
            SourceInput(
                scope=scope or self.scope,
                id=source_id,
                kind=kind,
                title=title,
                version=version,
                text=text,
            ),
            now=utcnow(),
        )

    def note(self, note_id: str = "n1", binding_id: str = "b-note") -> SourceBinding:
        return SourceBinding(
            binding_id=binding_id,
            kind=SourceKind.NOTE,
            project=self.scope,
            note_id=note_id,
            title="每周检查笔记",
            bound_at=NOW,
        )

    def document(
        self,
        document_id: str = "d1",
        *,
        library: str | None = None,
        project: str | None = None,
        binding_id: str = "b-doc",
        title: str = "发布流程 v2（内部）",
    ) -> SourceBinding:
        return SourceBinding(
            binding_id=binding_id,
            kind=SourceKind.KNOWLEDGE_DOCUMENT,
            project=project or self.scope,
            library_id=library or self.library,
            document_id=document_id,
            title=title,
            bound_at=NOW,
        )

    async def watch(
        self,
        *bindings: SourceBinding,
        execution_enabled: bool = True,
        record_location: str | None = None,
        tag_limits: frozenset[str] = frozenset(),
        mounted: frozenset[str] | None = None,
    ) -> WatchState:
        watch = Watch(
            watch_id=f"w-{uuid.uuid4().hex[:10]}",
            scope=self.scope,
            session_id="session-1",
            title="发布检查",
            bindings=bindings or (self.note(), self.document()),
            execution_enabled=execution_enabled,
            record_location=record_location,
            tag_limits=tag_limits,
            created_at=NOW,
        )
        return await self.repo.create(
            watch, mounted if mounted is not None else frozenset({self.library})
        )

    async def check(
        self, ctx: dict[str, Any], state: WatchState, run_id: str | None = None
    ) -> dict[str, Any]:
        return await run_watch_check(
            ctx, scope=self.scope, watch_id=state.watch.watch_id, run_id=run_id or uuid.uuid4().hex
        )

    async def observations(self, state: WatchState) -> list[StoredObservation]:
        return await self.records.observations(self.scope, state.watch.watch_id)


async def seed_world(driver: AsyncDriver, database: str, scope: str) -> World:
    library = f"lib-{scope}"
    world = World(driver, database, scope, library, "note:n1", f"doc:{library}/d1")
    await world.put_source("n1", NOTE_TEXT, title="每周检查笔记")
    await world.put_source("d1", DOC_TEXT, kind=StoryKind.KNOWLEDGE, title="发布流程 v2（内部）")
    await world.catalogue.place(LibraryEntry(library, "d1", scope, frozenset({"发布"})))
    return world


# --- scripted model turns -----------------------------------------------------------------

_counter = iter(range(1, 1_000_000))


def calls(*items: tuple[str, dict[str, Any]]) -> ScriptedReply:
    """One model turn calling the given tools (in order)."""
    return ScriptedReply(
        tool_calls=[
            {"id": f"call_{next(_counter)}", "name": name, "arguments": json.dumps(args)}
            for name, args in items
        ]
    )


def answer(
    summary: str = "已核对",
    checks: list[dict[str, str]] | None = None,
    changed: bool = False,
    grounded_in: tuple[str, ...] = (),
) -> ScriptedReply:
    """A check's final answer; `grounded_in`: what the request must carry for it to be
    given (tests/support/scripted_model.py)."""
    body: dict[str, Any] = {"summary": summary, "changed": changed}
    if checks is not None:
        body["workflowChecks"] = checks
    return ScriptedReply(text=json.dumps(body, ensure_ascii=False), grounded_in=grounded_in)


def workflow(world: World) -> list[dict[str, Any]]:
    return [
        {
            "stepId": "s1",
            "kind": "check",
            "source": world.doc_key,
            "method": "打开官网查看版本号",
            "completionCriteria": "版本号为 v2.3",
            "verifyInCheck": True,
        },
        {
            "stepId": "s2",
            "kind": "execute",
            "source": world.doc_key,
            "preconditions": ["s1 done"],
            "completionCriteria": "草稿已生成",
        },
    ]


def read_all(world: World) -> ScriptedReply:
    return calls(
        ("read_note_source", {"noteId": "n1"}),
        ("read_knowledge_source", {"sourceKey": world.doc_key}),
    )


def verified(step_id: str = "s1", evidence: str = "官网显示 v2.3") -> dict[str, str]:
    return {"stepId": step_id, "status": "done", "evidence": evidence}


def tool_messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in body["messages"] if m["role"] == "tool"]
