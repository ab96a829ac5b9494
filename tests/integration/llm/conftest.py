"""The scripted OpenAI-compatible server over TLS, per session (the plain-HTTP one is the
shared `model_server` fixture of tests/support/fixtures.py).

These tests need no Neo4j or Redis; they request none of the shared service fixtures.
"""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
import pytest_asyncio

from tests.support.model import WaitRecorder
from tests.support.scripted_model import ScriptedModelServer, self_signed_certificate


@pytest.fixture(scope="session")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return self_signed_certificate(tmp_path_factory.mktemp("tls"))


@pytest.fixture(scope="session")
def _tls_server(certificate: tuple[Path, Path]) -> Iterator[ScriptedModelServer]:
    cert, key = certificate
    with ScriptedModelServer(certfile=cert, keyfile=key) as server:
        yield server


@pytest.fixture
def tls_server(_tls_server: ScriptedModelServer) -> Iterator[ScriptedModelServer]:
    _tls_server.reset()
    yield _tls_server
    _tls_server.reset()


@pytest_asyncio.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    """Stands in for the process's one shared client (the lifespan owns it in production)."""
    async with httpx.AsyncClient() as client:
        yield client


@pytest_asyncio.fixture
async def trusting_http(certificate: tuple[Path, Path]) -> AsyncIterator[httpx.AsyncClient]:
    context = ssl.create_default_context(cafile=str(certificate[0]))
    async with httpx.AsyncClient(verify=context) as client:
        yield client


@pytest.fixture
def waits() -> WaitRecorder:
    return WaitRecorder()
