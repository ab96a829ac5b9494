"""Named Cypher queries (the aiosql pattern): every query is a file under `cypher/`.

A file `cypher/<area>/<name>.cypher` is keyed `"<area>/<name>"`. Its header declares the
parameters it takes, one comment line:

    // params: scope, as_of, rows

The loader reads all files once and rejects empty files and duplicate keys. `Q["key"]` wraps
the text in `neo4j.Query` with the key as metadata so the name shows in Neo4j's query log
(for `execute_query` / `session.run`); `Q.text("key")` gives the text for `tx.run` inside
`execute_read` / `execute_write`, whose transaction functions carry the metadata through
`neo4j.unit_of_work`. Schema files
under `cypher/schema/` are migrations, not named queries; `graph.migrate` applies them.
Files under `cypher/browser/` are saved queries for people to paste into Neo4j Browser
(they start with `:param` lines), not named queries either.

A clause several queries share lives once under `cypher/fragments/` (not a named query) and
stands in a query as one line, `// include: <name>`: the loader puts the fragment's text
there and adds the parameters the fragment declares to the query's own. So the cost
ledger's model calls are written inside the statement of whoever made them (a concern's
save, a watch's update, a heartbeat run's put), with no statement of their own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from neo4j import Query

CYPHER_DIR = Path(__file__).resolve().parent.parent / "cypher"
NOT_NAMED = frozenset({"schema", "browser", "fragments"})  # migrations; Browser's; included
FRAGMENTS = "fragments"
_INCLUDE = re.compile(r"^[ \t]*//[ \t]*include:[ \t]*(\S+)[ \t]*$", re.MULTILINE)
_PARAMS_HEADER = re.compile(r"^\s*//\s*params:\s*(.*)$", re.MULTILINE)
_PARAM_USE = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_LINE_COMMENT = re.compile(r"//[^\n]*")
_STRING = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")


class QueryFileError(ValueError):
    """A cypher file is empty, duplicated or malformed; the service refuses to start."""


@dataclass(frozen=True)
class NamedQuery:
    key: str
    text: str
    declared: frozenset[str]
    path: Path

    @property
    def used(self) -> frozenset[str]:
        """Parameters the body refers to, ignoring comments and string literals."""
        body = _STRING.sub("''", _LINE_COMMENT.sub("", self.text))
        return frozenset(_PARAM_USE.findall(body))

    def query(self) -> Query:
        return Query(self.text, metadata={"query": self.key})


def _declared(text: str) -> frozenset[str]:
    header = _PARAMS_HEADER.search(text)
    if not header:
        return frozenset()
    names = [n.strip().lstrip("$") for n in header.group(1).split(",")]
    return frozenset(n for n in names if n)


def _fragment(root: Path, name: str, path: Path) -> tuple[str, frozenset[str]]:
    """The fragment's clause text (its header comment left out) and its parameters."""
    source = root / FRAGMENTS / f"{name}.cypher"
    if not source.is_file():
        raise QueryFileError(f"{path}: includes {name!r}, but there is no {source}")
    text = source.read_text(encoding="utf-8")
    if _INCLUDE.search(text):
        raise QueryFileError(f"{source}: a fragment includes no other fragment")
    return _PARAMS_HEADER.sub("", text, count=1).strip("\n"), _declared(text)


def _parse(path: Path, key: str, root: Path = CYPHER_DIR) -> NamedQuery:
    text = path.read_text(encoding="utf-8")
    declared = set(_declared(text))

    def include(line: re.Match[str]) -> str:
        clause, params = _fragment(root, line.group(1), path)
        declared.update(params)
        return clause

    text = _INCLUDE.sub(include, text)
    body = _LINE_COMMENT.sub("", text).strip()
    if not body:
        raise QueryFileError(f"{path}: the query file is empty")
    return NamedQuery(key=key, text=text, declared=frozenset(declared), path=path)


def load_queries(root: Path = CYPHER_DIR) -> dict[str, NamedQuery]:
    """Read every named query below `root` (schema migrations and browser/ excluded)."""
    found: dict[str, NamedQuery] = {}
    folded: dict[str, Path] = {}
    for path in sorted(root.rglob("*.cypher")):
        rel = path.relative_to(root)
        if rel.parts[0] in NOT_NAMED:
            continue
        key = rel.with_suffix("").as_posix()
        # Names differing only by case are one name on case-insensitive file systems.
        if key.lower() in folded:
            raise QueryFileError(
                f"{path}: duplicate query name {key!r} (also {folded[key.lower()]})"
            )
        folded[key.lower()] = path
        found[key] = _parse(path, key, root)
    return found


class Queries:
    """The loaded query set; `Q["area/name"]` gives a `neo4j.Query` ready to run."""

    def __init__(self, root: Path = CYPHER_DIR) -> None:
        self._named = load_queries(root)

    def __getitem__(self, key: str) -> Query:
        try:
            return self._named[key].query()
        except KeyError:
            raise KeyError(f"no cypher query named {key!r} under cypher/") from None

    def text(self, key: str) -> str:
        """The query text, for `tx.run` inside managed transactions (which take no Query)."""
        try:
            return self._named[key].text
        except KeyError:
            raise KeyError(f"no cypher query named {key!r} under cypher/") from None

    def named(self) -> dict[str, NamedQuery]:
        return dict(self._named)


_QUERIES: Queries | None = None


def queries() -> Queries:
    """The process-wide query set, loaded on first use (files never change at run time)."""
    global _QUERIES
    if _QUERIES is None:
        _QUERIES = Queries()
    return _QUERIES
