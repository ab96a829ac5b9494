"""Search on real conversations nobody here wrote: storygraph against BM25, dense and hybrid.

    .venv/bin/python -m bench.search_conversations [--embeddings local|standin|none]
                                                   [--other-scopes 100] [--runs 40]

The data is MADial-Bench (NAACL 2025, MIT licence; bench/data/madial/README.md): 160
conversations between a person and an assistant, in English and in Chinese, each with the
turn where the assistant recalls something from the person's memory archive and the archive
entries that turn draws on labelled ("relevant-id"). Each language's archive is pushed as one
conversation source, one line per entry (a passage per line); each conversation's user turns
before that turn are searched for, and a hit is a labelled entry's line.

For each language, in the same run, over the same lines and the same question text:
- storygraph lexical: `search` (the use case), passages only, first 10;
- BM25: `rank_bm25.BM25Okapi` over the lines' lower-cased words less the english analyzer's
  stop words (Chinese: the bigrams of each run, like the `cjk` analyzer);
- dense: the embedding model's cosine between the question ("query") and each line
  ("passage");
- hybrid: `search` with the model, after the scope is embedded by the embed job's code, for
  each similarity floor, fusion weight and candidate depth of the grid; the settings' values
  (settings.py `local_embedding_defaults` for the local model) are marked.
hit@k: the share of questions with a labelled line in the first k; evidence share: the share
of a question's labelled lines in its first 10, averaged.

Then: embedding throughput and query latency of the model, search p50/p95 lexical and hybrid
(the whole questions, and the questions cut to the 200 characters a typed search may have),
and hybrid hit@10 with `--other-scopes` copies of the archive (their vectors copied, so the
vector index holds 100 other scopes' identical neighbours), with the neighbour search growing
its depth and without (depth fixed at SEARCH_VECTOR_CANDIDATES), and p50/p95 there.
`--embeddings local` starts the local model (EMBEDDINGS=local) unless EMBEDDING_BASE_URL is set;
`standin` uses the tests' n-gram stand-in (it measures the plumbing, not a model).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import math
import re
import statistics
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from rank_bm25 import BM25Okapi

from bench.search_quality import drop_scope, pct
from engine.clock import utcnow
from engine.errors import Conflict
from engine.llm.accounting import CallStats
from engine.principal import WORKER, Principal
from engine.search.ranking import HitKind
from engine.search.text import _CJK, ENGLISH_STOP_WORDS, words_of
from engine.search.vectors import fit_text
from engine.settings import Settings
from engine.story.inputs import SourceInput
from engine.story.models import SourceKind
from graph.driver import open_driver
from graph.migrate import migrate
from graph.story.repository import StoryRepository
from jobs.deps import Deps
from jobs.llm.embeddings import Embedded, Embedder, InputType, build_embedder
from jobs.search.embed import embed_scope, reset_vectors
from jobs.search.reads import SearchAsk, search

DATA = Path(__file__).with_name("data") / "madial"
READER = Principal("bench-conv", frozenset({"*"}), frozenset({"reader"}))
ADMIN = Principal("bench-conv-admin", frozenset({"*"}), frozenset({"admin", "editor"}))
LANGS = ("en", "zh")
FLOORS = (0.0, 0.75, 0.8, 0.85)
WEIGHTS = ((1.0, 1.0), (1.0, 2.0), (2.0, 1.0))
DEPTHS = (50, 100)
BATCH = 16  # texts a request (the embed job's batch size is its own setting)
_TURN = re.compile(r'^<([^>]*)>:\s*"?(.*?)"?\s*$', re.S)


@dataclass(frozen=True)
class Case:
    text: str
    relevant: frozenset[int]  # line numbers (1-based) of the labelled archive entries


@dataclass(frozen=True)
class Corpus:
    lang: str
    lines: list[str]
    cases: list[Case]


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def load(lang: str) -> Corpus:
    entries: list[tuple[str, str]] = []
    for row in _jsonl(DATA / f"MADial-Bench-{lang}-memory.jsonl"):
        for key, memory in row.items():
            entries.append((str(key), " ".join(str(memory["event"]).split())))
    line_of = {key: i for i, (key, _) in enumerate(entries, start=1)}
    cases: list[Case] = []
    for d in _jsonl(DATA / f"MADial-Bench-{lang}-dialogue.jsonl"):
        turns = d["dialogue"][1 : min(d["test-turn"])]
        said = [
            m.group(2) for t in turns if (m := _TURN.match(t.strip())) and m.group(1) != "Assistant"
        ]
        relevant = frozenset(line_of[str(r)] for r in d["relevant-id"] if str(r) in line_of)
        if said and relevant:
            cases.append(Case(" ".join(said), relevant))
    return Corpus(lang, [text for _, text in entries], cases)


def bm25_tokens(text: str) -> list[str]:
    out: list[str] = []
    for word in words_of(text):
        if _CJK.search(word):
            out.extend(word[i : i + 2] for i in range(max(1, len(word) - 1)))
        elif word not in ENGLISH_STOP_WORDS:
            out.append(word)
    return out


@dataclass(frozen=True)
class Figures:
    hit1: float
    hit5: float
    hit10: float
    evidence: float

    def row(self, label: str) -> str:
        return (
            f"  {label:<34} {self.hit1:6.3f} {self.hit5:6.3f} {self.hit10:6.3f} "
            f"{self.evidence:9.3f}"
        )


def figures(rankings: Sequence[Sequence[int]], cases: Sequence[Case]) -> Figures:
    n = len(cases)

    def hit(k: int) -> float:
        return sum(bool(set(r[:k]) & c.relevant) for r, c in zip(rankings, cases, strict=True)) / n

    share = sum(len(set(r[:10]) & c.relevant) / len(c.relevant)
                for r, c in zip(rankings, cases, strict=True)) / n  # fmt: skip
    return Figures(hit(1), hit(5), hit(10), share)


def bm25_rankings(corpus: Corpus) -> list[list[int]]:
    index = BM25Okapi([bm25_tokens(x) for x in corpus.lines])
    out = []
    for case in corpus.cases:
        scores = index.get_scores(bm25_tokens(case.text))
        out.append(sorted(range(1, len(corpus.lines) + 1), key=lambda i: -scores[i - 1])[:10])
    return out


class CachingEmbedder:
    """The bench's embedder: the real client, with each text's vector kept, so the grid of
    hybrid settings embeds every question once (`calls` counts the requests really made)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model = inner.model
        self.dimensions = inner.dimensions
        self.cache: dict[tuple[str, str], list[float]] = {}
        self.calls = 0

    async def embed(
        self,
        texts: list[str],
        *,
        deadline_seconds: float | None = None,
        input_type: InputType = "passage",
    ) -> Embedded:
        missing = [t for t in dict.fromkeys(texts) if (input_type, t) not in self.cache]
        for start in range(0, len(missing), BATCH):
            batch = missing[start : start + BATCH]
            self.calls += 1
            got = await self.inner.embed(
                batch, deadline_seconds=deadline_seconds, input_type=input_type
            )
            self.cache.update({(input_type, t): v for t, v in zip(batch, got.vectors, strict=True)})
        return Embedded([self.cache[(input_type, t)] for t in texts], CallStats(model=self.model))


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)) or 1.0)


