"""The project's own Redis is closed to other local users, and jobs are JSON, not pickle.

Runs a separate redis-server on a free port (never the shared test Redis), with its own
local directory, exactly as `storygraph redis start` does.
"""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from pydantic import SecretStr

from engine.settings import Settings
from jobs.queue import enqueue_probe, open_pool
from local.process import secret_file
from local.redis_server import LocalRedis, with_redis_password
from tests.support.processes import free_port


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[Settings]:
    settings = Settings(redis_port=free_port(), local_dir=tmp_path, redis_url=None)
    server = LocalRedis(settings)
    server.start()
    try:
        yield settings
    finally:
        server.stop()


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_projects_redis_needs_its_generated_password(own_redis: Settings) -> None:
    assert mode(own_redis.redis_password_file) == 0o600
    assert mode(own_redis.redis_password_file.parent / "redis.conf") == 0o600
    with pytest.raises(redis.exceptions.AuthenticationError):
        redis.Redis(port=own_redis.redis_port).ping()

    loaded = with_redis_password(own_redis)
    assert loaded.redis_password is not None
    assert redis.Redis.from_url(loaded.effective_redis_url).ping()
    secret = loaded.redis_password.get_secret_value()
    assert secret not in loaded.redacted_redis_url and "***" in loaded.redacted_redis_url
    assert secret not in LocalRedis(loaded).status().describe()


async def test_jobs_are_stored_as_json_not_pickle(own_redis: Settings) -> None:
    settings = with_redis_password(own_redis)
    pool = await open_pool(settings)
    try:
        assert await enqueue_probe(pool, settings, probe_id="p1", note="héllo")
        raw = await pool.get("arq:job:probe:p1")
        assert raw is not None
        job = json.loads(raw)  # pickle bytes would not parse
        assert job["f"] == "probe" and job["k"] == {"probe_id": "p1", "note": "héllo"}
    finally:
        await pool.aclose()


def test_a_secret_file_is_created_with_mode_0600(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "secret"
    made = secret_file(path, lambda: "s3cret")
    assert made == "s3cret" and mode(path) == 0o600
    assert secret_file(path, lambda: "other") == "s3cret"


def test_a_configured_redis_url_keeps_its_password_out_of_logs() -> None:
    s = Settings(redis_url="redis://user:hunter2@cache.example:6379/0")
    assert "hunter2" not in s.redacted_redis_url and "cache.example:6379" in s.redacted_redis_url
    local = Settings(redis_url=None, redis_port=6399, redis_password=SecretStr("p@ss/word"))
    assert redis.connection.parse_url(local.effective_redis_url)["password"] == "p@ss/word"
