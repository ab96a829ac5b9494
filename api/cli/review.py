"""`storygraph review`: start or follow a supervision review in the terminal
(docs/rules/reviews.md).

    storygraph review --project P [--project Q] | --global [--from T] [--to T]
    storygraph review --run ID [--pause | --cancel | --continue]

A start is a manual `startReview(scope, from, to)`: refused at once while the app is off
(DISABLED) or another review runs or stops (BUSY), never queued. Then one progress bar per
stage (collect, leaves, navigation, publish), driven only by the run's stored records (the
same `run_progress` the `runProgress` subscription sends; docs/rules/reviews.md:
阶段推进只依据服务记录), until the run ends with its final status. Without a terminal (CI, pipes)
rich draws no bars, so each change is printed as one plain line instead.

Ctrl-C only detaches: the review keeps running on the workers; follow it again with
`--run ID`, or stop it with `--pause` / `--cancel`.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn

from api.cli.common import CLI_PRINCIPAL, CliError
from api.definitions.review_types import RunProgress, StageProgress, run_progress
from engine.errors import StorygraphError
from engine.principal import Principal
from engine.review.lifecycle import SupervisionRun
from engine.review.types import Scope
from engine.settings import Settings
from graph.driver import open_driver
from jobs.deps import Deps
from jobs.queue import open_pool
from jobs.review import reads, runs
from jobs.review.common import DEFAULT_WINDOW

POLL_SECONDS = 0.5
DETACHED = "Detached: the review keeps running (not cancelled). Follow it again with"


@dataclass
class Target:
    """The run being followed; known once started, so Ctrl-C can name it."""

    run_id: str | None = None


def _scope(projects: list[str] | None, is_global: bool) -> Scope:
    if is_global == bool(projects):
        raise CliError("give either --global or one or more --project, not both or neither")
    return Scope.global_() if is_global else Scope.projects(*(projects or []))


def _stage_line(stage: StageProgress) -> str:
    count = f"{stage.done}/{stage.total if stage.total is not None else '?'}"
    line = f"  {stage.stage:<10} {stage.state:<9} {count}"
    return f"{line}  {stage.error}" if stage.error else line


def final_line(run: SupervisionRun) -> str:
    status = run.display_status.value
    parts = [f"Run {run.run_id} {status}"]
    if run.outcome is not None:
        parts.append(f"outcome {run.outcome.value}")
    if run.result_id:
        parts.append(f"result {run.result_id}")
    if run.error is not None:
        parts.append(f"{run.error.stage.value} {run.error.kind.value}: {run.error.message}")
    return "; ".join(parts) + "."


class Bars:
    """One bar per stage in a terminal; plain lines (one per change) elsewhere."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.live = console.is_terminal
        self.progress = Progress(
            TextColumn("{task.description:<24}"),
            BarColumn(),
            MofNCompleteColumn(),
            console=console,
            disable=not self.live,
        )
        self.tasks: dict[str, TaskID] = {}
        self.last: dict[str, str] = {}

    def __enter__(self) -> Bars:
        self.progress.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.__exit__(None, None, None)

    def show(self, prog: RunProgress) -> None:
        for stage in prog.stages:
            description = f"{stage.stage} · {stage.state}"
            if stage.stage not in self.tasks:
                self.tasks[stage.stage] = self.progress.add_task(description, total=stage.total)
            self.progress.update(
                self.tasks[stage.stage],
                description=description,
                completed=stage.done,
                total=stage.total,
            )
            line = _stage_line(stage)
            if not self.live and self.last.get(stage.stage) != line:
                self.console.print(line, highlight=False)
                self.last[stage.stage] = line


async def follow(
    deps: Deps, run_id: str, console: Console, *, poll: float = POLL_SECONDS
) -> SupervisionRun:
    """Show the run's stage progress from its stored records until it has stopped."""
    console.print(f"Following review {run_id} (Ctrl-C detaches; it does not cancel).")
    with Bars(console) as bars:
        async for run in reads.follow_run(deps, CLI_PRINCIPAL, run_id, poll=poll):
            bars.show(run_progress(run))
            if run.stopped:
                return run
    raise AssertionError("follow_run ends with a stopped run")


async def review_command(
    settings: Settings,
    target: Target,
    *,
    projects: list[str] | None,
    is_global: bool,
    start: datetime | None,
    end: datetime | None,
    action: str | None,
    console: Console,
) -> SupervisionRun:
    driver = open_driver(settings)
    pool = await open_pool(settings)
    try:
        deps = Deps(settings=settings, driver=driver, pool=pool, worker_id="cli")
        run_id = target.run_id
        if run_id is None:
            if action is not None:
                raise CliError(f"--{action} needs --run ID")
            now = deps.clock()
            interval = (start or now - DEFAULT_WINDOW, end or now + timedelta(minutes=1))
            run = await runs.start_review(
                deps, CLI_PRINCIPAL, _scope(projects, is_global), *interval
            )
            run_id = target.run_id = run.run_id
            console.print(f"Started review {run_id}.")
        elif action is not None:
            steer: dict[str, Callable[[Deps, Principal, str], Awaitable[object]]] = {
                "pause": runs.pause_review,
                "cancel": runs.cancel_review,
                "continue": runs.continue_review,
            }
            await steer[action](deps, CLI_PRINCIPAL, run_id)
            console.print(f"Asked review {run_id} to {action}.")
        return await follow(deps, run_id, console)
    except StorygraphError as exc:
        raise CliError(f"{exc.code.value}: {exc.message}") from None
    finally:
        await pool.aclose()
        await driver.close()


def run_review_cli(
    settings: Settings,
    *,
    run_id: str | None,
    projects: list[str] | None,
    is_global: bool,
    start: datetime | None,
    end: datetime | None,
    action: str | None,
) -> int:
    """The terminal entry: exit 0 when the run completed, 1 when it ended otherwise, and 0
    after Ctrl-C (detached: the run goes on)."""
    console = Console(highlight=False, soft_wrap=True)
    target = Target(run_id)
    try:
        run = asyncio.run(
            review_command(
                settings,
                target,
                projects=projects,
                is_global=is_global,
                start=start,
                end=end,
                action=action,
                console=console,
            )
        )
    except KeyboardInterrupt:
        console.print(f"{DETACHED} `storygraph review --run {target.run_id or 'ID'}`.")
        return 0
    console.print(final_line(run))
    return 0 if run.display_status.value == "completed" else 1


def command(args: argparse.Namespace, settings: Settings) -> None:
    code = run_review_cli(
        settings,
        run_id=args.run,
        projects=args.project,
        is_global=args.is_global,
        start=args.start,
        end=args.end,
        action=args.action,
    )
    if code:
        raise SystemExit(code)