async def dense_rankings(embedder: CachingEmbedder, corpus: Corpus) -> list[list[int]]:
    lines = (await embedder.embed(corpus.lines, input_type="passage")).vectors
    asked = (await embedder.embed([c.text for c in corpus.cases], input_type="query")).vectors
    out = []
    for q in asked:
        sims = [_cosine(q, v) for v in lines]
        out.append(sorted(range(1, len(lines) + 1), key=lambda i: -sims[i - 1])[:10])
    return out


def _line(locator: str) -> int:
    return int(locator.split(":")[1].split("-")[0])


async def storygraph_rankings(deps: Deps, scope: str, corpus: Corpus) -> list[list[int]]:
    out = []
    for case in corpus.cases:
        ask = SearchAsk(text=case.text, first=10, kinds=[HitKind.PASSAGE])
        _, page = await search(deps, READER, scope, ask)
        out.append([_line(h.passage_ref.locator) for h in page.items if h.passage_ref])
    return out


async def timings(deps: Deps, scope: str, cases: Sequence[Case]) -> tuple[float, float]:
    took = []
    for case in cases:
        t0 = time.perf_counter()
        await search(
            deps, READER, scope, SearchAsk(text=case.text, first=10, kinds=[HitKind.PASSAGE])
        )
        took.append((time.perf_counter() - t0) * 1000)
    return statistics.median(took), pct(took, 0.95)


