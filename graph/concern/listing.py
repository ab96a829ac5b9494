"""concerns(...) for the API: one scope's concerns, filtered and paged in Cypher."""

from __future__ import annotations

from dataclasses import dataclass

from neo4j import AsyncDriver

from engine.concern.model import Concern
from graph.concern.codec import concern_from_doc
from graph.queries import queries


@dataclass(frozen=True)
class ConcernPage:
    total: int
    concerns: list[Concern]


async def list_concerns(
    driver: AsyncDriver, database: str, *, scope: str, statuses: list[str] | None = None,
    priorities: list[str] | None = None, person_id: str | None = None, skip: int = 0,
    limit: int = 50,
) -> ConcernPage:
    records, _, _ = await driver.execute_query(
        queries()["concern/list"], scope=scope, statuses=statuses, priorities=priorities,
        person_id=person_id, skip=skip, limit=limit, database_=database, routing_="r",
    )
    if not records:
        return ConcernPage(0, [])
    r = records[0]
    return ConcernPage(int(r["total"]), [concern_from_doc(d) for d in r["page"]])
