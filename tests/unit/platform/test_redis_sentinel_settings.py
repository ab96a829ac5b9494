import pytest
from graphql import GraphQLError
from pydantic import ValidationError

from api.errors import shape_error
from engine.settings import Settings
from jobs.redis_client import NotReplicated, redis_settings


def test_sentinels_select_sentinel_mode_and_one_replica_acknowledgement() -> None:
    settings = Settings(redis_sentinels="10.0.0.1:26379, sentinel-b:26380", redis_master_name="m")
    assert settings.uses_sentinel and not settings.manages_redis
    assert settings.sentinel_addresses == [("10.0.0.1", 26379), ("sentinel-b", 26380)]
    assert settings.effective_wait_replicas == 1
    arq = redis_settings(settings)
    assert arq.sentinel and arq.sentinel_master == "m"
    # plain REDIS_URL stays the default, with no replica to wait for
    plain = Settings(redis_url="redis://cache:6379/0")
    assert not plain.uses_sentinel and plain.effective_wait_replicas == 0
    assert not redis_settings(plain).sentinel


def test_a_malformed_sentinel_list_is_refused_naming_the_entry() -> None:
    with pytest.raises(ValidationError, match="'10.0.0.1' is not host:port"):
        Settings(redis_sentinels="10.0.0.1,10.0.0.2:26379")


def test_a_write_no_replica_acknowledged_answers_unavailable() -> None:
    shaped = shape_error(GraphQLError("x", original_error=NotReplicated("0 of 1")))
    assert shaped.extensions is not None and shaped.extensions["code"] == "UNAVAILABLE"
    assert "no replica" in shaped.message
