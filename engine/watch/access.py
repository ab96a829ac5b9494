"""What a checker read may touch (and 续跑与版本; docs/rules/watches.md).

- Reads stay inside the watch's scope, the session's mounted libraries and the watch's tag
  limits ("读取仍受当前会话挂载、标签限制").
- A binding to one document gives read-only access across projects to that document alone;
  a whole-library binding gives none; ordinary knowledge reads keep project limits.
- Local sources (notes) use the original session's read permission: bound notes of the
  watch's own project.
- Stopping, deleting or changing a binding revokes the document grant; the host is told by
  a `RevokeGrant` effect. Grants are derived from the current watch every time, so a
  recovery record can never bring a revoked grant back ("失效或撤销的授权不会被恢复记录绕过").
- Knowledge titles are matched verbatim: no trimming, no case folding, no dropped words.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from enum import StrEnum

from engine.errors import Conflict, Forbidden, InvalidInput
from engine.watch.model import (
    Frozen,
    SourceBinding,
    SourceKey,
    SourceKind,
    Watch,
    WatchStatus,
)


class ReadTarget(Frozen):
    """What the host knows about the source a read asks for (loaded before the decision)."""

    key: SourceKey
    project: str
    title: str = ""
    tags: frozenset[str] = frozenset()
    revision: str = ""


class GrantBasis(StrEnum):
    DOCUMENT_BINDING = "document_binding"  # cross-project read-only, this document alone
    NOTE_BINDING = "note_binding"
    LIBRARY_BINDING = "library_binding"  # project-limited
    PROJECT = "project"  # ordinary knowledge read inside the watch's project


class ReadGrant(Frozen):
    """Permission for one read; always read-only."""

    watch_id: str
    key: SourceKey
    basis: GrantBasis
    binding_id: str | None = None
    cross_project: bool = False
    read_only: bool = True


class RevokeGrant(Frozen):
    """Effect: the host withdraws its cross-project read access for this document."""

    watch_id: str
    binding_id: str
    key: SourceKey
    reason: str
    revoked_at: datetime


# --- titles -------------------------------------------------------------------------------


def match_title(title: str, targets: Iterable[ReadTarget]) -> tuple[ReadTarget, ...]:
    """Targets whose title equals `title` exactly (docs/rules/watches.md)."""
    if not title:
        raise InvalidInput("a knowledge title is required", field="title")
    return tuple(t for t in targets if t.title == title)


def resolve_title(title: str, targets: Iterable[ReadTarget]) -> ReadTarget:
    """The one target with exactly this title; no fuzzy fallback when none or several match."""
    found = match_title(title, targets)
    if not found:
        raise InvalidInput(f"no knowledge document titled {title!r}", field="title", title=title)
    if len(found) > 1:
        raise Conflict(
            f"{len(found)} documents are titled {title!r}; read one by its sourceKey",
            field="title",
            candidates=[t.key.value for t in found],
        )
    return found[0]


# --- grants -------------------------------------------------------------------------------


def document_grants(watch: Watch) -> tuple[ReadGrant, ...]:
    """The cross-project document grants the current watch holds (none unless enabled)."""
    if not watch.is_active:
        return ()
    return tuple(
        ReadGrant(
            watch_id=watch.watch_id,
            key=key,
            basis=GrantBasis.DOCUMENT_BINDING,
            binding_id=b.binding_id,
            cross_project=b.project != watch.scope,
        )
        for b in watch.bindings
        if b.grants_cross_project_read and (key := b.key) is not None
    )


def _tags_allowed(watch: Watch, target: ReadTarget) -> bool:
    return not watch.tag_limits or bool(watch.tag_limits & target.tags)


def authorize_read(
    watch: Watch, target: ReadTarget, mounted_libraries: frozenset[str]
) -> ReadGrant:
    """Decide one read; raises Forbidden with a `reason` detail when it is not allowed."""
    if not watch.is_active:
        raise Forbidden(
            f"watch {watch.watch_id} is {watch.status}; its reads are revoked",
            reason="watch_not_active",
        )
    key = target.key
    if key.kind is SourceKind.NOTE:
        for b in watch.bindings:
            if b.kind is SourceKind.NOTE and b.key == key and b.project == watch.scope:
                if target.project != watch.scope:
                    break
                return ReadGrant(
                    watch_id=watch.watch_id,
                    key=key,
                    basis=GrantBasis.NOTE_BINDING,
                    binding_id=b.binding_id,
                )
        raise Forbidden(f"note {key.value} is not bound to this watch", reason="note_not_bound")

    if not _tags_allowed(watch, target):
        raise Forbidden(
            f"{key.value} carries none of the watch's tags",
            reason="tag_limit",
            allowed_tags=sorted(watch.tag_limits),
        )
    for grant in document_grants(watch):
        if grant.key == key:
            return grant
    if target.project != watch.scope:
        raise Forbidden(
            f"{key.value} belongs to another project; only a single-document binding reads across "
            "projects",
            reason="other_project",
        )
    if key.library_id not in mounted_libraries:
        raise Forbidden(
            f"library {key.library_id} is not mounted in this session", reason="not_mounted"
        )
    library_binding = next(
        (
            b
            for b in watch.bindings
            if b.kind is SourceKind.KNOWLEDGE_LIBRARY and b.library_id == key.library_id
        ),
        None,
    )
    if library_binding is not None:
        return ReadGrant(
            watch_id=watch.watch_id,
            key=key,
            basis=GrantBasis.LIBRARY_BINDING,
            binding_id=library_binding.binding_id,
        )
    return ReadGrant(watch_id=watch.watch_id, key=key, basis=GrantBasis.PROJECT)


def recover_grants(watch: Watch, recorded: Iterable[ReadGrant]) -> tuple[ReadGrant, ...]:
    """Grants from a recovery record that the current watch still holds; nothing else.

    A grant the watch no longer derives (stopped, deleted, binding changed) is dropped, so a
    stale record never restores a revoked grant.
    """
    current = set(document_grants(watch))
    return tuple(g for g in recorded if g in current)


# --- changes that revoke ------------------------------------------------------------------


def _revocations(
    before: Watch, after_grants: Sequence[ReadGrant], reason: str, now: datetime
) -> tuple[RevokeGrant, ...]:
    kept = set(after_grants)
    return tuple(
        RevokeGrant(
            watch_id=before.watch_id,
            binding_id=g.binding_id or "",
            key=g.key,
            reason=reason,
            revoked_at=now,
        )
        for g in document_grants(before)
        if g not in kept
    )


def stop_watch(watch: Watch, now: datetime) -> tuple[Watch, tuple[RevokeGrant, ...]]:
    """Stop a watch: its document grants are revoked."""
    if watch.status is WatchStatus.DELETED:
        raise Conflict(f"watch {watch.watch_id} is deleted", reason="deleted")
    after = watch.model_copy(update={"status": WatchStatus.STOPPED, "changed_at": now})
    return after, _revocations(watch, (), "watch_stopped", now)


def delete_watch(watch: Watch, now: datetime) -> tuple[Watch, tuple[RevokeGrant, ...]]:
    """Delete a watch: its document grants are revoked."""
    after = watch.model_copy(update={"status": WatchStatus.DELETED, "changed_at": now})
    return after, _revocations(watch, (), "watch_deleted", now)


def resume_watch(watch: Watch, now: datetime) -> Watch:
    """Enable a stopped watch again; grants come back only from its current bindings."""
    if watch.status is WatchStatus.DELETED:
        raise Conflict(f"watch {watch.watch_id} is deleted", reason="deleted")
    return watch.model_copy(update={"status": WatchStatus.ENABLED, "changed_at": now})


class IssueGrant(Frozen):
    """Effect: the host opens read-only access to one bound document for this watch."""

    grant: ReadGrant
    issued_at: datetime


def replace_bindings(
    watch: Watch, bindings: Sequence[SourceBinding], now: datetime
) -> tuple[Watch, tuple[RevokeGrant | IssueGrant, ...]]:
    """Change a watch's sources. A binding that changed in any field is a new binding: its old
    grant is revoked and a fresh one issued, never carried over."""
    if watch.status is WatchStatus.DELETED:
        raise Conflict(f"watch {watch.watch_id} is deleted", reason="deleted")
    after = Watch.model_validate(
        {**watch.model_dump(), "bindings": [b.model_dump() for b in bindings], "changed_at": now}
    )
    unchanged_ids = {b.binding_id for b in set(watch.bindings) & set(after.bindings)}
    kept = [g for g in document_grants(after) if g.binding_id in unchanged_ids]
    revoked = _revocations(watch, kept, "binding_changed", now)
    issued = tuple(
        IssueGrant(grant=g, issued_at=now)
        for g in document_grants(after)
        if g.binding_id not in unchanged_ids
    )
    return after, (*revoked, *issued)
