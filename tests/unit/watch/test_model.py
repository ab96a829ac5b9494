"""Source keys and bindings (docs/rules/watches.md)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from engine.watch.model import SourceBinding, SourceKey, SourceKind
from tests.support.watch import (
    NOW,
    doc_binding,
    doc_key,
    library_binding,
    make_watch,
    note_binding,
    note_key,
)


def test_source_key_round_trips_through_its_text_form() -> None:
    for key in (note_key("n-7"), doc_key("lib", "doc-9")):
        assert SourceKey.parse(key.value) == key
        assert str(key) == key.value


@pytest.mark.parametrize(
    "text", ["", "note:", "doc:lib", "doc:/d", "library:lib", "note:a/b", "n1", " note:n1"]
)
def test_malformed_source_key_is_rejected(text: str) -> None:
    with pytest.raises(ValueError, match="malformed sourceKey"):
        SourceKey.parse(text)


def test_a_library_is_not_a_readable_source_key() -> None:
    with pytest.raises(ValidationError, match="library is not a readable source"):
        SourceKey(kind=SourceKind.KNOWLEDGE_LIBRARY, item_id="lib")


def test_binding_fields_must_match_its_kind() -> None:
    with pytest.raises(ValidationError, match="do not match kind"):
        SourceBinding(
            binding_id="b",
            kind=SourceKind.KNOWLEDGE_DOCUMENT,
            project="p1",
            library_id="lib",
            bound_at=NOW,
        )


def test_only_a_single_document_binding_grants_cross_project_read() -> None:
    assert doc_binding().grants_cross_project_read
    assert not library_binding().grants_cross_project_read
    assert not note_binding().grants_cross_project_read
    assert library_binding().key is None


def test_watch_rejects_duplicate_binding_ids() -> None:
    with pytest.raises(ValidationError, match="duplicate binding ids"):
        make_watch(bindings=[note_binding(binding_id="b"), doc_binding(binding_id="b")])


def test_watch_is_immutable() -> None:
    watch = make_watch()
    with pytest.raises(ValidationError):
        watch.execution_enabled = True  # type: ignore[misc]
