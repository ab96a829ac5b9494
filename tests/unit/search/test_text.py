"""User text -> Lucene query: no Lucene syntax survives; highlights; passages."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from engine.errors import InvalidInput
from engine.search.passages import split_passages
from engine.search.ranking import Standing, rank
from engine.search.text import highlights, parse_search_text
from engine.search.vectors import fit_text
from engine.story.sources import cut

# what the query may contain besides words: our own prefix star, phrase quotes and boosts
_OURS = re.compile(r'^(?:[^\W_.]+(?:\.[^\W_]+)*\*?|"[^"\\:*~()]+"(?:\^\d)?)$')


@given(st.text(max_size=80))
@example("0.㐀")  # a dotted number the Chinese split leaves with a trailing dot
def test_any_text_becomes_words_or_is_refused(text: str) -> None:
    try:
        parsed = parse_search_text(text, 200)
    except InvalidInput:
        return
    for clause in parsed.lucene.split(" ") if '"' not in parsed.lucene else []:
        assert _OURS.match(clause), clause
    for word in parsed.words:
        assert re.fullmatch(r"[^\W_]+(?:\.[^\W_]+)*", word)
        assert word not in {"AND", "OR", "NOT", "TO"}


@pytest.mark.parametrize(
    ("text", "lucene"),
    [
        ("callback", "callback callback*"),
        # English: the stop word leaves the terms (the english analyzer drops it), not the phrase
        ('"unbalanced (paren AND x:y~2', 'unbalanced unbalanced* paren paren* x y 2 '
         '"unbalanced paren and x y 2"^2'),
        # an operator word is a plain, quoted word in a Chinese query (the cjk index keeps it)
        ("支付 AND 回调", '支付 "and" and* 回调 "支付 and 回调"^2'),
        ("回调接口", '回调接口 "回调接口"^3'),
        ("支付 gateway", '支付 gateway gateway* "支付 gateway"^2'),
    ],
)  # fmt: skip
def test_lucene_query_of_user_text(text: str, lucene: str) -> None:
    got = parse_search_text(text, 200).lucene
    assert got == lucene


@pytest.mark.parametrize(
    ("text", "index", "words"),
    [
        ("the payment callback", "search_text_en", ("payment", "callback")),
        ("the and of", "search_text_en", ("the", "and", "of")),  # nothing but stop words
        ("支付 the callback", "search_text", ("支付", "the", "callback")),
    ],
)
def test_english_queries_ask_the_english_index_without_stop_words(
    text: str, index: str, words: tuple[str, ...]
) -> None:
    parsed = parse_search_text(text, 200)
    assert (parsed.index, parsed.words) == (index, words)


@pytest.mark.parametrize("text", ["", "   ", '"*~:()', "x" * 11])
def test_empty_wordless_and_long_text_is_invalid_input(text: str) -> None:
    with pytest.raises(InvalidInput):
        parse_search_text(text, 10)


def test_highlights_mark_words_prefixes_and_chinese() -> None:
    text = "李四: the Callbacks of 支付回调接口"
    spans = highlights(text, ("callb", "回调"))
    assert [text[a:b] for a, b in spans] == ["Callbacks", "回调"]
    assert highlights("recall", ("call",)) == []  # not inside a word


def test_passages_are_lines_addressed_like_references() -> None:
    text = "第一行\n\n  \r\nthird line\r\nlast"
    got = split_passages(text)
    assert [(p.locator, p.text) for p in got] == [
        ("lines:1-1", "第一行"),
        ("lines:4-4", "third line"),
        ("lines:5-5", "last"),
    ]
    assert all(cut(text, p.locator) == p.text for p in got)


def test_standing_and_currency_order_the_same_score() -> None:
    assert rank(2.0, Standing.CONFIRMED, True) > rank(2.0, Standing.SUGGESTED, True)
    assert rank(2.0, Standing.PERSON_EDITED, True) == rank(2.0, Standing.CONFIRMED, True)
    assert rank(2.0, Standing.SUGGESTED, True) > rank(2.0, Standing.SUGGESTED, False)
    assert rank(2.0, Standing.SUGGESTED, False) > rank(2.0, Standing.REMOVED, True)


def test_a_long_text_is_cut_at_the_last_sentence_end_within_the_limit() -> None:
    text = "第一句话说完了。第二句也说完了！" + "然后" * 40
    cut, was_cut = fit_text(text, 30)
    assert (cut, was_cut) == ("第一句话说完了。第二句也说完了！", True)
    assert fit_text("short. text", 30) == ("short. text", False)
    words, _ = fit_text("no sentence end here but spaces " * 4, 40)
    assert len(words) <= 40 and not words.endswith(" ")


@pytest.mark.parametrize(
    ("text", "unigram"),
    [
        ("支付 AND 回调", "支付 回调"),  # only the Chinese runs, for the character index
        ("回调接口 callback", "回调接口"),
        ("the payment callback", None),  # an English query asks one index
    ],
)
def test_a_chinese_query_also_asks_for_its_characters(text: str, unigram: str | None) -> None:
    assert parse_search_text(text, 200).unigram_lucene == unigram
