"""What a watch is bound to, from what a person asked for (docs/rules/watches.md).

`bind` turns binding requests into `SourceBinding`s: a kept binding id with unchanged
content keeps the stored binding (and so its grant); a kept id whose content changed gets a
fresh id (its grant is revoked and a new one derived); a note binding reads the session's own
project only. Ids come from the caller's factory, `now` from its clock.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from engine.errors import InvalidInput
from engine.watch.model import SourceBinding, SourceKind

BINDING_ID_LENGTH = 12


@dataclass(frozen=True)
class BindingRequest:
    kind: str
    project: str | None = None
    title: str = ""
    note_id: str | None = None
    library_id: str | None = None
    document_id: str | None = None
    binding_id: str | None = None  # keep an existing binding (and its grant) unchanged


def _binding(
    b: BindingRequest,
    scope: str,
    now: datetime,
    existing: Mapping[str, SourceBinding],
    new_id: Callable[[], str],
) -> SourceBinding:
    if b.kind not in {k.value for k in SourceKind}:
        raise InvalidInput(
            f"binding kind {b.kind!r} is not one of note, knowledge_document, knowledge_library",
            field="bindings.kind",
        )
    try:
        binding = SourceBinding(
            binding_id=b.binding_id or new_id(),
            kind=SourceKind(b.kind),
            project=b.project or scope,
            title=b.title,
            note_id=b.note_id,
            library_id=b.library_id,
            document_id=b.document_id,
            bound_at=now,
        )
    except ValueError as exc:
        raise InvalidInput(f"invalid binding: {exc}", field="bindings") from exc
    old = existing.get(binding.binding_id)
    if old is not None and old.model_copy(update={"bound_at": now}) == binding:
        return old
    if old is not None:
        binding = binding.model_copy(update={"binding_id": new_id()})
    if binding.kind is SourceKind.NOTE and binding.project != scope:
        raise InvalidInput("a note binding uses the session's own project", field="bindings")
    return binding


def bind(
    requests: Sequence[BindingRequest],
    scope: str,
    now: datetime,
    *,
    new_id: Callable[[], str],
    existing: Sequence[SourceBinding] = (),
) -> tuple[SourceBinding, ...]:
    """The bindings of a watch of `scope`, or INVALID_INPUT naming the first bad one."""
    if not requests:
        raise InvalidInput("a watch needs at least one bound source", field="bindings")
    kept = {b.binding_id: b for b in existing}
    return tuple(_binding(b, scope, now, kept, new_id) for b in requests)
