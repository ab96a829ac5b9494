"""Preview tokens and the save-to-knowledge plan (docs/rules/reviews.md), without services."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engine.errors import Conflict, Forbidden, InvalidInput
from engine.story.knowledge import EntryAction, entry_id, plan_save
from engine.story.models import (
    Entity,
    EntityStatus,
    ObjectKind,
    Reference,
    Source,
    SourceKind,
    SourceVersion,
)
from engine.story.previews import (
    PREVIEW_TTL,
    ObjectRef,
    PreviewKind,
    PreviewRequest,
    PreviewToken,
    Write,
    confirm_decision,
    decode,
    encode,
)
from engine.story.selection import Selection, version_key
from tests.support.story import RUN, T0


def _token(**kw: object) -> PreviewToken:
    request = PreviewRequest(
        kind=PreviewKind.KNOWLEDGE, scope="p1", objects=[ObjectRef(kind=ObjectKind.ENTITY, id="e")]
    )
    return PreviewToken(
        request=request,
        made_at=T0,
        fingerprint="f1",
        writes=[Write(source_id="kn", version="k-1")],
        **kw,  # type: ignore[arg-type]
    )


def test_a_preview_id_round_trips_and_expires() -> None:
    token = _token()
    assert decode(encode(token), T0 + timedelta(minutes=5)) == token
    with pytest.raises(Conflict):
        decode(encode(token), T0 + PREVIEW_TTL + timedelta(seconds=1))
    for bad in ("nope", "pv1.!!!", "pv1.e30"):
        with pytest.raises(InvalidInput):
            decode(bad, T0)


def test_confirm_writes_when_unchanged_repeats_when_written_and_conflicts_otherwise() -> None:
    token = _token()
    assert confirm_decision(token, "f1", set()) is True
    assert confirm_decision(token, "f2", {Write(source_id="kn", version="k-1")}) is False
    with pytest.raises(Conflict):
        confirm_decision(token, "f2", set())


def test_only_entities_relations_events_and_summaries_can_be_selected() -> None:
    with pytest.raises(ValueError):
        ObjectRef(kind=ObjectKind.SUGGESTION, id="s")
    with pytest.raises(InvalidInput):
        PreviewRequest(kind=PreviewKind.KNOWLEDGE, scope="p1").checked()


def _selection(entry: str | None = None) -> Selection:
    ent = Entity(
        id="e",
        scope="p1",
        seq=2,
        recorded_at=T0,
        by=RUN,
        name="支付模块",
        description="回调阻塞",
        status=EntityStatus.MAIN,
    )
    cited = [
        Reference(
            id=f"r-{sid}",
            scope="p1",
            result_id="res",
            owner_kind=ObjectKind.ENTITY,
            owner_id="e",
            source_id=sid,
            source_version="v1",
            locator="chars:0-4",
            recorded_at=T0,
        )
        for sid in ("wiki", "web")
    ]
    sources = {
        "wiki": Source(id="wiki", scope="p1", kind=SourceKind.KNOWLEDGE, current_version="v1"),
        "web": Source(id="web", scope="p1", kind=SourceKind.EXTERNAL, current_version="v1"),
        "chat": Source(id="chat", scope="p1", kind=SourceKind.CONVERSATION, current_version="v1"),
    }
    wiki_v1 = SourceVersion(
        scope="p1", source_id="wiki", version="v1", text="# 支付", recorded_at=T0
    )
    return Selection(
        scope="p1",
        as_of=T0,
        refs=[ObjectRef(kind=ObjectKind.ENTITY, id="e", entry=entry)],
        entities={"e": ent},
        references=cited,
        sources=sources,
        versions={version_key("wiki", "v1"): wiki_v1},
    )


def test_a_cited_local_entry_is_supplemented_and_external_sources_stay_read_only() -> None:
    plan = plan_save(_selection(), as_of=None)
    [entry] = plan.entries
    assert (entry.source_id, entry.action, entry.base_version) == (
        "wiki",
        EntryAction.SUPPLEMENT,
        "v1",
    )
    assert entry.text.startswith("# 支付\n\n## 支付模块\n[entity:e@2]")
    assert "web@v1 chars:0-4" in entry.text  # cited by locator, never copied
    assert [(r.source_id, r.kind) for r in plan.read_only] == [("web", SourceKind.EXTERNAL)]
    assert plan.writes() == [Write(source_id="wiki", version=entry.version or "")]


def test_naming_an_external_or_app_source_as_the_entry_is_forbidden() -> None:
    for entry in ("web", "chat"):
        with pytest.raises(Forbidden):
            plan_save(_selection(entry), as_of=None)


def test_an_object_without_a_local_entry_gets_its_own_new_entry() -> None:
    sel = _selection()
    sel = sel.model_copy(update={"references": [r for r in sel.references if r.source_id == "web"]})
    [entry] = plan_save(sel, as_of=None).entries
    assert entry.action is EntryAction.CREATE
    assert entry.source_id == entry_id("p1", ObjectRef(kind=ObjectKind.ENTITY, id="e"))
