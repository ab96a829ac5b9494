"""Fixtures shared by every test folder, registered once by `tests/conftest.py`
(`pytest_plugins`): the scripted OpenAI-compatible model server.

One server per session on loopback; each test that asks for `model_server` gets it empty
(no queued replies, no responder, no logged requests) and leaves it empty.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.scripted_model import ScriptedModelServer


@pytest.fixture(scope="session")
def scripted_model_server() -> Iterator[ScriptedModelServer]:
    """The session's scripted model server (plain HTTP); tests use `model_server`."""
    with ScriptedModelServer() as server:
        yield server


@pytest.fixture
def model_server(scripted_model_server: ScriptedModelServer) -> Iterator[ScriptedModelServer]:
    """The scripted model server, reset before and after the test."""
    scripted_model_server.reset()
    yield scripted_model_server
    scripted_model_server.reset()
