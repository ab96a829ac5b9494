"""/metrics of an API served by two worker processes answers for the whole API: requests
that reached either process are counted once in the sum, whichever process is scraped."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import httpx
from prometheus_client import CollectorRegistry
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.parser import text_string_to_metric_families

from tests.support.polling import until
from tests.support.processes import Server

QUERY = "{ health { neo4j } }"


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


GRAPHQL_200 = (
    "storygraph_http_requests_total",
    (("role", "api"), ("route", "/graphql"), ("status", "200")),
)


def graphql_requests_of(pid: int, folder: Path, scratch: Path) -> float:
    """What one process counted, read by prometheus_client from that process's file alone."""
    own = scratch / str(pid)
    own.mkdir(exist_ok=True)
    source = folder / f"counter_{pid}.db"
    if not source.exists():
        return 0.0
    shutil.copy(source, own / source.name)
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(own))
    return sum(
        s.value
        for metric in registry.collect()
        for s in metric.samples
        if (s.name, tuple(sorted(s.labels.items()))) == GRAPHQL_200
    )


def test_a_scrape_of_either_worker_sums_both(start_server: Any, tmp_path: Path) -> None:
    folder = tmp_path / "metrics"
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    api: Server = start_server(API_WORKERS="2", PROMETHEUS_MULTIPROC_DIR=str(folder))

    sent = 0

    def through_both() -> dict[int, float]:
        nonlocal sent
        for _ in range(5):  # a new connection each: the kernel spreads them over the workers
            assert api.graphql(QUERY).status_code == 200
            sent += 1
        pids = [int(f.stem.split("_")[1]) for f in folder.glob("counter_*.db")]
        return {pid: graphql_requests_of(pid, folder, scratch) for pid in pids}

    per_process = until(
        through_both,
        lambda counts: len([n for n in counts.values() if n]) == 2,
        "requests through both workers",
    )
    assert sum(per_process.values()) == sent

    seen = []
    for _ in range(6):  # several scrapes: each answered by one worker or the other
        found = samples(httpx.get(f"{api.url}/metrics", timeout=30).text)
        seen.append(found[GRAPHQL_200])
        assert found[("storygraph_processes", (("role", "api"),))] == 2
        latency = (
            "storygraph_http_request_seconds_count",
            (("role", "api"), ("route", "/graphql")),
        )
        assert found[latency] == sent
    assert seen == [sent] * 6, f"per-process counts were {per_process}"
