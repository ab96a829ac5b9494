"""Per-request DataLoaders for the nested fields of `Watch`: made fresh per request, so a
nested field never queries per item.

Each loader is keyed by watch id and made once per request and (scope, kind, limit) through
`Context.loader`; a page of watches asking for observations, hand-offs, checkpoints, grants
and receipts costs one query per field, whatever the page size.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from strawberry.dataloader import DataLoader

from api.context import Context
from engine.watch.model import Checkpoint
from engine.watch.report import ReceiptRecord
from graph.watch.batch import WatchBatchReads
from graph.watch.deliveries import StoredHandOff
from graph.watch.receipts import WatchReceipts
from graph.watch.records import StoredObservation

T = TypeVar("T")


def _loader(
    ctx: Context, key: str, fetch: Callable[[list[str]], Awaitable[Sequence[list[T]]]]
) -> DataLoader[str, list[T]]:
    async def load(ids: list[str]) -> list[list[T]]:
        return list(await fetch(ids))

    return ctx.loader(key, lambda: DataLoader[str, list[T]](load_fn=load))


def _reads(ctx: Context) -> WatchBatchReads:
    return WatchBatchReads(ctx.driver, ctx.database)


def observations(ctx: Context, scope: str, limit: int) -> DataLoader[str, list[StoredObservation]]:
    return _loader(
        ctx,
        f"watch.observations:{scope}:{limit}",
        lambda ids: _reads(ctx).observations(scope, ids, limit),
    )


def handoffs(ctx: Context, scope: str) -> DataLoader[str, list[StoredHandOff]]:
    return _loader(ctx, f"watch.handoffs:{scope}", lambda ids: _reads(ctx).handoffs(scope, ids))


def checkpoints(
    ctx: Context, scope: str, limit: int
) -> DataLoader[str, list[tuple[Checkpoint, int]]]:
    return _loader(
        ctx,
        f"watch.checkpoints:{scope}:{limit}",
        lambda ids: _reads(ctx).checkpoints(scope, ids, limit),
    )


def grants(ctx: Context, scope: str) -> DataLoader[str, list[dict[str, Any]]]:
    return _loader(ctx, f"watch.grants:{scope}", lambda ids: _reads(ctx).grants(scope, ids))


def receipts(ctx: Context, scope: str, limit: int) -> DataLoader[str, list[ReceiptRecord]]:
    async def fetch(ids: list[str]) -> list[list[ReceiptRecord]]:
        found = await WatchReceipts(ctx.driver, ctx.database).receipts_of(scope, ids, limit)
        return [found.get(i, []) for i in ids]

    return _loader(ctx, f"watch.receipts:{scope}:{limit}", fetch)
