"""mkdocs hooks: pages that are generated from the code's own sources of truth.

A page puts a marker line where generated text belongs:

- `<!-- settings-reference -->`: every setting of `engine/settings.py` `Settings`, its
  environment variable, default and the comment the code gives it;
- `<!-- schema-reference -->`: every type and field of `schema.graphql` with its description;
- `<!-- include: PATH -->`: a Markdown file of the repository (a package's README), its first
  heading dropped and its links to code shown as paths, so the text lives in one place.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from graphql import (
    GraphQLEnumType,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLObjectType,
    GraphQLScalarType,
    GraphQLUnionType,
    build_schema,
)

ROOT = Path(__file__).resolve().parent.parent
INCLUDE = re.compile(r"^<!-- include: (?P<path>[\w./-]+) -->$", re.M)
CODE_LINK = re.compile(r"\[([^\]]+)\]\((?!https?:|#)([^)]+)\)")
FIELD = re.compile(
    r"^    (?P<name>[a-z_][a-z0-9_]*): (?P<type>[^=#]+?)(?: = (?P<default>[^#]+?))?\s*(?:#\s*(?P<note>.*))?$"
)


def on_page_markdown(markdown: str, **_: Any) -> str:
    if "<!-- settings-reference -->" in markdown:
        markdown = markdown.replace("<!-- settings-reference -->", settings_reference())
    if "<!-- schema-reference -->" in markdown:
        markdown = markdown.replace("<!-- schema-reference -->", schema_reference())
    return INCLUDE.sub(lambda m: included(m["path"]), markdown)


def included(path: str) -> str:
    text = (ROOT / path).read_text(encoding="utf-8")
    text = re.sub(r"\A# .*\n", "", text)
    text = re.sub(r"(?m)^(#+) ", r"\1# ", text)  # one level under the page's own title
    return CODE_LINK.sub(lambda m: f"{m[1]} (`{m[2]}`)", text)


def settings_reference() -> str:
    """One table per commented group of `Settings`, read from the class's source text."""
    lines = (ROOT / "engine" / "settings.py").read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("class Settings("))
    out: list[str] = []
    comment: list[str] = []
    group_start = True  # a comment after a blank line opens a group: "Heading: intro"
    table_open = False
    for line in lines[start + 1 :]:
        if line and not line.startswith(" "):
            break  # the class ended
        stripped = line.strip()
        if not stripped:
            comment, group_start = [], True
            continue
        if stripped.startswith("#"):
            comment.append(stripped.lstrip("# ").rstrip())
            continue
        m = FIELD.match(line)
        if not m or m["name"] == "model_config":
            comment, group_start = [], False
            continue
        if group_start and comment:
            head, _, rest = comment[0].partition(":")
            if len(head) <= 30:
                intro = " ".join([rest.strip(), *comment[1:]]).strip()
                out += ["", f"### {head.strip().rstrip('.')}", ""] + ([intro, ""] if intro else [])
                comment, table_open = [], False
        group_start = False
        if not table_open:
            out += ["| variable | default | type | what it sets |", "| --- | --- | --- | --- |"]
            table_open = True
        default = (m["default"] or "required").strip()
        default = re.sub(r"Field\((?:default=)?([^,)]*).*", r"\1", default) or "—"
        note = " ".join(comment + ([m["note"]] if m["note"] else [])).replace("|", "\\|")
        out.append(f"| `{m['name'].upper()}` | `{default}` | `{m['type'].strip()}` | {note} |")
        comment = []
    return "\n".join(out) + "\n"


def schema_reference() -> str:
    schema = build_schema((ROOT / "schema.graphql").read_text(encoding="utf-8"))
    roots = [schema.query_type, schema.mutation_type, schema.subscription_type]
    named = sorted(
        (t for name, t in schema.type_map.items() if not name.startswith("__")),
        key=lambda t: t.name,
    )
    out: list[str] = []
    for root in roots:
        if root is not None:
            out += [f"## {root.name}", "", *fields(root), ""]
    groups = [
        ("Objects", GraphQLObjectType),
        ("Interfaces", GraphQLInterfaceType),
        ("Unions", GraphQLUnionType),
        ("Inputs", GraphQLInputObjectType),
        ("Enums", GraphQLEnumType),
        ("Scalars", GraphQLScalarType),
    ]
    for title, kind in groups:
        members = [t for t in named if isinstance(t, kind) and t not in roots]
        if not members:
            continue
        out += [f"## {title}", ""]
        for t in members:
            out += [f"### {t.name}", ""]
            if t.description:
                out += [t.description, ""]
            if isinstance(t, GraphQLEnumType):
                out += [
                    f"- `{name}`" + (f": {v.description}" if v.description else "")
                    for name, v in t.values.items()
                ]
            elif isinstance(t, GraphQLUnionType):
                out.append("One of " + ", ".join(f"`{m.name}`" for m in t.types) + ".")
            elif not isinstance(t, GraphQLScalarType):
                out += fields(t)
            out.append("")
    return "\n".join(out)


def fields(t: Any) -> list[str]:
    rows = []
    for name, f in t.fields.items():
        args = getattr(f, "args", {}) or {}
        sig = ", ".join(f"{a}: {arg.type}" for a, arg in args.items())
        head = f"- `{name}" + (f"({sig})" if sig else "") + f": {f.type}`"
        desc = (f.description or "").replace("\n", " ")
        rows.append(head + (f" — {desc}" if desc else ""))
    return rows
