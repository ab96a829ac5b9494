"""The protocols' own npm clients (tests/js: graphql-http's audit, graphql-sse's client), run
with Node against the real API. `make test` installs them from the lock file (ops/jsdeps.sh);
a missing install fails the test with the command that fixes it, never a skip."""

from __future__ import annotations

import asyncio
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


class SseSubscription:
    """graphql-sse's own client (tests/js/sse.mjs, distinct connections mode) subscribed to
    one operation; `line()` is its next happening (`connected`, `next`, `error`, `complete`,
    `timeout`), waited for with a deadline."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process

    @classmethod
    async def start(
        cls,
        url: str,
        token: str | None,
        query: str,
        variables: dict[str, Any],
        *,
        events: int = 1,
        timeout_s: float = 20,
    ) -> SseSubscription:
        node = shutil.which("node")
        assert node and (JS_DIR / "node_modules").is_dir(), "run `bash ops/jsdeps.sh`"
        args = [url, token or "-", query, json.dumps(variables), str(events)]
        process = await asyncio.create_subprocess_exec(
            node,
            str(JS_DIR / "sse.mjs"),
            *args,
            str(int(timeout_s * 1000)),
            cwd=JS_DIR,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        return cls(process)

    async def line(self, timeout_s: float = 20) -> dict[str, Any]:
        assert self.process.stdout is not None
        raw = await asyncio.wait_for(self.process.stdout.readline(), timeout=timeout_s)
        if not raw:
            err = await self.process.stderr.read() if self.process.stderr else b""
            raise AssertionError(f"sse.mjs ended without a line: {err.decode()}")
        return json.loads(raw)  # type: ignore[no-any-return]

    async def close(self) -> None:
        if self.process.returncode is None:
            self.process.kill()
        await self.process.wait()
