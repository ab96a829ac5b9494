"""The review's publish stage records its signals in the publish transaction:
the facts of kind commitment, blocker, risk and question the leaves stated, and every
pending difference the result records, each citing its passage and the run."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from neo4j import AsyncManagedTransaction

from engine.review.manifest import LeafBatch
from engine.review.outputs import LeafOutput
from engine.review.passage import FactKey
from engine.review.types import Segment
from engine.signal.answered import answered_questions
from engine.signal.stored import (
    Signal,
    drafts_from_leaves,
    drafts_from_suggestions,
    fact_people,
)
from engine.story.publish import PublishPlan
from graph.signal.store import SignalStore
from jobs.deps import Deps
from jobs.signal.policy import policies


def signal_store(deps: Deps) -> SignalStore:
    return SignalStore(deps.driver, deps.database)


async def record_review_signals(
    deps: Deps,
    tx: AsyncManagedTransaction,
    plan: PublishPlan,
    leaves: Sequence[tuple[LeafBatch, LeafOutput]],
    segment_times: Mapping[tuple[str, str, int], datetime],
    *,
    run_id: str,
    passages: Mapping[FactKey, str] | None = None,
) -> list[Signal]:
    """Inside the publish transaction (`within`): a repeat records only what is missing,
    which after a committed publish is nothing."""
    people = fact_people(plan, leaves, passages)
    drafts = drafts_from_leaves(leaves, segment_times, deps.settings.timezone, people, passages)
    drafts += drafts_from_suggestions(plan.suggestions, plan.references, deps.settings.locale)
    policy = await policies(deps).current_in(tx, plan.result.scope)
    return await signal_store(deps).record_in(
        tx,
        drafts,
        scope=plan.result.scope,
        run_id=run_id,
        result_id=plan.result.id,
        now=plan.result.recorded_at,
        policy=policy,
    )


async def record_answered_questions(
    deps: Deps,
    tx: AsyncManagedTransaction,
    plan: PublishPlan,
    read: Sequence[Segment],
    texts: Mapping[tuple[str, str], str],
    *,
    run_id: str,
) -> list[Signal]:
    """Inside the publish transaction: the open questions of the sources this review read
    that the person asked answered in the lines it read get their ANSWERED version
    (`engine.signal.answered`). Run before the review's own signals are recorded, so only
    questions an earlier review raised are read; a repeat finds them answered already."""
    store = signal_store(deps)
    scope = plan.result.scope
    open_questions = await store.open_questions_in(tx, scope, {s.source_id for s in read})
    versions = answered_questions(
        open_questions,
        texts,
        read,
        run_id=run_id,
        result_id=plan.result.id,
        now=plan.result.recorded_at,
        locale=deps.settings.locale,
    )
    await store.write_versions_in(tx, versions)
    return versions
