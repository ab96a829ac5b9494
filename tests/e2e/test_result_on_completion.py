"""A supervision run reads `completed` only once its result can be read (docs/rules/reviews.md: the run
completes in the result transaction alone), also while the machine is busy.

under load a client polled a run, read `completed` with its `resultId`, and
`result(scope, id)` asked right after answered NOT_FOUND. Here reviews run (under `make
chaos`, while CPU-burning processes keep both cores busy); a client polls each run over HTTP as fast as it answers and
reads the result the moment it reads `completed`. Every such read must find the result, with
the events the run published.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from engine.settings import Settings
from tests.support.processes import (
    Server,
    offline_stack,
)

BASE = datetime.now(UTC).replace(microsecond=0) - timedelta(days=1)
# `make chaos` burns both cores (STRESS_BURNERS=4) over six reviews; `make test` runs two
# reviews on the machine as it is (the race needs a poller at full speed, not a burner)
BURNERS = int(os.environ.get("STRESS_BURNERS", "0"))
ROUNDS = 6 if BURNERS else 2
LINES = 120
POLLERS = 4  # clients polling each run at once, each reading the result on `completed`
RUN = "query($id: String!) { supervisionRun(id: $id) { status resultId error { message } } }"
RESULT = (
    "query($s: String!, $id: ID!) { result(scope: $s, id: $id) { result { id } events { id } } }"
)


@pytest.fixture
def busy_machine() -> Iterator[None]:
    """Processes that only burn CPU while the test runs (stopped by their own pids)."""
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(BURNERS)]
    try:
        yield
    finally:
        for proc in burners:
            proc.kill()
            proc.wait(timeout=10)


@pytest.fixture
def deployment(
    services: Settings,
    start_server,  # type: ignore[no-untyped-def]
) -> Iterator[Server]:
    """An API and a worker on a queue of their own (offline rule model), app switched on."""
    with offline_stack(services, start_server, "result-visible") as api:
        yield api


def post(api: Server, query: str, **variables: Any) -> dict[str, Any]:
    body: dict[str, Any] = api.graphql(query, variables).json()
    assert "errors" not in body, body
    return body


def chat(round_: int) -> str:
    start = BASE + timedelta(hours=round_)
    return "".join(
        f"[{(start + timedelta(minutes=i)).isoformat()}] 成员{i % 5}: "
        f"第{round_}轮第{i}条：接口 #{round_ * 100 + i} 已联调，等待回归\n"
        for i in range(LINES)
    )


def poll_then_read(api: Server, scope: str, run_id: str) -> tuple[dict[str, Any], Any]:
    """Poll the run with no pause until it stops; then read its result at once. The run as
    first read stopped, and the result answer (data or errors)."""
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        run: dict[str, Any] = post(api, RUN, id=run_id)["data"]["supervisionRun"]
        if run["status"] in ("completed", "failed", "cancelled"):
            if run["status"] != "completed":
                return run, None
            return run, api.graphql(RESULT, {"s": scope, "id": run["resultId"]}).json()
    raise AssertionError(f"run {run_id} did not stop in time")


@pytest.mark.timeout(600)  # six reviews on two cores that four burners keep busy
def test_result_is_readable_the_moment_a_busy_run_reads_completed(
    busy_machine: None, deployment: Server, scope: str
) -> None:
    api = deployment
    misses: list[tuple[str, Any]] = []
    for round_ in range(ROUNDS):
        post(
            api,
            "mutation($s: UpsertSourceInput!) { upsertSource(input: $s) { id } }",
            s={
                "scope": scope,
                "id": f"chat-{round_}",
                "kind": "CONVERSATION",
                "version": "v1",
                "text": chat(round_),
            },
        )
        run_id = post(
            api,
            "mutation($sc: ReviewScopeInput!, $f: DateTime!, $t: DateTime!) {"
            " startReview(scope: $sc, from: $f, to: $t) { id } }",
            sc={"projectIds": [scope]},
            f=(BASE + timedelta(hours=round_)).isoformat(),
            t=(BASE + timedelta(hours=round_, minutes=LINES)).isoformat(),
        )["data"]["startReview"]["id"]
        with ThreadPoolExecutor(POLLERS) as pool:
            polls = [pool.submit(poll_then_read, api, scope, run_id) for _ in range(POLLERS)]
            answers = [p.result() for p in polls]
        for run, answer in answers:
            assert run["status"] == "completed", run
            if "errors" in answer:
                misses.append((run_id, answer["errors"]))
                continue
            assert answer["data"]["result"]["result"]["id"] == run["resultId"]
            assert len(answer["data"]["result"]["events"]) == LINES, answer
    assert misses == [], misses
