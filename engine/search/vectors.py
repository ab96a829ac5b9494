"""Hybrid search's vectors: what is embedded, which store may be used, and
what the answer says about its mode. Pure: the HTTP call and Neo4j are in the shell.

- **What is embedded**: each searchable node's own text — the fields the full-text index
  covers (name, title, description, reason, text), in that order, one per line. A version
  node never changes (a change records a new version), so its vector never goes stale.
- **Which vectors may be used**: the vector index is created by the first embed with
  EMBEDDING_DIMENSIONS, and the model and dimension are recorded beside it. Vectors of two
  models are not comparable: a different model or dimension in the settings is refused
  (`check_vectors`) until `storygraph search backfill --reset` forgets the old vectors.
- **The mode**: HYBRID only when the query text was embedded and the vectors in the store
  were made by the configured model; otherwise LEXICAL with a note saying why. No vector is
  ever made up.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from engine.errors import Conflict

EMBEDDED_FIELDS = ("name", "title", "description", "reason", "text")


def embed_text(fields: dict[str, Any]) -> str:
    """The text a node's vector is computed from (its searchable fields, one per line)."""
    return "\n".join(
        v.strip() for k in EMBEDDED_FIELDS if isinstance(v := fields.get(k), str) and v.strip()
    )


_SENTENCE_END = "。！？；.!?;\n"


def fit_text(text: str, max_chars: int) -> tuple[str, bool]:
    """`text` cut to at most `max_chars` characters, at the last sentence end (。！？；.!?;
    or a line break) inside them, else at the last space, else hard; and whether it was cut.
    A model takes a bounded input: the part a vector stands for is whole sentences."""
    if len(text) <= max_chars:
        return text, False
    head = text[:max_chars]
    end = max(head.rfind(c) for c in _SENTENCE_END)
    if end >= max_chars // 3:
        return head[: end + 1].rstrip(), True
    space = head.rfind(" ")
    if space >= max_chars // 3:
        return head[:space].rstrip(), True
    return head, True


@dataclass(frozen=True)
class VectorState:
    """Which model and dimension made the stored vectors (None: nothing embedded yet)."""

    model: str | None
    dimensions: int | None


def check_vectors(stored: VectorState, model: str, dimensions: int) -> None:
    """CONFLICT when the stored vectors were made by another model or dimension."""
    if stored.model is None:
        return
    if stored.model != model or stored.dimensions != dimensions:
        raise Conflict(
            f"the stored vectors were made by model {stored.model!r} with {stored.dimensions} "
            f"dimensions; the settings say {model!r} with {dimensions}. Vectors of two models "
            "cannot be compared: run `storygraph search backfill --reset` to embed everything "
            "again with the new model",
            model=stored.model,
            dimensions=stored.dimensions,
        )


class SearchMode(StrEnum):
    LEXICAL = "lexical"
    HYBRID = "hybrid"


class LexicalReason(StrEnum):
    NO_ENDPOINT = "no_endpoint"  # EMBEDDING_BASE_URL is not set
    ENDPOINT_FAILED = "endpoint_failed"  # the endpoint did not answer the query's embedding
    NOT_EMBEDDED = "not_embedded"  # nothing embedded yet (the first embed job has not run)
    OTHER_MODEL = "other_model"  # the stored vectors were made by another model


_NOTES: dict[LexicalReason, tuple[str, str]] = {
    LexicalReason.NO_ENDPOINT: (
        "仅关键词检索：未配置向量模型（EMBEDDING_BASE_URL），没有语义检索。",
        "Lexical only: no embedding endpoint is configured (EMBEDDING_BASE_URL), so there "
        "is no semantic search.",
    ),
    LexicalReason.ENDPOINT_FAILED: (
        "仅关键词检索：向量模型暂时不可用，本次未做语义检索。",
        "Lexical only: the embedding endpoint did not answer, so this search has no semantic hits.",
    ),
    LexicalReason.NOT_EMBEDDED: (
        "仅关键词检索：向量尚未计算（后台任务或 `storygraph search backfill` 完成后可用）。",
        "Lexical only: no vectors have been computed yet (the background jobs or "
        "`storygraph search backfill` will).",
    ),
    LexicalReason.OTHER_MODEL: (
        "仅关键词检索：已存向量来自另一个模型或维度，需 `storygraph search backfill --reset`。",
        "Lexical only: the stored vectors come from another model or dimension; run "
        "`storygraph search backfill --reset`.",
    ),
}


def lexical_note(reason: LexicalReason, locale: str) -> str:
    zh, en = _NOTES[reason]
    return en if locale == "en" else zh
