"""Operations generated from the schema (hypothesis-graphql), sent over HTTP; the tally.

Used by the bounded property test in the suite and by `make fuzz`. Scalars are drawn mostly
from realistic values (the token's scope, ids the fixture wrote, instants with zones, small
counts) so most operations reach resolvers; a share stays hostile (no zone, garbage,
negatives, long and odd strings) so the input checks are exercised too.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx
from hypothesis import strategies as st
from hypothesis_graphql import nodes

OTHER_SCOPE = "fuzz-other-scope"
SCOPE = "p1"

# valid instants first; one without a zone, extremes and garbage follow
GOOD_TIMES = ["2026-03-16T10:00:00Z", "2026-03-16T10:00:00+08:00", "2026-03-17T09:30:00-05:00"]
BAD_TIMES = ["2026-03-16T10:00:00", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "garbage", ""]
WORDS = ["张三", "v2.0 提测", "review", "global", "o:0", "o:-5", "person", "note"]
# Lucene syntax a search box receives: never a parse error nor INTERNAL
LUCENE = [
    '"张三',
    "call*",
    "回调~2",
    "a AND b",
    "title:x",
    "(open",
    "OR",
    "\\",
    "[a TO b]",
    "+-!^",
    "*",
    "NOT 张三)",
    'name:"x"',
    "a && || b",
    "/re.*/",
    "x" * 300,
    "",
    "  ",
]


def _mostly(good: st.SearchStrategy[Any], bad: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """`good` nine times in ten."""
    return st.one_of(*[good] * 9, bad)


def realistic_scalars(known_ids: list[str]) -> dict[str, st.SearchStrategy[Any]]:
    """Value-node strategies by scalar name (built-ins overridden too)."""
    ids = known_ids or ["missing-id"]
    text = st.text(max_size=20)
    string = _mostly(
        st.one_of(st.just(SCOPE), st.sampled_from(ids), st.sampled_from(GOOD_TIMES),
                  st.sampled_from(WORDS), st.sampled_from(LUCENE)),
        st.one_of(text, st.just(OTHER_SCOPE)),
    )  # fmt: skip
    return {
        "String": string.map(nodes.String),
        "ID": _mostly(st.sampled_from(ids), text).map(nodes.String),
        "Int": _mostly(st.integers(1, 50), st.integers()).map(nodes.Int),
        "Float": _mostly(st.floats(0, 1), st.floats(allow_nan=False)).map(nodes.Float),
        "DateTime": _mostly(st.sampled_from(GOOD_TIMES), st.sampled_from(BAD_TIMES)).map(
            nodes.String
        ),
        "JSON": st.text(max_size=20).map(nodes.String),
    }


@dataclass
class Tally:
    sent: int = 0
    # answers whose execution started: no error, or an error with a path (raised by a
    # resolver) rather than a document/variable error found before any resolver ran
    reached: int = 0
    codes: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)

    def check(self, query: str, response: httpx.Response) -> None:
        """No 5xx, no INTERNAL, every error with a code, nothing of another scope."""
        self.sent += 1
        if response.status_code >= 500:
            self.problems.append(f"{response.status_code} for {query}")
            return
        body: dict[str, Any] = response.json()
        errors = body.get("errors") or []
        if not errors:
            self.codes["OK"] += 1
        if not errors or any(e.get("path") for e in errors):
            self.reached += 1
        for error in errors:
            code = (error.get("extensions") or {}).get("code")
            self.codes[str(code)] += 1
            if code is None or code == "INTERNAL":
                self.problems.append(f"{code}: {error.get('message')} for {query}")
        if OTHER_SCOPE in response.text and OTHER_SCOPE not in query:
            self.problems.append(f"another scope's data in the answer to {query}")

    def figures(self) -> str:
        by_code = ", ".join(f"{k} {v}" for k, v in self.codes.most_common())
        internal = self.codes["INTERNAL"]
        share = self.reached / self.sent if self.sent else 0.0
        return (
            f"operations sent: {self.sent}; reached resolvers: {self.reached} ({share:.0%}); "
            f"answers by code: {by_code}; INTERNAL: {internal}"
        )
