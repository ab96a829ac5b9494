"""Per-request DataLoaders of the loop's links: `Signal.concern`,
`Concern.signal` and `Versioned.throughConcern` cost one statement per page whatever its
size: the loaders are made fresh per request, so a nested field never queries per item."""

from __future__ import annotations

from strawberry.dataloader import DataLoader

from api.context import Context
from engine.concern.model import Concern
from engine.signal.stored import Signal
from engine.story.views import Excerpt
from jobs.signal import chain


def concern_of_signal(
    ctx: Context, scope: str
) -> DataLoader[tuple[str, str | None], Concern | None]:
    """Keyed (signal id, the concern its decision names): the concern, or None."""

    async def load(keys: list[tuple[str, str | None]]) -> list[Concern | None]:
        found = await chain.concerns_of_signals(ctx.deps, ctx.caller(), scope, keys)
        return [found.get(signal_id) for signal_id, _ in keys]

    return ctx.loader(f"signal.concern:{scope}", lambda: DataLoader(load_fn=load))


def concern_by_id(ctx: Context, scope: str) -> DataLoader[str, Concern | None]:
    async def load(ids: list[str]) -> list[Concern | None]:
        found = await chain.concerns_by_ids(ctx.deps, ctx.caller(), scope, ids)
        return [found.get(i) for i in ids]

    return ctx.loader(f"concern.by_id:{scope}", lambda: DataLoader(load_fn=load))


def signal_by_id(ctx: Context) -> DataLoader[str, Signal | None]:
    async def load(ids: list[str]) -> list[Signal | None]:
        found = await chain.signals_by_ids(ctx.deps, ctx.caller(), ids)
        return [found.get(i) for i in ids]

    return ctx.loader("signal.by_id", lambda: DataLoader(load_fn=load))


def passage(ctx: Context, scope: str) -> DataLoader[tuple[str, str, str], Excerpt]:
    """Keyed (source id, version, locator): the cited text of exactly that version."""

    async def load(keys: list[tuple[str, str, str]]) -> list[Excerpt]:
        found = await chain.passages(ctx.deps, ctx.caller(), scope, keys)
        return [found[k] for k in keys]

    return ctx.loader(f"signal.passage:{scope}", lambda: DataLoader(load_fn=load))
