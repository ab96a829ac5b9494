"""The cursors of every list, shared by the GraphQL connections and the MCP tools.

Lists paged in Cypher use keyset cursors: opaque base64 of the list's name and the
last item's sort key, so the next page is an index range read after it. Each list's keyset
is defined once here (`ENTITIES`, `WATCHES`, ...), so a GraphQL client and an MCP agent
page the same list with the same cursor. A cursor of another list, or not issued by this
API, is INVALID_INPUT. Lists still held whole in memory use offset cursors (`offset_page`).

`read_after` is the one decode-cursor / read / cursor-each-item sequence; the GraphQL
resolvers shape its answer as a Relay connection (`api.definitions.pagination.connection`),
the MCP tools as `items` and `next`.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

from engine.clock import epoch_us, from_epoch_us
from engine.concern.model import Concern
from engine.errors import InvalidInput
from engine.page import Page
from engine.review.activity import Activity
from engine.review.lifecycle import SupervisionRun
from engine.search.hits import Hit
from engine.signal.binding import PersonBinding
from engine.signal.stored import Signal
from engine.story.diff import DiffEntry
from engine.story.inbox import InboxItem
from engine.story.models import Entity, Event, Relation
from graph.concern.outbox import OutboxRow
from graph.llm.ledger import KeyedLine
from graph.watch.repository import WatchState

T = TypeVar("T")
K = TypeVar("K")
MAX_OFFSET_PAGE = 500


@dataclass(frozen=True)
class Cursored(Generic[T]):
    """A page with the cursor after each of its items."""

    page: Page[T]
    cursors: list[str]
    after: str | None  # the cursor the page was read after

    @property
    def next(self) -> str | None:
        """The cursor to read the following page after; None at the end."""
        return self.cursors[-1] if self.page.has_next and self.cursors else None


@dataclass(frozen=True)
class Keyset(Generic[T, K]):
    """One list's keyset: its cursor name, the JSON types of its sort key, an item's sort
    key as the cursor holds it, and the cursor's values as the read takes them."""

    kind: str
    types: tuple[type, ...]
    values: Callable[[T], Sequence[str | int | float]]
    key: Callable[[tuple[Any, ...]], K]

    def encode(self, item: T) -> str:
        return base64.urlsafe_b64encode(
            json.dumps([self.kind, *self.values(item)]).encode()
        ).decode()

    def decode(self, cursor: str | None) -> K | None:
        """The sort key in a cursor this list issued; anything else is INVALID_INPUT."""
        if cursor is None:
            return None
        try:
            value = json.loads(base64.urlsafe_b64decode(cursor.encode()).decode())
            ok = (
                isinstance(value, list)
                and len(value) == len(self.types) + 1
                and value[0] == self.kind
                and all(type(v) is t for v, t in zip(value[1:], self.types, strict=True))
            )
        except (ValueError, UnicodeDecodeError):
            ok = False
        if not ok:
            raise not_a_cursor(cursor)
        return self.key(tuple(value[1:]))


CURSOR_FORM = (
    "after takes an edge's cursor or pageInfo.endCursor from a page of the same list; "
    "leave it out to start at the first page"
)


def not_a_cursor(cursor: str) -> InvalidInput:
    """The error for an `after` this list did not issue, in the voice of every input error:
    the argument, what the value is not, and the form it takes."""
    shown = cursor if len(cursor) <= 60 else cursor[:57] + "..."
    return InvalidInput(
        f'argument after: "{shown}" is not a cursor of this list; {CURSOR_FORM}',
        argument="after",
        after=cursor,
    )


async def read_after(
    keyset: Keyset[T, K], after: str | None, read: Callable[[K | None], Awaitable[Page[T]]]
) -> Cursored[T]:
    """Decode `after`, read the page after its key, and cursor each item of it."""
    page = await read(keyset.decode(after))
    return Cursored(page, [keyset.encode(i) for i in page.items], after)


def _names(key: tuple[Any, ...]) -> tuple[str, str]:
    return (key[0], key[1])


def _at(key: tuple[Any, ...]) -> tuple[datetime, str]:
    return (from_epoch_us(key[0]), key[1])


