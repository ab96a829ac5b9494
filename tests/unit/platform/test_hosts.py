"""The Host a request names decides whether the API answers it (DNS-rebinding protection)."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from api.hosts import host_allowed
from engine.settings import ApiToken, Settings

OPEN = Settings(api_tokens=[])  # type: ignore[call-arg]
TOKENS = Settings(  # type: ignore[call-arg]
    api_tokens=[ApiToken(token=SecretStr("t"), scopes=["*"])],
    api_public_hosts=["graph.example.org", "api.example.org:443"],
)


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "localhost:8113", "[::1]:8000", "LOCALHOST"])
def test_loopback_hosts_are_answered_in_both_modes(host: str) -> None:
    assert host_allowed(OPEN, host) and host_allowed(TOKENS, host)


@pytest.mark.parametrize(
    "host", ["attacker.example:8000", "127.0.0.1.attacker.example", "graph.example.org", "", None]
)
def test_an_open_api_answers_no_other_host(host: str | None) -> None:
    assert not host_allowed(OPEN, host)


def test_with_tokens_the_public_hosts_are_answered_and_nothing_else() -> None:
    assert host_allowed(TOKENS, "graph.example.org")
    assert host_allowed(TOKENS, "graph.example.org:8443")
    assert host_allowed(TOKENS, "api.example.org:443")
    assert not host_allowed(TOKENS, "api.example.org:8000")
    assert not host_allowed(TOKENS, "attacker.example:8000")
