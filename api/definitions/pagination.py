"""Relay connections (`first/after`, `edges{cursor node}`, `pageInfo`, `totalCount`).

Lists paged in Cypher (issue 14) use keyset cursors: opaque base64 of the list's name and the
last row's sort key, so the next page is an index range read after it (`keyset_connection`).
A cursor of another list, or not issued by this API, is INVALID_INPUT. `totalCount` is a
separate count statement, run only when the client selects it (`wants_total`). Lists still
held whole in memory use offset cursors (`paginate`). Filters apply before paging either way.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

import strawberry
from strawberry.types import Info
from strawberry.types.nodes import SelectedField

from engine.errors import InvalidInput

T = TypeVar("T")
MAX_PAGE = 500


@strawberry.type
class PageInfo:
    has_next_page: bool
    has_previous_page: bool
    start_cursor: str | None
    end_cursor: str | None


@strawberry.type
class Edge(Generic[T]):
    cursor: str
    node: T


@strawberry.type
class Connection(Generic[T]):
    edges: list[Edge[T]]
    page_info: PageInfo
    total_count: int


def encode_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(f"o:{offset}".encode()).decode()


def decode_cursor(cursor: str) -> int:
    try:
        kind, _, value = base64.urlsafe_b64decode(cursor.encode()).decode().partition(":")
        offset = int(value)
        if kind != "o" or offset < 0 or not value.isdigit():
            raise ValueError(cursor)
        return offset
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidInput("after is not a cursor this API issued", after=cursor) from exc


def paginate(items: Sequence[T], first: int | None, after: str | None) -> Connection[T]:
    if first is not None and not 0 <= first <= MAX_PAGE:
        raise InvalidInput(f"first must be between 0 and {MAX_PAGE}", first=first)
    start = decode_cursor(after) + 1 if after else 0
    size = MAX_PAGE if first is None else first
    window = items[start : start + size]
    edges = [Edge(cursor=encode_cursor(start + i), node=node) for i, node in enumerate(window)]
    return Connection(
        edges=edges,
        page_info=PageInfo(
            has_next_page=start + len(window) < len(items),
            has_previous_page=start > 0,
            start_cursor=edges[0].cursor if edges else None,
            end_cursor=edges[-1].cursor if edges else None,
        ),
        total_count=len(items),
    )


def _selects(selections: Sequence[Any], name: str) -> bool:
    """`name` among these selections, looking into fragments (not into sub-fields)."""
    for s in selections:
        if isinstance(s, SelectedField):
            if s.name == name:
                return True
        elif _selects(s.selections, name):  # a fragment spread or an inline fragment
            return True
    return False


def wants_total(info: Info[Any, Any]) -> bool:
    """Did the client select `totalCount` of this connection (under any alias)?"""
    return any(_selects(field.selections, "totalCount") for field in info.selected_fields)


def page_size(first: int | None, cap: int) -> int:
    """`first` (the guard already bounded it by the one cap, Settings.page_max_first)."""
    if first is None:
        return cap
    if not 0 <= first <= cap:
        raise InvalidInput(f"first must be between 0 and {cap}", first=first)
    return first


def encode_keyset(kind: str, key: Sequence[str | int | float]) -> str:
    return base64.urlsafe_b64encode(json.dumps([kind, *key]).encode()).decode()


def decode_keyset(kind: str, cursor: str | None, types: tuple[type, ...]) -> tuple[Any, ...] | None:
    """The sort key in a cursor this list issued; anything else is INVALID_INPUT."""
    if cursor is None:
        return None
    try:
        value = json.loads(base64.urlsafe_b64decode(cursor.encode()).decode())
        ok = (
            isinstance(value, list)
            and len(value) == len(types) + 1
            and value[0] == kind
            and all(type(v) is t for v, t in zip(value[1:], types, strict=True))
        )
    except (ValueError, UnicodeDecodeError):
        ok = False
    if not ok:
        raise InvalidInput("after is not a cursor this API issued for this list", after=cursor)
    return tuple(value[1:])


def keyset_connection(
    kind: str,
    nodes: Sequence[T],
    key: Callable[[T], Sequence[str | int]],
    *,
    has_next: bool,
    after: str | None,
    total: int | None,
) -> Connection[T]:
    """A page read after a keyset cursor; `total` is None when the client did not ask."""
    edges = [Edge(cursor=encode_keyset(kind, key(n)), node=n) for n in nodes]
    return Connection(
        edges=edges,
        page_info=PageInfo(
            has_next_page=has_next,
            has_previous_page=after is not None,
            start_cursor=edges[0].cursor if edges else None,
            end_cursor=edges[-1].cursor if edges else None,
        ),
        total_count=-1 if total is None else total,
    )
