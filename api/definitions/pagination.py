"""Relay connections (`first/after`, `edges{cursor node}`, `pageInfo`, `totalCount`).

Cursors are opaque base64 offsets into a list ordered stably by the resolver; filters are
applied before paging so `totalCount` counts what the filter kept.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Generic, TypeVar

import strawberry

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
