"""Dismissals remembered, inside the transactions that need them: a dismissal
writes its fingerprints (`story/write_dismissals`); a publish reads those of the targets it
is about to propose changes to (`story/dismissals_of`) and lets `engine.story.dismissals`
mark repeats before its suggestions are written."""

from __future__ import annotations

from datetime import datetime

from neo4j import AsyncManagedTransaction

from engine.story import dismissals as decide
from engine.story.models import Reference, Suggestion
from engine.story.publish import PublishPlan
from graph.base import Store
from graph.story.codec import decode, from_props


async def remember(
    store: Store, tx: AsyncManagedTransaction, suggestion: Suggestion, now: datetime
) -> None:
    """Keep a dismissal by fingerprint, one per passage the suggestion cites."""
    rows = await store.rows(
        tx,
        "inbox/evidence",
        scope=suggestion.scope,
        items=[
            {
                "id": suggestion.id,
                "target": suggestion.target_id,
                "result": suggestion.result_id,
            }
        ],
    )
    cited = [from_props(Reference, r["r"]) for r in rows]
    # the evidence query reads a field suggestion's passages through its target: mark them
    # as the suggestion's own, so the fingerprint sees every passage it cited
    cited = [r.model_copy(update={"owner_id": suggestion.id}) for r in cited]
    await store.rows(
        tx, "story/write_dismissals", rows=decide.dismissal_rows(suggestion, cited, now)
    )


async def recall(store: Store, tx: AsyncManagedTransaction, plan: PublishPlan) -> None:
    """Mark the plan's proposals that repeat a dismissed one, and leave out those a pending
    suggestion already makes (in place, before writing)."""
    if not plan.suggestions:
        return
    rows = await store.rows(
        tx,
        "story/pending_suggestions_for",
        scope=plan.result.scope,
        as_of=plan.result.recorded_at,
        ids=sorted({s.target_id for s in plan.suggestions}),
    )
    if rows:
        plan.suggestions, plan.references = decide.pending_repeats(
            plan.suggestions,
            plan.references,
            [decode(Suggestion, r["v"], believed=True) for r in rows],
        )
    pairs = sorted({(s.target_id, s.field) for s in plan.suggestions})
    rows = await store.rows(
        tx,
        "story/dismissals_of",
        scope=plan.result.scope,
        pairs=[{"target": t, "field": f} for t, f in pairs],
    )
    if rows:
        plan.suggestions = decide.recall(
            plan.suggestions, plan.references, [dict(r["d"]) for r in rows]
        )
