"""Relay connections (`first/after`, `edges{cursor node}`, `pageInfo`, `totalCount`).

The cursors, and the one decode-cursor / read / cursor-each-item sequence, are `api.paging`'s
(shared with the MCP tools); this module shapes its answer as a connection. `totalCount` is a
separate count statement, run only when the client selects it (`wants_total`). Filters apply
before paging.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

import strawberry
from strawberry.types import Info
from strawberry.types.nodes import SelectedField

from api.paging import Cursored
from engine.errors import InvalidInput

T = TypeVar("T")
N = TypeVar("N")


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


def connection(cursored: Cursored[T], node: Callable[[T], N]) -> Connection[N]:
    """A page and its cursors (`api.paging`) as a Relay connection of `node(item)`; a total
    the client did not ask for reads -1 (it is never selected then)."""
    page = cursored.page
    edges = [
        Edge(cursor=c, node=node(i)) for c, i in zip(cursored.cursors, page.items, strict=True)
    ]
    return Connection(
        edges=edges,
        page_info=PageInfo(
            has_next_page=page.has_next,
            has_previous_page=cursored.after is not None,
            start_cursor=edges[0].cursor if edges else None,
            end_cursor=edges[-1].cursor if edges else None,
        ),
        total_count=-1 if page.total is None else page.total,
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
