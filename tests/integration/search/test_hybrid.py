"""Hybrid search over the real Neo4j, a real arq worker and the
prompt-grounded embeddings stand-in (tests/support/grounded_embeddings.py): what a person
searching would notice — a paraphrase found that the words alone miss, the time slice held
by vector hits too, lexical search that keeps working through an outage and says so, and a
backfill that embeds what is missing with its progress."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from arq import Retry
from arq.connections import ArqRedis
from neo4j import AsyncDriver

from engine.errors import Conflict
from engine.principal import WORKER, Principal
from engine.search.ranking import RRF_K, HitKind, Standing, fused_rank
from engine.search.vectors import SearchMode, VectorState, check_vectors
from engine.settings import Settings
from graph.llm.ledger import CostLedger
from graph.search.vectors import VectorStore
from graph.story import StoryRepository
from jobs.deps import Deps
from jobs.llm.embeddings import build_embedder
from jobs.search.embed import embed_scope
from jobs.search.reads import SearchAsk, search
from jobs.story.writes import upsert_source
from jobs.tasks.search_embed import embed_scope as embed_task
from jobs.worker import create_worker, worker_context
from tests.support.grounded_embeddings import EMBED_MODEL, GroundedEmbeddingServer, grams
from tests.support.story import T0, source

READER = Principal("reader-h", frozenset({"*"}), frozenset({"reader"}))
EDITOR = Principal("editor-h", frozenset({"*"}), frozenset({"editor"}))
LINES = (
    "张三：支付回调接口明天联调\n"
    "李四：the callback interface times out under load\n"
    "王五：reconciliation report is ready"
)
# a misspelt word and another word form: neither a word nor a stem of it is in the text, so
# lexical search (english analyzer: "timing" would find "times") finds nothing
PARAPHRASE = "callbak timeouts"


async def _hits(deps: Deps, scope: str, text: str, **kw: object):  # type: ignore[no-untyped-def]
    _, page = await search(deps, READER, scope, SearchAsk(text=text, first=20), **kw)  # type: ignore[arg-type]
    return page


async def test_without_an_endpoint_search_is_lexical_and_says_so(
    repo: StoryRepository, deps: Deps, scope: str
) -> None:
    await repo.upsert_source(source(scope, text=LINES), now=T0)
    page = await _hits(deps, scope, "callback")
    assert page.mode is SearchMode.LEXICAL
    assert page.note is not None and "EMBEDDING_BASE_URL" in page.note
    assert [h.passage_ref.locator for h in page.items if h.passage_ref] == ["lines:2-2"]
    assert all(h.similarity is None for h in page.items)


async def test_writes_are_embedded_by_the_worker_and_hybrid_finds_a_paraphrase(
    hybrid_deps: Deps,
    embedding_settings: Settings,
    embeddings: GroundedEmbeddingServer,
    pool: ArqRedis,
    scope: str,
) -> None:
    writer = Deps(
        settings=embedding_settings, driver=hybrid_deps.driver, pool=pool, clock=hybrid_deps.clock
    )
    await upsert_source(writer, EDITOR, source(scope, text=LINES).model_dump(mode="json"))
    lexical = await _hits(hybrid_deps, scope, PARAPHRASE)
    assert lexical.items == []  # not embedded yet, and no word of it is in the text
    worker = create_worker(embedding_settings, burst=True, crons=False)
    try:
        await worker.async_run()
    finally:
        await worker.close()
    # the stand-in was sent the lines themselves: their vectors come from their text
    assert set(LINES.splitlines()) <= set(embeddings.inputs)
    page = await _hits(hybrid_deps, scope, PARAPHRASE)
    assert page.mode is SearchMode.HYBRID and page.note is None
    assert page.items, "hybrid search found nothing for the paraphrase"
    top = page.items[0]
    assert top.passage_ref is not None and top.passage_ref.locator == "lines:2-2"
    assert top.score == 0.0 and top.similarity is not None and top.similarity >= 0.3
    assert top.rank == pytest.approx(fused_rank(None, 1, Standing.CONFIRMED, True))
    # a word both lists find ranks by both: 1/(k+1) + 1/(k+1)
    both = await _hits(hybrid_deps, scope, "callback interface")
    assert both.items[0].passage_ref and both.items[0].passage_ref.locator == "lines:2-2"
    assert both.items[0].rank == pytest.approx(2 / (RRF_K + 1))


async def test_hybrid_search_as_of_never_returns_later_text(
    repo: StoryRepository, hybrid_deps: Deps, embedder: object, scope: str
) -> None:
    await repo.upsert_source(source(scope, text="李四：the callback interface is slow"), now=T0)
    later = T0 + timedelta(hours=1)
    await repo.upsert_source(
        source(scope, "conv-2", text="王五：callbacks timing out again"), now=later
    )
    await embed_scope(hybrid_deps, WORKER, hybrid_deps.embedder, scope)  # type: ignore[arg-type]
    before = await _hits(hybrid_deps, scope, "callbacks timing", as_of=T0 + timedelta(minutes=30))
    assert before.mode is SearchMode.HYBRID
    assert {h.passage_ref.source_id for h in before.items if h.passage_ref} == {"conv-1"}
    now = await _hits(hybrid_deps, scope, "callbacks timing")
    assert {h.passage_ref.source_id for h in now.items if h.passage_ref} == {"conv-1", "conv-2"}
    kinds = await _hits(hybrid_deps, scope, "callbacks timing", as_of=later)
    assert all(h.kind is HitKind.PASSAGE for h in kinds.items)


async def test_an_outage_keeps_lexical_search_and_the_job_retries_later(
    repo: StoryRepository,
    hybrid_deps: Deps,
    embedding_settings: Settings,
    embeddings: GroundedEmbeddingServer,
    neo4j_driver: AsyncDriver,
    scope: str,
) -> None:
    await repo.upsert_source(source(scope, text=LINES), now=T0)
    embeddings.down = True
    page = await _hits(hybrid_deps, scope, "callback")
    # the endpoint is down: the words still find the line, and the answer says why lexical
    assert [h.passage_ref.locator for h in page.items if h.passage_ref] == ["lines:2-2"]
    assert page.mode is SearchMode.LEXICAL and page.note is not None
    async with httpx.AsyncClient() as http:
        ctx = worker_context(embedding_settings, driver=neo4j_driver, http=http)
        with pytest.raises(Retry):
            await embed_task(ctx, scope=scope)
        store = VectorStore(neo4j_driver, embedding_settings.neo4j_database)
        failed = (await store.runs(scope))[0]
        assert failed.status == "failed" and "still failing" in (failed.error or "")
        assert await store.count_missing(scope) == 3
        embeddings.down = False
        done = await embed_task(ctx, scope=scope)
    assert done["status"] == "completed" and done["embedded"] == 3 and done["missing"] == 0
    found = await _hits(hybrid_deps, scope, PARAPHRASE)
    assert found.mode is SearchMode.HYBRID
    assert [h.passage_ref.locator for h in found.items if h.passage_ref][:1] == ["lines:2-2"]


async def test_backfill_embeds_what_is_missing_and_reports_progress(
    repo: StoryRepository, hybrid_deps: Deps, embeddings: GroundedEmbeddingServer, scope: str
) -> None:
    lines = "\n".join(f"第{i}条：the release checklist item {i}" for i in range(10))
    await repo.upsert_source(source(scope, text=lines), now=T0)
    store = VectorStore(hybrid_deps.driver, hybrid_deps.database)
    assert await store.count_missing(scope) == 10
    seen: list[tuple[int, int]] = []
    report = await embed_scope(
        hybrid_deps,
        WORKER,
        hybrid_deps.embedder,  # type: ignore[arg-type]
        scope,
        progress=lambda done, left: seen.append((done, left)),
    )
    assert seen == [(4, 6), (8, 2), (10, 0)]  # EMBEDDING_BATCH_SIZE 4
    assert (report.status, report.embedded, report.missing) == ("completed", 10, 0)
    run = (await store.runs(scope))[0]
    assert (run.id, run.status, run.embedded, run.missing) == (report.run_id, "completed", 10, 0)
    assert run.finished_at is not None
    # a new version adds one line: only that one is embedded the next time
    await repo.upsert_source(
        source(scope, version="v2", text=lines + "\nnew line about rollback"),
        now=T0 + timedelta(minutes=5),
    )
    embeddings.inputs.clear()
    again = await embed_scope(hybrid_deps, WORKER, hybrid_deps.embedder, scope)  # type: ignore[arg-type]
    assert again.embedded == 11 and embeddings.inputs.count("new line about rollback") == 1
    assert set(embeddings.inputs) <= set(lines.splitlines()) | {"new line about rollback"}
    nothing = await embed_scope(hybrid_deps, WORKER, hybrid_deps.embedder, scope)  # type: ignore[arg-type]
    assert (nothing.status, nothing.run_id) == ("nothing", None)


async def test_other_scopes_crowding_the_neighbours_do_not_hide_a_scopes_own(
    repo: StoryRepository, hybrid_deps: Deps, neo4j_driver: AsyncDriver, scope: str
) -> None:
    """Neo4j's vector index cannot be filtered by scope: the nearest neighbours of every scope
    come first. Here 30 lines of 6 other scopes are all nearer the query than this scope's own
    line; the search asks for 5 neighbours and grows its depth until the scope has its own."""
    await repo.upsert_source(source(scope, text=LINES), now=T0)
    others = [f"{scope}-other-{i}" for i in range(6)]
    embedder = hybrid_deps.embedder
    assert embedder is not None
    try:
        for i, other in enumerate(others):
            crowd = "\n".join(f"{PARAPHRASE} {i}{j}" for j in range(5))
            await repo.upsert_source(source(other, text=crowd), now=T0)
            await embed_scope(hybrid_deps, WORKER, embedder, other)
        await embed_scope(hybrid_deps, WORKER, embedder, scope)
        shallow = {"search_vector_candidates": 5}
        grows = replace(hybrid_deps, settings=hybrid_deps.settings.model_copy(update=shallow))
        page = await _hits(grows, scope, PARAPHRASE)
        assert page.mode is SearchMode.HYBRID
        assert [h.passage_ref.locator for h in page.items if h.passage_ref] == ["lines:2-2"]
        # the same search held at 5 neighbours sees only the other scopes' lines: nothing
        fixed = {**shallow, "search_vector_max_candidates": 5}
        held = replace(hybrid_deps, settings=hybrid_deps.settings.model_copy(update=fixed))
        assert (await _hits(held, scope, PARAPHRASE)).items == []
    finally:
        await neo4j_driver.execute_query(
            "MATCH (n) WHERE n.scope IN $others DETACH DELETE n",
            others=others,
            database_=hybrid_deps.database,
        )


async def test_vectors_of_another_model_are_refused() -> None:
    stored = VectorState(model=EMBED_MODEL, dimensions=256)
    check_vectors(stored, EMBED_MODEL, 256)
    check_vectors(VectorState(None, None), "other", 8)
    with pytest.raises(Conflict, match="backfill --reset"):
        check_vectors(stored, EMBED_MODEL, 512)
    with pytest.raises(Conflict, match="backfill --reset"):
        check_vectors(stored, "other-model", 256)


async def test_every_embedding_request_is_in_the_cost_ledger(
    repo: StoryRepository,
    hybrid_deps: Deps,
    embeddings: GroundedEmbeddingServer,
    scope: str,
) -> None:
    """for hybrid search: an embed run's requests (stage `embedding`, charged
    to the run) and a search's query embedding (`search_query`) are ledger entries with the
    tokens the endpoint reported; the stand-in's request count equals the ledger's calls."""
    lines = "\n".join(f"第{i}条：the release checklist item {i}" for i in range(10))
    await repo.upsert_source(source(scope, text=lines), now=T0)
    ledger = CostLedger(hybrid_deps.driver, hybrid_deps.database)
    since = datetime.now(UTC) - timedelta(minutes=1)
    asked = embeddings.embedding_calls
    report = await embed_scope(hybrid_deps, WORKER, hybrid_deps.embedder, scope)  # type: ignore[arg-type]
    await _hits(hybrid_deps, scope, PARAPHRASE)
    sent = embeddings.embedding_calls - asked
    lines_paid = await ledger.in_scope(scope, since, datetime.now(UTC) + timedelta(minutes=1))
    by_stage = {(x.stage, x.run_id): x.cost for x in lines_paid}
    assert set(by_stage) == {("embedding", report.run_id), ("search_query", None)}
    assert by_stage[("embedding", report.run_id)].calls == 3  # 10 texts, batches of 4
    assert by_stage[("search_query", None)].calls == 1
    assert sum(c.calls for c in by_stage.values()) == sent
    # the tokens are the ones the endpoint reported: one per character n-gram it embedded
    texts = lines.splitlines()
    assert by_stage[("embedding", report.run_id)].prompt_tokens == sum(len(grams(t)) for t in texts)
    assert by_stage[("search_query", None)].prompt_tokens == len(grams(PARAPHRASE))
    assert all(c.estimated_calls == 0 for c in by_stage.values())


async def test_a_text_too_long_is_cut_at_a_sentence_end_and_the_run_says_so(
    repo: StoryRepository,
    neo4j_driver: AsyncDriver,
    embedding_settings: Settings,
    embeddings: GroundedEmbeddingServer,
    scope: str,
) -> None:
    settings = embedding_settings.model_copy(
        update={"embedding_max_chars": 120, "embedding_input_type": True}
    )
    first = "Bart danced at the Christmas party and everyone loved it."
    line = f"{first} {'Then the band played until the lights went out and nobody left. ' * 3}"
    await repo.upsert_source(source(scope, text=f"{line}\n短句"), now=T0)
    before = len(embeddings.requests)
    async with httpx.AsyncClient() as http:
        embedder = build_embedder(settings, http)
        assert embedder is not None
        deps = Deps(settings=settings, driver=neo4j_driver, pool=None, embedder=embedder)
        report = await embed_scope(deps, WORKER, embedder, scope)
        assert report.status == "completed" and report.cut == 1
        run = (await VectorStore(neo4j_driver, settings.neo4j_database).runs(scope))[0]
        assert run.cut == 1 and run.status == "completed"
        # the model was sent whole sentences, each under the limit, marked as passages
        sent = [t for t in embeddings.inputs if t.startswith("Bart")]
        assert sent and all(len(t) <= 120 and t.endswith(".") for t in sent)
        assert sent[0].startswith(first) and "短句" in embeddings.inputs
        stored = [r.body for r in embeddings.requests[before:]]
        assert {b.get("input_type") for b in stored} == {"passage"}
        # a search's text goes as a query; the answer is hybrid and finds the line
        page = await _hits(deps, scope, PARAPHRASE)
        assert embeddings.requests[-1].body["input_type"] == "query"
        assert page.mode is SearchMode.HYBRID
