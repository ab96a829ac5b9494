"""End-to-end: the real `storygraph serve` and `storygraph worker` processes over HTTP."""

from __future__ import annotations

import json
import subprocess
from collections.abc import AsyncIterator, Callable, Iterator

import pytest
import pytest_asyncio

from engine.settings import Settings
from tests.support.agenda_api import LOOP_TOKENS, OPS
from tests.support.browser import close_shared_browser
from tests.support.processes import (
    Server,
    api_servers,
    offline_stack,
    process_env,
    start_worker,
    stop,
)


# Module scope: the APIs a module's tests and fixtures start are stopped when the module
# ends (a function-scoped stack stops its own at once), not kept idle until the package ends.
@pytest.fixture(scope="module")
def start_server(services: Settings) -> Iterator[Callable[..., Server]]:
    with api_servers(services) as start:
        yield start


@pytest.fixture(scope="package")
def api(services: Settings) -> Iterator[Server]:
    """The API most e2e tests share, for the whole package."""
    with api_servers(services) as start:
        yield start()


# Package scope: the shared worker stops when the e2e tests end, so it never takes jobs that
# integration tests enqueue on the same queue with their own workers and scripted models.
@pytest.fixture(scope="package")
def worker(services: Settings) -> Iterator[subprocess.Popen[bytes]]:
    proc = start_worker(services, process_env(services))
    yield proc
    stop(proc)


@pytest.fixture
def offline(services: Settings, start_server) -> Iterator[Server]:  # type: ignore[no-untyped-def]
    """An API and a worker on a queue of their own, no model configured (the offline rule
    model), TIMEZONE Asia/Shanghai, the heartbeat app switched on: what `make run` serves."""
    with offline_stack(services, start_server, "agenda", TIMEZONE="Asia/Shanghai") as api:
        yield api


@pytest.fixture(scope="module")
def offline_open(services: Settings, start_server) -> Iterator[Server]:  # type: ignore[no-untyped-def]
    """`offline` with every sending window open all day, every day: for chains that ask a
    person as soon as the promised time comes and must not depend on the hour the suite runs
    at (off hours a question waits for 09:00, and a clock moved to then would record the
    answer in the future). Its API has the loop's tokens (`tests/support/agenda_api.py`
    LOOP_TOKENS): requests carry the operator's unless they name another. One stack for a
    module's tests (each works in a scope of its own)."""
    always = {
        "CONCERN_WORK_START": "00:00:00",
        "CONCERN_WORK_END": "23:59:59.999999",
        "CONCERN_WORKDAYS": "[0,1,2,3,4,5,6]",
        "CONCERN_EXTENDED_START": "00:00:00",
        "CONCERN_EXTENDED_END": "23:59:59.999999",
        "CONCERN_EXTENDED_DAYS": "[0,1,2,3,4,5,6]",
    }
    tokens = json.dumps(LOOP_TOKENS)
    with offline_stack(
        services,
        start_server,
        "agenda",
        token=OPS,
        TIMEZONE="Asia/Shanghai",
        API_TOKENS=tokens,
        **always,
    ) as api:
        yield api


@pytest_asyncio.fixture(scope="module", autouse=True)
async def one_chromium() -> AsyncIterator[None]:
    """A test module's page tests share one Chromium (`tests/support/browser.py` launches it
    on first use, a fresh context per test); it is stopped at the module's end, so no browser
    process lives through the whole suite (one that did, the graph view's renderer died
    twice at the same step of a whole run, and in no shorter run)."""
    yield
    await close_shared_browser()
