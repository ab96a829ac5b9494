"""Errors in the request itself (not in a resolver): which ones they are and what they name.

graphql-core reports a problem with the document or a variable (syntax, validation, a
variable of the wrong type, a missing required variable, a DateTime without a zone) as a
GraphQLError without a `path`: no field had started resolving. Such an error is the
client's to fix, so it is INVALID_INPUT, never INTERNAL. A variable error names the
variable (`Variable '$at' got invalid value ...`); `describe` adds the arguments that use it
(`storyGraph.asOf`), so the message says which argument was wrong.
"""

from __future__ import annotations

from collections.abc import Callable

from graphql import (
    ArgumentNode,
    DocumentNode,
    FieldNode,
    GraphQLError,
    ObjectFieldNode,
    StringValueNode,
    VariableDefinitionNode,
    VariableNode,
    Visitor,
    parse,
    visit,
)


def is_request_error(error: GraphQLError) -> bool:
    """True when the error arose before any field resolved and points into the document (a
    syntax or validation error, a variable): an exception escaping an extension has no
    location in the document and stays a fault."""
    if error.path is not None:
        return False
    original = error.original_error
    return original is None or isinstance(original, GraphQLError) or bool(error.nodes)


def variable_name(error: GraphQLError) -> str | None:
    for node in error.nodes or ():
        if isinstance(node, VariableDefinitionNode):
            return node.variable.name.value
    return None


class _ArgumentPaths(Visitor):
    """Tracks the `field.argument.inputField` path while visiting a document; `matches`
    decides which leaf nodes are recorded."""

    def __init__(self, matches: Callable[[object], bool]) -> None:
        super().__init__()
        self.path: list[str] = []
        self.found: list[str] = []
        self.matches = matches

    def _push(self, node: FieldNode | ArgumentNode | ObjectFieldNode, *_: object) -> None:
        self.path.append(node.name.value)

    def _pop(self, *_: object) -> None:
        self.path.pop()

    enter_field = enter_argument = enter_object_field = _push
    leave_field = leave_argument = leave_object_field = _pop

    def _leaf(self, node: object, *_: object) -> None:
        if self.path and self.matches(node):
            self.found.append(".".join(self.path))

    enter_variable = enter_string_value = _leaf


def _paths(document: DocumentNode, matches: Callable[[object], bool]) -> list[str]:
    visitor = _ArgumentPaths(matches)
    visit(document, visitor)
    return visitor.found


def arguments_using(document: DocumentNode, variable: str) -> list[str]:
    """`field.argument` (or `field.argument.inputField`) for every use of `$variable`."""
    return _paths(document, lambda n: isinstance(n, VariableNode) and n.name.value == variable)


def arguments_holding(document: DocumentNode, literal: str) -> list[str]:
    """`field.argument` paths whose literal string value is `literal`."""
    return _paths(document, lambda n: isinstance(n, StringValueNode) and n.value == literal)


def describe(error: GraphQLError, query: str | None = None) -> tuple[str, dict[str, object]]:
    """The message and extensions for a request error: a variable error names the arguments
    that use the variable; a literal a scalar refused (it carries `value`) names the argument
    that holds it."""
    name = variable_name(error)
    literal = getattr(error, "value", None) or getattr(error.original_error, "value", None)
    if name is None and isinstance(literal, str) and query:
        try:
            held = arguments_holding(parse(query), literal)
        except GraphQLError:
            held = []
        if held:
            return f"argument {', '.join(held)}: {error.message}", {"arguments": held}
    if name is None or error.source is None:
        return error.message, {}
    try:
        document = parse(error.source)
    except GraphQLError:
        return error.message, {"variable": name}
    used = arguments_using(document, name)
    if not used:
        return error.message, {"variable": name}
    return (
        f"argument {', '.join(used)}: {error.message}",
        {"variable": name, "arguments": used},
    )
