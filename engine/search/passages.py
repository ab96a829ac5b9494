"""Source passages: the searchable unit of a source version.

Each non-blank line of a version's text is one passage, addressed by the same locator a
reference uses (`lines:a-b`, 1-based, inclusive; `engine.story.sources.cut` reads it back),
so a search hit on a passage points at its place in the original. A conversation pushed as
one message per line gives one passage per message. A passage carries the version's record
time: as of T, only passages of versions recorded at or before T exist. A withdrawn version's
passages are deleted with its text (the text leaves the store; docs/rules/story-graph.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.story.models import SourceVersion

# One very long line (a knowledge document without line breaks) is cut into pieces of this
# many characters, each its own passage addressed by `chars:a-b` within the version.
MAX_PASSAGE = 2000


@dataclass(frozen=True)
class Passage:
    locator: str
    line: int
    text: str


def split_passages(text: str) -> list[Passage]:
    """The passages of one version's text, in order."""
    out: list[Passage] = []
    offset = 0
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        body = line.splitlines()[0]
        if body.strip():
            if len(body) <= MAX_PASSAGE:
                out.append(Passage(f"lines:{number}-{number}", number, body))
            else:
                for start in range(0, len(body), MAX_PASSAGE):
                    piece = body[start : start + MAX_PASSAGE]
                    a = offset + start
                    out.append(Passage(f"chars:{a}-{a + len(piece)}", number, piece))
        offset += len(line)
    return out


def passage_key(source_id: str, version: str, locator: str) -> str:
    return f"{source_id}@{version}#{locator}"


def passage_rows(versions: list[SourceVersion]) -> list[dict[str, object]]:
    """The rows `cypher/search/write_passages.cypher` writes for versions with text."""
    rows: list[dict[str, object]] = []
    for v in versions:
        if v.text is None or v.withdrawn_at is not None:
            continue
        for p in split_passages(v.text):
            rows.append(
                {
                    "scope": v.scope,
                    "source_id": v.source_id,
                    "version": v.version,
                    "key": passage_key(v.source_id, v.version, p.locator),
                    "locator": p.locator,
                    "line": p.line,
                    "text": p.text,
                }
            )
    return rows
