"""The documentation site builds strictly (a broken link or a page left out of the nav fails),
and its generated pages hold every setting and every root field the code has."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from graphql import build_schema

from engine.settings import PROJECT_ROOT, Settings


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return out


def text_of(page: Path) -> str:
    return re.sub(r"<[^>]+>", " ", page.read_text(encoding="utf-8"))


def test_the_settings_reference_lists_every_setting(site: Path) -> None:
    page = text_of(site / "operations" / "settings" / "index.html")
    missing = [name.upper() for name in Settings.model_fields if name.upper() not in page]
    assert not missing, missing


def test_the_schema_reference_lists_every_root_field(site: Path) -> None:
    schema = build_schema((PROJECT_ROOT / "schema.graphql").read_text(encoding="utf-8"))
    page = text_of(site / "reference" / "schema" / "index.html")
    roots = [schema.query_type, schema.mutation_type, schema.subscription_type]
    missing = [f"{t.name}.{f}" for t in roots if t for f in t.fields if f"{f}" not in page]
    assert not missing, missing


def test_the_readme_is_a_front_door_not_a_manual() -> None:
    readme = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 150
    assert readme.index("make run") < readme.index("## A five-minute tour")
    linked = re.findall(r"\]\((docs/[^)#]+)", readme)
    assert linked and all((PROJECT_ROOT / p).is_file() for p in linked), linked
