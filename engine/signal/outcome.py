"""A signal's concern ended: what its answer writes into the story graph.

A reply is evidence, never a verdict (`docs/rules/loop-standing.md`). What people say in a
concern enters the story graph the way every message does: the concern's conversation is a
source of its scope (kind conversation, one line per message, `[time] speaker: text`), and a
supervision run reviews its new lines with the signal they may settle (`Review`,
`jobs/review/conversation.py`). What the review proposes is written in its result
transaction, `by` that run and under its result, never by the person who answered (`by
PERSON` is what an authenticated person did through the API or the graph view), citing the
answer by its line (`lines:N-N`, the locator every line-addressed source uses,
`engine/story/sources.cut`):
- a commitment kept ("已经提测了") -> an event "前端部分已提测" at the time the person says it
  happened, citing the line; the signal `kept`;
- a commitment moved ("推迟到周五") -> an event "前端部分提测推迟到周五", citing the line; the same
  signal is due at the new time, still open, and its concern's next action moves with it;
- a difference answered -> the answer is quoted evidence on the pending difference
  ("张三在跟进事项 c1 中答复：对，已经交给李四了", a reference to its line), which stays pending
  for someone with the editor role to accept or dismiss: a reply never changes
  person-confirmed or person-edited content and never decides an inbox item; the signal
  `settled` (it has its answer);
- the concern dropped or escalated, or resolved without an answer that can be read (indirect
  evidence, a model that resolved on "好") -> the signal `unresolved`: visible, nothing
  asserted, no story object written (the loop's own bookkeeping, `by` the concern's run).
The reading of the answer is `engine/signal/answers.py`, the same one the offline model's
goal check uses (`engine/offline/signal_goals.py`): nothing unclear is taken as met.

Writing twice is impossible by construction: a signal already settled by this concern yields
no plan, and every id derives from the concern (`concern:<id>:answer`), so a retried or
redelivered job writes the outcome once.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from engine.concern.model import Concern, ConcernStatus, ConversationEntry, Direction
from engine.language.when import localize
from engine.llm.reading import ReplyOutcome
from engine.signal.answers import (
    CommitmentAnswer,
    CommitmentReading,
    DifferenceAnswer,
)
from engine.signal.binding import SpeakerIn
from engine.signal.derive import kept_title, split_speaker
from engine.signal.model import SignalDraft, SignalKind, SignalStatus
from engine.signal.stored import Signal
from engine.story.corrections import next_version
from engine.story.models import (
    CONCERN_SOURCE_PREFIX,
    Actor,
    Entity,
    Event,
    ObjectKind,
    Reference,
    Relation,
    Source,
    SourceKind,
    SourceVersion,
    Suggestion,
    make_id,
)

SETTLED = frozenset(
    {SignalStatus.KEPT, SignalStatus.CHANGED, SignalStatus.SETTLED, SignalStatus.ANSWERED}
)
ENDED = frozenset({ConcernStatus.RESOLVED, ConcernStatus.DROPPED, ConcernStatus.ESCALATED})

TEXT = {
    "zh": {
        "us": "跟进",
        "moved": "{what}推迟到{when}",
        "answered": "{name}在跟进事项 {concern} 中答复",
        "evidence": "{name} 在跟进中答复：{text}",
        "why": "{name}在跟进事项 {concern} 中的答复（第 {line} 行）：{text}",
        "unresolved": "跟进事项 {concern} {status}，未得到可写回的答复",
        "gone": "差异已在别处处理，答复未写回",
    },
    "en": {
        "us": "follow-up",
        "moved": "{what} moved to {when}",
        "answered": "{name} answered in concern {concern}",
        "evidence": "{name} answered in the follow-up: {text}",
        "why": "{name}'s answer in concern {concern} (line {line}): {text}",
        "unresolved": "concern {concern} {status} without an answer to write back",
        "gone": "the difference was settled elsewhere; the answer was not written back",
    },
}


CONVERSATION_PREFIX = CONCERN_SOURCE_PREFIX  # a concern's conversation: `concern-<concern id>`


def conversation_source_id(concern_id: str) -> str:
    return f"{CONVERSATION_PREFIX}{concern_id}"


def conversation_lines(concern: Concern, tz: str, locale: str = "zh") -> list[str]:
    """One line per message, oldest first: `[local time] speaker: text` (an outbound message
    is spoken by the concern to its person: `跟进→李四`)."""
    us = TEXT.get(locale, TEXT["zh"])["us"]
    lines = []
    for e in concern.conversation_log:
        speaker = e.person_name if e.direction is Direction.INBOUND else f"{us}→{e.person_name}"
        text = " ".join(e.text.split())  # one message, one line
        lines.append(f"[{localize(e.ts, tz).isoformat()}] {speaker}: {text}")
    return lines


def conversation_speakers(concern: Concern) -> list[SpeakerIn]:
    """The speakers of the concern's conversation bound as an app binds its source's
    (`upsertSource(speakers)`): each person who wrote in it, by the name its lines carry, to
    their concern person on the channel they last wrote on. The loop's own voice
    (`跟进→李四`) is nobody's; a name two people wrote under is bound to neither."""
    people: dict[str, dict[str, ConversationEntry]] = {}
    for e in concern.conversation_log:
        if e.direction is Direction.INBOUND and e.person_name.strip() and e.person_id.strip():
            people.setdefault(e.person_name.strip(), {})[e.person_id] = e
    out = []
    for name, by_person in people.items():
        if len(by_person) != 1:
            continue
        (entry,) = by_person.values()
        person = concern.person(entry.person_id)
        out.append(
            SpeakerIn(
                name=name,
                person_id=entry.person_id,
                channel=entry.channel or (person.last_channel if person else ""),
                display_name=person.display_name if person else name,
            )
        )
    return out


