"""Rules are held, not cited: code, schema, queries and docs state a rule or point at a page
of `docs/` that exists — never at a product document, a tracker number or a design note the
repository does not hold.

The applied migrations (`cypher/schema/`) are the one exception: a database checksums each
migration's whole text, comments included, so their wording stays as it was applied."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

# what a pointer to nothing looks like, and what it points at
POINTERS = {
    "a product document by number": re.compile(r"\b[Ss]eeds? ?0\d\d\b|种子"),
    "a tracker number": re.compile(r"\b[Ii]ssues? #?\d{1,3}\b"),
    "a design note not held": re.compile(r"\bCONVENTIONS\b|\bDESIGN(?:\.md)?\b"),
    "a section of a document not held": re.compile(r"(?<!RFC \d{4} )(?<!RFC \d{4} \(\))§"),
}
SKIPPED = ("cypher/schema/", "vendor/", "bench/data/", "web/vendor/")
THIS = "tests/unit/platform/test_pointers.py"
# the README is short (the two commands, the tour, where to go next): code points at docs/
README_SECTION = re.compile(r"README [\"'][A-Z]|\(README\)|, README\)")
CODE = (".py", ".graphql", ".cypher", ".js")
DOC_LINK = re.compile(r"\bdocs/([\w/.-]+\.md)(?:#([\w-]+))?")


def held_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    return [
        ROOT / name
        for name in listed
        if name != THIS
        and not name.startswith(SKIPPED)
        and name.endswith((".py", ".md", ".cypher", ".graphql", ".js", ".html", ".toml", ".yml"))
        and (ROOT / name).is_file()
    ]


def anchors(page: Path) -> set[str]:
    """The anchors mkdocs gives a page's headings (lower case, words joined by '-')."""
    out = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            slug = re.sub(r"[^\w\- ]", "", title).strip().replace(" ", "-")
            out.add(re.sub(r"-+", "-", slug))
    return out


def test_nothing_points_at_a_document_the_repository_does_not_hold() -> None:
    found = []
    for path in held_files():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            where = f"{path.relative_to(ROOT)}:{n}"
            for what, pattern in POINTERS.items():
                if pattern.search(line):
                    found.append(f"{where}: {what}: {line.strip()[:80]}")
            if path.suffix in CODE and README_SECTION.search(line):
                found.append(f"{where}: a README section: {line.strip()[:80]}")
    assert found == []


def test_every_docs_page_and_anchor_named_exists() -> None:
    missing = []
    for path in held_files():
        text = path.read_text(encoding="utf-8")
        for m in DOC_LINK.finditer(text):
            page = ROOT / "docs" / m.group(1)
            if not page.is_file():
                missing.append(f"{path.relative_to(ROOT)}: docs/{m.group(1)}")
            elif m.group(2) and m.group(2) not in anchors(page):
                missing.append(f"{path.relative_to(ROOT)}: docs/{m.group(1)}#{m.group(2)}")
    assert missing == []
