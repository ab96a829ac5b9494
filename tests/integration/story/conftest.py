"""A story repository over the real Neo4j, and a clock the test moves forward (`StepClock`,
in tests/support/story.py) whose readings the test passes as each call's `now` or `as_of`,
as a use case passes `deps.clock()`."""

from __future__ import annotations

import pytest
from neo4j import AsyncDriver

from engine.settings import Settings
from graph.story import StoryRepository
from tests.support.story import StepClock


@pytest.fixture
def clock() -> StepClock:
    return StepClock()


@pytest.fixture
def repo(neo4j_driver: AsyncDriver, settings: Settings) -> StoryRepository:
    return StoryRepository(neo4j_driver, settings.neo4j_database)