class Answer(BaseModel):
    """The line that answers the signal's question, and what it says."""

    model_config = ConfigDict(frozen=True)

    line: int  # 1-based line of the conversation source
    entry: ConversationEntry
    commitment: CommitmentReading | None = None
    choice: DifferenceAnswer | None = None

    @property
    def locator(self) -> str:
        return f"lines:{self.line}-{self.line}"


def find_answer(signal: Signal, concern: Concern) -> Answer | None:
    """The reply the loop read definitely (`Concern.reading`, the configured model's reading
    or, with none, the offline rules'), from a counterpart; None if there is none. The words
    are never read again here."""
    reading = concern.reading
    if reading is None or not reading.definite or reading.line is None:
        return None
    log = concern.conversation_log
    if not 1 <= reading.line <= len(log):
        return None
    e = log[reading.line - 1]
    counterparts = {p.person_id for p in concern.counterparts}
    if e.direction is not Direction.INBOUND or e.person_id not in counterparts:
        return None
    if signal.kind is SignalKind.DIFFERENCE:
        if reading.outcome is not ReplyOutcome.MET or reading.choice is None:
            return None
        return Answer(line=reading.line, entry=e, choice=DifferenceAnswer(reading.choice))
    if reading.outcome is ReplyOutcome.MOVED:
        commitment = CommitmentReading(
            outcome=CommitmentAnswer.CHANGED, new_due=reading.new_due, due_text=reading.due_text
        )
    else:
        commitment = CommitmentReading(
            outcome=CommitmentAnswer.KEPT, happened_at=reading.happened_at or e.ts
        )
    return Answer(line=reading.line, entry=e, commitment=commitment)


def suggestion_for(signal: Signal, pending: Sequence[Suggestion]) -> Suggestion | None:
    """The pending suggestion a difference signal stands for, among its target's: the one
    it names by id, else the one with its field and proposed value (as stored, or as a
    person reads them: a holder's names rather than its entity ids)."""
    named = getattr(signal, "suggestion_id", "")
    for s in pending:
        if named and s.id == named:
            return s
    for s in pending:
        shown = getattr(s, "proposed_label", None) or s.proposed_value
        if s.proposed_value == signal.proposed_value and s.field == signal.field:
            return s
        if not named and shown == signal.proposed_value:
            return s
    return None


