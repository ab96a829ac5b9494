"""Sources and references (应用维护来源正文; 来源引用…定位，不复制正文; docs/rules/reviews.md).

The app owns a source's text and pushes versions (upsertSource). A version is immutable:
the same version with other text is a CONFLICT. A version the app knows but cannot supply
is recorded without text and reads as unavailable with a warning — today's text is never
shown in place of an old version (来源旧版不可恢复时提示，不以当前原文冒充旧版).

An app that deleted or redacted a message withdraws that version (withdrawSource): its text
leaves the store, references to it read as unavailable with a warning (never another
version's text in its place), and the objects citing it stay. Withdrawing again is a no-op;
a withdrawn version cannot be pushed again with text (the app pushes a new version).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime

from engine.errors import Conflict, InvalidInput, NotFound
from engine.story.inputs import SourceInput
from engine.story.models import Actor, Source, SourceVersion
from engine.story.views import Excerpt

_RANGE = re.compile(r"^(chars|lines):(\d+)-(\d+)$")
MAX_EXCERPT = 2000
MAX_REASON = 500

# docs/rules/story-graph.md，不以当前原文冒充旧版 (LOCALE: zh by default, en).
WARNINGS: dict[str, dict[str, str]] = {
    "zh": {
        "unrecoverable": "来源 {source_id} 的版本 {version} 已不可恢复；不以当前原文冒充旧版",
        "withdrawn": "来源 {source_id} 的版本 {version} 已被应用撤回，原文不可用；"
        "不以其他版本的原文代替",
    },
    "en": {
        "unrecoverable": "version {version} of source {source_id} is not recoverable; "
        "the current text is not shown in its place",
        "withdrawn": "version {version} of source {source_id} was withdrawn by the app and is "
        "unavailable; no other version's text is shown in its place",
    },
}


def warning(kind: str, source_id: str, version: str, locale: str = "zh") -> str:
    """The user-facing sentence for a version that cannot be shown (unrecoverable, withdrawn)."""
    template = WARNINGS.get(locale, WARNINGS["zh"])[kind]
    return template.format(source_id=source_id, version=version)


def decide_source_upsert(
    inp: SourceInput,
    existing: Source | None,
    versions: Mapping[str, SourceVersion],
    now: datetime,
) -> tuple[Source, list[SourceVersion]]:
    """The source record to keep and the version records to add (none when all are known)."""
    if existing is not None and existing.kind is not inp.kind:
        raise Conflict("a source cannot change its kind", id=inp.id, kind=existing.kind)
    supplied = [(inp.version, inp.text), *((p.version, p.text) for p in inp.previous)]
    new: list[SourceVersion] = []
    for version, text in supplied:
        have = versions.get(version)
        if have is None:
            new.append(
                SourceVersion(
                    scope=inp.scope, source_id=inp.id, version=version, text=text, recorded_at=now
                )
            )
        elif text is not None and have.withdrawn_at is not None:
            raise Conflict(
                "this source version was withdrawn; push a new version instead",
                id=inp.id,
                version=version,
            )
        elif text is not None and have.text != text:
            raise Conflict(
                "a source version is immutable; push a new version instead",
                id=inp.id,
                version=version,
            )
    current = inp.version
    if existing is not None and inp.version not in {v.version for v in new}:
        current = existing.current_version if inp.version in versions else inp.version
    source = Source(
        id=inp.id, scope=inp.scope, kind=inp.kind, title=inp.title, current_version=current
    )
    return source, new


def decide_withdrawal(
    stored: SourceVersion | None,
    *,
    source_id: str,
    version: str,
    reason: str,
    now: datetime,
    by: Actor,
) -> SourceVersion | None:
    """The withdrawn version to write (its text gone), or None when it already was withdrawn.

    An unknown version is NOT_FOUND: the app can only withdraw what it pushed."""
    if len(reason) > MAX_REASON:
        raise InvalidInput(f"a withdrawal reason has at most {MAX_REASON} characters")
    if stored is None:
        raise NotFound("no such source version in this scope", id=source_id, version=version)
    if stored.withdrawn_at is not None:
        return None
    return stored.model_copy(
        update={
            "text": None,
            "withdrawn_at": now,
            "withdrawn_by": by.label(),
            "withdrawal_reason": reason,
        }
    )


def cut(text: str, locator: str) -> str:
    """The located part of a text: `chars:a-b` (0-based, end exclusive) or `lines:a-b`
    (1-based, inclusive); other locators (e.g. `msg:17`) address the whole version."""
    match = _RANGE.match(locator)
    if match is None:
        return text[:MAX_EXCERPT]
    unit, start, end = match.group(1), int(match.group(2)), int(match.group(3))
    if unit == "chars":
        return text[start:end][:MAX_EXCERPT]
    lines = text.splitlines()
    return "\n".join(lines[max(start - 1, 0) : end])[:MAX_EXCERPT]


def excerpt(
    source_id: str,
    version: str,
    locator: str,
    stored: SourceVersion | None,
    locale: str = "zh",
) -> Excerpt:
    if stored is not None and stored.withdrawn_at is not None:
        return Excerpt(
            source_id=source_id,
            version=version,
            locator=locator,
            available=False,
            withdrawn_at=stored.withdrawn_at,
            warning=warning("withdrawn", source_id, version, locale),
        )
    if stored is None or stored.text is None:
        return Excerpt(
            source_id=source_id,
            version=version,
            locator=locator,
            available=False,
            warning=warning("unrecoverable", source_id, version, locale),
        )
    return Excerpt(
        source_id=source_id,
        version=version,
        locator=locator,
        available=True,
        text=cut(stored.text, locator),
    )
