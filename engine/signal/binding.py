"""Person bindings: how the agenda reaches a person (docs/rules/story-graph.md).

A signal names people as the text writes them ("李四"); a concern talks to a concern person (person
id + channel; docs/rules/concerns.md). The two meet only through an explicit binding, never through
an equal name:

- a **speaker binding**: an app pushing a conversation source says who each speaker is
  (`upsertSource(speakers: [{name, personId, channel}])`); it holds for that source only, so
  "李四" in another conversation is nobody until that source binds it too;
- an **entity binding**: an operator binds a person entity of the story graph to a concern
  person (`bindPerson`).

Bindings are versioned like story objects: an identity derived from what is bound (scope,
source and speaker name, or entity id), immutable versions read as of any time; binding
again to another person (or channel, or name) is a new version, binding to the same one
writes nothing, unbinding retracts the current version.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, field_validator

from engine.story.models import Actor, Version


class BindingKind(StrEnum):
    SPEAKER = "speaker"
    ENTITY = "entity"


_Text = Annotated[str, Field(max_length=200)]


class SpeakerIn(BaseModel):
    """One speaker of a pushed conversation and the concern person who said it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Annotated[str, Field(min_length=1, max_length=100)]
    person_id: Annotated[str, Field(min_length=1, max_length=200)]
    channel: _Text = ""
    display_name: _Text = ""

    @field_validator("name", "person_id")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must not be empty")
        return v.strip()


class SpeakersIn(BaseModel):
    """The speakers an upsertSource carries; a name appears once."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    speakers: list[SpeakerIn] = Field(default_factory=list, max_length=200)

    @field_validator("speakers")
    @classmethod
    def _distinct(cls, v: list[SpeakerIn]) -> list[SpeakerIn]:
        names = [s.name for s in v]
        if len(set(names)) != len(names):
            raise ValueError("a speaker may be named only once")
        return v


class PersonBinding(Version):
    """One version of a binding."""

    kind: BindingKind
    source_id: str = ""  # speaker: the conversation source
    speaker: str = ""  # speaker: the name as the source writes it
    entity_id: str = ""  # entity: the person entity
    person_id: str
    display_name: str
    channel: str = ""


def binding_id(scope: str, kind: BindingKind, key: str) -> str:
    """The one identity of what is bound: a speaker of a source, or a person entity."""
    return "pb-" + hashlib.sha1(f"{scope}|{kind}|{key}".encode()).hexdigest()[:24]


def speaker_binding_id(scope: str, source_id: str, speaker: str) -> str:
    return binding_id(scope, BindingKind.SPEAKER, f"{source_id}|{speaker}")


def entity_binding_id(scope: str, entity_id: str) -> str:
    return binding_id(scope, BindingKind.ENTITY, entity_id)


def _same(a: PersonBinding, b: PersonBinding) -> bool:
    keys = ("person_id", "display_name", "channel")
    return all(getattr(a, k) == getattr(b, k) for k in keys)


def next_version(
    current: PersonBinding | None,
    *,
    scope: str,
    kind: BindingKind,
    person_id: str,
    display_name: str,
    channel: str,
    by: Actor,
    now: datetime,
    why: str,
    source_id: str = "",
    speaker: str = "",
    entity_id: str = "",
) -> PersonBinding | None:
    """The version a (re)binding records, or None when it binds what is already bound."""
    bid = (
        speaker_binding_id(scope, source_id, speaker)
        if kind is BindingKind.SPEAKER
        else entity_binding_id(scope, entity_id)
    )
    new = PersonBinding(
        id=bid,
        scope=scope,
        seq=(current.seq + 1) if current is not None else 1,
        recorded_at=now,
        by=by,
        why=why,
        kind=kind,
        source_id=source_id,
        speaker=speaker,
        entity_id=entity_id,
        person_id=person_id,
        display_name=display_name or speaker or person_id,
        channel=channel,
    )
    if current is not None and _same(current, new):
        return None
    return new


def speaker_versions(
    current: dict[str, PersonBinding],
    speakers: list[SpeakerIn],
    *,
    scope: str,
    source_id: str,
    by: Actor,
    now: datetime,
    why: str = "upsertSource speakers",
) -> list[PersonBinding]:
    """The new versions a source's speakers record (`current`: by binding id)."""
    out = []
    for s in speakers:
        bid = speaker_binding_id(scope, source_id, s.name)
        v = next_version(
            current.get(bid),
            scope=scope,
            kind=BindingKind.SPEAKER,
            person_id=s.person_id,
            display_name=s.display_name or s.name,
            channel=s.channel,
            by=by,
            now=now,
            why=why,
            source_id=source_id,
            speaker=s.name,
        )
        if v is not None:
            out.append(v)
    return out