class Review(BaseModel):
    """The supervision run that reviews a concern's conversation: what it proposes is `by`
    the run, under the run's result (`jobs/review/conversation.py`)."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    result_id: str

    @property
    def by(self) -> Actor:
        return Actor.run(self.run_id)


class OutcomePlan(BaseModel):
    """Everything one ended concern writes for its signal, in one transaction."""

    status: SignalStatus
    signal: Signal  # the signal's new version
    answer: Answer | None = None
    result_id: str | None = None  # the review's result the proposals are written under
    run_id: str | None = None  # the review run that proposed them
    events: list[Event] = Field(default_factory=list)
    references: list[Reference] = Field(default_factory=list)
    drafts: list[SignalDraft] = Field(default_factory=list)  # a moved commitment's new signal
    # the difference's suggestion, still pending, with the answer as its quoted evidence
    suggestion: Suggestion | None = None


def reader_of(concern_id: str) -> Actor:
    """Who the loop's own bookkeeping on a signal is recorded by (an unanswered concern
    leaves it unresolved): the concern loop's run, never a person."""
    return Actor.run(f"concern:{concern_id}")


def needs_review(concern: Concern) -> bool:
    """Whether the concern's reading states something the story graph may record (a kept
    promise, a chosen value, a moved time, from a counterpart's line): only a review of the
    concern's conversation proposes it (`docs/rules/loop-standing.md`)."""
    reading = concern.reading
    if concern.source.signal_id is None or reading is None or not reading.definite:
        return False
    if concern.status is ConcernStatus.RESOLVED:
        ok = reading.outcome is ReplyOutcome.MET
    else:
        ok = concern.status not in ENDED and reading.outcome is ReplyOutcome.MOVED
    if not ok or reading.line is None or not 1 <= reading.line <= len(concern.conversation_log):
        return False
    e = concern.conversation_log[reading.line - 1]
    counterparts = {p.person_id for p in concern.counterparts}
    return e.direction is Direction.INBOUND and e.person_id in counterparts


def conversation_source(
    concern: Concern, scope: str, *, at: datetime, tz: str, locale: str = "zh"
) -> tuple[Source, SourceVersion]:
    """The concern's conversation as a source of its scope (kind conversation, one line per
    message, version `m<messages>`): what its review reads and cites by line."""
    source_id = conversation_source_id(concern.concern_id)
    version = f"m{len(concern.conversation_log)}"
    source = Source(
        id=source_id,
        scope=scope,
        kind=SourceKind.CONVERSATION,
        title=concern.title,
        current_version=version,
    )
    text = "\n".join(conversation_lines(concern, tz, locale))
    return source, SourceVersion(
        scope=scope, source_id=source_id, version=version, text=text, recorded_at=at
    )


def _unresolved(
    signal: Signal, concern: Concern, now: datetime, why: str, review: Review | None = None
) -> OutcomePlan:
    new = next_version(
        signal,
        max(now, signal.recorded_at),
        review.by if review else reader_of(concern.concern_id),
        why,
        status=SignalStatus.UNRESOLVED,
        via_concern=concern.concern_id,
        **({"via_result": review.result_id} if review else {}),
    )
    return OutcomePlan(
        status=SignalStatus.UNRESOLVED,
        signal=new,
        result_id=review.result_id if review else None,
        run_id=review.run_id if review else None,
    )


def decide_outcome(
    signal: Signal,
    concern: Concern,
    *,
    now: datetime,
    locale: str = "zh",
    suggestion: Suggestion | None = None,
    target: Entity | Relation | None = None,
    review: Review | None = None,
) -> OutcomePlan | None:
    """The writes for `signal` now that `concern` ended; None when there is nothing to write
    (the concern has not ended, is not this signal's, or its outcome is already written).

    `suggestion`/`target`: a difference's pending suggestion and its target's current
    version (None when nothing is pending any more). `review`: the run reviewing the
    concern's conversation; without one, an answer that would write story objects writes
    nothing (the loop never writes them on its own: `needs_review`)."""
    t = TEXT.get(locale, TEXT["zh"])
    cid = concern.concern_id
    if concern.source.signal_id != signal.id or signal.status in SETTLED:
        return None
    if concern.status not in ENDED:
        answer = find_answer(signal, concern)
        moved = (
            answer is not None
            and answer.commitment is not None
            and answer.commitment.outcome is CommitmentAnswer.CHANGED
        )
        if not moved or signal.status is not SignalStatus.OPEN:
            return None
        assert answer is not None and answer.commitment is not None
        if answer.commitment.new_due == signal.due or review is None:
            return None  # already moved by this reading, or not by a review
        return _written(signal, concern, answer, now, locale, review, None)
    if concern.status is not ConcernStatus.RESOLVED:
        if signal.status is SignalStatus.UNRESOLVED:
            return None
        why = t["unresolved"].format(concern=cid, status=concern.status.value)
        return _unresolved(signal, concern, now, why)
    answer = find_answer(signal, concern)
    if answer is None or (
        answer.commitment is not None and answer.commitment.outcome is not CommitmentAnswer.KEPT
    ):
        why = t["unresolved"].format(concern=cid, status=concern.status.value)
        return _unresolved(signal, concern, now, why)
    if review is None:
        return None  # a readable answer: the review of the conversation writes it
    if signal.kind is SignalKind.DIFFERENCE and (suggestion is None or target is None):
        return _unresolved(signal, concern, now, t["gone"], review)
    return _written(signal, concern, answer, now, locale, review, suggestion)


