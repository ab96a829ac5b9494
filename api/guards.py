"""Checks every operation's arguments get before a resolver sees them.

- **Sizes:** no string longer than `input_max_string_chars` (`input_max_text_chars` for a
  field named `text`: a source document or a message) and no list longer than
  `input_max_list_items`, anywhere in a root field's arguments (publishResult rows, source
  text, concern texts, evidence...). The request body limit bounds the total; these bound
  what one field can make a resolver, a transaction or a model prompt carry.
- **Pages:** `first` of every connection is between 0 and `page_max_first`.
- **Intervals:** where arguments (or one input object) carry both `from` and `to` instants,
  `from` must not be later than `to`; a mutation (startReview) needs `from` earlier than
  `to`, since an empty window would be enqueued only to fail in the worker.
- **Tokens:** the document's token limit counts the variables too, so a small query cannot
  carry an unbounded variables object.

All answer INVALID_INPUT naming the argument, before anything is read, written or enqueued.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from typing import Any

from graphql import (
    GraphQLError,
    GraphQLObjectType,
    GraphQLResolveInfo,
    GraphQLSchema,
    OperationType,
    default_field_resolver,
)
from strawberry.extensions import MaxTokensLimiter
from strawberry.utils.str_converters import to_camel_case

from engine.errors import InvalidInput
from engine.settings import Settings

TEXT_FIELDS = frozenset({"text"})


@dataclasses.dataclass(frozen=True)
class InputLimits:
    max_string_chars: int = 20_000
    max_text_chars: int = 1_000_000
    max_list_items: int = 2_000
    max_first: int = 500

    @classmethod
    def of(cls, settings: Settings) -> InputLimits:
        """The limits a deployment configured (INPUT_MAX_*, PAGE_MAX_FIRST)."""
        return cls(
            max_string_chars=settings.input_max_string_chars,
            max_text_chars=settings.input_max_text_chars,
            max_list_items=settings.input_max_list_items,
            max_first=settings.page_max_first,
        )


def _members(value: object) -> Iterator[tuple[str, object]] | None:
    if isinstance(value, Mapping):
        return ((str(k), v) for k, v in value.items())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (
            (to_camel_case(f.name.rstrip("_")), getattr(value, f.name))
            for f in dataclasses.fields(value)
        )
    return None


def check_sizes(path: str, value: object, limits: InputLimits, key: str = "") -> None:
    if isinstance(value, str):
        cap = limits.max_text_chars if key in TEXT_FIELDS else limits.max_string_chars
        if len(value) > cap:
            raise InvalidInput(
                f"{path} is {len(value)} characters long; at most {cap} are accepted",
                argument=path,
                limit=cap,
            )
        return
    if isinstance(value, (list, tuple)):
        if len(value) > limits.max_list_items:
            raise InvalidInput(
                f"{path} has {len(value)} items; at most {limits.max_list_items} are accepted",
                argument=path,
                limit=limits.max_list_items,
            )
        for i, item in enumerate(value):
            check_sizes(f"{path}[{i}]", item, limits, key)
        return
    members = _members(value)
    if members is None:
        return
    items = dict(members)
    check_interval(path, items.get("from"), items.get("to"), strict=False)
    for name, item in items.items():
        check_sizes(f"{path}.{name}" if path else name, item, limits, name)


def check_interval(where: str, start: object, end: object, *, strict: bool) -> None:
    if not (isinstance(start, datetime) and isinstance(end, datetime)):
        return
    try:
        reversed_ = start >= end if strict else start > end
    except TypeError:  # one naive, one aware: the scalar rejects naive values before this
        return
    if reversed_:
        prefix = f"{where}: " if where else ""
        rule = "earlier than" if strict else "no later than"
        raise InvalidInput(
            f"{prefix}from ({start.isoformat()}) must be {rule} to ({end.isoformat()})",
            argument=f"{where}.from" if where else "from",
        )


def check_arguments(
    info: GraphQLResolveInfo, kwargs: Mapping[str, Any], limits: InputLimits
) -> None:
    """The page size of any field; the sizes and interval of a root field's arguments."""
    first = kwargs.get("first")
    if isinstance(first, int) and not 0 <= first <= limits.max_first:
        raise InvalidInput(
            f"{info.field_name}.first must be between 0 and {limits.max_first}",
            argument=f"{info.field_name}.first",
            first=first,
        )
    if info.path.prev is None:
        field = info.field_name
        strict = info.operation.operation == OperationType.MUTATION
        check_interval(field, kwargs.get("from"), kwargs.get("to"), strict=strict)
        for name, value in kwargs.items():
            check_sizes(f"{field}.{name}", value, limits, name)


def _guarded(resolve: Callable[..., Any], limits: InputLimits) -> Callable[..., Any]:
    def guarded(root: Any, info: GraphQLResolveInfo, **kwargs: Any) -> Any:
        if kwargs:
            check_arguments(info, kwargs, limits)
        return resolve(root, info, **kwargs)

    return guarded


def guard_arguments(schema: GraphQLSchema, limits: InputLimits) -> None:
    """Put the argument checks (see the module note) in front of the resolvers of the fields
    that take arguments, and only those: as a schema extension's `resolve` hook they ran
    for every field of an answer, each leaf of a 50-row page too (a seventh of its time)."""
    for named in schema.type_map.values():
        if not isinstance(named, GraphQLObjectType) or named.name.startswith("__"):
            continue
        for field in named.fields.values():
            if not field.args:
                continue
            field.resolve = _guarded(field.resolve or default_field_resolver, limits)
            if field.subscribe is not None:
                field.subscribe = _guarded(field.subscribe, limits)


def count_tokens(value: object) -> int:
    """Tokens a JSON value would be as a GraphQL literal: one per scalar, a pair per list or
    object, two per object key (name and colon)."""
    if isinstance(value, Mapping):
        return 2 + sum(2 + count_tokens(v) for v in value.values())
    if isinstance(value, list):
        return 2 + sum(count_tokens(v) for v in value)
    return 1


class TokenLimiter(MaxTokensLimiter):
    """strawberry's token limit on the document, and a budget of its own for the variables
    (a whole organising result travels in them)."""

    def __init__(self, max_token_count: int, max_variable_tokens: int) -> None:
        super().__init__(max_token_count=max_token_count)
        self.max_variable_tokens = max_variable_tokens
        self.over = False

    def on_operation(self) -> Iterator[None]:
        used = count_tokens(self.execution_context.variables or {}) - 2
        self.over = used > self.max_variable_tokens
        self.execution_context.parse_options["max_tokens"] = self.max_token_count
        yield

    def on_validate(self) -> Iterator[None]:
        if self.over:
            # set before validation runs, so validation is skipped and this is the answer
            self.execution_context.pre_execution_errors = [
                GraphQLError(
                    f"the variables carry more than {self.max_variable_tokens} tokens",
                    extensions={"code": "INVALID_INPUT", "argument": "variables"},
                )
            ]
        yield
