"""The chat model's key goes to the embeddings endpoint only on the chat model's own origin."""

from __future__ import annotations

from pydantic import SecretStr

from engine.settings import Settings
from jobs.llm.embeddings import embedding_key


def settings(**kw: object) -> Settings:
    base = {"embedding_dimensions": 8, "model_api_key": SecretStr("chat-key")}
    return Settings(**{**base, **kw})  # type: ignore[arg-type]


def test_the_model_key_is_not_sent_to_another_host() -> None:
    other = settings(
        model_base_url="https://llm.example.com/v1",
        embedding_base_url="https://embed.attacker.example/v1",
    )
    assert embedding_key(other) is None
    other_port = settings(
        model_base_url="http://127.0.0.1:9000/v1", embedding_base_url="http://127.0.0.1:9001/v1"
    )
    assert embedding_key(other_port) is None


def test_the_model_key_serves_its_own_origin_and_an_embedding_key_wins() -> None:
    same = settings(
        model_base_url="https://llm.example.com/v1",
        embedding_base_url="https://llm.example.com/v1/",
    )
    key = embedding_key(same)
    assert key is not None and key.get_secret_value() == "chat-key"
    own = settings(
        embedding_base_url="https://embed.example.com/v1", embedding_api_key=SecretStr("e")
    )
    assert (k := embedding_key(own)) is not None and k.get_secret_value() == "e"
