"""One page of a list read in the database after a keyset: the one page type of
every domain's lists, whatever their items (`Page[Entity]`, `Page[WatchState]`, ...).

The repository reads `first + 1` rows after the cursor's sort key to learn `has_next`, and
counts the whole list only when the caller asked (`total` is None otherwise).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Page(Generic[T]):
    items: list[T]
    has_next: bool
    total: int | None  # None unless asked for
    as_of: datetime | None = None  # a time-sliced list's moment: the page is what was known then

    @classmethod
    def of(
        cls, rows: Sequence[T], first: int, total: int | None, as_of: datetime | None = None
    ) -> Page[T]:
        """The page of `rows` read `first + 1` at a time: the extra row only says more follow."""
        return cls(list(rows[:first]), len(rows) > first, total, as_of)
