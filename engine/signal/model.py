"""Signals: what a review learned that someone may have to settle (docs/rules/loop.md,
docs/rules/reviews.md).

A review classifies facts (commitment, blocker, risk, question, decision, done). Commitments,
blockers, risks and questions, and every pending difference against confirmed knowledge,
become signals: versioned story objects in the scope that cite their exact passage and the
run that found them. A signal never reaches a concern by itself: the scope's agenda policy
(`engine/signal/policy.py`) decides for each one (raise, supplement, ignore with a reason)
and the decision is recorded on the signal with the policy version that made it
("任何原始对话、事件、扫描结果都不能绕过认知中枢直接进入 Concern").
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, model_validator


class SignalKind(StrEnum):
    COMMITMENT = "commitment"
    BLOCKER = "blocker"
    RISK = "risk"
    QUESTION = "question"
    DIFFERENCE = "difference"


class SignalStatus(StrEnum):
    OPEN = "open"  # nobody has settled it yet
    KEPT = "kept"  # a commitment confirmed done by the person who made it
    CHANGED = "changed"  # moved, as stored before a move kept the signal open and due anew
    SETTLED = "settled"  # a difference answered by the person responsible
    ANSWERED = "answered"  # a question the person asked answered later in its conversation
    UNRESOLVED = "unresolved"  # the concern was dropped or escalated: nothing asserted


class DecisionKind(StrEnum):
    RAISED = "raised"
    SUPPLEMENTED = "supplemented"
    REPORTED = "reported"  # a blocker or risk told to the owner, no concern
    IGNORED = "ignored"


class Passage(BaseModel):
    """The exact words a signal stands on: a source version and a locator inside it."""

    model_config = ConfigDict(frozen=True)

    source_id: str = Field(min_length=1)
    source_version: str = Field(min_length=1)
    locator: str = Field(min_length=1)
    # the passage's identity across versions and re-reads (`engine.review.passage`); "" when
    # unknown: the signal is then identified by its version and locator
    key: str = ""


class SignalDraft(BaseModel):
    """A signal as a review proposes it, before the graph gives it an id and a version."""

    model_config = ConfigDict(frozen=True)

    kind: SignalKind
    text: str = Field(min_length=1)  # the sentence as it stands in the passage
    passage: Passage  # required: a signal without a passage is rejected like any fact
    said_at: datetime | None = None  # the message time the sentence was written at
    who: str = ""  # the person who committed / raised it (a name as the source gives it)
    who_entity_id: str | None = None
    what: str = ""  # commitment: the promised work; blocker/risk: what it is about
    due: datetime | None = None  # commitment: the promised time, resolved; None if unknown
    due_text: str = ""  # the time phrase as written (周四, tomorrow)
    blocks: str = ""  # blocker/risk: what it blocks
    # difference: the field with its confirmed and proposed values
    target_kind: str = ""
    target_id: str = ""
    field: str = ""
    confirmed_value: str = ""
    proposed_value: str = ""
    suggestion_id: str = ""  # difference: the pending suggestion a person settles

    @model_validator(mode="after")
    def _complete(self) -> SignalDraft:
        if self.kind is SignalKind.DIFFERENCE and not (self.target_id and self.field):
            raise ValueError("a difference names its target and field")
        if self.due is not None and (self.due.tzinfo is None or self.due.utcoffset() is None):
            raise ValueError("a due time must carry a time zone")
        return self

    @property
    def subject(self) -> str:
        """What the signal is about, for matching it with an open concern."""
        if self.kind is SignalKind.DIFFERENCE:
            return f"{self.target_kind}:{self.target_id}:{self.field}"
        return self.what or self.text

    @property
    def fingerprint(self) -> str:
        """Stable identity of one signal: the same passage and kind is the same signal.

        A repeated review of the same message, a retried job or a second worker finds the
        same fingerprint, so one passage never yields two signals (nor two concerns).
        """
        p = self.passage
        if p.key:  # the same words read again (a re-review, a new version) are this signal
            base = f"{self.kind}|{p.source_id}|passage:{p.key}"
        else:
            base = f"{self.kind}|{p.source_id}|{p.source_version}|{p.locator}"
        if self.kind is SignalKind.DIFFERENCE:
            base += f"|{self.target_id}|{self.field}|{self.proposed_value}"
        return base


class SignalDecision(BaseModel):
    """What the agenda decided for one signal, with the policy version that decided."""

    model_config = ConfigDict(frozen=True)

    kind: DecisionKind
    policy_version: int = Field(ge=1)
    concern_id: str | None = None  # raised / supplemented
    reason: str = ""  # why: the rule that applied, or why nothing was done

    @model_validator(mode="after")
    def _concern_named(self) -> SignalDecision:
        concern_kinds = (DecisionKind.RAISED, DecisionKind.SUPPLEMENTED)
        if self.kind in concern_kinds and not self.concern_id:
            raise ValueError(f"a {self.kind} decision names its concern")
        if self.kind is DecisionKind.IGNORED and not self.reason:
            raise ValueError("an ignored signal says why")
        return self

    def label(self) -> str:
        """`raised con-1`, `supplemented con-1`, `ignored: no due time`."""
        if self.kind in (DecisionKind.IGNORED, DecisionKind.REPORTED):
            return f"{self.kind}: {self.reason}"
        return f"{self.kind} {self.concern_id}"
