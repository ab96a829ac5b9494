"""How much an API process grows under oversized and distinct documents (parse limits).

    .venv/bin/python -m bench.document_memory [--rounds 30]

One `storygraph serve` process (API_WORKERS=1) on a loopback port against the configured
Neo4j and Redis. Its resident memory (the process and its children, from /proc) is read:

  baseline   after 30 small distinct past reads (each parsed and kept once)
  oversized  after `rounds` distinct ~964 KB past reads (comment padding: refused by bytes
             before any parse; before the limit each was parsed and kept)
  big-valid  after `rounds` x 10 distinct documents just under the byte limit, each with a
             long string literal (parsed and kept: the byte-bounded caches must hold)
  tokens     after `rounds` distinct 4,000-token documents (the densest a document can be)

Each line prints the growth over the baseline and the ratio to it; the stated bound is the
document cache's bytes (GRAPHQL_DOCUMENT_CACHE_BYTES) plus the past cache's
(PAST_CACHE_BYTES). Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import httpx

from bench.story_graph import free_port, start_api
from engine.settings import Settings

MB = 1024 * 1024


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        found += [int(c) for c in text]
    return found


def rss(pid: int) -> int:
    """Resident bytes of `pid` and every process below it."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
            todo += _children(p)
        except FileNotFoundError:
            continue
    return total


def past(n: int, padding: str = "") -> str:
    return (
        f'query {{ storyGraph(scope: "bench-mem-{n}", asOf: "2020-01-01T00:00:00Z") '
        f"{{ events {{ id }} }} }}{padding}"
    )


def run(rounds: int) -> None:
    settings = Settings.from_env()
    os.environ["API_WORKERS"] = "1"
    proc, url = start_api(free_port())
    try:
        client = httpx.Client(timeout=120)

        def send(text: str) -> str:
            body = client.post(f"{url}/graphql", json={"query": text}).json()
            errors = body.get("errors") or [{}]
            return str(errors[0].get("extensions", {}).get("code", "ok"))

        for n in range(30):
            send(past(n))
        time.sleep(1)
        base = rss(proc.pid)
        print(f"baseline   {base / MB:8.1f} MB")
        t0 = time.perf_counter()
        codes = {send(past(n, " # " + "a " * 482_000 + str(n))) for n in range(rounds)}
        took = (time.perf_counter() - t0) / rounds
        grown = rss(proc.pid)
        print(
            f"oversized  {grown / MB:8.1f} MB  +{(grown - base) / MB:6.1f} MB  "
            f"x{grown / base:.2f}  {took * 1000:.0f} ms/request  answers {sorted(codes)}"
        )
        limit = settings.graphql_max_document_bytes
        for n in range(rounds * 10):
            literal = "x" * (limit - 200)
            send(
                f'query {{ storyGraph(scope: "{literal}{n}", asOf: "2020-01-01T00:00:00Z") '
                "{ events { id } } }"
            )
        grown = rss(proc.pid)
        print(
            f"big-valid  {grown / MB:8.1f} MB  +{(grown - base) / MB:6.1f} MB  x{grown / base:.2f}"
        )
        for n in range(rounds):
            send("query { " + "__typename " * 3990 + f"}} # {n}")
        grown = rss(proc.pid)
        print(
            f"tokens     {grown / MB:8.1f} MB  +{(grown - base) / MB:6.1f} MB  x{grown / base:.2f}"
        )
        bound = (settings.graphql_document_cache_bytes + settings.past_cache_bytes) / MB
        print(f"stated bound of the caches: {bound:.0f} MB over the baseline")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=30)
    run(parser.parse_args().rounds)


if __name__ == "__main__":
    cli()
