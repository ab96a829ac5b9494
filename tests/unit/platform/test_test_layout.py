"""Test helpers live in tests/support/<domain>.py (one of each helper, where every
test finds it): no file under tests/ imports from a conftest, from a test module, or from a helper
module left inside a test folder. Conftest files hold fixtures only; pytest finds them."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[2]
ROOT = TESTS.parent
SUPPORT = "tests.support"


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _targets(path: Path, node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        package = _module(path).split(".")
        if path.name != "__init__.py":
            package = package[:-1]
        base = package[: len(package) - (node.level - 1)]
        if node.module is None:  # `from . import x`: x is a module of the package
            return [".".join([*base, alias.name]) for alias in node.names]
        return [".".join([*base, node.module])]
    return [node.module or ""]


def _imports_outside_support(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for target in _targets(path, node):
                inside_tests = target == "tests" or target.startswith("tests.")
                supported = target == SUPPORT or target.startswith(SUPPORT + ".")
                if inside_tests and not supported:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {target}")
    return found


def test_tests_import_helpers_only_from_tests_support() -> None:
    offending = [
        line for path in sorted(TESTS.rglob("*.py")) for line in _imports_outside_support(path)
    ]
    assert offending == [], "move these helpers into tests/support/<domain>.py:\n" + "\n".join(
        offending
    )


def test_the_rule_sees_relative_and_absolute_imports() -> None:
    probe = TESTS / "unit" / "platform" / "test_probe_layout.py"
    tree = ast.parse(
        "from .conftest import T0\nfrom tests.e2e.test_review import gql\n"
        "from tests.support.review import T0\nfrom . import builders\n"
    )
    targets = [t for node in tree.body for t in _targets(probe, node)]  # type: ignore[arg-type]
    assert targets == [
        "tests.unit.platform.conftest",
        "tests.e2e.test_review",
        "tests.support.review",
        "tests.unit.platform.builders",
    ]
