"""Vectors for hybrid search: computed in the background, after writes.

- `embed_scope` embeds the searchable texts of one scope that have no vector yet, batch by
  batch (EMBEDDING_BATCH_SIZE), recording an embed run (`EmbedRun`: embedded so far, still
  missing, status) after each batch, so its progress shows while it runs. The arq task
  `embed_scope` (jobs/tasks/search_embed.py) runs it after writes and the sweep cron for every
  scope with missing vectors; `storygraph search backfill` runs it from a terminal.
- The first embed creates the vector index with EMBEDDING_DIMENSIONS and records the model;
  vectors of another model or dimension are refused (CONFLICT) until a reset.
- A model outage (the endpoint down, after the retries of
  docs/rules/watches.md#model-connection-errors) fails the run with its reason
  and raises the `ModelError`: the task retries later, nothing half-written is lost (each
  batch committed stays), and lexical search never depended on it.
- `embed_soon` is the effect a write enqueues (after commit), one job per scope at a time.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from engine.llm.errors import ModelError
from engine.llm.ledger import Attribution, Stage
from engine.principal import Principal
from engine.scope import require_scope
from engine.search.vectors import VectorState, check_vectors, embed_text, fit_text
from graph.search.vectors import VectorStore
from jobs.deps import Deps
from jobs.llm.embeddings import Embedder
from jobs.llm.ledger import Meter, metering, settle

log = logging.getLogger("storygraph.search")

EMBED_TASK = "embed_scope"
EMBED_DEFER_S = 2.0  # writes in a burst share one job
ROUND = 5000  # texts read per round of an embed run


Progress = Callable[[int, int], Awaitable[None] | None]


@dataclass(frozen=True)
class EmbedReport:
    scope: str
    run_id: str | None  # None: nothing was missing
    embedded: int
    missing: int  # still without a vector when the run ended
    status: str  # completed, failed, nothing
    error: str | None = None
    cut: int = 0  # texts longer than EMBEDDING_MAX_CHARS, embedded up to a sentence end


def vectors(deps: Deps) -> VectorStore:
    return VectorStore(deps.driver, deps.database)


async def prepare_index(deps: Deps, embedder: Embedder) -> VectorState:
    """The vector index exists and holds this model's vectors (created on first use)."""
    store = vectors(deps)
    state = await store.state()
    check_vectors(state, embedder.model, embedder.dimensions)
    if state.model is None or not await store.index_ready():
        state = await store.create_index(embedder.model, embedder.dimensions, deps.clock())
        check_vectors(state, embedder.model, embedder.dimensions)  # another worker's record
    return state


async def embed_scope(
    deps: Deps,
    principal: Principal,
    embedder: Embedder,
    scope: str,
    *,
    progress: Progress | None = None,
) -> EmbedReport:
    scope = require_scope(principal, "editor", scope)
    store = vectors(deps)
    total = missing = await store.count_missing(scope)
    if missing == 0:
        return EmbedReport(scope=scope, run_id=None, embedded=0, missing=0, status="nothing")
    await prepare_index(deps, embedder)
    run_id = deps.ids("embed")
    await store.start_run(run_id, scope, principal.name, missing, deps.clock())
    # each request is in the cost ledger, charged to the scope and this run, written with the
    # vectors it made (a failed one on its own)
    meter = Meter(Attribution(stage=Stage.EMBEDDING, scope=scope, run_id=run_id))
    embedded = cut = 0
    size = deps.settings.embedding_batch_size
    limit = deps.settings.embedding_max_chars
    try:
        # a round reads up to ROUND texts still missing (one indexed read of the scope), then
        # embeds them batch by batch: linear in the scope, not one scope read per batch
        while found := await store.missing(scope, ROUND):
            for start in range(0, len(found), size):
                batch = found[start : start + size]
                fitted = [fit_text(embed_text(m.fields), limit) for m in batch]
                texts = [text for text, _ in fitted]
                cut += sum(was_cut for _, was_cut in fitted)
                unique = list(dict.fromkeys(texts))
                with metering(meter):
                    answer = await embedder.embed(unique)
                by_text = dict(zip(unique, answer.vectors, strict=True))
                rows = [
                    {"id": m.node_id, "vector": by_text[t]}
                    for m, t in zip(batch, texts, strict=True)
                ]
                embedded += await store.write_vectors(rows, calls=meter.entries())
                meter.paid()
                missing = max(0, total - embedded)
                await store.progress(
                    run_id, embedded=embedded, missing=missing, cut=cut, status="running",
                    now=deps.clock(),
                )  # fmt: skip
                if progress is not None:
                    done = progress(embedded, missing)
                    if done is not None:
                        await done
            if len(found) < ROUND:
                break
        missing = await store.count_missing(scope)  # texts written meanwhile included
    except ModelError as exc:
        await settle(deps.driver, deps.database, meter)
        await store.progress(
            run_id,
            embedded=embedded,
            missing=missing,
            cut=cut,
            status="failed",
            error=exc.message,
            now=deps.clock(),
        )
        log.warning(
            "embed run failed; lexical search is unaffected and the job retries",
            extra={"fields": {"scope": scope, "run_id": run_id, "error": exc.message}},
        )
        raise
    await store.progress(
        run_id, embedded=embedded, missing=missing, cut=cut, status="completed", now=deps.clock()
    )
    return EmbedReport(
        scope=scope, run_id=run_id, embedded=embedded, missing=missing, status="completed", cut=cut
    )


async def scopes_to_embed(deps: Deps, principal: Principal) -> list[str]:
    """Every scope with texts still missing a vector (all scopes: admin, the worker)."""
    principal.require("admin")
    return await vectors(deps).scopes_missing()


async def embed_soon(deps: Deps, scope: str) -> None:
    """After a write committed: one embed job for the scope (a queued one absorbs more)."""
    if deps.pool is None or not deps.settings.embeddings_on:
        return
    await deps.pool.enqueue_job(
        EMBED_TASK,
        scope=scope,
        _job_id=f"embed:{scope}",
        _defer_by=EMBED_DEFER_S,
        _queue_name=deps.settings.queue_name,
    )


async def reset_vectors(deps: Deps, principal: Principal) -> int:
    """Forget every vector, the index and the record of its model (admin): the next embed
    creates them again with the configured model and dimension."""
    principal.require("admin")
    return await vectors(deps).reset()
