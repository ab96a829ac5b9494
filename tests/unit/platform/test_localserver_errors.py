import socket
from pathlib import Path

import pytest

from engine.settings import Settings
from local.neo4j_server import LocalNeo4j, LocalServiceError
from local.redis_server import LocalRedis


def test_missing_java_is_one_clear_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(LocalServiceError, match="Java is not installed"):
        LocalNeo4j._require_java()


def test_missing_mvn_is_one_clear_sentence(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    server = LocalNeo4j(Settings(local_dir=tmp_path))
    with pytest.raises(LocalServiceError, match="Maven"):
        server.resolve()


def test_port_in_use_is_refused_before_starting_anything(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        server = LocalNeo4j(
            Settings(local_dir=tmp_path, neo4j_bolt_port=port, neo4j_http_port=port + 1)
        )
        with pytest.raises(LocalServiceError, match=f"Port {port} .* already in use"):
            server.start()
        redis = LocalRedis(Settings(local_dir=tmp_path, redis_port=port))
        with pytest.raises(LocalServiceError, match=f"Port {port} .* already in use"):
            redis.start()
    assert not (tmp_path / "neo4j" / "lib").exists()


def test_missing_redis_server_is_one_clear_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("local.redis_server.CANDIDATES", ("redis-server-does-not-exist",))
    with pytest.raises(LocalServiceError, match="redis-server is not installed"):
        LocalRedis.binary()
