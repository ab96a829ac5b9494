"""Errors in the request itself (not in a resolver): which ones they are and what they name.

graphql-core reports a problem with the document or a variable (syntax, validation, a
variable of the wrong type, a missing required variable, a DateTime without a zone) as a
GraphQLError without a `path`: no field had started resolving. Such an error is the
client's to fix, so it is INVALID_INPUT, never INTERNAL. A variable error names the
variable (`Variable '$at' got invalid value ...`); `describe` adds the arguments that use it
(`storyGraph.asOf`), so the message says which argument was wrong.
"""

from __future__ import annotations

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


def arguments_using(document: DocumentNode, variable: str) -> list[str]:
    """`field.argument` (or `field.argument.inputField`) for every use of `$variable`."""
    found: list[str] = []

    class Uses(Visitor):
        def __init__(self) -> None:
            super().__init__()
            self.path: list[str] = []

        def enter_field(self, node: FieldNode, *_: object) -> None:
            self.path.append(node.name.value)

        def leave_field(self, node: FieldNode, *_: object) -> None:
            self.path.pop()

        def enter_argument(self, node: ArgumentNode, *_: object) -> None:
            self.path.append(node.name.value)

        def leave_argument(self, node: ArgumentNode, *_: object) -> None:
            self.path.pop()

        def enter_object_field(self, node: ObjectFieldNode, *_: object) -> None:
            self.path.append(node.name.value)

        def leave_object_field(self, node: ObjectFieldNode, *_: object) -> None:
            self.path.pop()

        def enter_variable(self, node: VariableNode, *_: object) -> None:
            if node.name.value == variable and self.path:
                found.append(".".join(self.path))

    visit(document, Uses())
    return found


def arguments_holding(document: DocumentNode, literal: str) -> list[str]:
    """`field.argument` paths whose literal string value is `literal`."""
    found: list[str] = []

    class Holds(Visitor):
        def __init__(self) -> None:
            super().__init__()
            self.path: list[str] = []

        def enter_field(self, node: FieldNode, *_: object) -> None:
            self.path.append(node.name.value)

        def leave_field(self, node: FieldNode, *_: object) -> None:
            self.path.pop()

        def enter_argument(self, node: ArgumentNode, *_: object) -> None:
            self.path.append(node.name.value)

        def leave_argument(self, node: ArgumentNode, *_: object) -> None:
            self.path.pop()

        def enter_object_field(self, node: ObjectFieldNode, *_: object) -> None:
            self.path.append(node.name.value)

        def leave_object_field(self, node: ObjectFieldNode, *_: object) -> None:
            self.path.pop()

        def enter_string_value(self, node: StringValueNode, *_: object) -> None:
            if node.value == literal and self.path:
                found.append(".".join(self.path))

    visit(document, Holds())
    return found


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