def _at_seq(key: tuple[Any, ...]) -> tuple[datetime, int, str]:
    return (from_epoch_us(key[0]), key[1], key[2])


def _us_id(key: tuple[Any, ...]) -> tuple[int, str]:
    return (key[0], key[1])


ENTITIES: Keyset[Entity, tuple[str, str]] = Keyset(
    "entity", (str, str), lambda e: (e.name, e.id), _names
)
RELATIONS: Keyset[Relation, tuple[str, str]] = Keyset(
    "relation", (str, str), lambda r: (r.type, r.id), _names
)
SIGNALS: Keyset[Signal, str] = Keyset("signal", (str,), lambda s: (s.id,), lambda k: k[0])
BINDINGS: Keyset[PersonBinding, str] = Keyset("binding", (str,), lambda b: (b.id,), lambda k: k[0])
EVENTS: Keyset[Event, tuple[datetime, str]] = Keyset(
    "event", (int, str), lambda e: (epoch_us(e.at), e.id), _at
)
WATCHES: Keyset[WatchState, tuple[datetime, str]] = Keyset(
    "watch", (int, str), lambda s: (epoch_us(s.watch.created_at), s.watch.watch_id), _at
)
CONCERNS: Keyset[Concern, tuple[datetime, str]] = Keyset(
    "concern", (int, str), lambda c: (epoch_us(c.created_at), c.concern_id), _at
)
MESSAGES: Keyset[OutboxRow, tuple[datetime, int, str]] = Keyset(
    "concern-message", (int, int, str), lambda r: (epoch_us(r.deliver_at), r.seq, r.key), _at_seq
)
RUNS: Keyset[SupervisionRun, tuple[datetime, str]] = Keyset(
    "supervisionRuns", (int, str), lambda r: (epoch_us(r.created_at), r.run_id), _at
)
ACTIVITY: Keyset[Activity, tuple[datetime, str]] = Keyset(
    "activity", (int, str), lambda a: (epoch_us(a.started_at), a.id), _at
)


def encode_offset(offset: int) -> str:
    return base64.urlsafe_b64encode(f"o:{offset}".encode()).decode()


def decode_offset(cursor: str) -> int:
    try:
        kind, _, value = base64.urlsafe_b64decode(cursor.encode()).decode().partition(":")
        offset = int(value)
        if kind != "o" or offset < 0 or not value.isdigit():
            raise ValueError(cursor)
        return offset
    except (ValueError, UnicodeDecodeError) as exc:
        raise not_a_cursor(cursor) from exc


def offset_page(items: Sequence[T], first: int | None, after: str | None) -> Cursored[T]:
    """One page of a list already read whole, after an offset cursor."""
    if first is not None and not 0 <= first <= MAX_OFFSET_PAGE:
        raise InvalidInput(f"first must be between 0 and {MAX_OFFSET_PAGE}", first=first)
    start = decode_offset(after) + 1 if after else 0
    size = MAX_OFFSET_PAGE if first is None else first
    window = list(items[start : start + size])
    return Cursored(
        Page(window, start + len(window) < len(items), len(items)),
        [encode_offset(start + i) for i in range(len(window))],
        after,
    )


# storyGraphDiff / story_diff: (the object's last change in the window, id)
DIFF: Keyset[DiffEntry, tuple[int, str]] = Keyset(
    "diff", (int, str), lambda e: (epoch_us(e.changed_at), e.object_id), _us_id
)
# search / MCP search: (rank, mentions, key), best first
SEARCH: Keyset[Hit, tuple[float, int, str]] = Keyset(
    "search", (float, int, str), lambda h: (h.rank, h.mentions, h.key), lambda k: (k[0], k[1], k[2])
)

# costLedger's lines: their key (run, batch, stage, model, concern, watch)
COST_LINES: Keyset[KeyedLine, str] = Keyset("costLine", (str,), lambda x: (x.key,), lambda k: k[0])

# inbox: (the suggestion's record time or the run's stop, id), newest first
INBOX: Keyset[InboxItem, tuple[int, str]] = Keyset(
    "inbox", (int, str), lambda i: (epoch_us(i.at), i.id), _us_id
)
