"""What `make run`'s demo adds so a watch can be seen (docs/rules/watches.md): a watch over
the team's pre-test checklist and the stand-up, checked once by the offline checker (as with
no model configured), whose check step is done with the stand-up line as its evidence.

Written through the use cases the API and the worker call, on the demo's clock (Wednesday
2026-03-18, after the loop's review, `api.demo_loop`):

- the note 提测前检查 (a story-graph source of kind note) lists two numbered steps: a check
  (支付模块的联调方式应为 mock 跑主流程, verified during the check) and an execute step
  (发送提测通知给测试组);
- the boss creates the watch 提测前检查 over that note and the stand-up conversation (both
  of scope `demo`), execution on, for the partner session `demo-session`;
- one check runs in place through the real check loop with the offline checker: it reads
  both sources, registers the steps, and records the check step done, citing 张三's line
  "沙箱还没到，支付模块继续用 mock 跑主流程" as its evidence; the execute step stays pending,
  and the hand-off of the verified result waits for the partner session (pending: no
  webhook delivers it here).

Loading twice changes nothing: a scope that has a watch already gets no second one.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from api.demo_loop import BOSS, WEDNESDAY
from engine.offline.watch_checker import OfflineWatchChecker
from engine.story.inputs import SourceInput
from engine.story.models import SourceKind
from engine.watch.bindings import BindingRequest
from jobs.deps import Deps
from jobs.story.common import story_repo
from jobs.watch import commands
from jobs.watch.check import run_check

CHECKLIST = "pretest-checklist"
CHECKLIST_LINES = [
    "v2.0 提测前检查（每次站会后核对）",
    "1. 核对支付模块的联调方式应为 mock 跑主流程（检查时核验）。",
    "2. 发送提测通知给测试组。",
]
TITLE = "提测前检查"
SESSION = "demo-session"
RUN_ID = "demo-pretest-check"


def checklist(scope: str) -> SourceInput:
    return SourceInput(
        scope=scope,
        id=CHECKLIST,
        kind=SourceKind.NOTE,
        title="v2.0 提测前检查",
        version="v1",
        text="\n".join(CHECKLIST_LINES),
    )


async def add_watch(deps: Deps, scope: str, standup: str) -> list[str]:
    """Write the watch and its first check into `scope` (after `api.demo_showcase` wrote the
    stand-up, the source `standup`); what it did, in words."""
    deps = replace(deps, pool=None, clock=lambda: WEDNESDAY + timedelta(hours=2))
    if (
        await commands.list_watches(deps, BOSS, scope, first=1, after=None, with_total=False)
    ).items:
        return []
    await story_repo(deps).upsert_source(checklist(scope), now=deps.clock())
    draft = commands.WatchDraft(
        scope=scope,
        session_id=SESSION,
        title=TITLE,
        execution_enabled=True,
        bindings=[
            BindingRequest(kind="note", note_id=CHECKLIST, title="v2.0 提测前检查"),
            BindingRequest(kind="note", note_id=standup, title="周三站会"),
        ],
    )
    state = await commands.create_watch(deps, BOSS, draft)
    checking = replace(deps, clock=lambda: WEDNESDAY + timedelta(hours=2, minutes=1))
    await run_check(
        checking,
        BOSS,
        scope=scope,
        watch_id=state.watch.watch_id,
        run_id=RUN_ID,
        gateway=OfflineWatchChecker(),
    )
    return [
        "the watch 提测前检查 checked the stand-up: 支付模块 runs on mock (evidence: 张三's line), "
        "the hand-off waits for the partner session"
    ]