def _written(
    signal: Signal,
    concern: Concern,
    answer: Answer,
    now: datetime,
    locale: str,
    review: Review,
    suggestion: Suggestion | None,
) -> OutcomePlan:
    """What a definite reading proposes, by the review's run under its result: the event,
    the moved due time or the quoted evidence, citing the reply's line of the conversation
    source's version the review read."""
    t = TEXT.get(locale, TEXT["zh"])
    cid = concern.concern_id
    e = answer.entry
    by = review.by
    at = max([now, signal.recorded_at] + ([suggestion.recorded_at] if suggestion else []))
    scope = signal.scope
    moving = answer.commitment is not None and answer.commitment.outcome is CommitmentAnswer.CHANGED
    key = f"concern:{cid}:moved:{answer.line}" if moving else f"concern:{cid}:answer"
    result_id = review.result_id
    why = t["why"].format(name=e.person_name, concern=cid, line=answer.line, text=e.text)
    source_id = conversation_source_id(cid)
    version = f"m{len(concern.conversation_log)}"
    plan = OutcomePlan(
        status=SignalStatus.SETTLED,
        signal=signal,
        answer=answer,
        result_id=result_id,
        run_id=review.run_id,
    )

    def cite(owner: ObjectKind, owner_id: str) -> None:
        plan.references.append(
            Reference(
                id=make_id("ref", scope, key, owner.value, owner_id),
                scope=scope,
                result_id=result_id,
                owner_kind=owner,
                owner_id=owner_id,
                source_id=source_id,
                source_version=version,
                locator=answer.locator,
                recorded_at=at,
            )
        )

    if answer.commitment is not None:
        reading = answer.commitment
        _, sentence = split_speaker(signal.text)
        if reading.outcome is CommitmentAnswer.KEPT:
            plan.status = SignalStatus.KEPT
            title = kept_title(sentence, signal.who)
            happened = reading.happened_at or e.ts
        else:  # moved: the same signal is due at the new time, still open
            plan.status = SignalStatus.OPEN
            title = t["moved"].format(what=signal.what or sentence, when=reading.due_text)
            happened = e.ts
        event = Event(
            id=make_id("evt", scope, key),
            scope=scope,
            seq=1,
            recorded_at=at,
            by=by,
            why=why,
            via_result=result_id,
            via_concern=cid,
            title=title,
            description=t["answered"].format(name=e.person_name, concern=cid),
            at=happened,
            result_id=result_id,
        )
        plan.events.append(event)
        cite(ObjectKind.EVENT, event.id)
    else:
        assert suggestion is not None
        quoted = t["evidence"].format(name=e.person_name, text=e.text)
        plan.suggestion = next_version(
            suggestion, at, by, quoted, via_concern=cid, via_result=result_id
        )
        cite(ObjectKind.SUGGESTION, suggestion.id)
    moved: dict[str, object] = {}
    if moving and answer.commitment is not None:
        moved = {"due": answer.commitment.new_due, "due_text": answer.commitment.due_text}
    plan.signal = next_version(
        signal, at, by, why, status=plan.status, via_concern=cid, via_result=result_id, **moved
    )
    return plan
