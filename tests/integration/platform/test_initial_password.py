"""A brand-new Neo4j home gets its generated password before the server's first start
(neo4j-admin dbms set-initial-password): there is no moment at which it accepts
neo4j/neo4j. Runs a Neo4j of its own on free ports in a temporary home."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from neo4j import GraphDatabase
from neo4j.exceptions import AuthError

from engine.settings import Settings
from local import neo4j_server
from local.neo4j_server import LocalNeo4j
from tests.support.processes import free_port

LAUNCHED: list[subprocess.Popen[bytes]] = []  # server JVMs, reaped after stop


@pytest.fixture
def fresh(services: Settings, tmp_path: Path) -> Iterator[LocalNeo4j]:
    """A LocalNeo4j with an empty home under tmp_path, sharing the resolved jars."""
    (tmp_path / "neo4j").mkdir()
    (tmp_path / "neo4j" / "lib").symlink_to(LocalNeo4j(services).lib)
    settings = Settings(  # type: ignore[call-arg]
        local_dir=tmp_path,
        neo4j_bolt_port=free_port(),
        neo4j_http_port=free_port(),
        neo4j_heap="256m",
        neo4j_pagecache="32m",
    )
    local = LocalNeo4j(settings)
    yield local
    local.stop()
    for proc in LAUNCHED:
        proc.wait(timeout=60)
    LAUNCHED.clear()


def test_the_password_is_set_before_the_first_start(
    fresh: LocalNeo4j, monkeypatch: pytest.MonkeyPatch
) -> None:
    auth = fresh.home / "data" / "dbms" / "auth.ini"
    at_launch: list[str] = []
    real_popen = subprocess.Popen

    def launch(cmd: list[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        if neo4j_server.ENTRY_POINT not in cmd:
            return real_popen(cmd, **kwargs)  # neo4j-admin, through subprocess.run
        at_launch.append(auth.read_text() if auth.exists() else "")
        LAUNCHED.append(real_popen(cmd, **kwargs))
        return LAUNCHED[-1]

    monkeypatch.setattr(neo4j_server.subprocess, "Popen", launch)
    # no change of password over Bolt after the start: the password must work as started
    monkeypatch.setattr(LocalNeo4j, "_ensure_password", lambda self: None)
    fresh.start()
    assert len(at_launch) == 1 and at_launch[0].startswith("neo4j:SHA-256,"), at_launch
    assert not list((fresh.home / "run").glob("*.args"))  # the argument file is gone

    password = fresh.settings.neo4j_password_file.read_text().strip()
    uri = f"bolt://127.0.0.1:{fresh.settings.neo4j_bolt_port}"
    with GraphDatabase.driver(uri, auth=("neo4j", password)) as driver:
        driver.verify_connectivity()  # no password change required either
        records, _, _ = driver.execute_query("RETURN 1 AS ok")
        assert records[0]["ok"] == 1
    with pytest.raises(AuthError), GraphDatabase.driver(uri, auth=("neo4j", "neo4j")) as d:
        d.verify_connectivity()


def test_a_password_starting_with_a_dash_is_set_as_the_password(
    fresh: LocalNeo4j, monkeypatch: pytest.MonkeyPatch
) -> None:
    """token_urlsafe starts with "-" one time in 64: neo4j-admin must not read it as an
    option (a fresh clone's first `make test` failed to start Neo4j that way)."""
    real_popen = subprocess.Popen

    def launch(cmd: list[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        proc = real_popen(cmd, **kwargs)
        if neo4j_server.ENTRY_POINT in cmd:
            LAUNCHED.append(proc)  # the server JVM, reaped by the fixture
        return proc

    monkeypatch.setattr(neo4j_server.subprocess, "Popen", launch)
    password = "-dash-first-password"
    fresh.settings.neo4j_password_file.write_text(password + "\n")
    fresh.start()
    uri = f"bolt://127.0.0.1:{fresh.settings.neo4j_bolt_port}"
    with GraphDatabase.driver(uri, auth=("neo4j", password)) as driver:
        records, _, _ = driver.execute_query("RETURN 1 AS ok")
        assert records[0]["ok"] == 1
