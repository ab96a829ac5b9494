"""Paged reads and revision changes (docs/rules/watches.md revision 改变")."""

from __future__ import annotations

import pytest

from engine.errors import InvalidInput
from engine.watch.paging import PageRead, ReadingState, record_page
from tests.support.watch import LATER, NOW, doc_key, note_key, step

TEXT = "第一步：核对版本。第二步：发布。"


def page(offset: int, length: int, revision: str = "r1", key=None) -> PageRead:  # noqa: ANN001
    return PageRead(
        key=key or doc_key(),
        revision=revision,
        offset=offset,
        text=TEXT[offset : offset + length],
        total_length=len(TEXT),
    )


def empty() -> ReadingState:
    return ReadingState(watch_id="w1", run_id="run-2")


def test_every_read_returns_the_source_key() -> None:
    out = record_page(empty(), (), page(0, 5), NOW)
    assert out.accepted
    assert out.result["sourceKey"] == "doc:lib1/d1"
    assert out.result["nextOffset"] == 5 and out.result["hasMore"] is True


def test_reading_is_complete_only_when_every_range_was_seen() -> None:
    state = record_page(empty(), (), page(0, 5), NOW).reading
    assert state.incomplete([doc_key()]) == (doc_key(),)
    state = record_page(state, (), page(10, len(TEXT) - 10), NOW).reading
    assert state.incomplete([doc_key()]) == (doc_key(),)
    state = record_page(state, (), page(5, 5), NOW).reading
    assert state.incomplete([doc_key()]) == ()
    assert state.incomplete([note_key()]) == (note_key(),)


def test_page_outside_the_source_is_invalid() -> None:
    bad = PageRead(key=doc_key(), revision="r1", offset=10, text="x" * 10, total_length=12)
    with pytest.raises(InvalidInput):
        record_page(empty(), (), bad, NOW)


def test_revision_change_mid_paging_revokes_checklist_and_restarts_from_the_start() -> None:
    steps = (step("s1", source="doc:lib1/d1"), step("s2", source="note:n1"))
    first = record_page(empty(), steps, page(0, 5, "r1"), NOW)
    assert first.steps == steps
    changed = record_page(first.reading, first.steps, page(5, 5, "r2"), LATER)
    assert not changed.accepted
    assert changed.steps == ()
    (effect,) = changed.effects
    assert (effect.old_revision, effect.new_revision) == ("r1", "r2")
    assert effect.revoked_steps == ("s1", "s2")
    assert changed.result["restart"] is True and changed.result["nextOffset"] == 0
    reading = changed.reading.reading(doc_key())
    assert reading is not None and reading.revision == "r2" and reading.covered == ()
    # Reading the new version from its start is accepted and builds on nothing old.
    again = record_page(changed.reading, changed.steps, page(0, len(TEXT), "r2"), LATER)
    assert again.accepted and again.effects == ()
    assert again.reading.incomplete([doc_key()]) == ()


def test_revision_change_on_a_first_page_keeps_the_page_but_still_revokes() -> None:
    state = record_page(empty(), (), page(0, len(TEXT), "r1"), NOW).reading
    out = record_page(state, (step("s1"),), page(0, 5, "r2"), LATER)
    assert out.accepted and out.steps == () and len(out.effects) == 1
    assert out.result["restart"] is True
    assert out.reading.incomplete([doc_key()]) == (doc_key(),)


def test_same_revision_pages_never_revoke() -> None:
    steps = (step("s1"),)
    out = record_page(empty(), steps, page(0, 5), NOW)
    out = record_page(out.reading, out.steps, page(5, 5), NOW)
    assert out.steps == steps and out.effects == ()
