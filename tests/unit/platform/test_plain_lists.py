"""Lists completed in one pass answer exactly what graphql-core's own completion answers.

The same operations run on one schema twice: with `api.plain_lists.PlainListExecutionContext`
and with strawberry's stock execution context. Data and errors (message, path) must be equal,
for plain selections and for every case the one-pass completion hands back (a null in a
non-null field, a value a scalar refuses, a resolver, arguments, fragments, directives).
"""

from __future__ import annotations

import enum
from datetime import UTC, datetime
from typing import Any

import pytest
import strawberry

from api.plain_lists import PlainListExecutionContext
from api.schema import build_schema


@strawberry.enum
class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


@strawberry.type
class Tag:
    label: str
    weight: int | None


@strawberry.type
class Item:
    id: strawberry.ID
    name: str
    colour: Colour
    at: datetime
    note: str | None
    tags: list[str]
    maybe_tags: list[str | None] | None
    tag: Tag
    extra: Tag | None

    @strawberry.field
    def shout(self) -> str:
        return self.name.upper()

    @strawberry.field
    def prefixed(self, prefix: str = ">") -> str:
        return prefix + self.name


def item(n: int, **changes: Any) -> Item:
    values: dict[str, Any] = {
        "id": strawberry.ID(f"i{n}"),
        "name": f"名{n}",
        "colour": Colour.RED if n % 2 else Colour.BLUE,
        "at": datetime(2026, 1, 1, n % 24, tzinfo=UTC),
        "note": None if n % 3 else f"note {n}",
        "tags": [f"t{n}", "x"],
        "maybe_tags": None if n % 2 else ["a", None],
        "tag": Tag(label=f"L{n}", weight=None if n % 2 else n),
        "extra": None,
    }
    values.update(changes)
    return Item(**values)


ITEMS: list[Item] = []


@strawberry.type
class Query:
    @strawberry.field
    def items(self) -> list[Item]:
        return ITEMS

    @strawberry.field
    def maybe_items(self) -> list[Item | None] | None:
        return [ITEMS[0], None, *ITEMS[1:]] if ITEMS else None

    @strawberry.field
    def names(self) -> list[str]:
        return [i.name for i in ITEMS]


def schemas() -> tuple[strawberry.Schema, strawberry.Schema]:
    plain = strawberry.Schema(query=Query, execution_context_class=PlainListExecutionContext)
    stock = strawberry.Schema(query=Query)
    return plain, stock


def answers(schema: strawberry.Schema, query: str, variables: dict[str, Any] | None) -> Any:
    result = schema.execute_sync(query, variable_values=variables)
    errors = [(e.message, e.path) for e in result.errors or []]
    return result.data, errors


OPERATIONS = [
    (
        "{ items { id name colour at note tags maybeTags tag { label weight } extra { label } } }",
        None,
    ),
    ("{ items { a: id b: name __typename t: tag { __typename w: weight } } }", None),
    (
        "{ items { ...F tag { ...G } } } fragment F on Item { id name } fragment G on Tag { label }",
        None,
    ),
    (
        "query($s: Boolean!) { items { id name @skip(if: $s) note @include(if: $s) } }",
        {"s": True},
    ),
    (
        "query($s: Boolean!) { items { id name @skip(if: $s) note @include(if: $s) } }",
        {"s": False},
    ),
    ("{ items { id shout } }", None),  # a resolver: the ordinary way
    ('{ items { id prefixed(prefix: "#") } }', None),  # arguments: the ordinary way
    ("{ maybeItems { id tag { label } } }", None),  # a null item in a nullable list
    ("{ names }", None),  # a list of leaves
    ("{ items { id } items2: items { name } }", None),
]


@pytest.mark.parametrize(("query", "variables"), OPERATIONS)
def test_plain_lists_answer_what_graphql_core_answers(
    query: str, variables: dict[str, Any] | None
) -> None:
    ITEMS[:] = [item(n) for n in range(7)]
    plain, stock = schemas()
    data, errors = answers(plain, query, variables)
    assert errors == []
    assert (data, errors) == answers(stock, query, variables)


BROKEN = [
    # a null in a non-null leaf: the item's error is graphql-core's, with its path
    ({"name": None}, "{ items { id name } }"),
    # a null in a non-null object field
    ({"tag": None}, "{ items { id tag { label } } }"),
    # a null inside a list of non-null leaves
    ({"tags": ["a", None]}, "{ items { id tags } }"),
    # a value the enum refuses
    ({"colour": "green"}, "{ items { id colour } }"),
    # a value the Int scalar refuses, inside a nested object
    ({"tag": Tag(label="x", weight="many")}, "{ items { id tag { weight } } }"),  # type: ignore[arg-type]
    # a value the DateTime scalar refuses
    ({"at": "yesterday"}, "{ items { id at } }"),
]


@pytest.mark.parametrize(("change", "query"), BROKEN)
def test_an_item_that_needs_an_error_gets_graphql_core_s_error(
    change: dict[str, Any], query: str
) -> None:
    ITEMS[:] = [item(n) for n in range(5)]
    ITEMS[3] = item(3, **change)
    plain, stock = schemas()
    data, errors = answers(plain, query, None)
    assert errors, "the broken item must be reported"
    assert (data, errors) == answers(stock, query, None)


def test_the_api_schema_completes_plain_lists_without_resolving_each_field(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The served schema uses it: 500 plain items are answered with the fields of the root
    only resolved by graphql-core (the items' fields are read in the one pass)."""
    assert build_schema().execution_context_class is PlainListExecutionContext
    ITEMS[:] = [item(n) for n in range(500)]
    calls = {"n": 0}
    ordinary = PlainListExecutionContext.execute_field

    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        return ordinary(self, *args, **kwargs)

    monkeypatch.setattr(PlainListExecutionContext, "execute_field", counted)
    plain, _ = schemas()
    data, errors = answers(plain, "{ items { id name tag { label } } }", None)
    assert errors == [] and len(data["items"]) == 500
    assert calls["n"] == 1  # `items` itself; graphql-core's way would be 2,001
