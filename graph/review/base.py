"""The review repositories' base: the shared `Store` plus the deployment every global record
is keyed by.

The deployment is the arq queue name: workers and API replicas of one deployment share it,
and so share the one-review lease and the app switch; test sessions with their own queue
never disturb each other.
"""

from __future__ import annotations

from neo4j import AsyncDriver

from graph.base import Store
from graph.queries import Queries


class Repository(Store):
    def __init__(
        self, driver: AsyncDriver, database: str, deployment: str, *, named: Queries | None = None
    ) -> None:
        super().__init__(driver, database, named=named)
        self.deployment = deployment
