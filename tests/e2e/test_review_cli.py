"""`storygraph review` in a terminal-less subprocess (as in CI): a real run on a real worker
with the scripted model; stage lines come from the stored records and the run's final status
ends the output; Ctrl-C detaches without cancelling (docs/rules/reviews.md)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import redis

from engine.settings import PROJECT_ROOT, Settings
from tests.support.grounded_review import sent_texts
from tests.support.polling import until
from tests.support.processes import Server, forget_queue, process_env, spawn, stop
from tests.support.review_api import gql, leaf, wait_run
from tests.support.scripted_model import ScriptedModelServer, text

BASE = datetime.now(UTC).replace(microsecond=0) - timedelta(days=1)
CHAT = "".join(
    f"[{(BASE + timedelta(minutes=i)).isoformat()}] 成员{i % 3}: 第{i}条 提测进展\n"
    for i in range(40)
)
STAGES = ("collect", "leaves", "navigation", "publish")
# what the leaf answer stands on: the conversation's first and last message
CARRIED = ("第0条 提测进展", "第39条 提测进展")


def summary(text_: str, *of: str) -> Any:
    """The navigation's answer, given only when the request carries the leaf summaries."""
    return text(json.dumps({"summary": text_}, ensure_ascii=False), grounded_in=of)


@pytest.fixture
def deployment(
    services: Settings,
    start_server,  # type: ignore[no-untyped-def]
    model_server: ScriptedModelServer,
    scope: str,
) -> Iterator[tuple[Server, dict[str, str]]]:
    """An API and a worker on a queue of their own, app switched on, one conversation."""
    queue = f"{services.queue_name}:review-cli-{uuid.uuid4().hex[:6]}"
    api = start_server(QUEUE_NAME=queue)
    env = process_env(services, QUEUE_NAME=queue, MODEL_BASE_URL=model_server.base_url)
    worker = spawn(["worker"], env)
    gql(api, "mutation { setHeartbeatEnabled(enabled: true) { heartbeatEnabled } }")
    gql(
        api,
        "mutation($s: UpsertSourceInput!) { upsertSource(input: $s) { id } }",
        s={
            "scope": scope,
            "id": "chat-cli",
            "kind": "CONVERSATION",
            "version": "v1",
            "text": CHAT,
        },
    )
    try:
        yield api, env
    finally:
        stop(worker)
        r = redis.Redis.from_url(services.effective_redis_url)
        forget_queue(r, queue)
        r.close()


