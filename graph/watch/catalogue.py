"""Where the checker's sources live: story-graph Sources and the knowledge-library catalogue.

A note is a story-graph `Source` of kind note in the watch's project. A knowledge document
is a `Source` of kind knowledge in its own project, placed in a library by a `LibraryEntry`
(library id, document id, project, tags). The entry gives a read what the access rules need:
the document's project and tags (docs/rules/watches.md、标签限制"). Titles are
matched exactly (`library_titled`), never trimmed or fuzzily recalled.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from neo4j import AsyncManagedTransaction

from engine.watch.access import ReadTarget
from engine.watch.model import SourceKey, SourceKind
from graph.base import Store, rows
from graph.watch import codec


@dataclass(frozen=True)
class LibraryEntry:
    library_id: str
    document_id: str
    project: str
    tags: frozenset[str] = frozenset()


@dataclass(frozen=True)
class CurrentText:
    """The current version of a source: `revision` is the story graph's version name."""

    source_id: str
    project: str
    title: str
    revision: str
    text: str | None


def _entry(props: dict[str, Any]) -> LibraryEntry:
    p = codec.plain(props)
    return LibraryEntry(
        library_id=p["library_id"],
        document_id=p["document_id"],
        project=p["scope"],
        tags=frozenset(p.get("tags") or ()),
    )


def _doc_target(entry: LibraryEntry, title: str | None) -> ReadTarget:
    key = SourceKey(
        kind=SourceKind.KNOWLEDGE_DOCUMENT, library_id=entry.library_id, item_id=entry.document_id
    )
    return ReadTarget(key=key, project=entry.project, title=title or "", tags=entry.tags)


class SourceCatalogue(Store):
    async def place(self, entry: LibraryEntry) -> None:
        """Put a knowledge document into a library with its tags (idempotent)."""
        props = {
            "scope": entry.project,
            "library_id": entry.library_id,
            "document_id": entry.document_id,
            "tags": sorted(entry.tags),
        }

        async def work(tx: AsyncManagedTransaction) -> None:
            await rows(tx, "watch/put_library_entry", entry=props)

        await self.write(work)

    async def document(
        self, library_id: str, document_id: str, scopes: Sequence[str]
    ) -> ReadTarget | None:
        """The document's entry in the first of `scopes` (in the order given) that has one."""

        async def work(tx: AsyncManagedTransaction) -> ReadTarget | None:
            found = await rows(
                tx,
                "watch/library_entry",
                library_id=library_id,
                document_id=document_id,
                scopes=list(scopes),
            )
            by_scope = {r["e"]["scope"]: r for r in found}
            first = next((by_scope[s] for s in scopes if s in by_scope), None)
            return _doc_target(_entry(first["e"]), first["title"]) if first else None

        result: ReadTarget | None = await self.read(work)
        return result

    async def titled(
        self, library_ids: Iterable[str], title: str, scopes: Sequence[str]
    ) -> list[ReadTarget]:
        async def work(tx: AsyncManagedTransaction) -> list[ReadTarget]:
            found = await rows(
                tx,
                "watch/library_titled",
                library_ids=sorted(set(library_ids)),
                title=title,
                scopes=list(scopes),
            )
            return [_doc_target(_entry(r["e"]), r["title"]) for r in found]

        result: list[ReadTarget] = await self.read(work)
        return result

    async def current(self, project: str, source_id: str) -> CurrentText | None:
        async def work(tx: AsyncManagedTransaction) -> CurrentText | None:
            found = await rows(tx, "watch/source_current", scope=project, id=source_id)
            if not found:
                return None
            s = codec.plain(found[0]["s"])
            v = codec.plain(found[0]["v"]) if found[0]["v"] is not None else {}
            return CurrentText(
                source_id=source_id,
                project=project,
                title=s.get("title") or "",
                revision=s["current_version"],
                text=v.get("text"),
            )

        result: CurrentText | None = await self.read(work)
        return result
