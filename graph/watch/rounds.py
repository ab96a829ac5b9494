"""Heartbeat rounds over a scope's candidate watches (seed 000 多候选关注).

A round is claimed by its stable id (MERGE) together with the closures it decided, in one
transaction; a repeated trigger of the same round finds it and changes nothing.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from neo4j import AsyncDriver, AsyncManagedTransaction

from engine.errors import NotFound
from engine.watch.heartbeat_round import CandidateSnapshot, RoundDecision
from engine.watch.model import Outcome
from graph.watch import codec
from graph.watch.repository import rows


@dataclass(frozen=True)
class RoundClaim:
    claimed: bool
    round: dict[str, Any]


def round_id_of(scope: str, round_id: str) -> str:
    return f"{scope}:{round_id}"


class WatchRounds:
    def __init__(self, driver: AsyncDriver, database: str) -> None:
        self._driver = driver
        self._database = database

    async def candidates(self, scope: str) -> list[CandidateSnapshot]:
        async def work(tx: AsyncManagedTransaction) -> list[CandidateSnapshot]:
            found = await rows(tx, "watch/round_candidates", scope=scope)
            return [
                CandidateSnapshot(
                    watch_id=r["id"], last_checked_at=codec.native(r["last_checked_at"]),
                    observation_id=r["observation_id"],
                    outcome=Outcome.model_validate(json.loads(r["outcome"]))
                    if r["outcome"] else None,
                    closed_observation_id=r["closed_observation_id"],
                )
                for r in found
            ]

        async with self._driver.session(database=self._database) as session:
            result: list[CandidateSnapshot] = await session.execute_read(work)
        return result

    async def claim(self, scope: str, round_id: str, decision: RoundDecision, *,
                    run_ids: dict[str, str], planned_by: str, now: datetime) -> RoundClaim:
        """Store the round and close its verified items, unless the round already exists."""
        props = {
            "id": round_id_of(scope, round_id), "round_id": round_id, "scope": scope,
            "full_verification": decision.full_verification,
            "closed": [c.watch_id for c in decision.closed],
            "checked": list(decision.to_check),
            "run_ids": [run_ids[w] for w in decision.to_check],
            "later": list(decision.later), "still_open": list(decision.still_open),
            "planned_by": planned_by, "planned_at": now, "claim": uuid.uuid4().hex,
        }

        async def work(tx: AsyncManagedTransaction) -> RoundClaim:
            found = (await rows(tx, "watch/claim_round", round=props))[0]
            if found["claimed"] and decision.closed:
                await rows(tx, "watch/close_watches", scope=scope, at=now, rows=[
                    c.model_dump() for c in decision.closed])
            return RoundClaim(bool(found["claimed"]), codec.plain(found["r"]))

        async with self._driver.session(database=self._database) as session:
            result: RoundClaim = await session.execute_write(work)
        return result

    async def get(self, scope: str, round_id: str) -> dict[str, Any]:
        async def work(tx: AsyncManagedTransaction) -> dict[str, Any]:
            found = await rows(tx, "watch/get_round", scope=scope, id=round_id_of(scope, round_id))
            if not found:
                raise NotFound(f"unknown watch round {round_id}", field="roundId")
            return codec.plain(found[0]["r"])

        async with self._driver.session(database=self._database) as session:
            result: dict[str, Any] = await session.execute_read(work)
        return result
