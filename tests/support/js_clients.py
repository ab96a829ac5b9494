"""The protocols' own npm clients (tests/js: graphql-http's audit, graphql-sse's client), run
with Node against the real API. `make test` installs them from the lock file (ops/jsdeps.sh);
a missing install fails the test with the command that fixes it, never a skip."""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

from engine.settings import PROJECT_ROOT

JS_DIR = PROJECT_ROOT / "tests" / "js"


def run_node(script: str, *args: str, timeout: float = 120) -> list[dict[str, Any]]:
    """Run `tests/js/<script>` and return its output's JSON lines."""
    node = shutil.which("node")
    assert node, "Node.js is not installed: run `bash ops/jsdeps.sh` (make test does)"
    assert (JS_DIR / "node_modules").is_dir(), (
        "tests/js/node_modules is missing: run `bash ops/jsdeps.sh` (make test does)"
    )
    done = subprocess.run(
        [node, str(JS_DIR / script), *args],
        cwd=JS_DIR,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, f"{script} failed:\n{done.stdout}\n{done.stderr}"
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
