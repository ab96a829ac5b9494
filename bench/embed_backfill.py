"""The backfill of 10,000 conversation lines through the product's embed run, beside the
model's own throughput on the same lines measured in the same run.

    .venv/bin/python -m bench.embed_backfill [--lines 10000] [--embeddings local|standin]

The lines are MADial-Bench's dialogue turns (bench/data/madial, MIT), English and Chinese,
each written as a conversation line "[time] speaker: text" (2,881 distinct turns, repeated
with their own times until `--lines`), pushed as sources of one scope, 1,000 lines a source.
Printed: the baseline (the model alone: the same texts, posted in the same batches straight to
its `/v1/embeddings`, on a 500-line sample), the backfill (`embed_scope`, the code the worker's
embed job and `storygraph search backfill` run: reads, batches, writes the vectors, records
the EmbedRun and the cost ledger), both in lines per second, and their ratio (the pipeline's
overhead over the model), and the projected time of `--lines` at the model's rate.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
import uuid
from datetime import UTC, datetime, timedelta

import httpx

from bench.search_conversations import DATA, model_settings
from bench.search_quality import drop_scope
from engine.clock import utcnow
from engine.principal import WORKER
from engine.search.vectors import embed_text, fit_text
from engine.settings import Settings
from engine.story.inputs import SourceInput
from engine.story.models import SourceKind
from graph.driver import open_driver
from graph.migrate import migrate
from graph.search.vectors import VectorStore
from graph.story.repository import StoryRepository
from jobs.deps import Deps
from jobs.llm.embeddings import build_embedder
from jobs.search.embed import embed_scope

PER_SOURCE = 1000
SAMPLE = 500


def turns() -> list[str]:
    seen: dict[str, None] = {}
    for lang in ("en", "zh"):
        with (DATA / f"MADial-Bench-{lang}-dialogue.jsonl").open(encoding="utf-8") as f:
            for raw in f:
                for turn in json.loads(raw)["dialogue"]:
                    if turn.strip():
                        seen.setdefault(" ".join(turn.split()), None)
    return list(seen)


def conversation(n: int) -> list[str]:
    """`n` lines "[time] speaker: text", a minute apart."""
    said = turns()
    start = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
    out = []
    for i in range(n):
        turn = said[i % len(said)]
        speaker, _, text = turn.partition(":") if ":" in turn[:20] else ("User", "", turn)
        at = (start + timedelta(minutes=i)).isoformat()
        out.append(f"[{at}] {speaker.strip()}: {text.strip()}")
    return out


async def main(lines: int, mode: str) -> None:
    settings, standin = model_settings(Settings.from_env(), mode)
    driver = open_driver(settings)
    scope = f"bench-backfill-{uuid.uuid4().hex[:6]}"
    http = httpx.AsyncClient(timeout=300)
    try:
        await migrate(driver, settings.neo4j_database)
        embedder = build_embedder(settings, http)
        assert embedder is not None, "no embedding endpoint: EMBEDDINGS=local or --embeddings"
        text = conversation(lines)
        repo = StoryRepository(driver, settings.neo4j_database)
        for k in range(0, lines, PER_SOURCE):
            await repo.upsert_source(
                SourceInput(scope=scope, id=f"chat-{k // PER_SOURCE}",
                            kind=SourceKind.CONVERSATION, version="v1",
                            text="\n".join(text[k : k + PER_SOURCE])),
                now=utcnow(),
            )  # fmt: skip
        store = VectorStore(driver, settings.neo4j_database)
        missing = await store.count_missing(scope)
        size = settings.embedding_batch_size
        # baseline: the model alone on a sample of the same texts, in the same batches
        found = await store.missing(scope, SAMPLE)
        sample = [fit_text(embed_text(m.fields), settings.embedding_max_chars)[0] for m in found]
        t0 = time.perf_counter()
        for i in range(0, len(sample), size):
            await embedder.embed(sample[i : i + size])
        alone = len(sample) / (time.perf_counter() - t0)
        print(f"model alone ({embedder.model}): {len(sample)} lines in batches of {size}: "
              f"{alone:.1f} lines/s", flush=True)  # fmt: skip
        deps = Deps(settings=settings, driver=driver, pool=None, embedder=embedder)
        last = [time.perf_counter()]

        def progress(done: int, left: int) -> None:
            if time.perf_counter() - last[0] > 30:
                last[0] = time.perf_counter()
                print(f"  … {done} embedded, {left} to go", flush=True)

        t0 = time.perf_counter()
        report = await embed_scope(deps, WORKER, embedder, scope, progress=progress)
        took = time.perf_counter() - t0
        rate = report.embedded / took
        print(f"backfill of {missing} lines ({lines} conversation lines, {report.cut} cut): "
              f"{took:.0f} s, {rate:.1f} lines/s, status {report.status}, "
              f"{report.missing} left; ratio to the model alone {rate / alone:.2f}; "
              f"{lines} lines at the model's rate: {lines / alone:.0f} s", flush=True)  # fmt: skip
    finally:
        await http.aclose()
        if standin is not None:
            standin.stop()
        await drop_scope(driver, settings.neo4j_database, scope)
        await driver.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=10_000)
    parser.add_argument("--embeddings", choices=["local", "standin"], default="local")
    args = parser.parse_args()
    asyncio.run(main(args.lines, args.embeddings))
