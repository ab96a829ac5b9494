"""Heartbeat rounds over a scope's candidate watches (docs/rules/watches.md).

A round is claimed by its stable id (MERGE) together with the closures it decided, in one
transaction; a repeated trigger of the same round finds it and changes nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from neo4j import AsyncManagedTransaction

from engine.errors import NotFound
from engine.ids import new_id
from engine.watch.heartbeat_round import CandidateSnapshot, RoundDecision
from engine.watch.model import Outcome
from graph.base import Store, rows
from graph.temporal import from_neo4j
from graph.watch import codec


@dataclass(frozen=True)
class RoundClaim:
    claimed: bool
    round: dict[str, Any]


def round_id_of(scope: str, round_id: str) -> str:
    return f"{scope}:{round_id}"


class WatchRounds(Store):
    async def candidates(self, scope: str) -> list[CandidateSnapshot]:
        async def work(tx: AsyncManagedTransaction) -> list[CandidateSnapshot]:
            found = await rows(tx, "watch/round_candidates", scope=scope)
            return [
                CandidateSnapshot(
                    watch_id=r["id"],
                    last_checked_at=from_neo4j(r["last_checked_at"]),
                    observation_id=r["observation_id"],
                    outcome=Outcome.model_validate(json.loads(r["outcome"]))
                    if r["outcome"]
                    else None,
                    closed_observation_id=r["closed_observation_id"],
                )
                for r in found
            ]

        result: list[CandidateSnapshot] = await self.read(work)
        return result

    async def claim(
        self,
        scope: str,
        round_id: str,
        decision: RoundDecision,
        *,
        run_ids: dict[str, str],
        planned_by: str,
        now: datetime,
    ) -> RoundClaim:
        """Store the round and close its verified items, unless the round already exists."""
        props = {
            "id": round_id_of(scope, round_id),
            "round_id": round_id,
            "scope": scope,
            "full_verification": decision.full_verification,
            "closed": [c.watch_id for c in decision.closed],
            "checked": list(decision.to_check),
            "run_ids": [run_ids[w] for w in decision.to_check],
            "later": list(decision.later),
            "still_open": list(decision.still_open),
            "planned_by": planned_by,
            "planned_at": now,
            "claim": new_id("", 32),
        }

        async def work(tx: AsyncManagedTransaction) -> RoundClaim:
            found = (await rows(tx, "watch/claim_round", round=props))[0]
            if found["claimed"] and decision.closed:
                await rows(
                    tx,
                    "watch/close_watches",
                    scope=scope,
                    at=now,
                    rows=[c.model_dump() for c in decision.closed],
                )
            return RoundClaim(bool(found["claimed"]), codec.plain(found["r"]))

        result: RoundClaim = await self.write(work)
        return result

    async def get(self, scope: str, round_id: str) -> dict[str, Any]:
        async def work(tx: AsyncManagedTransaction) -> dict[str, Any]:
            found = await rows(tx, "watch/get_round", scope=scope, id=round_id_of(scope, round_id))
            if not found:
                raise NotFound(f"unknown watch round {round_id}", field="roundId")
            return codec.plain(found[0]["r"])

        result: dict[str, Any] = await self.read(work)
        return result

    async def scopes_with_enabled_watches(self, limit: int) -> list[str]:
        """The scopes a heartbeat slot starts a round for (at most `limit`)."""
        found = await self.query("watch/scopes_with_enabled_watches", limit=limit)
        return [r["scope"] for r in found]
