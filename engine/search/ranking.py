"""The search ranking formula — the one place it is written down (docs/guides/search.md quotes it).

    rank = lucene_score × standing_weight × currency_weight

    standing_weight: confirmed 1.0 · person_edited 1.0 · suggested 0.6 · removed 0.2
    currency_weight: 1.0 when the text matched is the object's version believed at asOf,
                     0.5 when only an earlier version's text matched (an earlier name)

Hits are ordered by rank (descending), then by how often the object is mentioned as of
asOf (entity: results mentioning it; event, relation, summary: references it owns;
descending), then by key (ascending) so the order, and the keyset cursor after it, are total.

Hybrid search (EMBEDDING_BASE_URL set, docs/guides/search.md) fuses two lists by reciprocal rank:

    rank = rrf × standing_weight × currency_weight
    rrf  = w_lex / (RRF_K + lexical_rank) + w_vec / (RRF_K + vector_rank),   RRF_K = 60

(w_lex, w_vec: SEARCH_LEXICAL_WEIGHT, SEARCH_VECTOR_WEIGHT, 1.0 each unless measured for a
model: settings.py `local_embedding_defaults`)

lexical_rank is the hit's place (1-based) among the scope's hits ordered by Lucene score,
vector_rank its place among them ordered by cosine similarity to the query's vector (the
search_vector index's nearest neighbours with similarity >= SEARCH_MIN_SIMILARITY); a hit
absent from one list has no term for it. Both lists go through the same scope, as-of and
kind filters before they are ranked, so a vector hit is never text recorded after asOf nor a
version retracted before it. Standing and currency weigh the fused value as above, and the
same tie-breaks follow.

`lucene_score` is the score `db.index.fulltext.queryNodes` gives the best-matching node of the
object (BM25 over the cjk-analysed fields). An object's standing is that of its version
believed at asOf:
- removed: a relation removed or rejected by a person;
- confirmed: a relation confirmed, an entity with confirmed fields, or a source passage
  (the app's own record of what was said: nothing proposed it);
- person_edited: a version a person wrote, or an entity with fields a person edited;
- suggested: everything an organising run wrote and nobody settled (docs/rules/reviews.md:
  automation only proposes).
The weights travel to Cypher as parameters (`cypher/search/hits.cypher` computes `rank`), so
paging and ordering stay in the database.
"""

from __future__ import annotations

from enum import StrEnum


class Standing(StrEnum):
    CONFIRMED = "confirmed"
    PERSON_EDITED = "person_edited"
    SUGGESTED = "suggested"
    REMOVED = "removed"


class HitKind(StrEnum):
    ENTITY = "entity"
    EVENT = "event"
    RELATION = "relation"
    SUMMARY = "summary"
    PASSAGE = "passage"


STANDING_WEIGHTS: dict[Standing, float] = {
    Standing.CONFIRMED: 1.0,
    Standing.PERSON_EDITED: 1.0,
    Standing.SUGGESTED: 0.6,
    Standing.REMOVED: 0.2,
}
EARLIER_TEXT_WEIGHT = 0.5
RRF_K = 60


def rank(score: float, standing: Standing, current: bool) -> float:
    """The formula above, for tests and the benchmark (Cypher computes the same)."""
    return score * STANDING_WEIGHTS[standing] * (1.0 if current else EARLIER_TEXT_WEIGHT)


def fused_rank(
    lexical_rank: int | None,
    vector_rank: int | None,
    standing: Standing,
    current: bool,
    weights: tuple[float, float] = (1.0, 1.0),
) -> float:
    """The hybrid formula above (Cypher computes the same)."""
    ranks = (lexical_rank, vector_rank)
    rrf = sum(w / (RRF_K + r) for w, r in zip(weights, ranks, strict=True) if r is not None)
    return rrf * STANDING_WEIGHTS[standing] * (1.0 if current else EARLIER_TEXT_WEIGHT)


def weight_params() -> dict[str, float]:
    return {s.value: w for s, w in STANDING_WEIGHTS.items()}
