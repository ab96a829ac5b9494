"""A story repository over the real Neo4j, with a clock the test moves forward."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from neo4j import AsyncDriver

from engine.settings import Settings
from graph.story import StoryRepository


class StepClock:
    """Each call returns a later time, so record times are strictly increasing."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(minutes=1)
        return self.now


@pytest.fixture
def clock() -> StepClock:
    return StepClock()


@pytest.fixture
def repo(neo4j_driver: AsyncDriver, settings: Settings, clock: StepClock) -> StoryRepository:
    return StoryRepository(neo4j_driver, settings.neo4j_database, clock=clock)
