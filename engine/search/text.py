"""User text -> a Lucene query that carries no Lucene syntax, and highlight offsets.

User text never reaches Lucene as syntax (docs/guides/search.md): it is cut into words
(runs of letters and digits; every other character — `"`, `*`, `~`, `:`, parentheses,
`+ - ! ^ [ ] { } / \\ |` — separates words and is dropped), operator words (`AND`, `OR`,
`NOT`, `TO`) are lowered so they are plain words, and the query is built from those words
only: each word as a term, a Latin word of 3+ letters also as a prefix (`callb*` finds
"callback": partial words), a Chinese word of 3+ characters also as a phrase boosted x3 (the
bare word matches any of its bigrams, so a loosely quoted passage is still found; the phrase
puts the exact wording first), and the whole text as a phrase boosted x2. Empty text, text
over the configured limit and text without a single word are INVALID_INPUT, never a Lucene
parse error.

Two full-text indexes hold the same fields: `search_text` with Neo4j's `cjk` analyzer
(bigrams, so a Chinese word of 2+ characters matches wherever it occurs) and `search_text_en`
with the `english` analyzer (stop words, Porter stemming: "danced" finds "dance"). A query
with a Chinese, Japanese or Korean character is asked of the first, any other of the second
(`index_for`); docs/search.md has the measurement against BM25 that chose this. English stop
words are left out of the query's terms (they match nothing in `search_text_en`), so the
word limit counts words that can match.

A Chinese query is also asked of `search_text_en`, whose tokenizer makes each Chinese
character a term: its Chinese runs as single characters (`unigram_lucene`), their score
weighted by `CJK_UNIGRAM_WEIGHT` and added to the bigram score of the same node. Bigrams
keep the words; the characters find a word written in another compound (猫 in 小猫 and
我的猫), which no shared bigram does (docs/search.md measures it against BM25).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.errors import InvalidInput

# a run of letters and digits; dots inside one keep a version or a number whole ("v2.0", "3.5")
_WORD = re.compile(r"[^\W_]+(?:\.[^\W_]+)*", re.UNICODE)
_LATIN = re.compile(r"^[0-9a-z]+$")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_OPERATORS = frozenset({"and", "or", "not", "to"})
MAX_WORDS = 48
PREFIX_MIN = 3
CJK_INDEX = "search_text"
ENGLISH_INDEX = "search_text_en"
# the share of the single-character score added to a Chinese query's bigram score
CJK_UNIGRAM_WEIGHT = 0.5
# the stop words of Lucene's EnglishAnalyzer (the `english` analyzer of `search_text_en`)
ENGLISH_STOP_WORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their "
    "then there these they this to was will with".split()
)


@dataclass(frozen=True)
class SearchText:
    text: str  # the user's text, trimmed
    words: tuple[str, ...]  # lower-cased words, in order, without repeats
    lucene: str  # the query sent to db.index.fulltext.queryNodes
    index: str = CJK_INDEX  # the full-text index asked (`index_for`)
    # a Chinese query's runs, for `ENGLISH_INDEX` (a term per character); None: not asked
    unigram_lucene: str | None = None


def words_of(text: str) -> list[str]:
    """Runs of letters and digits; a run mixing Chinese and Latin is split between them (a
    dot the split leaves at a piece's end joins nothing, so it goes: "0.㐀" is 0 and 㐀)."""
    out: list[str] = []
    for run in _WORD.findall(text.lower()):
        pieces = (p.strip(".") for p in re.split(r"((?:" + _CJK.pattern + r")+)", run))
        out.extend(p for p in pieces if p)
    return out


def parse_search_text(text: str, max_chars: int) -> SearchText:
    trimmed = text.strip()
    if not trimmed:
        raise InvalidInput("search text is empty", field="text")
    if len(trimmed) > max_chars:
        raise InvalidInput(
            f"search text has at most {max_chars} characters", field="text", max=max_chars
        )
    words: list[str] = []
    for w in words_of(trimmed):
        if w not in words:
            words.append(w)
    if not words:
        raise InvalidInput("search text has no letters or digits to search for", field="text")
    phrase = words[:MAX_WORDS]
    index = index_for(words)
    if index == ENGLISH_INDEX:
        words = [w for w in words if w not in ENGLISH_STOP_WORDS] or words
    words = words[:MAX_WORDS]
    clauses: list[str] = []
    for w in words:
        clauses.append(f'"{w}"' if w in _OPERATORS else w)
        if _LATIN.match(w) and len(w) >= PREFIX_MIN and not w.isdigit():
            clauses.append(f"{w}*")
        elif _CJK.search(w) and len(w) > 2:
            clauses.append(f'"{w}"^3')
    if len(phrase) > 1:
        clauses.append('"' + " ".join(phrase) + '"^2')
    chinese = [w for w in words if _CJK.search(w)]
    return SearchText(
        text=trimmed,
        words=tuple(words),
        lucene=" ".join(clauses),
        index=index,
        unigram_lucene=" ".join(chinese) if chinese else None,
    )


def index_for(words: list[str]) -> str:
    """`search_text` (cjk) for a query with a CJK character, else `search_text_en`."""
    return CJK_INDEX if any(_CJK.search(w) for w in words) else ENGLISH_INDEX


SEARCHED_FIELDS = ("name", "title", "description", "reason", "text")


def scoped(lucene: str, scope: str) -> str:
    """The query restricted, inside Lucene, to one scope's documents: the user's clauses on
    the searched fields only (never on `scope`, which the index also holds since migration
    091), and the scope's name as a required phrase. A phrase also matches a longer name that
    contains it (`a-b` in `a-b-c`), so the read still checks `node.scope` exactly; the
    scope name (engine/scope.py: letters, digits, `_ . : -`) holds no quote to escape."""
    fields = " ".join(f"{f}:({lucene})" for f in SEARCHED_FIELDS)
    return f'+scope:"{scope}" +({fields})'


def _needles(word: str) -> list[str]:
    """What marks a word in a text: the word itself; a Chinese word also by its bigrams."""
    if _CJK.search(word) and len(word) > 2:
        return [word, *(word[i : i + 2] for i in range(len(word) - 1))]
    return [word]


def highlights(text: str, words: tuple[str, ...]) -> list[tuple[int, int]]:
    """[start, end) character offsets in `text` of the query's words, merged and sorted.

    A Latin word also marks the rest of the word it begins (a prefix hit: "callb" marks
    "callback"); a Chinese word marks itself, or its bigrams where the whole word is absent."""
    lower = text.lower()
    spans: list[tuple[int, int]] = []
    for word in words:
        found = False
        for needle in _needles(word):
            if found and needle != word:
                break
            start = lower.find(needle)
            while start >= 0:
                end = start + len(needle)
                if _LATIN.match(needle):
                    if (
                        start > 0
                        and lower[start - 1].isalnum()
                        and not _CJK.match(lower[start - 1])
                    ):
                        start = lower.find(needle, start + 1)
                        continue
                    while end < len(lower) and lower[end].isalnum() and not _CJK.match(lower[end]):
                        end += 1
                spans.append((start, end))
                found = True
                start = lower.find(needle, end)
    spans.sort()
    merged: list[tuple[int, int]] = []
    for s, e in spans:
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], e))
        else:
            merged.append((s, e))
    return merged
