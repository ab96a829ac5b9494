"""Request texts are parsed within the limits, and parsed documents are kept within bytes."""

from __future__ import annotations

import datetime as dt

import pytest
from graphql import GraphQLError

from api.documents import TOKEN_BYTES, Documents, DocumentTooLarge
from api.http_protocol import is_subscription, syntax_error
from api.past_cache import past_read

NOW = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
SETTLE = dt.timedelta(seconds=60)


def past_query(padding: int, n: int = 0) -> str:
    return (
        f'query {{ storyGraph(scope: "p{n}", asOf: "2020-01-01T00:00:00Z") '
        f"{{ __typename }} }} # {'x' * padding}"
    )


def test_a_text_over_the_byte_limit_is_refused_before_it_is_parsed_or_kept() -> None:
    documents = Documents(max_bytes=100_000, max_tokens=4000, cache_bytes=1_000_000)
    huge = past_query(964_000)
    with pytest.raises(DocumentTooLarge) as refused:
        documents.parse(huge)
    assert refused.value.extensions["code"] == "INVALID_INPUT"
    assert past_read(huge, None, None, NOW, SETTLE, documents) is None
    assert isinstance(syntax_error(huge, documents), DocumentTooLarge)
    assert not is_subscription(huge.replace("query", "subscription"), None, documents)
    assert len(documents) == 0 and documents.size == 0


def test_a_text_of_too_many_tokens_stops_at_the_limit_and_is_not_kept() -> None:
    documents = Documents(max_bytes=1_000_000, max_tokens=4000, cache_bytes=1_000_000)
    many = "{" + " a" * 50_000 + "}"
    with pytest.raises(GraphQLError, match="more than 4000 tokens"):
        documents.parse(many)
    assert len(documents) == 0


def test_distinct_texts_never_grow_the_cache_past_its_bytes() -> None:
    budget = 200 * TOKEN_BYTES * 4
    documents = Documents(max_bytes=100_000, max_tokens=4000, cache_bytes=budget)
    for n in range(300):
        documents.parse(past_query(2_000, n))
        assert documents.size <= budget
    assert 0 < len(documents) < 300
    # the latest text is served from the cache: the same document object
    latest = past_query(2_000, 299)
    assert documents.parse(latest) is documents.parse(latest)


def test_a_past_read_within_the_limits_is_still_recognised() -> None:
    documents = Documents(max_bytes=100_000, max_tokens=4000, cache_bytes=1_000_000)
    read = past_read(past_query(10), None, None, NOW, SETTLE, documents)
    assert read is not None and read.scopes == ("p0",)
