"""Preview, then confirm (预览并确认上下文后进入会话; docs/rules/reviews.md).

A preview writes nothing, not even itself: its id is a self-contained token carrying the
request, when it was made, a fingerprint of exactly what it showed, and the writes it
announced. Confirming recomputes the preview from the graph as it is now:
- same fingerprint: the writes happen, exactly as previewed;
- the announced writes are all already there: a repeat (a retried confirm) — nothing is written;
- otherwise the underlying graph changed since the preview: CONFLICT, nothing is written.
A token older than `PREVIEW_TTL` is CONFLICT as well (preview again). The token is not a
secret: tampering with it only asks for another preview, and a confirm is authorised on the
token's scope like any other write.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from engine.clock import utc
from engine.errors import Conflict, InvalidInput
from engine.scope import check_scope
from engine.story.models import ObjectKind

PREVIEW_TTL = timedelta(hours=1)
MAX_OBJECTS = 200
SELECTABLE: frozenset[ObjectKind] = frozenset(
    {ObjectKind.ENTITY, ObjectKind.RELATION, ObjectKind.EVENT, ObjectKind.SUMMARY}
)
_PREFIX = "pv1."


class PreviewKind(StrEnum):
    KNOWLEDGE = "knowledge"  # 沉淀: save to knowledge
    DISCUSSION = "discussion"  # 继续: continue the discussion


class ObjectRef(BaseModel):
    """A selected graph object; `entry` names an existing entry to supplement (knowledge only)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: ObjectKind
    id: Annotated[str, Field(min_length=1, max_length=100)]
    entry: Annotated[str, Field(min_length=1, max_length=300)] | None = None

    @field_validator("kind")
    @classmethod
    def _selectable(cls, value: ObjectKind) -> ObjectKind:
        if value not in SELECTABLE:
            raise ValueError("only entities, relations, events and summaries can be selected")
        return value


class PreviewRequest(BaseModel):
    """What a person selected: objects and/or one result's objects, as of a moment
    (docs/rules/story-graph.md#views-knowledge-and-discussion)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: PreviewKind
    scope: str
    objects: list[ObjectRef] = Field(default_factory=list, max_length=MAX_OBJECTS)
    result_id: str | None = None
    as_of: datetime | None = None  # None: the live graph, re-read on confirm
    title: Annotated[str, Field(max_length=300)] = ""

    _scope = field_validator("scope")(check_scope)

    @field_validator("as_of")
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        return None if value is None else utc(value)

    def checked(self) -> PreviewRequest:
        if not self.objects and self.result_id is None:
            raise InvalidInput("select at least one object or a result")
        return self


class Write(BaseModel):
    """One announced write: this version of this source."""

    model_config = ConfigDict(frozen=True)

    source_id: str
    version: str


class PreviewToken(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    request: PreviewRequest
    made_at: datetime
    fingerprint: str
    writes: list[Write]


def fingerprint(shown: Any) -> str:
    """A hash of what a preview showed (pydantic models or plain data), order included."""
    data = shown.model_dump(mode="json") if isinstance(shown, BaseModel) else shown
    blob = json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def encode(token: PreviewToken) -> str:
    raw = token.model_dump_json(exclude_defaults=True).encode("utf-8")
    return _PREFIX + base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def decode(preview_id: str, now: datetime) -> PreviewToken:
    """The token behind a preview id; malformed is INVALID_INPUT, expired is CONFLICT."""
    if not preview_id.startswith(_PREFIX):
        raise InvalidInput("not a preview id", preview_id=preview_id[:40])
    body = preview_id[len(_PREFIX) :]
    try:
        raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        token = PreviewToken.model_validate_json(raw)
    except (ValueError, binascii.Error, ValidationError):
        raise InvalidInput("not a preview id", preview_id=preview_id[:40]) from None
    if now - token.made_at > PREVIEW_TTL:
        raise Conflict("this preview expired; preview again", made_at=token.made_at.isoformat())
    return token


def confirm_decision(token: PreviewToken, current: str, present: set[Write]) -> bool:
    """True: write now. False: a repeat of a confirm that already wrote everything.

    `current` is the fingerprint of the preview recomputed now; `present` are the announced
    writes that already exist. A changed graph is CONFLICT: the person
    confirms what they saw, never something else
    (docs/rules/story-graph.md#views-knowledge-and-discussion)."""
    if token.writes and set(token.writes) <= present:
        return False
    if current == token.fingerprint:
        return True
    raise Conflict("the graph changed since this preview; preview again and confirm that")
