"""Known entities a review request carries (identity paragraph; docs/rules/reviews.md).

"跨 run 仅允许引用同 scope 的 Main 候选实体，模型局部 ID 和同名均不构成身份": a leaf (or a
navigation node) is told which stored Main entities of the review's own story scope its text
names, with their stored ids, so the model can reuse one by id. The model decides; nothing
here merges anything by name. The list is:

- same scope only: the lookup is keyed by the one story scope the review publishes into,
  so another project's or Global's entities are never offered;
- relevant: an entity is offered only when its current name or an earlier name of it
  (`aliases`) occurs verbatim in the request's text;
- bounded: at most `MAX_KNOWN` entities, those named most often first.

The lookup costs with the text, not with the scope: `lookup_keys` are the text's distinct
two-character windows, and the query seeks each as a name prefix in an index on
(scope, name). Names shorter than two characters are never offered.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pydantic import BaseModel, Field

MAX_KNOWN = 50  # known entities per request
MAX_DESCRIPTION = 200  # characters of a known entity's description sent to the model
KEY_LENGTH = 2


class KnownEntity(BaseModel):
    """A stored Main entity as a review request shows it to the model."""

    id: str
    name: str
    kind: str = ""
    aliases: list[str] = Field(default_factory=list)  # earlier names of the entity
    description: str = ""

    def names(self) -> list[str]:
        return [self.name, *self.aliases]

    def payload(self) -> dict[str, object]:
        return {
            "id": self.id,
            "name": self.name,
            "kind": self.kind,
            "aliases": list(self.aliases),
            "description": self.description[:MAX_DESCRIPTION],
        }

    def person_payload(self) -> dict[str, object]:
        """A known person as a leaf request lists it in `known_people`."""
        return {"id": self.id, "name": self.name, "aliases": list(self.aliases)}


def lookup_keys(texts: Iterable[str]) -> list[str]:
    """The distinct two-character windows of `texts` without whitespace: every name of two
    or more characters that occurs in a text starts with one of them."""
    keys: set[str] = set()
    for text in texts:
        for i in range(len(text) - KEY_LENGTH + 1):
            window = text[i : i + KEY_LENGTH]
            if not any(ch.isspace() for ch in window):
                keys.add(window)
    return sorted(keys)


def relevant(
    candidates: Iterable[KnownEntity], texts: Sequence[str], *, limit: int = MAX_KNOWN
) -> list[KnownEntity]:
    """The candidates one of whose names occurs in `texts`, most often named first, at most
    `limit` (ties by name, then id, so the list is deterministic)."""
    scored: list[tuple[int, KnownEntity]] = []
    for entity in candidates:
        names = [n for n in dict.fromkeys(entity.names()) if len(n) >= KEY_LENGTH]
        hits = sum(text.count(name) for name in names for text in texts)
        if hits:
            aliases = [a for a in entity.aliases if a != entity.name]
            scored.append((hits, entity.model_copy(update={"aliases": aliases})))
    scored.sort(key=lambda pair: (-pair[0], pair[1].name, pair[1].id))
    return [entity for _, entity in scored[:limit]]


def by_name(known: Sequence[KnownEntity]) -> dict[str, KnownEntity]:
    """Known entities by each of their names; a name two known entities share maps to
    neither (an equal name is not an identity: the caller must not guess between them)."""
    seen: dict[str, list[KnownEntity]] = {}
    for entity in known:
        for name in dict.fromkeys(entity.names()):
            seen.setdefault(name, []).append(entity)
    return {name: found[0] for name, found in seen.items() if len(found) == 1}


def relevant_earlier(
    found: Iterable[tuple[str, str, str]], texts: Sequence[str], *, limit: int = MAX_KNOWN
) -> list[dict[str, str]]:
    """Of the entities earlier batches of a run found, (ref, name, kind), those `texts` name,
    as a leaf request shows them; at most `limit`, most often named first."""
    scored = []
    for ref, name, kind in found:
        hits = sum(text.count(name) for text in texts) if len(name) >= KEY_LENGTH else 0
        if hits:
            scored.append((-hits, name, ref, kind))
    scored.sort()
    return [{"ref": ref, "name": name, "kind": kind} for _, name, ref, kind in scored[:limit]]