HEADER = f"  {'':<34} {'hit@1':>6} {'hit@5':>6} {'hit@10':>6} {'evidence':>9}"


async def push(repo: StoryRepository, scope: str, corpus: Corpus) -> None:
    await repo.upsert_source(
        SourceInput(scope=scope, id=f"madial-{corpus.lang}", kind=SourceKind.CONVERSATION,
                    version="v1", text="\n".join(corpus.lines)),
        now=utcnow(),
    )  # fmt: skip


COPY_VECTORS = (
    "MATCH (p:Passage:Embedded) WHERE p.scope = $scope "
    "WITH p.text AS text, p.embedding AS vector "
    "MATCH (o:Passage) WHERE o.scope IN $others AND o.text = text "
    "SET o:Embedded, o.embedding = vector RETURN count(o) AS copied"
)


def model_settings(settings: Settings, mode: str | None) -> tuple[Settings, Any]:
    """The settings naming the endpoint to measure, and what to stop afterwards."""
    if settings.embedding_base_url or mode in (None, "none"):
        return settings, None
    if mode == "standin":
        from tests.support.grounded_embeddings import GroundedEmbeddingServer

        server = GroundedEmbeddingServer(256).start()
        update = {"embedding_base_url": server.base_url, "embedding_model": "grounded-ngrams",
                  "embedding_dimensions": 256, "search_min_similarity": 0.3}  # fmt: skip
        return settings.model_copy(update=update), server
    from local.embeddings_server import LocalEmbeddings

    local = Settings.from_env(embeddings="local")
    status = LocalEmbeddings(local).start()
    print(status.describe(), flush=True)
    return local, None


