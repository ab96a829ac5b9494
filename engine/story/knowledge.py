"""Save to knowledge (docs/rules/reviews.md): preview, then create or supplement local entries.

用户选择写入知识库 → 先预览并确认，再新建或补充本地条目；已有条目提供打开入口，外部引用保持只读;
the architecture diagram adds 仅写入可写的本地条目. So:
- the entry for a selected object is, in this order: the entry the person named (`entry`);
  a local knowledge source the object already cites; the entry an earlier save created for
  it; else a new entry. Objects aimed at one entry become one new version of it;
- only a local knowledge source (kind knowledge, this scope) is ever written. Naming an
  external source is FORBIDDEN (外部引用保持只读), naming an app's conversation or note as
  well (应用维护来源正文: their text changes only through the app's own editing);
- supplementing appends the sections the entry does not hold yet, as a new version: the
  old version stays readable (nothing is updated in place). An entry whose current text is
  not available here is not touched: appending to text we cannot see would drop it;
- external sources the selection cites are listed as read-only, never written.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, Field

from engine.errors import Forbidden, NotFound
from engine.story.models import SourceKind, make_id
from engine.story.previews import ObjectRef, Write
from engine.story.render import label, section
from engine.story.selection import Selection


class EntryAction(StrEnum):
    CREATE = "create"
    SUPPLEMENT = "supplement"
    UNCHANGED = "unchanged"


class EntryLink(BaseModel):
    """Where to open an existing entry: `knowledgeEntry(scope, id, version)`."""

    scope: str
    source_id: str
    version: str


class PlannedEntry(BaseModel):
    source_id: str
    title: str
    action: EntryAction
    base_version: str | None = None  # the entry's current version, for supplement/unchanged
    version: str | None = None  # the version a confirm writes
    text: str = ""  # the whole text of that version
    added: list[str] = Field(default_factory=list)  # the sections it adds
    objects: list[ObjectRef] = Field(default_factory=list)
    link: EntryLink | None = None  # existing entries only
    warnings: list[str] = Field(default_factory=list)


class ReadOnlyReference(BaseModel):
    owner_id: str
    source_id: str
    kind: SourceKind
    version: str
    locator: str


class SavePlan(BaseModel):
    scope: str
    as_of: datetime | None
    entries: list[PlannedEntry]
    read_only: list[ReadOnlyReference] = Field(default_factory=list)

    def writes(self) -> list[Write]:
        return [
            Write(source_id=e.source_id, version=e.version)
            for e in self.entries
            if e.action is not EntryAction.UNCHANGED and e.version is not None
        ]


def entry_id(scope: str, ref: ObjectRef) -> str:
    """The entry a save creates for an object: the same object always maps to it."""
    return make_id("kn", scope, ref.kind.value, ref.id)


def knowledge_version(text: str) -> str:
    return "k-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _target(sel: Selection, ref: ObjectRef) -> str:
    if ref.entry is not None:
        src = sel.sources.get(ref.entry)
        if src is None:
            raise NotFound("no such entry in this scope", id=ref.entry, scope=sel.scope)
        if src.kind is SourceKind.EXTERNAL:
            raise Forbidden("external references stay read-only", id=src.id)
        if src.kind is not SourceKind.KNOWLEDGE:
            raise Forbidden(
                f"a {src.kind.value} is kept by its app; only local knowledge entries are written",
                id=src.id,
            )
        return src.id
    cited = sorted(
        {
            r.source_id
            for r in sel.references_of(ref.id)
            if (s := sel.sources.get(r.source_id)) is not None and s.kind is SourceKind.KNOWLEDGE
        }
    )
    return cited[0] if cited else entry_id(sel.scope, ref)


def _entry(sel: Selection, source_id: str, refs: list[ObjectRef]) -> PlannedEntry:
    sections = [section(sel, r) for r in refs]
    src = sel.sources.get(source_id)
    if src is None:
        title = label(sel, refs[0])
        text = "\n\n".join([f"# {title}", *sections])
        return PlannedEntry(
            source_id=source_id,
            title=title,
            action=EntryAction.CREATE,
            version=knowledge_version(text),
            text=text,
            added=sections,
            objects=refs,
        )
    link = EntryLink(scope=sel.scope, source_id=src.id, version=src.current_version)
    base = sel.stored(src.id, src.current_version)
    unchanged = PlannedEntry(
        source_id=src.id,
        title=src.title or label(sel, refs[0]),
        action=EntryAction.UNCHANGED,
        base_version=src.current_version,
        objects=refs,
        link=link,
    )
    if base is None or base.text is None:
        return unchanged.model_copy(
            update={
                "warnings": [
                    f"the current version {src.current_version} of {src.id} is not available "
                    "here; open the entry and add the sections there"
                ]
            }
        )
    added = [s for s in sections if s not in base.text]
    if not added:
        return unchanged.model_copy(update={"text": base.text})
    text = "\n\n".join([base.text.rstrip(), *added])
    return unchanged.model_copy(
        update={
            "action": EntryAction.SUPPLEMENT,
            "version": knowledge_version(text),
            "text": text,
            "added": added,
        }
    )


def plan_save(sel: Selection, *, as_of: datetime | None) -> SavePlan:
    """The entries a confirm would create or supplement; raises before anything is shown
    when a named entry is not writable (FORBIDDEN) or missing (NOT_FOUND)."""
    groups: dict[str, list[ObjectRef]] = {}
    for ref in sel.refs:
        groups.setdefault(_target(sel, ref), []).append(ref)
    read_only = sorted(
        (
            ReadOnlyReference(
                owner_id=r.owner_id,
                source_id=r.source_id,
                kind=SourceKind.EXTERNAL,
                version=r.source_version,
                locator=r.locator,
            )
            for r in sel.references
            if (s := sel.sources.get(r.source_id)) is not None and s.kind is SourceKind.EXTERNAL
        ),
        key=lambda r: (r.owner_id, r.source_id, r.version, r.locator),
    )
    return SavePlan(
        scope=sel.scope,
        as_of=as_of,
        entries=[_entry(sel, sid, refs) for sid, refs in groups.items()],
        read_only=read_only,
    )
