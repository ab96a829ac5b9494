"""Reading the Agenda of a scope (seed 002 §十一): concern_refs and recent_decisions.

The writes happen inside `repository.save_decision`, from the decision's `AgendaUpdate`
effects; this module reads the result back as the engine's `Agenda`.
"""

from __future__ import annotations

from typing import Any

from neo4j import AsyncDriver

from engine.concern.agenda import Agenda
from engine.concern.effects import AgendaRef, RecentDecision
from graph.queries import queries


def _native(value: Any) -> Any:
    return value.to_native() if hasattr(value, "to_native") else value


async def load_agenda(driver: AsyncDriver, database: str, scope: str, *, keep: int = 50) -> Agenda:
    records, _, _ = await driver.execute_query(
        queries()["concern/agenda_get"], scope=scope, keep=keep, database_=database,
        routing_="r",
    )
    if not records:
        return Agenda()
    r = records[0]
    refs = tuple(AgendaRef.model_validate(x) for x in r["refs"])
    decisions = tuple(
        RecentDecision.model_validate({k: _native(v) for k, v in d.items()})
        for d in r["decisions"]
    )
    return Agenda(concern_refs=refs, recent_decisions=decisions)
