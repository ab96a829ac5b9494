"""What `make run`'s demo adds beyond the v2.0 提测 story (`api.demo`), written through the
use cases a person or an app calls, so it behaves as the product does:

- **a difference to settle**: the boss confirms that 李四 is responsible for 前端; a later
  run reads 张三's stand-up line "前端提测我来负责" and names 张三 instead. A person's
  confirmed word is never overruled by a machine's reading, so the run only proposes: a
  pending difference (负责人 李四 → 张三) waits in the inbox, citing the line;
- **a concern in flight**: 清海 asks 张三 when the payment provider's sandbox arrives (the
  blocker of the story); the worker's concern loop writes the first message at once.

Then `api.demo_loop` (the reviewed conversation, its signals and the answered difference)
and `api.demo_watch` (a watch whose check found its evidence in the stand-up).

Loading twice changes nothing: the result key is stable (a repeat publish writes nothing),
a second confirmation is a repeat, and the concern has a stable id (a second raise is
CONFLICT, ignored here).
"""

from __future__ import annotations

from datetime import datetime

from api.demo import ent
from api.demo_loop import add_loop
from api.demo_watch import add_watch
from engine.concern.model import Initiator, PersonRef, RaiseConcernInput
from engine.errors import Conflict
from engine.principal import Principal
from engine.settings import Settings
from engine.story.corrections import RelationAction
from engine.story.inputs import SourceInput
from engine.story.models import make_id
from graph.driver import open_driver
from jobs.concern.commands import raise_concern, upsert_person
from jobs.deps import Deps
from jobs.queue import open_pool
from jobs.story.common import story_repo
from jobs.story.writes import correct_relation, publish_result

# the person at the demo's keyboard: the boss, who may do everything in the demo's scope
BOSS = Principal("boss", frozenset({"*"}), frozenset({"admin"}))
STANDUP = "standup-chat"
STANDUP_LINES = [
    "张三: 沙箱还没到，支付模块继续用 mock 跑主流程。",
    "张三: 李四这周请假，前端提测我来负责。",
]


def standup(scope: str) -> SourceInput:
    return SourceInput.model_validate(
        {
            "scope": scope,
            "id": STANDUP,
            "kind": "conversation",
            "title": "周三站会",
            "version": "v1",
            "text": "\n".join(STANDUP_LINES),
        }
    )


def holder_result(scope: str) -> dict:  # type: ignore[type-arg]
    """A later run's reading of the stand-up: 张三 is responsible for 前端."""
    k2 = "demo-r2-lisi"
    cite = {"source_id": STANDUP, "source_version": "v1", "locator": "lines:2-2"}
    return {
        "scope": scope,
        "key": "demo-r6-standup",
        "entities": [
            {"ref": "zhangsan", "id": ent(scope, "demo-r1-delegation", "zhangsan"), "name": "张三"},
            {"ref": "frontend", "id": ent(scope, k2, "frontend"), "name": "前端"},
        ],
        "relations": [
            {
                "ref": "zs-fe",
                "from": "zhangsan",
                "to": "frontend",
                "type": "responsible_for",
                "reason": "张三：前端提测我来负责",
                "references": [cite],
            }
        ],
        "feedback": "站会上张三说前端提测由他负责，与已确认的负责人不同，待你核对。",
    }


def sandbox_concern() -> RaiseConcernInput:
    return RaiseConcernInput.asking(
        title="第三方回调沙箱什么时候到",
        goal="问清第三方回调接口的沙箱到位时间，好安排切换真实回调",
        source_detail="v2.0 提测：支付模块卡在第三方回调接口",
        initiator=Initiator(name="老板", channel="chat"),
        people=[PersonRef(person_id="p_zhangsan", display_name="张三")],
    )


async def add_showcase(deps: Deps, scope: str) -> list[str]:
    """Write the showcase into `scope` (after `api.demo.load_into`); what it did, in words."""
    done: list[str] = []
    await story_repo(deps).upsert_source(standup(scope), now=deps.clock())
    held = make_id("rel", scope, "demo-r2-lisi", "ls-fe")
    # a second confirmation is a repeat: it writes nothing
    await correct_relation(
        deps, BOSS, RelationAction.CONFIRM, scope, held, why="李四负责前端，已确认"
    )
    outcome = await publish_result(deps, BOSS, holder_result(scope), run_id="run-demo-r6-standup")
    if not outcome.repeat:
        done.append(
            "the boss confirmed 李四 负责 前端 and a later run names 张三 instead: "
            "a difference waits in the inbox"
        )
    # a concern messages only people its scope knows: 张三 is registered first
    await upsert_person(deps, BOSS, scope, {"person_id": "p_zhangsan", "display_name": "张三"})
    try:
        await raise_concern(
            deps,
            BOSS,
            sandbox_concern,
            scope=scope,
            concern_id=make_id("concern", scope, "demo-sandbox"),
        )
        done.append("a concern asks 张三 when the sandbox arrives (the worker sends it)")
    except Conflict:
        pass
    return done


async def load_showcase(settings: Settings, scope: str, now: datetime | None = None) -> str:
    driver = open_driver(settings)
    pool = await open_pool(settings)
    try:
        deps = Deps(settings=settings, driver=driver, pool=pool)
        if now is not None:
            deps = Deps(settings=settings, driver=driver, pool=pool, clock=lambda: now)
        done = await add_showcase(deps, scope)
        done += await add_loop(deps, scope)
        done += await add_watch(deps, scope, STANDUP)
        return "; ".join(done) if done else "the showcase is there already"
    finally:
        await pool.aclose()
        await driver.close()
