"""Lists of plain objects completed in one pass (the GraphQL layer's own cost).

graphql-core completes each field of each list item on its own: a resolve info, a path, a
call through strawberry's resolver wrapper and a completion for every leaf, a few µs each.
That was 45% of a 500-object `storyGraph` answer and a fifth of a 50-entity page.

When the items of a list select only fields that strawberry resolves as plain attributes
(no resolver, no arguments, no permission or field extension), whose types are scalars,
enums, lists of those, or objects of such fields in turn, the answer is built here directly:
the same resolver call (strawberry's basic-field getter), the same `coerce_output_value`, in
one loop, with the selection planned once per list field and operation. Anything outside
that shape, and any list with an item that needs an error (a null in a non-null field, a
value a scalar refuses, an item of the wrong type), is completed the ordinary way, for the
whole list, so every error and its path are graphql-core's own. Incremental delivery
(`@defer`, `@stream`) and middleware also take the ordinary way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from graphql import (
    GraphQLBoolean,
    GraphQLID,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLResolveInfo,
    GraphQLString,
    Undefined,
    is_leaf_type,
    is_list_type,
    is_non_null_type,
    is_object_type,
)
from graphql.execution.collect_fields import FieldDetailsList
from graphql.pyutils import AwaitableOrValue, Path
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext
from strawberry.schema.schema_converter import CustomGraphQLEnumType, GraphQLCoreConverter

LEAF, LEAF_LIST, OBJECT, TYPENAME = range(4)


class _Ordinary(Exception):
    """This list needs graphql-core's own completion (an error to report, or a shape)."""


@dataclass(frozen=True, slots=True)
class Entry:
    """How one selected field of a plain object is answered."""

    key: str  # the response key (alias or name)
    shape: int  # LEAF, LEAF_LIST, OBJECT or TYPENAME
    resolve: Callable[..., Any] | None
    coerce: Callable[[Any], Any] | None = None
    non_null: bool = False
    items_non_null: bool = False  # LEAF_LIST: the items are non-null
    plan: Plan | None = None  # OBJECT: the nested selection
    typename: str = ""
    attr: str | None = None  # the attribute the basic-field getter reads (getattr by name)
    same: type | None = None  # a LEAF value of exactly this type is its own answer
    names: dict[Any, str] | None = None  # a LEAF enum: member -> name (as coerce would)


@dataclass(frozen=True, slots=True)
class Plan:
    """The selection of a plain object type: its entries and its type check."""

    entries: tuple[Entry, ...]
    is_type_of: Callable[[Any, GraphQLResolveInfo], Any] | None


def _unwrap(type_: GraphQLOutputType) -> tuple[bool, Any]:
    if is_non_null_type(type_):
        return True, type_.of_type  # type: ignore[union-attr]
    return False, type_


