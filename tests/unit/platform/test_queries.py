from pathlib import Path

import pytest

from graph.migrate import load_migrations
from graph.queries import Queries, QueryFileError, load_queries


def test_every_named_query_declares_exactly_the_parameters_it_uses() -> None:
    named = load_queries()
    assert named, "no cypher queries found"
    for key, q in named.items():
        assert q.declared == q.used, (
            f"{key}: declared {sorted(q.declared)} but uses {sorted(q.used)}"
        )


def test_parameters_inside_comments_and_strings_do_not_count(tmp_path: Path) -> None:
    (tmp_path / "area").mkdir()
    (tmp_path / "area" / "q.cypher").write_text(
        "// params: a\n// mentions $b in a comment\nMATCH (n {x: $a}) RETURN '$c' AS s\n"
    )
    q = load_queries(tmp_path)["area/q"]
    assert q.used == {"a"}


def test_empty_query_file_is_rejected(tmp_path: Path) -> None:
    (tmp_path / "area").mkdir()
    (tmp_path / "area" / "empty.cypher").write_text("// params: a\n\n")
    with pytest.raises(QueryFileError, match="empty"):
        load_queries(tmp_path)


def test_duplicate_names_are_rejected(tmp_path: Path) -> None:
    (tmp_path / "area").mkdir()
    (tmp_path / "area" / "find.cypher").write_text("// params:\nRETURN 1\n")
    (tmp_path / "area" / "Find.cypher").write_text("// params:\nRETURN 2\n")
    with pytest.raises(QueryFileError, match="duplicate query name"):
        load_queries(tmp_path)


def test_an_included_fragment_stands_in_its_line_with_its_parameters(tmp_path: Path) -> None:
    (tmp_path / "area").mkdir()
    (tmp_path / "fragments").mkdir()
    (tmp_path / "fragments" / "tail.cypher").write_text(
        "// params: calls\n// what it does\nCALL () { UNWIND $calls AS c CREATE (:X {id: c}) }\n"
    )
    (tmp_path / "area" / "q.cypher").write_text(
        "// params: a\nMATCH (n {x: $a})\n// include: tail\nRETURN n\n"
    )
    named = load_queries(tmp_path)
    assert set(named) == {"area/q"}  # a fragment is no query of its own
    q = named["area/q"]
    assert q.declared == q.used == {"a", "calls"}
    assert "CALL () { UNWIND $calls" in q.text and "include:" not in q.text
    assert q.text.index("MATCH") < q.text.index("CALL") < q.text.index("RETURN")


def test_including_a_missing_fragment_is_rejected(tmp_path: Path) -> None:
    (tmp_path / "area").mkdir()
    (tmp_path / "area" / "q.cypher").write_text("// params:\n// include: nowhere\nRETURN 1\n")
    with pytest.raises(QueryFileError, match="includes 'nowhere'"):
        load_queries(tmp_path)


def test_unknown_query_name_says_which() -> None:
    with pytest.raises(KeyError, match="no cypher query named 'nope/none'"):
        Queries()["nope/none"]


def test_named_query_carries_its_name_as_metadata() -> None:
    q = Queries()["platform/probe_read"]
    assert q.metadata == {"query": "platform/probe_read"}
    assert "WorkerProbe" in q.text


def test_schema_migrations_are_ordered_and_non_empty() -> None:
    migrations = load_migrations()
    names = [m.name for m in migrations]
    assert names == sorted(names)
    assert all(m.statements for m in migrations)
    # Schema statements, or a one-off data rewrite (e.g. 051_utc_instants) that MATCHes first.
    assert all(
        s.upper().startswith(("CREATE", "DROP", "MATCH", "CALL DB.AWAITINDEX"))
        for m in migrations
        for s in m.statements
    )


def test_every_named_query_is_loaded_by_a_literal_name_a_search_finds() -> None:
    """No query is reached through an f-string key: each file's `"area/name"` stands as a
    string literal in the code that runs it, so a search finds it."""
    from engine.settings import PROJECT_ROOT

    code = "\n".join(
        p.read_text()
        for layer in ("api", "jobs", "graph", "engine", "bench")
        for p in (PROJECT_ROOT / layer).rglob("*.py")
    )
    unnamed = sorted(key for key in load_queries() if f'"{key}"' not in code)
    assert unnamed == []
