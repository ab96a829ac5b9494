"""Every story query declares exactly the parameters it uses, and the repository's
allow-list of versioned kinds has the queries it needs (Cypher lives in cypher/*.cypher, loaded by
name, parameters only)."""

from __future__ import annotations

from graph.queries import Queries
from graph.story.kinds import VERSIONED


def test_story_queries_declare_the_parameters_they_use() -> None:
    named = {k: q for k, q in Queries().named().items() if k.startswith("story/")}
    assert named
    wrong = {
        k: (sorted(q.declared), sorted(q.used)) for k, q in named.items() if q.declared != q.used
    }
    assert wrong == {}


def test_every_versioned_kind_has_write_read_and_delta_queries() -> None:
    names = set(Queries().named())
    for q in VERSIONED.values():
        for key in (q.write, q.versions, q.in_result):
            assert key in names, key


def test_story_queries_never_build_labels_from_parameters() -> None:
    for key, q in Queries().named().items():
        if key.startswith("story/"):
            assert ":$(" not in q.text and "apoc." not in q.text, key