def follow(scope: str, env: dict[str, str]) -> subprocess.Popen[str]:
    """`storygraph review` following its run, as a terminal starts it: with Ctrl-C (SIGINT)
    at its default even when the suite itself was started in the background, where SIGINT is
    inherited as ignored and Python would never raise KeyboardInterrupt."""
    return subprocess.Popen(
        review_args(scope),
        cwd=PROJECT_ROOT,
        env=dict(env, PYTHONUNBUFFERED="1"),  # each line as it is printed
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def interrupt(follower: subprocess.Popen[str]) -> str:
    """Ctrl-C, then what it printed; killed (and the test failed) if it does not exit."""
    follower.send_signal(signal.SIGINT)
    try:
        out, _ = follower.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        follower.kill()
        follower.communicate()
        raise
    return out


def review_args(scope: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "api.cli",
        "review",
        "--project",
        scope,
        "--from",
        (BASE - timedelta(hours=1)).isoformat(),
        "--to",
        (BASE + timedelta(days=1)).isoformat(),
    ]


def cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def run_id_of(output: str) -> str:
    for line in output.splitlines():
        if line.startswith("Started review "):
            return line.removeprefix("Started review ").rstrip(".")
    raise AssertionError(f"no run id in {output!r}")


def test_review_command_shows_each_stage_and_the_final_status(
    deployment: tuple[Server, dict[str, str]], model_server: ScriptedModelServer, scope: str
) -> None:
    api, env = deployment
    # the leaf's answer is held until the CLI has shown the leaves stage running (no timed
    # delay: however slowly the CLI polls, it sees the model at work)
    gate = threading.Event()
    model_server.script(leaf("批0", hold=gate, grounded_in=CARRIED), summary("阶段总结", "批0"))
    running = f"  {'leaves':<10} running   0/1"
    follower = follow(scope, env)
    lines: list[str] = []

    def read() -> None:
        assert follower.stdout is not None
        for line in follower.stdout:
            lines.append(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        until(lambda: "".join(lines), lambda out: running in out, "the leaves stage shown running")
    finally:
        gate.set()
    assert follower.wait(timeout=120) == 0
    reader.join(timeout=30)
    assert follower.stdout is not None
    follower.stdout.close()
    out = "".join(lines)
    run_id = run_id_of(out)
    saved = [out.index(f"  {stage:<10} saved") for stage in STAGES]
    assert saved == sorted(saved)  # each stage saved, in order
    assert out.strip().splitlines()[-1].startswith(f"Run {run_id} completed; outcome new_result")
    stored = gql(api, "query($id: String!) { supervisionRun(id: $id) { status } }", id=run_id)
    assert stored["supervisionRun"]["status"] == "completed"

    again = cli([sys.executable, "-m", "api.cli", "review", "--run", run_id], env)
    assert again.returncode == 0
    assert f"Run {run_id} completed" in again.stdout
    # the scripted answers stood for what was sent: the conversation, then the leaf summary
    assert sent_texts(model_server) == [CHAT]
    assert [b["summary"] for b in model_server.requests[-1].user_json()["batches"]] == ["批0"]


def test_review_command_refuses_while_another_review_runs(
    deployment: tuple[Server, dict[str, str]], model_server: ScriptedModelServer, scope: str
) -> None:
    api, env = deployment
    # the leaf is held until the busy start and the cancel have landed, however slowly the
    # CLI processes start (a timed delay raced them: when the leaf answered first, the run
    # went on to an unscripted navigation and failed, and --cancel met a failed run)
    gate = threading.Event()
    model_server.script(leaf("慢", hold=gate, grounded_in=CARRIED))
    follower = follow(scope, env)
    try:
        try:
            until(lambda: model_server.calls, what="the leaf asked")
            busy = cli(review_args(scope), env)
            assert busy.returncode == 2
            assert "BUSY" in busy.stderr
        finally:
            out = interrupt(follower)
        run_id = run_id_of(out)
        canceller = subprocess.Popen(
            [sys.executable, "-m", "api.cli", "review", "--run", run_id, "--cancel"],
            cwd=PROJECT_ROOT,
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        # the cancel is recorded at once; the run stops once its held leaf has answered
        wait_run(api, run_id, "cancelling")
    finally:
        gate.set()
    out, _ = canceller.communicate(timeout=120)
    assert canceller.returncode == 1, out
    assert f"Run {run_id} cancelled" in out
    assert wait_run(api, run_id, "cancelled")["status"] == "cancelled"
    assert model_server.calls == 1, "nothing was asked after the held leaf"
    assert sent_texts(model_server) == [CHAT]  # what the held leaf was asked about


def test_ctrl_c_detaches_and_the_review_goes_on(
    deployment: tuple[Server, dict[str, str]], model_server: ScriptedModelServer, scope: str
) -> None:
    api, env = deployment
    # the leaf is held until the follower has been interrupted: the run is mid-stage then
    gate = threading.Event()
    model_server.script(leaf("批0", hold=gate, grounded_in=CARRIED), summary("阶段总结", "批0"))
    follower = follow(scope, env)
    try:
        until(lambda: model_server.calls, what="the leaf asked")
        out = interrupt(follower)
    finally:
        gate.set()
    assert follower.returncode == 0
    run_id = run_id_of(out)
    assert "Detached: the review keeps running (not cancelled)" in out
    assert f"--run {run_id}" in out
    done: dict[str, Any] = wait_run(api, run_id, "completed")
    assert [s["state"] for s in done["stages"]] == ["saved"] * 4
    assert sent_texts(model_server) == [CHAT]
