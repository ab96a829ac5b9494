"""The service reads the wall clock in one place, `engine/clock.py` (`utcnow`): a use case
reads `deps.clock()`, so a test or an admin's `now` moves every time it reads, and anything
else that needs the wall time calls `utcnow()`. Durations use `time.monotonic()`. The reads
left elsewhere are named here with why they stay."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PACKAGES = ("api", "jobs", "graph", "engine", "local")
WALL_CLOCK = {"datetime.now", "datetime.utcnow", "date.today", "time.time", "time.time_ns"}

LEFT: set[str] = set()


def _call_name(node: ast.Call) -> str:
    func = node.func
    base = getattr(getattr(func, "value", None), "id", "")
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return f"{base}.{name}" if base else name


def wall_clock_reads(source: str, where: str) -> list[str]:
    return [
        f"{where}:{node.lineno} {_call_name(node)}()"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call) and _call_name(node) in WALL_CLOCK
    ]


def test_the_wall_clock_is_read_only_through_the_clock_module() -> None:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            where = path.relative_to(ROOT).as_posix()
            if where == "engine/clock.py" or where in LEFT:
                continue
            found += wall_clock_reads(path.read_text(encoding="utf-8"), where)
    assert found == []


def test_the_guard_sees_a_direct_read() -> None:
    source = (
        "import time\nfrom datetime import UTC, datetime\nx = datetime.now(UTC)\ny = time.time()\n"
    )
    assert wall_clock_reads(source, "m.py") == ["m.py:3 datetime.now()", "m.py:4 time.time()"]