async def main(mode: str | None, other_scopes: int, runs: int, full_grid: bool = True) -> None:
    settings, standin = model_settings(Settings.from_env(), mode)
    # the questions are a conversation's user side, longer than a typed search
    settings = settings.model_copy(update={"search_max_chars": 4000})
    driver = open_driver(settings)
    run = uuid.uuid4().hex[:6]
    scopes: list[str] = []
    http = httpx.AsyncClient()
    try:
        await migrate(driver, settings.neo4j_database)
        repo = StoryRepository(driver, settings.neo4j_database)
        lexical = Deps(settings=settings, driver=driver, pool=None)
        client = build_embedder(settings, http)
        embedder = CachingEmbedder(client) if client is not None else None
        hybrid = Deps(settings=settings, driver=driver, pool=None, embedder=embedder)
        label = embedder.model if embedder else "none"
        corpora = {lang: load(lang) for lang in LANGS}
        tables: dict[str, dict[str, Figures]] = {}
        lang_scope: dict[str, str] = {}
        for lang, corpus in corpora.items():
            scope = f"bench-conv-{lang}-{run}"
            scopes.append(scope)
            lang_scope[lang] = scope
            await push(repo, scope, corpus)
            table = tables.setdefault(lang, {})
            table["storygraph lexical"] = figures(
                await storygraph_rankings(lexical, scope, corpus), corpus.cases
            )
            table["BM25 (rank_bm25)"] = figures(bm25_rankings(corpus), corpus.cases)
            if embedder is None:
                continue
            t0 = time.perf_counter()
            await embedder.embed(corpus.lines, input_type="passage")
            took = time.perf_counter() - t0
            t0 = time.perf_counter()
            await embedder.embed([c.text for c in corpus.cases], input_type="query")
            asked = time.perf_counter() - t0
            print(f"{lang}: embedded {len(corpus.lines)} lines in {took:.1f} s "
                  f"({len(corpus.lines) / took:.1f} texts/s, batches of {BATCH}); "
                  f"{len(corpus.cases)} whole questions in {asked:.1f} s "
                  f"({len(corpus.cases) / asked:.1f} texts/s)", flush=True)  # fmt: skip
            table[f"dense ({label})"] = figures(
                await dense_rankings(embedder, corpus), corpus.cases
            )
            try:
                await embed_scope(hybrid, WORKER, embedder, scope)
            except Conflict as exc:
                print(f"the store held another model's vectors ({exc.message}); reset", flush=True)
                await reset_vectors(hybrid, ADMIN)
                await embed_scope(hybrid, WORKER, embedder, scope)
        if embedder is not None:
            await grid(settings, driver, embedder, corpora, lang_scope, tables, full_grid)
        for lang, table in tables.items():
            print(f"\nMADial-Bench {lang}: {len(corpora[lang].cases)} questions, "
                  f"{len(corpora[lang].lines)} lines (embeddings: {label})")  # fmt: skip
            print(HEADER)
            for name, fig in table.items():
                print(fig.row(name))
        await speed(settings, driver, embedder, corpora, lang_scope, runs, "1 scope")
        if embedder is not None and other_scopes:
            others = [f"bench-conv-other-{run}-{i}" for i in range(other_scopes)]
            scopes.extend(others)
            t0 = time.perf_counter()
            for lang, corpus in corpora.items():
                for other in others:
                    await push(repo, other, corpus)
                found, _, _ = await driver.execute_query(
                    COPY_VECTORS, scope=lang_scope[lang], others=others,
                    database_=settings.neo4j_database,
                )  # fmt: skip
                print(f"{lang}: {len(others)} other scopes, {found[0]['copied']} vectors copied",
                      flush=True)  # fmt: skip
            print(f"other scopes written in {time.perf_counter() - t0:.0f} s", flush=True)
            for name, upd in (
                ("depth grows", {}),
                (
                    "depth fixed",
                    {"search_vector_max_candidates": settings.search_vector_candidates},
                ),
            ):
                s = settings.model_copy(update=upd)
                deps = Deps(settings=s, driver=driver, pool=None, embedder=embedder)
                for lang, corpus in corpora.items():
                    fig = figures(await storygraph_rankings(deps, lang_scope[lang], corpus),
                                  corpus.cases)  # fmt: skip
                    one = tables[lang]["storygraph hybrid (settings)"]
                    print(f"{lang} hybrid with {len(others)} other scopes, {name}: hit@10 "
                          f"{fig.hit10:.3f} (1 scope {one.hit10:.3f}), evidence "
                          f"{fig.evidence:.3f}", flush=True)  # fmt: skip
            await speed(settings, driver, embedder, corpora, lang_scope, runs,
                        f"{len(others) + 1} scopes")  # fmt: skip
    finally:
        await http.aclose()
        if standin is not None:
            standin.stop()
        for scope in scopes:
            await drop_scope(driver, settings.neo4j_database, scope)
        await driver.close()