class PlainListExecutionContext(StrawberryGraphQLCoreExecutionContext):
    """strawberry's execution context with plain lists completed in one pass."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # (type, id(field details)) -> (the field details, kept alive; the plan or None)
        self._plain: dict[tuple[Any, int], tuple[FieldDetailsList, Plan | None]] = {}

    def complete_iterable_value(
        self,
        item_type: GraphQLOutputType,
        field_details_list: FieldDetailsList,
        info: GraphQLResolveInfo,
        path: Path,
        items: Iterable[Any],
        position_context: Any,
    ) -> AwaitableOrValue[list[Any]]:
        done: list[Any] | None = None
        manager = self.middleware_manager
        if manager is None or not manager.middlewares:
            if not isinstance(items, list | tuple):
                items = list(items)
            done = self._plain_list(item_type, field_details_list, info, path, items)
        if done is not None:
            return done
        return super().complete_iterable_value(
            item_type, field_details_list, info, path, items, position_context
        )

    # --- planning (once per list field of an operation) ---------------------------------

    def _plain_list(
        self,
        item_type: GraphQLOutputType,
        field_details_list: FieldDetailsList,
        info: GraphQLResolveInfo,
        path: Path,
        items: list[Any] | tuple[Any, ...],
    ) -> list[Any] | None:
        non_null, inner = _unwrap(item_type)
        if is_leaf_type(inner):
            entry = Entry("", LEAF_LIST, None, inner.coerce_output_value, True, non_null)
            try:
                return self._leaves(entry, items)
            except Exception:  # _Ordinary, or a scalar's own error: reported by graphql-core
                return None
        if not is_object_type(inner) or self.get_stream_usage(field_details_list, path):
            return None
        plan = self._plan(inner, field_details_list)
        if plan is None:
            return None
        try:
            out: list[Any] = []
            for item in items:
                if item is None:
                    if non_null:
                        raise _Ordinary
                    out.append(None)
                else:
                    out.append(self._object(plan, item, info))
            return out
        except Exception:  # _Ordinary, or a scalar's own error: reported by graphql-core
            return None

    def _plan(self, type_: GraphQLObjectType, field_details_list: FieldDetailsList) -> Plan | None:
        key = (type_, id(field_details_list))
        hit = self._plain.get(key)
        if hit is not None:
            return hit[1]
        plan = self._build(type_, field_details_list)
        self._plain[key] = (field_details_list, plan)
        return plan

    def _build(self, type_: GraphQLObjectType, field_details_list: FieldDetailsList) -> Plan | None:
        grouped, new_defer_usages, _ = self.collect_subfields(type_, field_details_list)
        if new_defer_usages:
            return None
        entries: list[Entry] = []
        for key, details in grouped.items():
            if any(d.defer_usage is not None for d in details):
                return None
            node = details[0].node
            name = node.name.value
            if name == "__typename":
                entries.append(Entry(key, TYPENAME, None, typename=type_.name))
                continue
            field_def = self.schema.get_field(type_, name)
            resolve = field_def.resolve if field_def is not None else None
            if field_def is None or field_def.args or node.arguments or resolve is None:
                return None
            if not getattr(resolve, "_is_default", False):  # a resolver, permission, extension
                return None
            non_null, inner = _unwrap(field_def.type)
            attr = _attribute(field_def)
            if is_leaf_type(inner):
                entries.append(
                    Entry(
                        key,
                        LEAF,
                        resolve,
                        inner.coerce_output_value,
                        non_null,
                        attr=attr,
                        same=_same(inner),
                        names=_enum_names(inner),
                    )
                )
            elif is_list_type(inner):
                items_non_null, item = _unwrap(inner.of_type)
                if not is_leaf_type(item):
                    return None
                entries.append(
                    Entry(
                        key,
                        LEAF_LIST,
                        resolve,
                        item.coerce_output_value,
                        non_null,
                        items_non_null,
                        attr=attr,
                    )
                )
            elif is_object_type(inner):
                nested = self._plan(inner, details)
                if nested is None:
                    return None
                entries.append(Entry(key, OBJECT, resolve, None, non_null, plan=nested, attr=attr))
            else:
                return None
        return Plan(tuple(entries), type_.is_type_of)

    # --- completion ------------------------------------------------------------------------

    def _object(self, plan: Plan, source: Any, info: GraphQLResolveInfo) -> dict[str, Any]:
        if plan.is_type_of is not None and plan.is_type_of(source, info) is not True:
            raise _Ordinary
        out: dict[str, Any] = {}
        for e in plan.entries:
            if e.shape == TYPENAME:
                out[e.key] = e.typename
                continue
            if e.attr is not None:
                value = getattr(source, e.attr)
            else:
                value = e.resolve(source, info)  # type: ignore[misc]
            if value is None:
                if e.non_null:
                    raise _Ordinary
                out[e.key] = None
            elif e.shape == LEAF:
                if type(value) is e.same:
                    out[e.key] = value
                    continue
                if e.names is not None and (name := e.names.get(value)) is not None:
                    out[e.key] = name
                    continue
                coerced = e.coerce(value)  # type: ignore[misc]
                if coerced is None or coerced is Undefined:
                    raise _Ordinary
                out[e.key] = coerced
            elif e.shape == OBJECT:
                out[e.key] = self._object(e.plan, value, info)  # type: ignore[arg-type]
            else:
                out[e.key] = self._leaves(e, value)
        return out

    @staticmethod
    def _leaves(entry: Entry, values: Any) -> list[Any]:
        if not isinstance(values, list | tuple):
            raise _Ordinary
        coerce = entry.coerce
        out: list[Any] = []
        for value in values:
            if value is None:
                if entry.items_non_null:
                    raise _Ordinary
                out.append(None)
                continue
            coerced = coerce(value)  # type: ignore[misc]
            if coerced is None or coerced is Undefined:
                raise _Ordinary
            out.append(coerced)
        return out


# --- what the one pass may do without the stock call, with the same answer ---------------


def _attribute(field_def: Any) -> str | None:
    """The attribute strawberry's basic-field getter reads with `getattr` (its default
    resolver), so the pass reads it directly; None: call the getter."""
    field = (field_def.extensions or {}).get(GraphQLCoreConverter.DEFINITION_BACKREF)
    if field is None or field.base_resolver or field.extensions:
        return None
    if getattr(field, "default_resolver", None) is not getattr:
        return None
    return str(field.python_name)


def _same(type_: Any) -> type | None:
    """String and ID answer a str as itself, Boolean a bool (graphql-core's serializers)."""
    if type_ is GraphQLString or type_ is GraphQLID:
        return str
    if type_ is GraphQLBoolean:
        return bool
    return None


def _enum_names(type_: Any) -> dict[Any, str] | None:
    """A strawberry enum's members and their GraphQL names: the name its coerce answers for
    a member (the first whose value equals the member's value)."""
    if not isinstance(type_, CustomGraphQLEnumType):
        return None
    names: dict[Any, str] = {}
    member: Any
    for member in type_.wrapped_cls:
        for name, value in type_.values.items():
            if member.value == value.value:
                names[member] = name
                break
    return names
