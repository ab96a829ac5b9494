"""Per-source checkpoints, per track and scope (docs/rules/reviews.md).

A checkpoint moves only inside the transaction that commits what it covers (the heartbeat
report commit, or the supervision publish transaction), written with compare-and-set on its
revision: a concurrent advance from the same starting point makes the later one fail whole.
"""

from __future__ import annotations

import json

from neo4j import AsyncManagedTransaction

from engine.errors import Conflict
from engine.review.checkpoints import Checkpoint, CheckpointKey
from graph.base import Store
from graph.review.codec import dumps


class Checkpoints(Store):
    async def get_in(self, tx: AsyncManagedTransaction, key: CheckpointKey) -> Checkpoint:
        rows = await self.rows(
            tx, "review/checkpoint_get", track=key.track.value, scope_key=key.scope_key
        )
        if not rows or rows[0]["doc"] is None:
            return Checkpoint(key=key)
        return Checkpoint.model_validate(json.loads(rows[0]["doc"]))

    async def get(self, key: CheckpointKey) -> Checkpoint:
        async def work(tx: AsyncManagedTransaction) -> Checkpoint:
            return await self.get_in(tx, key)

        return await self.read(work)

    async def put_in(
        self, tx: AsyncManagedTransaction, new: Checkpoint, *, expected: int, scope_tag: str
    ) -> None:
        """Write `new` if the stored revision is still `expected` (the one it was read at)."""
        rows = await self.rows(
            tx,
            "review/checkpoint_put",
            expected=expected,
            row={
                "track": new.key.track.value,
                "scope_key": new.key.scope_key,
                "scope": scope_tag,
                "revision": new.revision,
                "doc": dumps(new.model_dump(mode="json")),
            },
        )
        if not rows:
            raise Conflict(
                "the checkpoint moved concurrently; nothing was written",
                track=new.key.track.value,
                scope_key=new.key.scope_key,
            )