async def grid(
    settings: Settings,
    driver: Any,
    embedder: CachingEmbedder,
    corpora: dict[str, Corpus],
    lang_scope: dict[str, str],
    tables: dict[str, dict[str, Figures]],
    full: bool,
) -> None:
    """Hybrid over the grid of floor, weights and depth (`full`; else the settings' values
    alone); the settings' own values marked."""
    print(f"\nhybrid grid (hit@10 en / zh, evidence en / zh); settings: floor "
          f"{settings.search_min_similarity}, weights {settings.search_lexical_weight}/"
          f"{settings.search_vector_weight}, depth "
          f"{settings.search_vector_candidates}")  # fmt: skip
    combos = [(settings.search_min_similarity, (settings.search_lexical_weight,
               settings.search_vector_weight), settings.search_vector_candidates)]  # fmt: skip
    if full:
        combos += [(f, w, d) for f in FLOORS for w in WEIGHTS for d in DEPTHS
                   if (f, w, d) != combos[0]]  # fmt: skip
    best: tuple[float, str] | None = None
    for i, (floor, (wl, wv), depth) in enumerate(combos):
        s = settings.model_copy(update={"search_min_similarity": floor, "search_lexical_weight": wl,
                                        "search_vector_weight": wv,
                                        "search_vector_candidates": depth})  # fmt: skip
        deps = Deps(settings=s, driver=driver, pool=None, embedder=embedder)
        got = {lang: figures(await storygraph_rankings(deps, lang_scope[lang], c), c.cases)
               for lang, c in corpora.items()}  # fmt: skip
        name = f"floor {floor:.2f} w {wl:g}/{wv:g} depth {depth}"
        print(f"  {name:<34} {got['en'].hit10:.3f} / {got['zh'].hit10:.3f}   "
              f"{got['en'].evidence:.3f} / {got['zh'].evidence:.3f}"
              + ("   <- settings" if i == 0 else ""), flush=True)  # fmt: skip
        mean = (got["en"].hit10 + got["zh"].hit10) / 2
        if best is None or mean > best[0]:
            best = (mean, name)
        if i == 0:
            for lang in corpora:
                tables[lang]["storygraph hybrid (settings)"] = got[lang]
    if best is not None:
        print(f"  best mean hit@10: {best[1]} ({best[0]:.3f})")


async def speed(
    settings: Settings,
    driver: Any,
    embedder: CachingEmbedder | None,
    corpora: dict[str, Corpus],
    lang_scope: dict[str, str],
    runs: int,
    label: str,
) -> None:
    """p50/p95 of search, lexical and hybrid (the query really embedded: no cache)."""
    lexical = Deps(settings=settings, driver=driver, pool=None)
    real = None if embedder is None else embedder.inner
    hybrid = Deps(settings=settings, driver=driver, pool=None, embedder=real)
    typed = Settings().search_max_chars
    for (lang, corpus), cut in itertools.product(corpora.items(), (False, True)):
        cases = corpus.cases[:runs]
        if cut:  # as a user may type them: within the product's own limit of the search text
            cases = [Case(fit_text(c.text, typed)[0], c.relevant) for c in cases]
        what = f"questions cut to {typed} chars" if cut else "whole questions"
        lp50, lp95 = await timings(lexical, lang_scope[lang], cases)
        line = f"{lang} search at {label}, {what}: lexical p50 {lp50:.1f} ms p95 {lp95:.1f} ms"
        if real is not None:
            hp50, hp95 = await timings(hybrid, lang_scope[lang], cases)
            line += (f"; hybrid p50 {hp50:.1f} ms p95 {hp95:.1f} ms "
                     f"(ratio p50 {hp50 / lp50:.2f})")  # fmt: skip
            t0 = time.perf_counter()
            for case in cases:
                await real.embed([case.text], input_type="query")
            alone = (time.perf_counter() - t0) * 1000 / len(cases)
            line += f"; the query's embedding alone {alone:.1f} ms"
        print(line, flush=True)


def cli(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embeddings", choices=["local", "standin", "none"], default="local")
    parser.add_argument("--other-scopes", type=int, default=100)
    parser.add_argument("--runs", type=int, default=40, help="questions timed per language")
    parser.add_argument("--no-grid", action="store_true", help="hybrid at the settings alone")
    args = parser.parse_args(argv)
    asyncio.run(main(args.embeddings, args.other_scopes, args.runs, not args.no_grid))


if __name__ == "__main__":
    cli()
