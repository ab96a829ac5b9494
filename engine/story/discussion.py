"""Continue the discussion: the exact context a new conversation starts from
(docs/rules/story-graph.md#views-knowledge-and-discussion).

用户选择继续讨论 → 预览并确认上下文后进入会话；新内容在后续整理时纳入，不立即作为已确认知识.
The preview shows the selected objects in the versions believed at the chosen moment and
the cited source text of exactly the cited versions, with a warning wherever a version is
not recoverable (docs/rules/story-graph.md#time: today's text never stands in
for it). Confirming creates one
conversation Source in the scope whose first version is that context — and nothing else:
what is said there reaches the graph only when a later review reads the conversation.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from engine.story.models import ObjectKind, Source, SourceKind, SourceVersion, make_id
from engine.story.previews import Write
from engine.story.render import label, section, version_of
from engine.story.selection import Selection
from engine.story.sources import excerpt
from engine.story.views import Excerpt

CONTEXT_VERSION = "v1"


class ContextObject(BaseModel):
    kind: ObjectKind
    id: str
    seq: int | None  # the version shown (None for summaries, which are recorded once)
    label: str
    text: str


class ContextExcerpt(BaseModel):
    owner_id: str
    excerpt: Excerpt


class DiscussionContext(BaseModel):
    scope: str
    as_of: datetime | None
    title: str
    objects: list[ContextObject]
    excerpts: list[ContextExcerpt]
    warnings: list[str] = Field(default_factory=list)
    text: str  # the conversation's opening context, as it will be stored


def build_context(
    sel: Selection, *, as_of: datetime | None, title: str, locale: str = "zh"
) -> DiscussionContext:
    objects = [
        ContextObject(
            kind=r.kind,
            id=r.id,
            seq=version_of(sel, r),
            label=label(sel, r),
            text=section(sel, r),
        )
        for r in sel.refs
    ]
    excerpts = [
        ContextExcerpt(
            owner_id=ref.id,
            excerpt=excerpt(
                cited.source_id,
                cited.source_version,
                cited.locator,
                sel.stored(cited.source_id, cited.source_version),
                locale,
            ),
        )
        for ref in sel.refs
        for cited in sel.references_of(ref.id)
    ]
    warnings = [c.excerpt.warning for c in excerpts if c.excerpt.warning]
    heading = title or f"继续讨论：{objects[0].label}"
    quoted = [
        f"> [{c.excerpt.source_id}@{c.excerpt.version} {c.excerpt.locator}] "
        + ((c.excerpt.text or "") if c.excerpt.available else f"（不可用：{c.excerpt.warning}）")
        for c in excerpts
    ]
    text = "\n\n".join(
        [f"# {heading}", *(o.text for o in objects), *(["引用原文："] + quoted if quoted else [])]
    )
    return DiscussionContext(
        scope=sel.scope,
        as_of=as_of,
        title=heading,
        objects=objects,
        excerpts=excerpts,
        warnings=warnings,
        text=text,
    )


def conversation_id(scope: str, fingerprint: str) -> str:
    """One preview confirmed twice is one conversation (a retried confirm is a repeat)."""
    return make_id("conv", scope, fingerprint)


def conversation(
    ctx: DiscussionContext, fingerprint: str, now: datetime
) -> tuple[Source, SourceVersion, Write]:
    source_id = conversation_id(ctx.scope, fingerprint)
    source = Source(
        id=source_id,
        scope=ctx.scope,
        kind=SourceKind.CONVERSATION,
        title=ctx.title,
        current_version=CONTEXT_VERSION,
    )
    first = SourceVersion(
        scope=ctx.scope,
        source_id=source_id,
        version=CONTEXT_VERSION,
        text=ctx.text,
        recorded_at=now,
    )
    return source, first, Write(source_id=source_id, version=CONTEXT_VERSION)
