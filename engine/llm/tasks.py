"""What the gateway is asked to judge, independent of who judges it (HTTP model or rules).

`LoopContext` is one concern agent-loop turn's input (docs/rules/concerns.md: goal +
conversation_log + signals); the answer is `engine.concern.loop_output.LoopOutput`.
`ReviewDocument` is one source text for a supervision leaf (docs/rules/reviews.md); the answer is an
`Extraction` of facts and entities. Local ids in an Extraction (`e1`, `f1`) only link facts
to entities inside that answer — they are never identities (模型局部 ID 不构成身份;
docs/rules/reviews.md).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from engine.llm.reading import Subject


class Person(BaseModel):
    """A person of the concern with their context slice (docs/rules/concerns.md:
    `build_person_context_slice(person_id, "concern")`): role and contact state in this
    concern, reachable channels, and whatever the person context holds (team, title …)."""

    person_id: str
    display_name: str = ""
    role_in_concern: str = ""
    comm_status: str = ""
    last_channel: str = ""
    preferred_channel: str = ""
    channels: list[str] = Field(default_factory=list)
    context: dict[str, Any] = Field(default_factory=dict)


class LogEntry(BaseModel):
    """One conversation_log line (docs/rules/concerns.md)."""

    person_id: str | None = None
    person_name: str = ""
    direction: Literal["inbound", "outbound"]
    text: str
    channel: str = ""
    ts: datetime


class Signal(BaseModel):
    """A business-system event the loop may count as indirect evidence (GitLab merge …)."""

    kind: str  # "merge", "deploy", "release", …
    source: str = ""  # "gitlab", "ci", …
    at: datetime
    person_id: str | None = None
    detail: str = ""


class LoopContext(BaseModel):
    concern_id: str | None = None
    title: str = ""
    goal: str
    # what the initiator asked, in their words (source.detail): messages are worded from it
    request: str = ""
    priority: str = "medium"
    initiator: Person | None = None
    counterparts: list[Person] = Field(default_factory=list)
    conversation_log: list[LogEntry] = Field(default_factory=list)
    signals: list[Signal] = Field(default_factory=list)
    created_at: datetime | None = None
    now: datetime
    timezone: str = "Asia/Shanghai"
    locale: str = "zh"
    trigger: str = "reply"  # reply | timeout | due | signal
    replied_by: str | None = None  # reply: whose message triggered this turn
    # what the concern follows up (a promise, a blocker, a difference): the reply is read
    # against it (`LoopOutput.reading`); None for a concern raised by a person
    subject: Subject | None = None


class ReviewDocument(BaseModel):
    source_id: str
    text: str
    ts: datetime | None = None  # when the text was written; anchors relative times
    timezone: str = "Asia/Shanghai"
    known_entities: list[str] = Field(default_factory=list)  # names to look for
    people: list[str] = Field(default_factory=list)  # names known to be people (speakers)


class Span(BaseModel):
    start: int
    end: int


EntityKind = Literal["person", "project", "version", "issue", "url", "term", "other"]
FactKind = Literal[
    "commitment", "decision", "blocker", "risk", "done", "question", "plan", "statement"
]


class ExtractedEntity(BaseModel):
    local_id: str
    name: str
    kind: EntityKind = "other"
    mentions: list[Span] = Field(default_factory=list)


class ExtractedFact(BaseModel):
    local_id: str
    text: str
    span: Span
    kind: FactKind = "statement"
    entity_ids: list[str] = Field(default_factory=list)
    at: datetime | None = None  # a time the sentence names, resolved against the doc time


class ExtractedRelation(BaseModel):
    """`from_id` -[type]-> `to_id` (local entity ids), as the sentence at `span` states it;
    `change`: the sentence says it changed ("改由李四负责"), not only that it holds."""

    from_id: str
    to_id: str
    type: str
    span: Span
    change: bool = False


class Extraction(BaseModel):
    source_id: str
    facts: list[ExtractedFact] = Field(default_factory=list)
    entities: list[ExtractedEntity] = Field(default_factory=list)
    relations: list[ExtractedRelation] = Field(default_factory=list)
