"""Plain-text renderings of selected objects, for knowledge entries (docs/rules/reviews.md) and the
opening context of a continued discussion
(docs/rules/story-graph.md#views-knowledge-and-discussion).

A rendering names the object, its version and confirmation state (整理运行状态与内容确认状态
分开: a run's success is not a person's confirmation, so saved text says which it is), and
cites its references by source, version and locator — it never copies source text
(来源引用…定位，不复制正文). It carries no clock time, so the same selection always renders
the same text and a preview can be recomputed exactly on confirm.
"""

from __future__ import annotations

from typing import Any

from engine.story.models import ObjectKind, Reference
from engine.story.previews import ObjectRef
from engine.story.selection import Selection


def label(sel: Selection, ref: ObjectRef) -> str:
    if ref.kind is ObjectKind.ENTITY:
        return sel.entities[ref.id].name
    if ref.kind is ObjectKind.EVENT:
        return sel.events[ref.id].title
    if ref.kind is ObjectKind.RELATION:
        r = sel.relations[ref.id]
        return f"{sel.names.get(r.from_id, r.from_id)} {r.type} {sel.names.get(r.to_id, r.to_id)}"
    s = sel.summaries[ref.id]
    return f"阶段总结 {s.interval_start.date().isoformat()}–{s.interval_end.date().isoformat()}"


def version_of(sel: Selection, ref: ObjectRef) -> int | None:
    versioned: dict[ObjectKind, dict[str, Any]] = {
        ObjectKind.ENTITY: sel.entities,
        ObjectKind.RELATION: sel.relations,
        ObjectKind.EVENT: sel.events,
    }
    found = versioned.get(ref.kind)
    return int(found[ref.id].seq) if found is not None else None


def _citations(refs: list[Reference]) -> list[str]:
    if not refs:
        return []
    return ["来源：", *(f"- {r.source_id}@{r.source_version} {r.locator}" for r in refs)]


def section(sel: Selection, ref: ObjectRef) -> str:
    """One object as a self-contained section; its first line identifies object and version."""
    seq = version_of(sel, ref)
    head = f"[{ref.kind.value}:{ref.id}" + (f"@{seq}]" if seq is not None else "]")
    lines = [f"## {label(sel, ref)}", head]
    if ref.kind is ObjectKind.ENTITY:
        e = sel.entities[ref.id]
        lines.append(f"类型：{e.kind or '—'} · 状态：{e.status.value}")
        confirmed = sorted(set(e.user_fields) | set(e.confirmed_fields))
        lines.append("人工确认或修改：" + ("、".join(confirmed) if confirmed else "无（自动整理）"))
        if e.description:
            lines.append(e.description)
    elif ref.kind is ObjectKind.RELATION:
        r = sel.relations[ref.id]
        state = r.confirmation.value + ("，已移除" if r.removed else "")
        lines.append(f"关系：{r.type} · 确认状态：{state}")
        if r.reason:
            lines.append(f"理由：{r.reason}")
    elif ref.kind is ObjectKind.EVENT:
        ev = sel.events[ref.id]
        lines.append(f"时间：{ev.at.isoformat()}")
        if ev.description:
            lines.append(ev.description)
    else:
        lines.append(sel.summaries[ref.id].text)
    lines.extend(_citations(sel.references_of(ref.id)))
    return "\n".join(lines)
