"""`check_workflow` validation (docs/rules/watches.md)."""

from __future__ import annotations

from typing import Any

import pytest

from engine.errors import InvalidInput
from engine.watch.model import StepKind, StepStatus
from engine.watch.steps import check_workflow, watch_source_keys
from tests.support.watch import (
    doc_binding,
    doc_key,
    library_binding,
    make_watch,
    note_binding,
    read_fully,
    step,
)


def raw(step_id: str, kind: str = "check", source: str = "note:n1", **extra: Any) -> dict[str, Any]:
    return {
        "stepId": step_id,
        "kind": kind,
        "source": source,
        "method": "打开页面核对版本号",
        "completionCriteria": "版本号等于文档要求",
        **extra,
    }


def test_valid_list_is_saved_whole() -> None:
    watch = make_watch()
    steps = check_workflow(
        watch,
        read_fully(watch),
        (),
        [raw("s1"), raw("s2", "execute", "doc:lib1/d1", preconditions=["s1 完成"])],
    )
    assert [(s.step_id, s.kind, s.source) for s in steps] == [
        ("s1", StepKind.CHECK, "note:n1"),
        ("s2", StepKind.EXECUTE, "doc:lib1/d1"),
    ]
    assert steps[1].preconditions == ("s1 完成",)


def test_bad_source_names_the_step_and_lists_only_this_watchs_keys() -> None:
    mine = make_watch("w1", [note_binding("n1"), doc_binding("lib1", "d1")])
    other = make_watch(
        "w2", [note_binding("secret-note", binding_id="x"), doc_binding("libX", "dX")]
    )
    with pytest.raises(InvalidInput) as err:
        check_workflow(
            mine, read_fully(mine), (), [raw("s1"), raw("s7", source="note:secret-note")]
        )
    message = err.value.message
    assert "step s7" in message
    assert err.value.details["valid_sources"] == ["doc:lib1/d1", "note:n1"]
    listing = message.split("valid values for this watch:")[1]
    assert "note:n1" in listing and "doc:lib1/d1" in listing
    for key in (k.value for k in other.bound_keys()):
        assert key not in listing
        assert key not in str(err.value.details["valid_sources"])
    (problem,) = err.value.details["problems"]
    assert problem["step_id"] == "s7" and problem["field"] == "source"


def test_malformed_source_is_an_error_listing_valid_values() -> None:
    watch = make_watch()
    with pytest.raises(InvalidInput) as err:
        check_workflow(watch, None, (), [raw("s3", source="发布流程文档")])
    assert "step s3" in err.value.message and "not a sourceKey" in err.value.message
    assert "note:n1" in err.value.message


def test_another_watchs_reading_state_adds_no_keys() -> None:
    mine = make_watch("w1", [library_binding("lib2")])
    other = make_watch("w2", [library_binding("lib2")])
    foreign = read_fully(other, keys=[doc_key("lib2", "private")])
    assert watch_source_keys(mine, foreign) == ()
    assert watch_source_keys(other, foreign) == ("doc:lib2/private",)


def test_documents_read_through_a_bound_library_are_valid_sources() -> None:
    watch = make_watch("w1", [library_binding("lib2")])
    reading = read_fully(watch, keys=[doc_key("lib2", "x"), doc_key("lib9", "y")])
    assert watch_source_keys(watch, reading) == ("doc:lib2/x",)
    steps = check_workflow(watch, reading, (), [raw("s1", source="doc:lib2/x")])
    assert steps[0].source == "doc:lib2/x"


def test_invalid_list_is_never_partly_saved() -> None:
    watch = make_watch()
    existing = (step("old", evidence="旧证据"),)
    with pytest.raises(InvalidInput) as err:
        check_workflow(watch, None, existing, [raw("s1"), raw("s2", kind="publish")])
    assert "s2" in err.value.message
    assert [p["step_id"] for p in err.value.details["problems"]] == ["s2"]
    # The valid part alone would have been saved; with the invalid one nothing is returned.
    assert [s.step_id for s in check_workflow(watch, None, existing, [raw("s1")])] == ["s1"]


def test_duplicate_step_ids_are_rejected() -> None:
    with pytest.raises(InvalidInput, match="step id s1 is repeated"):
        check_workflow(make_watch(), None, (), [raw("s1"), raw("s1", source="doc:lib1/d1")])


@pytest.mark.parametrize("kind", ["Check", "verify", "", "publish"])
def test_kind_must_be_check_or_execute(kind: str) -> None:
    with pytest.raises(InvalidInput, match="must be check or execute"):
        check_workflow(make_watch(), None, (), [raw("s1", kind=kind)])


def test_empty_list_and_missing_criteria_or_method_are_rejected() -> None:
    with pytest.raises(InvalidInput, match="at least one step"):
        check_workflow(make_watch(), None, (), [])
    with pytest.raises(InvalidInput, match="completion criteria"):
        check_workflow(make_watch(), None, (), [raw("s1", completionCriteria=" ")])
    with pytest.raises(InvalidInput, match="method or the preconditions"):
        check_workflow(make_watch(), None, (), [raw("s1", method="")])
    with pytest.raises(InvalidInput, match="steps\\[0\\]"):
        check_workflow(make_watch(), None, (), [{"kind": "check"}])


def test_condition_to_verify_during_check_cannot_be_an_execute_step() -> None:
    with pytest.raises(InvalidInput, match="cannot be moved to execution"):
        check_workflow(make_watch(), None, (), [raw("s1", "execute", verifyInCheck=True)])


def test_re_registering_a_must_verify_step_as_execute_is_rejected() -> None:
    existing = (step("s1", verify_in_check=True),)
    with pytest.raises(InvalidInput, match="cannot be moved to execution"):
        check_workflow(make_watch(), None, existing, [raw("s1", "execute")])
    plain = (step("s1"),)
    moved = check_workflow(make_watch(), None, plain, [raw("s1", "execute")])
    assert moved[0].kind is StepKind.EXECUTE


def test_unchanged_step_keeps_its_evidence_and_a_changed_one_starts_afresh() -> None:
    done = step("s1", status=StepStatus.DONE, evidence="版本号一致")
    existing = (
        done.model_copy(
            update={"method": "打开页面核对版本号", "completion_criteria": "版本号等于文档要求"}
        ),
    )
    same = check_workflow(make_watch(), None, existing, [raw("s1")])
    assert same[0].status is StepStatus.DONE and same[0].evidence == done.evidence
    changed = check_workflow(make_watch(), None, existing, [raw("s1", source="doc:lib1/d1")])
    assert changed[0].status is StepStatus.PENDING and changed[0].evidence is None


def test_method_text_is_free_no_site_or_platform_is_hard_coded() -> None:
    steps = check_workflow(
        make_watch(),
        None,
        (),
        [raw("s1", method="通过 https://any.example.org 的代理 socks5://10.0.0.1 登录任意平台")],
    )
    assert "any.example.org" in steps[0].method
