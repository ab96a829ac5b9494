"""Prompts for the HTTP model: the same tasks the offline rule model answers.

The system prompts restate the tables the rule model implements (how a reply reads and
whether it meets the goal: docs/rules/concerns.md#the-loop; `owner_update`:
docs/rules/concerns.md#progress-reports), so a real model and the offline model are asked the
same question and answer in the same shape (LoopOutput / Extraction).
"""

from __future__ import annotations

import json

from engine.llm.messages import ChatMessage, ChatRequest
from engine.llm.tasks import LoopContext, ReviewDocument

LOOP_SYSTEM = """You run one turn of a follow-up agent loop. Read the goal and the whole
conversation log, then decide:
- goal_met: is the goal achieved? Rules: a goal asking for a specific time is NOT met by a
  vague time ("大概这两天", "soon") -> follow up for a date; a goal asking for confirmation
  IS met by "好"/"OK"; indirect evidence counts (a GitLab merge event means 提测 happened);
  "complete A and B" with only A done is NOT met -> ask about B; if the initiator says
  "算了不用问了"/"never mind", step is "drop" and nothing is reported back.
- attitude of the counterpart: committed ("好的，明天给你": wait until the promised time,
  set promised_at), vague ("我看看"/"嗯": normal interval), resistant_working ("别催了"/
  "已经在做了": softer tone, longer interval), silent (no reply; after 3 unanswered
  messages consider another channel or escalation), none.
- step: resolve | follow_up | wait | investigate | escalate | drop, and next_action.
- summary; conclusion (one sentence) and key_information (the counterpart's core reply)
  for the report back; owner_update only when the initiator must know or decide something
  now, otherwise an empty string.
- messages: what to send now, each {person_id, text}, only to people listed in the request;
  write as a person would ("老板想了解一下 v2.0 什么时候能提测？"), worded from `request`
  (what the initiator asked), never pasting the goal sentence. Answering a fresh reply is
  fine; do not chase someone who just said "我看看" or "别催了" (use step "wait").
- done_person_ids and findings ({person_id: what they said}) for people whose part is done.
- reading: when the request carries a `subject` (the promise, blocker, risk or difference
  this concern follows up), read the counterpart's NEWEST reply against it and against the
  question we asked (our last outbound message): {outcome: met | not_yet | moved | dropped
  | unclear, line: the 1-based position of that reply in conversation_log, choice:
  "current" | "proposed" for a difference, happened_at when it says when it happened,
  new_due and due_text when it names a new, later time}. met only when the reply states
  it (done / resolved / which value holds); a question back ("提测了吗？"), a conditional
  ("如果明天能…"), a plan ("准备提测"), a negation, a bare acknowledgement ("好的") or a
  reply about something else is unclear or not_yet. A moved promise is not met: step
  "wait", next_action.when and promised_at the new time. A reading is evidence, not a
  verdict: never resolve on anything but met.
`replied_by` names whose reply triggered this turn; `counterparts` carry each person's
context slice.
Times are in the timezone given; write datetimes as ISO 8601 with offset."""

REVIEW_SYSTEM = """Extract facts and entities from the source text for a knowledge graph.
Each fact is one sentence of the source with its character span, a kind (commitment,
decision, blocker, risk, done, question, plan, statement), the local ids of the entities it
mentions, and the time it names if any. Entities have a local id (e1, e2, ...) valid only in
this answer, a name as written, a kind, and their mention spans. Never merge two entities
because their names are equal unless they are the same thing in this text."""


def loop_request(ctx: LoopContext) -> ChatRequest:
    payload = ctx.model_dump(mode="json")
    return ChatRequest(
        messages=[
            ChatMessage.system(LOOP_SYSTEM),
            ChatMessage.user(json.dumps(payload, ensure_ascii=False)),
        ],
        temperature=0.0,
    )


def review_request(doc: ReviewDocument) -> ChatRequest:
    return ChatRequest(
        messages=[
            ChatMessage.system(REVIEW_SYSTEM),
            ChatMessage.user(json.dumps(doc.model_dump(mode="json"), ensure_ascii=False)),
        ],
        temperature=0.0,
    )
