"""The concern use cases (docs/rules/concerns.md), in the shape every domain follows
(jobs/README.md).

- `commands`: what the cognitive hub and conversations ask (raise, advance with a reply,
  report a fact, upsert a person, request a scheduler run) and the reads of concerns
  (find, list, agenda, messages of a person).
- `context`: a person's conversation context (GraphQL `conversationContext`, the MCP
  resource).
- `loop`: one agent-loop turn; `scheduler`: the scheduler's scans and outbox delivery;
  `channel`: where outbox rows go.
- `effects`: the jobs a use case enqueues after its transaction committed, under stable ids.
- `agenda`: what a signal's recorded decision asks of the concerns (raise, supplement, report);
  `answers`: a signal concern's answer written back into the story graph, through the review
  of its conversation (`jobs/review/conversation.py`).
"""
