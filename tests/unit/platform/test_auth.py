import pytest
from pydantic import SecretStr, ValidationError

from api.auth import InsecureBinding, authenticate, check_binding
from api.cli import common as cli
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
    s = _settings(api_host="0.0.0.0", api_tokens=[ApiToken(token=SecretStr("t1"), scopes=["*"])])
    assert "1 bearer token" in check_binding(s)


def test_token_binds_scopes_and_roles() -> None:
    s = _settings(
        api_tokens=[
            ApiToken(
                token=SecretStr("secret"), name="app", scopes=["p1", "global"], roles=["reader"]
            )
        ]
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


def test_a_token_must_name_its_scopes(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValidationError, match="scopes"):
        ApiToken(token=SecretStr("t1"))  # type: ignore[call-arg]  # the point: no scopes
    with pytest.raises(ValidationError, match="scopes"):
        ApiToken(token=SecretStr("t1"), scopes=[])
    monkeypatch.setenv("API_TOKENS", '[{"token": "s3cret", "roles": ["admin"]}]')
    with pytest.raises(cli.CliError) as refused:
        cli.load_settings()
    sentence = str(refused.value)
    assert sentence.startswith("the setting API_TOKENS[0].scopes is invalid: it is missing")
    assert "s3cret" not in sentence and sentence.count(".") >= 1


def test_an_unknown_role_is_one_sentence_at_start(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValidationError, match="unknown role 'edtor'"):
        ApiToken(token=SecretStr("t1"), scopes=["p1"], roles=["reader", "edtor"])
    monkeypatch.setenv("API_TOKENS", '[{"token": "s3cret", "scopes": ["p1"], "roles": ["edtor"]}]')
    with pytest.raises(cli.CliError) as refused:
        cli.load_settings()
    assert str(refused.value) == (
        "the setting API_TOKENS[0].roles is invalid: unknown role 'edtor' "
        "(roles are reader, editor, agenda, operator, admin)."
    )


def test_cli_prints_the_settings_sentence_and_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from api.cli import main

    monkeypatch.setenv("API_TOKENS", '[{"token": "s3cret", "scopes": ["p1"], "roles": ["root"]}]')
    with pytest.raises(SystemExit) as stopped:
        main(["redis", "status"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("storygraph: the setting API_TOKENS[0].roles is invalid")
    assert "\n" not in err and "Traceback" not in err
