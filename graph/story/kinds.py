"""The allow-list of versioned story kinds: each kind's model and its named queries.

Labels live in the cypher files; Python only ever picks one of these entries, and every
query is named here by its literal key, so a search for a file's name finds its caller.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.story.models import Entity, Event, ObjectKind, Relation, Story, Suggestion, Version


@dataclass(frozen=True)
class KindQueries:
    model: type[Version]
    versions: str  # every version of some ids, in seq order
    write: str  # UNWIND-write new versions (and retract the ones they replace)
    in_result: str  # the versions one result wrote


VERSIONED: dict[ObjectKind, KindQueries] = {
    ObjectKind.STORY: KindQueries(
        Story,
        "story/story_versions",
        "story/write_story_versions",
        "story/result_story_versions",
    ),
    ObjectKind.EVENT: KindQueries(
        Event,
        "story/event_versions",
        "story/write_event_versions",
        "story/result_event_versions",
    ),
    ObjectKind.ENTITY: KindQueries(
        Entity,
        "story/entity_versions",
        "story/write_entity_versions",
        "story/result_entity_versions",
    ),
    ObjectKind.RELATION: KindQueries(
        Relation,
        "story/relation_versions",
        "story/write_relation_versions",
        "story/result_relation_versions",
    ),
    ObjectKind.SUGGESTION: KindQueries(
        Suggestion,
        "story/suggestion_versions",
        "story/write_suggestion_versions",
        "story/result_suggestion_versions",
    ),
}
