import pytest

from api.cli import main


def test_configured_servers_are_never_started(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("NEO4J_URI", "neo4j+s://example.databases.neo4j.io")
    monkeypatch.setenv("REDIS_URL", "redis://cache.internal:6379/0")
    monkeypatch.setenv("PATH", "/nonexistent")  # starting anything would fail loudly
    main(["neo4j", "start"])
    main(["redis", "start"])
    out = capsys.readouterr().out
    assert "NEO4J_URI is set" in out and "starts no Neo4j" in out
    assert "REDIS_URL is set" in out and "starts no Redis" in out


def test_configured_sentinels_start_no_redis_even_with_redis_ha(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.setenv("REDIS_SENTINELS", "10.0.0.1:26379,10.0.0.2:26379")
    monkeypatch.setenv("REDIS_HA", "true")
    monkeypatch.setenv("PATH", "/nonexistent")  # starting anything would fail loudly
    main(["redis", "start"])
    out = capsys.readouterr().out
    assert "REDIS_SENTINELS is set (sentinel://10.0.0.1:26379,10.0.0.2:26379/storygraph)" in out
    assert "starts no Redis" in out


def test_expected_failures_are_one_sentence_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("NEO4J_URI", raising=False)
    monkeypatch.setenv("LOCAL_DIR", str(tmp_path))
    monkeypatch.setenv("NEO4J_BOLT_PORT", "1")  # nothing listens on ports 1 and 2
    monkeypatch.setenv("NEO4J_HTTP_PORT", "2")
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(SystemExit) as exit_info:
        main(["neo4j", "start"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("storygraph: ") and "Java is not installed" in err
    assert "\n" not in err and "Traceback" not in err


def test_schema_check_fails_when_the_sdl_drifted(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr("api.cli.schema.PROJECT_ROOT", tmp_path)
    (tmp_path / "schema.graphql").write_text("type Query { old: Int }\n")
    with pytest.raises(SystemExit) as exit_info:
        main(["schema", "export", "--check"])
    assert exit_info.value.code == 2
    assert "differs from the code" in capsys.readouterr().err
