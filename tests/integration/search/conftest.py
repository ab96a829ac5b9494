"""Search over the real Neo4j: a story repository to write with, deps to search with."""

from __future__ import annotations

import pytest
from neo4j import AsyncDriver

from engine.settings import Settings
from graph.story import StoryRepository
from jobs.deps import Deps
from tests.support.story import StepClock


@pytest.fixture
def clock() -> StepClock:
    return StepClock()


@pytest.fixture
def repo(neo4j_driver: AsyncDriver, settings: Settings) -> StoryRepository:
    return StoryRepository(neo4j_driver, settings.neo4j_database)


@pytest.fixture
def deps(neo4j_driver: AsyncDriver, settings: Settings, clock: StepClock) -> Deps:
    return Deps(settings=settings, driver=neo4j_driver, pool=None, clock=clock)
