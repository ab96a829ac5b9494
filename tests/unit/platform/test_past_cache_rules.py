"""What the past cache never keeps, and how long it keeps what it does."""

from __future__ import annotations

import datetime as dt

from redis.asyncio import Redis

from api.documents import Documents
from api.past_cache import PastCache, past_read
from engine.settings import Settings

NOW = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
SETTLE = dt.timedelta(seconds=60)
DOCS = Documents(max_bytes=100_000, max_tokens=4000, cache_bytes=1_000_000)


def test_a_past_read_selecting_a_field_read_as_of_now_is_not_cached() -> None:
    plain = 'query { storyGraph(scope: "p", asOf: "2020-01-01T00:00:00Z") { events { id } } }'
    assert past_read(plain, None, None, NOW, SETTLE, DOCS) is not None
    direct = plain.replace("events { id }", "events { id throughConcern { id status } }")
    assert past_read(direct, None, None, NOW, SETTLE, DOCS) is None
    in_fragment = plain.replace("events { id }", "events { ...E } ") + (
        " fragment E on Event { id throughConcern { cost { tokens } } }"
    )
    assert past_read(in_fragment, None, None, NOW, SETTLE, DOCS) is None


async def test_an_answer_kept_in_memory_expires_with_the_redis_time_to_live() -> None:
    unreachable = Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.2)
    try:
        cache = PastCache(Settings(past_cache_redis_ttl_seconds=0))  # type: ignore[call-arg]
        cache._keep("k", b'{"storyGraph": null}')
        assert await cache.get(unreachable, "k") is None
        assert cache.entries == {} and cache.size == 0
        lasting = PastCache(Settings(past_cache_redis_ttl_seconds=3600))  # type: ignore[call-arg]
        lasting._keep("k", b"{}")
        assert await lasting.get(unreachable, "k") == b"{}"
    finally:
        await unreachable.aclose()
