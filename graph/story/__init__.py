"""The story graph in Neo4j: the repository the API and jobs call (seed 004 图谱对象关系)."""

from graph.story.repository import PublishOutcome, StoryRepository

__all__ = ["PublishOutcome", "StoryRepository"]
