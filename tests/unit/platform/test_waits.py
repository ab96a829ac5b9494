"""Tests wait through `tests/support/polling.py` and assert no durations: no loop under
tests/ sleeps between reads of a condition, and no assertion reads a clock. The few loops
left are named here with why they stay."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[2]
ROOT = TESTS.parent

LEFT = {
    # the chaos rounds wait a random moment (from the seed) before each kill: the moment is
    # the experiment, not a wait for a condition
    "tests/e2e/test_chaos.py",
    # subscriptions that write again until every socket has heard (no answer tells when a
    # subscription has registered): the deadline bounds the writing, it times nothing
    "tests/e2e/test_api_workers.py",
    "tests/e2e/test_sse_subscriptions.py",
    "tests/e2e/test_websocket_and_origin.py",
}


def _call_name(node: ast.Call) -> str:
    func = node.func
    base = getattr(getattr(func, "value", None), "id", "")
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return f"{base}.{name}" if base else name


def findings(source: str, where: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.While, ast.For, ast.AsyncFor)):
            calls = [c for c in ast.walk(node) if isinstance(c, ast.Call)]
            if any(_call_name(c) in ("time.sleep", "asyncio.sleep") for c in calls):
                found.append(f"{where}:{node.lineno} sleeps in a loop: use tests/support/polling")
        if isinstance(node, ast.Assert):
            clocks = [
                a
                for a in ast.walk(node)
                if isinstance(a, ast.Attribute)
                and a.attr in ("monotonic", "perf_counter", "time")
                and getattr(a.value, "id", "") == "time"
            ]
            if clocks:
                found.append(f"{where}:{node.lineno} asserts on a clock")
    return found


def test_no_test_sleeps_in_a_loop_or_asserts_a_duration() -> None:
    found = []
    for path in sorted(TESTS.rglob("*.py")):
        where = str(path.relative_to(ROOT))
        if where in LEFT or where == "tests/support/polling.py":
            continue
        found += findings(path.read_text(encoding="utf-8"), where)
    assert found == [], "\n".join(found)


def test_the_rule_sees_a_hand_rolled_wait_and_a_timing_assert() -> None:
    source = (
        "import time\n"
        "def f(ready):\n"
        "    while not ready():\n"
        "        time.sleep(0.1)\n"
        "    started = time.monotonic()\n"
        "    assert time.monotonic() - started < 1.0\n"
    )
    assert findings(source, "probe.py") == [
        "probe.py:3 sleeps in a loop: use tests/support/polling",
        "probe.py:6 asserts on a clock",
    ]
