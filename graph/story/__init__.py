"""The story graph in Neo4j: the repository the API and jobs call (docs/rules/story-graph.md)."""

from graph.story.repository import PublishOutcome, StoryRepository

__all__ = ["PublishOutcome", "StoryRepository"]
