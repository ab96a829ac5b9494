"""Errors in the request itself (not in a resolver): which ones they are and what they name.

graphql-core reports a problem with the document or a variable (syntax, validation, a
variable of the wrong type, a missing required variable, a DateTime without a zone) as a
GraphQLError without a `path`: no field had started resolving. Such an error is the
client's to fix, so it is INVALID_INPUT, never INTERNAL. A variable error names the
variable (`Variable '$at' got invalid value ...`); `describe` adds the arguments that use it
(`storyGraph.asOf`), so the message says which argument was wrong; a literal's error names
the argument that holds it (found by its place in the document). `rephrase` puts
graphql-core's words for a value of the wrong type (an enum value that does not exist, an ID
that is a number with a fraction, a word given for an Int) in the voice of every input error:
what the value is not, and the form the argument takes (an enum's values listed).
"""

from __future__ import annotations

import re
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


def arguments_at(document: DocumentNode, start: int) -> list[str]:
    """`field.argument` paths of the value that starts at offset `start` of the document."""

    def at(node: object) -> bool:
        loc = getattr(node, "loc", None)
        return loc is not None and loc.start == start

    visitor = _ArgumentPaths(at)
    visitor.enter_enum_value = visitor.enter_int_value = visitor._leaf  # type: ignore[attr-defined]
    visitor.enter_float_value = visitor.enter_boolean_value = visitor._leaf  # type: ignore[attr-defined]
    visitor.enter_null_value = visitor.enter_list_value = visitor._leaf  # type: ignore[attr-defined]
    visitor.enter_object_value = visitor._leaf  # type: ignore[attr-defined]
    visit(document, visitor)
    return visitor.found


EnumValues = Callable[[str], list[str] | None]

_SCALAR_FORMS = {
    "ID": "an ID is a string, such as an id an earlier answer gave",
    "Int": "an Int is a whole number, such as 20",
    "Float": "a Float is a number, such as 0.5",
    "String": 'a String is text in double quotes, such as "p1"',
    "Boolean": "a Boolean is true or false",
}
_ARTICLE = {"ID": "an", "Int": "an"}
_NOT_IN_ENUM = re.compile(r"^Value (.+) does not exist in '(\w+)' enum\.")
_ENUM_NOT_STRING = re.compile(
    r"^Enum '(\w+)' cannot represent non-(?:enum|string) value: (.+?)\.?$"
)
_SCALAR_REFUSED = re.compile(r"^(ID|Int|Float|String|Boolean) cannot represent [^:]*: (.+)$")
_VARIABLE = re.compile(r"^Variable '\$(\w+)' (?:got|has) invalid value(?: .*?)?[;:] ")
_LITERAL_WRAPPER = re.compile(r"^Expected value of type '[^']+', found [^;]*; ")


def rephrase(message: str, enum_values: EnumValues | None = None) -> str:
    """graphql-core's words for a value of the wrong type, as what the value is not and the
    form the argument takes; any other message stays as it is."""
    message = _LITERAL_WRAPPER.sub("", _VARIABLE.sub("", message))
    found = _NOT_IN_ENUM.match(message)
    enum: tuple[str, str] | None = None
    if found:
        enum = (found.group(2), found.group(1).strip("'\""))
    elif (found := _ENUM_NOT_STRING.match(message)) is not None:
        enum = (found.group(1), found.group(2))
    if enum is not None:
        name, value = enum
        values = enum_values(name) if enum_values else None
        form = f"expected one of {', '.join(values)}" if values else f"expected a {name} value"
        return f'"{value}" is not a {name}; {form}'
    found = _SCALAR_REFUSED.match(message)
    if found:
        name, value = found.group(1), found.group(2)
        return f"{value} is not {_ARTICLE.get(name, 'a')} {name}; {_SCALAR_FORMS[name]}"
    return message


def describe(
    error: GraphQLError, query: str | None = None, enum_values: EnumValues | None = None
) -> tuple[str, dict[str, object]]:
    """The message and extensions for a request error: a variable error names the arguments
    that use the variable; a literal a scalar refused (it carries `value`) names the argument
    that holds it, as does any literal value the document placed wrongly."""
    name = variable_name(error)
    text = rephrase(error.message, enum_values)
    literal = getattr(error, "value", None) or getattr(error.original_error, "value", None)
    if name is None and isinstance(literal, str) and query:
        try:
            held = arguments_holding(parse(query), literal)
        except GraphQLError:
            held = []
        if held:
            return f"argument {', '.join(held)}: {text}", {"arguments": held}
    if name is None and error.source is not None and error.nodes:
        start = error.nodes[0].loc.start if error.nodes[0].loc else None
        try:
            held = arguments_at(parse(error.source), start) if start is not None else []
        except GraphQLError:
            held = []
        if held:
            return f"argument {', '.join(held)}: {text}", {"arguments": held}
    if name is None or error.source is None:
        return text, {}
    try:
        document = parse(error.source)
    except GraphQLError:
        return text, {"variable": name}
    used = arguments_using(document, name)
    if not used:
        return text, {"variable": name}
    # where inside the variable's value the refused part sits ('i.messages[1].at')
    inside = re.search(r" at '([^']+)'| at (\.[^:\s]+):", error.message)
    at = f", at {inside.group(1) or name + inside.group(2)}" if inside else ""
    return (
        f"argument {', '.join(used)} (variable ${name}{at}): {text}",
        {"variable": name, "arguments": used},
    )
