"""Reading the Agenda of a scope (docs/rules/concerns.md): concern_refs and recent_decisions.

The writes happen inside `ConcernRepository.save_decision`, from the decision's
`AgendaUpdate` effects; this store reads the result back as the engine's `Agenda`.
"""

from __future__ import annotations

from engine.concern.agenda import Agenda
from engine.concern.effects import AgendaRef, RecentDecision
from graph.base import Store
from graph.temporal import from_neo4j


class AgendaStore(Store):
    async def load(self, scope: str, *, keep: int = 50) -> Agenda:
        records = await self.query("concern/agenda_get", scope=scope, keep=keep)
        if not records:
            return Agenda()
        r = records[0]
        refs = tuple(AgendaRef.model_validate(x) for x in r["refs"])
        decisions = tuple(
            RecentDecision.model_validate({k: from_neo4j(v) for k, v in d.items()})
            for d in r["decisions"]
        )
        return Agenda(concern_refs=refs, recent_decisions=decisions)
