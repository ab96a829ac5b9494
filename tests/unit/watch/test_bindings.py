"""engine.watch.bindings: binding requests become SourceBindings (docs/rules/watches.md)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from itertools import count

import pytest

from engine.errors import InvalidInput
from engine.watch.bindings import BindingRequest, bind

NOW = datetime(2035, 3, 19, 2, 0, tzinfo=UTC)


def ids() -> Callable[[], str]:
    n = count(1)
    return lambda: f"b-{next(n)}"


def test_an_unchanged_kept_binding_keeps_its_id_and_bound_time() -> None:
    (first,) = bind([BindingRequest(kind="note", note_id="n1")], "p1", NOW, new_id=ids())
    later = NOW + timedelta(hours=1)
    (kept,) = bind(
        [BindingRequest(kind="note", note_id="n1", binding_id=first.binding_id)],
        "p1",
        later,
        new_id=ids(),
        existing=[first],
    )
    assert kept == first


def test_a_changed_kept_binding_gets_a_fresh_id() -> None:
    (first,) = bind([BindingRequest(kind="note", note_id="n1")], "p1", NOW, new_id=ids())
    (changed,) = bind(
        [BindingRequest(kind="note", note_id="n2", binding_id=first.binding_id)],
        "p1",
        NOW,
        new_id=lambda: "b-fresh",
        existing=[first],
    )
    assert changed.binding_id == "b-fresh" and changed.note_id == "n2"


@pytest.mark.parametrize(
    "requests",
    [
        [],
        [BindingRequest(kind="web_page")],
        [BindingRequest(kind="note", note_id="n1", project="p2")],
        [BindingRequest(kind="knowledge_document", library_id="l1")],
    ],
)
def test_bad_requests_are_invalid_input(requests: list[BindingRequest]) -> None:
    with pytest.raises(InvalidInput):
        bind(requests, "p1", NOW, new_id=ids())
