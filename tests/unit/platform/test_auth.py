import pytest

from api.auth import InsecureBinding, authenticate, check_binding
from engine.errors import Forbidden
from engine.settings import ApiToken, Settings


def _settings(**kw: object) -> Settings:
    return Settings(**kw)  # type: ignore[arg-type]


def test_loopback_without_tokens_runs_open_and_says_so() -> None:
    verdict = check_binding(_settings(api_host="127.0.0.1"))
    assert "OPEN" in verdict
    principal = authenticate(_settings(), None)
    assert principal is not None and principal.can_scope("any-project")


def test_public_binding_without_tokens_refuses_to_start() -> None:
    with pytest.raises(InsecureBinding, match="0.0.0.0"):
        check_binding(_settings(api_host="0.0.0.0"))


def test_public_binding_with_tokens_starts() -> None:
    s = _settings(api_host="0.0.0.0", api_tokens=[ApiToken(token="t1")])
    assert "1 bearer token" in check_binding(s)


def test_token_binds_scopes_and_roles() -> None:
    s = _settings(
        api_tokens=[ApiToken(token="secret", name="app", scopes=["p1", "global"], roles=["reader"])]
    )
    assert authenticate(s, None) is None
    assert authenticate(s, "Bearer wrong") is None
    p = authenticate(s, "Bearer secret")
    assert p is not None and p.name == "app"
    p.require("reader", "p1")
    p.require("reader", "global")
    with pytest.raises(Forbidden, match="requested scope") as refused:
        p.require("reader", "p2")
    assert "p2" not in str(refused.value)  # no error names a scope the caller cannot use
    with pytest.raises(Forbidden, match="'editor' role"):
        p.require("editor", "p1")


def test_tokens_are_read_from_json_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("API_TOKENS", '[{"token": "abc", "scopes": ["p9"], "roles": ["editor"]}]')
    s = Settings.from_env()
    assert s.api_tokens[0].token.get_secret_value() == "abc"
    assert s.api_tokens[0].scopes == ["p9"]
