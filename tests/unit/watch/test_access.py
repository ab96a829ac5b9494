"""Read grants (docs/rules/watches.md绕过")."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import pytest

from engine.errors import Conflict, Forbidden, InvalidInput
from engine.watch.access import (
    GrantBasis,
    IssueGrant,
    ReadTarget,
    RevokeGrant,
    authorize_read,
    delete_watch,
    document_grants,
    match_title,
    recover_grants,
    replace_bindings,
    resolve_title,
    resume_watch,
    stop_watch,
)
from engine.watch.model import SourceKey, Watch, WatchStatus
from tests.support.watch import (
    LATER,
    doc_binding,
    doc_key,
    library_binding,
    make_watch,
    note_binding,
    note_key,
)

MOUNTED = frozenset({"lib1", "lib2"})


def target(
    key: SourceKey | None = None,
    project: str = "p1",
    title: str = "",
    tags: frozenset[str] = frozenset(),
) -> ReadTarget:
    return ReadTarget(key=key or doc_key(), project=project, title=title, tags=tags)


def test_single_document_binding_reads_that_document_across_projects_read_only() -> None:
    watch = make_watch(bindings=[doc_binding(library="other-lib", document="d9", project="p2")])
    grant = authorize_read(watch, target(doc_key("other-lib", "d9"), project="p2"), MOUNTED)
    assert grant.basis is GrantBasis.DOCUMENT_BINDING
    assert grant.cross_project and grant.read_only


def test_document_binding_grants_no_other_document_of_the_foreign_library() -> None:
    watch = make_watch(bindings=[doc_binding(library="other-lib", document="d9", project="p2")])
    with pytest.raises(Forbidden) as err:
        authorize_read(
            watch, target(doc_key("other-lib", "d10"), project="p2"), MOUNTED | {"other-lib"}
        )
    assert err.value.details["reason"] == "other_project"


def test_whole_library_binding_grants_no_cross_project_access() -> None:
    watch = make_watch(bindings=[library_binding(library="shared", project="p2")])
    with pytest.raises(Forbidden) as err:
        authorize_read(watch, target(doc_key("shared", "d1"), project="p2"), MOUNTED | {"shared"})
    assert err.value.details["reason"] == "other_project"
    assert document_grants(watch) == ()


def test_library_binding_reads_inside_the_project_when_mounted() -> None:
    watch = make_watch(bindings=[library_binding(library="lib2")])
    grant = authorize_read(watch, target(doc_key("lib2", "x")), MOUNTED)
    assert grant.basis is GrantBasis.LIBRARY_BINDING and not grant.cross_project


def test_unmounted_library_is_not_readable_even_in_project() -> None:
    watch = make_watch(bindings=[library_binding(library="lib3")])
    with pytest.raises(Forbidden) as err:
        authorize_read(watch, target(doc_key("lib3", "x")), MOUNTED)
    assert err.value.details["reason"] == "not_mounted"


def test_ordinary_read_stays_inside_the_project() -> None:
    watch = make_watch(bindings=[note_binding()])
    assert authorize_read(watch, target(doc_key("lib1", "x")), MOUNTED).basis is GrantBasis.PROJECT
    with pytest.raises(Forbidden):
        authorize_read(watch, target(doc_key("lib1", "x"), project="p2"), MOUNTED)


def test_tag_limits_apply_to_every_knowledge_read() -> None:
    watch = make_watch(bindings=[doc_binding()], tag_limits=frozenset({"发布"}))
    with pytest.raises(Forbidden) as err:
        authorize_read(watch, target(doc_key(), tags=frozenset({"其他"})), MOUNTED)
    assert err.value.details["reason"] == "tag_limit"
    assert authorize_read(watch, target(doc_key(), tags=frozenset({"发布", "x"})), MOUNTED)


def test_bound_note_is_read_with_the_session_permission_and_unbound_note_is_not() -> None:
    watch = make_watch(bindings=[note_binding("n1")])
    assert authorize_read(watch, target(note_key("n1")), MOUNTED).basis is GrantBasis.NOTE_BINDING
    with pytest.raises(Forbidden):
        authorize_read(watch, target(note_key("n2")), MOUNTED)
    with pytest.raises(Forbidden):
        authorize_read(watch, target(note_key("n1"), project="p2"), MOUNTED)


def test_titles_match_verbatim_only() -> None:
    docs = [
        target(doc_key("lib1", "a"), title="发布流程 v2（内部）"),
        target(doc_key("lib1", "b"), title="发布流程"),
        target(doc_key("lib1", "c"), title="发布流程 v2（内部） "),
    ]
    assert resolve_title("发布流程 v2（内部）", docs).key == doc_key("lib1", "a")
    assert [t.key.item_id for t in match_title("发布流程", docs)] == ["b"]
    with pytest.raises(InvalidInput):
        resolve_title("发布 流程", docs)  # no word dropping or fuzzy recall
    with pytest.raises(InvalidInput):
        resolve_title("发布流程 V2（内部）", docs)  # no case folding


def test_ambiguous_title_is_a_conflict_not_a_guess() -> None:
    docs = [target(doc_key("lib1", "a"), title="周报"), target(doc_key("lib2", "b"), title="周报")]
    with pytest.raises(Conflict) as err:
        resolve_title("周报", docs)
    assert err.value.details["candidates"] == ["doc:lib1/a", "doc:lib2/b"]


@pytest.mark.parametrize("change", [stop_watch, delete_watch])
def test_stop_and_delete_revoke_document_grants(
    change: Callable[[Watch, datetime], tuple[Watch, tuple[RevokeGrant, ...]]],
) -> None:
    watch = make_watch(bindings=[doc_binding(project="p2"), note_binding()])
    after, effects = change(watch, LATER)
    assert after.status in (WatchStatus.STOPPED, WatchStatus.DELETED)
    assert [(e.binding_id, e.key) for e in effects] == [("b-doc", doc_key())]
    assert all(isinstance(e, RevokeGrant) and e.revoked_at == LATER for e in effects)
    assert document_grants(after) == ()
    with pytest.raises(Forbidden) as err:
        authorize_read(after, target(doc_key(), project="p2"), MOUNTED)
    assert err.value.details["reason"] == "watch_not_active"


def test_changed_binding_revokes_the_old_grant_and_issues_a_new_one() -> None:
    watch = make_watch(bindings=[doc_binding(document="d1"), note_binding()])
    after, effects = replace_bindings(
        watch, [doc_binding(document="d2", binding_id="b-doc2"), note_binding()], LATER
    )
    revoked = [e for e in effects if isinstance(e, RevokeGrant)]
    issued = [e for e in effects if isinstance(e, IssueGrant)]
    assert [e.key for e in revoked] == [doc_key(document="d1")]
    assert [e.grant.key for e in issued] == [doc_key(document="d2")]
    with pytest.raises(Forbidden):
        authorize_read(after, target(doc_key(document="d1"), project="p1"), frozenset())


def test_unchanged_binding_keeps_its_grant_without_effects() -> None:
    watch = make_watch(bindings=[doc_binding(), note_binding()])
    after, effects = replace_bindings(watch, list(watch.bindings), LATER)
    assert effects == ()
    assert document_grants(after) == document_grants(watch)


def test_revoked_grants_are_never_restored_from_recovery_records() -> None:
    watch = make_watch(bindings=[doc_binding(project="p2")])
    recorded = document_grants(watch)
    stopped, _ = stop_watch(watch, LATER)
    assert recover_grants(stopped, recorded) == ()
    rebound, _ = replace_bindings(watch, [note_binding()], LATER)
    assert recover_grants(rebound, recorded) == ()
    # Resuming a stopped watch derives grants from its current bindings, not the record.
    resumed = resume_watch(stopped, LATER)
    assert recover_grants(resumed, recorded) == recorded
    assert recover_grants(watch, recorded) == recorded


def test_deleted_watch_cannot_be_resumed_or_rebound() -> None:
    deleted, _ = delete_watch(make_watch(), LATER)
    with pytest.raises(Conflict):
        resume_watch(deleted, LATER)
    with pytest.raises(Conflict):
        replace_bindings(deleted, [], LATER)
