"""The layer rules (docs/architecture/index.md), checked by import-linter (`.importlinter`):
imports flow api -> jobs -> graph -> engine and nothing imports api; engine imports no Neo4j,
Redis, arq, web framework or subprocess; inside the engine the offline stand-ins sit on top,
the language utilities at the bottom, and the domains between them import only downwards
(concern, review, watch and search never each other); the use-case domains in one order
(watch, concern, review, signal, story, search, llm); no circle among the sibling packages
of the engine, the use cases, the graph repositories or the MCP tools, with no import
excepted; use cases never import jobs/tasks, which holds only arq entry points."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from engine.settings import PROJECT_ROOT


def test_imports_follow_the_layers() -> None:
    linter = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run(
        [str(linter), str(PROJECT_ROOT / ".importlinter")],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "7 kept, 0 broken" in done.stdout
    assert "ignored" not in done.stdout  # no contract holds only by an exception
