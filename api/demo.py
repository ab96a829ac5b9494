"""Demo data: the v2.0 提测 story (docs/demo.md), written through the project's write paths.

The boss asks 清海 when v2.0 can go to test (docs/rules/concerns.md): 李四 answers for the front
end, 张三 reports the payment module stuck on the third-party callback and proposes the
temporary mock plan, the boss accepts it and 王五 takes the manual reconciliation. Each
step is one organising result (`publishResult`) recorded at its own time, followed by a
person's corrections and a later automatic run that may only suggest (docs/rules/story-graph.md). So an
`asOf` read at 10:30, 13:00 or 16:00 on 2026-03-17 shows a different past.

Loading twice changes nothing: result keys are stable and a repeat publish writes nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta, timezone
from functools import partial

from engine.settings import Settings
from engine.story.corrections import RelationAction
from engine.story.identity import new_entity_id
from engine.story.inputs import EntityEdit, PublishResultInput, SourceInput
from engine.story.models import Actor, make_id
from graph.driver import open_driver
from graph.migrate import migrate
from graph.story.repository import StoryRepository

SCOPE = "demo"
CST = timezone(timedelta(hours=8))
BOSS = Actor.user("boss")


def t(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 3, day, hour, minute, tzinfo=CST)


def ent(scope: str, key: str, ref: str) -> str:
    return new_entity_id(scope, key, ref)


BOSS_CHAT = [
    "老板: 帮我问一下张三李四，v2.0 什么时候能提测",
    "清海: 好的，我来问张三和李四，有进展及时同步给你。",
    "清海: 李四说前端部分周四能提测。张三还没回复，我再跟一下。",
    "清海: 张三回复了：后端支付模块卡在第三方回调接口，他提了个临时方案——先用 mock 跑通主流程，"
    "上线后第一周人工对账。需要你决定：接受临时方案赶周五，还是等沙箱到了再上。",
    "老板: 接受临时方案，周五提测。上线后第一周的人工对账让王五负责。",
]
ZHANGSAN_CHAT = [
    "清海 → 张三: 老板想了解 v2.0 提测什么时候能给？",
    "张三: 后端支付模块卡在第三方回调接口，第三方的沙箱还没到。",
    "张三: 我提个临时方案：先用 mock 跑通主流程，上线后第一周人工对账。",
]
LISI_CHAT = ["清海 → 李四: 老板想了解 v2.0 提测什么时候能给？", "李四: 前端部分周四能提测。"]


SOURCES = {
    "boss-chat": ("老板与清海：v2.0 提测", BOSS_CHAT),
    "zhangsan-chat": ("清海与张三", ZHANGSAN_CHAT),
    "lisi-chat": ("清海与李四", LISI_CHAT),
}
# When each conversation grew: version vN holds the first N messages, pushed at that time.
SOURCE_PUSHES = [
    (t(17, 10, 1), "boss-chat", 1),
    (t(17, 10, 2), "boss-chat", 2),
    (t(17, 10, 30), "zhangsan-chat", 1),
    (t(17, 10, 30), "lisi-chat", 1),
    (t(17, 12, 20), "lisi-chat", 2),
    (t(17, 12, 35), "boss-chat", 3),
    (t(17, 13, 20), "zhangsan-chat", 3),
    (t(17, 13, 35), "boss-chat", 4),
    (t(17, 14, 0), "boss-chat", 5),
]


def conversation(scope: str, source_id: str, upto: int) -> SourceInput:
    title, lines = SOURCES[source_id]
    return SourceInput.model_validate(
        {
            "scope": scope,
            "id": source_id,
            "kind": "conversation",
            "title": title,
            "version": f"v{upto}",
            "text": "\n".join(lines[:upto]),
        }
    )


def ref(source: str, version: str, msg: int) -> dict[str, str]:
    return {"source_id": source, "source_version": version, "locator": f"lines:{msg}-{msg}"}


def result_1(scope: str) -> dict:  # type: ignore[type-arg]
    return {
        "scope": scope,
        "key": "demo-r1-delegation",
        "stories": [
            {"ref": "story", "name": "v2.0 提测", "description": "老板委托确认 v2.0 的提测时间"}
        ],
        "events": [
            {
                "ref": "ask",
                "story": "story",
                "title": "老板委托询问 v2.0 提测时间",
                "at": t(17, 10),
                "references": [ref("boss-chat", "v1", 1)],
            }
        ],
        "entities": [
            {
                "ref": "zhangsan",
                "name": "张三",
                "kind": "person",
                "status": "main",
                "description": "后端负责人",
            },
            {
                "ref": "lisi",
                "name": "李四",
                "kind": "person",
                "status": "main",
                "description": "前端负责人",
            },
            {
                "ref": "wangwu",
                "name": "王五",
                "kind": "person",
                "status": "main",
                "description": "运营",
            },
            {
                "ref": "v2",
                "name": "v2.0",
                "kind": "release",
                "status": "main",
                "description": "待提测版本",
                "references": [ref("boss-chat", "v1", 1)],
            },
        ],
        "changes": [
            {"event": "ask", "entity": "v2", "kind": "proposed", "note": "提出提测时间问题"}
        ],
        "relations": [
            {
                "ref": "zs-v2",
                "from": "zhangsan",
                "to": "v2",
                "type": "responsible_for",
                "reason": "后端部分",
            },
            {
                "ref": "ls-v2",
                "from": "lisi",
                "to": "v2",
                "type": "responsible_for",
                "reason": "前端部分",
            },
        ],
        "open_items": ["张三、李四的提测时间"],
        "feedback": "好的，我来问张三和李四，有进展及时同步给你。",
    }


def result_2(scope: str) -> dict:  # type: ignore[type-arg]
    k1 = "demo-r1-delegation"
    return {
        "scope": scope,
        "key": "demo-r2-lisi",
        "stories": [
            {"ref": "story", "id": make_id("sty", scope, k1, "story"), "name": "v2.0 提测"}
        ],
        "events": [
            {
                "ref": "lisi-reply",
                "story": "story",
                "title": "李四：前端部分周四能提测",
                "at": t(17, 12, 20),
                "references": [ref("lisi-chat", "v2", 2)],
            }
        ],
        "entities": [
            {"ref": "lisi", "id": ent(scope, k1, "lisi"), "name": "李四"},
            {"ref": "v2", "id": ent(scope, k1, "v2"), "name": "v2.0"},
            {
                "ref": "frontend",
                "name": "前端",
                "kind": "module",
                "status": "main",
                "description": "周四可提测",
            },
        ],
        "changes": [
            {
                "event": "lisi-reply",
                "entity": "v2",
                "kind": "supplemented",
                "note": "前端周四可提测",
            }
        ],
        "relations": [
            {"ref": "fe-v2", "from": "frontend", "to": "v2", "type": "part_of"},
            {
                "ref": "ls-fe",
                "from": "lisi",
                "to": "frontend",
                "type": "responsible_for",
                "references": [ref("lisi-chat", "v2", 2)],
            },
        ],
        "open_items": ["张三尚未回复"],
        "feedback": "李四说前端部分周四能提测。张三还没回复，我再跟一下。",
    }


def result_3(scope: str) -> dict:  # type: ignore[type-arg]
    k1 = "demo-r1-delegation"
    return {
        "scope": scope,
        "key": "demo-r3-zhangsan",
        "stories": [
            {"ref": "story", "id": make_id("sty", scope, k1, "story"), "name": "v2.0 提测"}
        ],
        "events": [
            {
                "ref": "zs-reply",
                "story": "story",
                "title": "张三：支付模块卡在第三方回调接口",
                "at": t(17, 13, 20),
                "references": [ref("zhangsan-chat", "v3", 2), ref("zhangsan-chat", "v3", 3)],
            }
        ],
        "entities": [
            {"ref": "zhangsan", "id": ent(scope, k1, "zhangsan"), "name": "张三"},
            {"ref": "v2", "id": ent(scope, k1, "v2"), "name": "v2.0"},
            {
                "ref": "payment",
                "name": "支付模块",
                "kind": "module",
                "status": "main",
                "description": "后端支付模块",
            },
            {
                "ref": "callback",
                "name": "第三方回调接口",
                "kind": "dependency",
                "status": "main",
                "description": "第三方沙箱尚未到位",
                "references": [ref("zhangsan-chat", "v3", 2)],
            },
            {
                "ref": "mock",
                "name": "临时 mock 方案",
                "kind": "plan",
                "status": "main",
                "description": "先用 mock 跑通主流程，上线后第一周人工对账",
                "references": [ref("zhangsan-chat", "v3", 3)],
            },
        ],
        "changes": [
            {"event": "zs-reply", "entity": "payment", "kind": "revised", "note": "后端受阻"},
            {"event": "zs-reply", "entity": "mock", "kind": "proposed", "note": "张三提出临时方案"},
        ],
        "relations": [
            {"ref": "pay-v2", "from": "payment", "to": "v2", "type": "part_of"},
            {
                "ref": "pay-cb",
                "from": "payment",
                "to": "callback",
                "type": "blocked_by",
                "reason": "第三方沙箱还没到",
                "references": [ref("zhangsan-chat", "v3", 2)],
            },
            {
                "ref": "mock-cb",
                "from": "mock",
                "to": "callback",
                "type": "works_around",
                "references": [ref("zhangsan-chat", "v3", 3)],
            },
            {"ref": "zs-mock", "from": "zhangsan", "to": "mock", "type": "proposed"},
        ],
        "decisions": [],
        "open_items": ["接受临时方案赶周五，还是等沙箱到了再上：需要老板决定"],
        "feedback": BOSS_CHAT[3].split(": ", 1)[1],
        "notify": True,
    }


def result_4(scope: str) -> dict:  # type: ignore[type-arg]
    k1, k3 = "demo-r1-delegation", "demo-r3-zhangsan"
    return {
        "scope": scope,
        "key": "demo-r4-decision",
        "stories": [
            {"ref": "story", "id": make_id("sty", scope, k1, "story"), "name": "v2.0 提测"}
        ],
        "events": [
            {
                "ref": "accept",
                "story": "story",
                "title": "老板接受临时方案，周五提测",
                "at": t(17, 14),
                "references": [ref("boss-chat", "v5", 5)],
            }
        ],
        "entities": [
            {
                "ref": "v2",
                "id": ent(scope, k1, "v2"),
                "name": "v2.0",
                "description": "周五提测（临时方案）",
            },
            {"ref": "mock", "id": ent(scope, k3, "mock"), "name": "临时 mock 方案"},
            {"ref": "wangwu", "id": ent(scope, k1, "wangwu"), "name": "王五"},
            {"ref": "payment", "id": ent(scope, k3, "payment"), "name": "支付模块"},
        ],
        "changes": [
            {"event": "accept", "entity": "mock", "kind": "verified", "note": "老板接受"},
            {"event": "accept", "entity": "v2", "kind": "revised", "note": "提测定在周五"},
        ],
        "relations": [
            {
                "ref": "ww-pay",
                "from": "wangwu",
                "to": "payment",
                "type": "reconciles",
                "reason": "上线后第一周人工对账",
                "valid_from": t(20, 0),
                "valid_to": t(27, 0),
                "references": [ref("boss-chat", "v5", 5)],
            },
        ],
        "summaries": [
            {
                "ref": "stage-1",
                "story": "story",
                "text": "v2.0 提测：前端周四可提测；后端支付模块因第三方回调受阻，采用临时 mock 方案周五提测，"
                "王五负责上线后第一周人工对账。",
                "interval_start": t(17, 10),
                "interval_end": t(17, 14),
                "source_ids": ["boss-chat", "zhangsan-chat", "lisi-chat"],
                "references": [ref("boss-chat", "v5", 5)],
            }
        ],
        "decisions": ["接受临时方案，周五提测", "王五负责上线后第一周人工对账"],
        "feedback": "三方都已确认：前端周四、后端按临时方案周五提测。",
    }


def result_5(scope: str) -> dict:  # type: ignore[type-arg]
    """A later automatic run re-describes the plan a person already edited: only a Suggestion."""
    k3 = "demo-r3-zhangsan"
    return {
        "scope": scope,
        "key": "demo-r5-review",
        "entities": [
            {
                "ref": "mock",
                "id": ent(scope, k3, "mock"),
                "name": "临时 mock 方案",
                "description": "mock 主流程，沙箱到位后切换真实回调",
            }
        ],
        "feedback": "临时方案的描述有新的整理建议，待你确认。",
    }


async def load_demo(settings: Settings, scope: str = SCOPE) -> str:
    driver = open_driver(settings)
    try:
        await migrate(driver, settings.neo4j_database)
        return await load_into(StoryRepository(driver, settings.neo4j_database), scope)
    finally:
        await driver.close()


async def load_into(repo: StoryRepository, scope: str = SCOPE) -> str:
    """Write the demo into `scope` (tests use their own scope)."""
    first = PublishResultInput.model_validate(result_1(scope))
    if await _already_loaded(repo, scope, first):
        return f"Demo data already loaded in scope {scope!r}."
    publishes = [
        (t(17, 10, 10), result_1),
        (t(17, 12, 30), result_2),
        (t(17, 13, 30), result_3),
        (t(17, 14, 10), result_4),
    ]
    # Sources grow and results are published in the order they happened (a push before a
    # publish at the same minute), each at its own record time.
    steps: list[tuple[datetime, int, Callable[[], Awaitable[object]]]] = [
        (at, 0, partial(repo.upsert_source, conversation(scope, name, upto), now=at))
        for at, name, upto in SOURCE_PUSHES
    ]
    for at, build in publishes:
        inp = PublishResultInput.model_validate(build(scope))
        steps.append(
            (
                at,
                1,
                partial(repo.publish_result, inp, by=Actor.run(f"run-{inp.key}"), now=at),
            )
        )
    for _, _, write in sorted(steps, key=lambda s: (s[0], s[1])):
        await write()
    await _corrections(repo, scope)
    r5 = PublishResultInput.model_validate(result_5(scope))
    await repo.publish_result(r5, by=Actor.run("run-demo-r5-review"), now=t(18, 9))
    return (
        f"Loaded the v2.0 提测 demo into scope {scope!r}: 5 results recorded between "
        "2026-03-17 10:10 and 2026-03-18 09:00 (+08:00), with a person's corrections at 15:00."
    )


async def _already_loaded(repo: StoryRepository, scope: str, first: PublishResultInput) -> bool:
    from engine.errors import NotFound
    from engine.story.publish import result_id_for

    try:
        await repo.result(scope, result_id_for(scope, first.key))
        return True
    except NotFound:
        return False


async def _corrections(repo: StoryRepository, scope: str) -> None:
    k3 = "demo-r3-zhangsan"
    blocked = make_id("rel", scope, k3, "pay-cb")
    await repo.correct_relation(
        scope, blocked, RelationAction.CONFIRM, by=BOSS, why="已与张三核实", now=t(17, 15)
    )
    mock_id = ent(scope, k3, "mock")
    view = await repo.entity(scope, mock_id, as_of=t(17, 15))
    await repo.update_entity(
        scope,
        mock_id,
        EntityEdit(
            description="mock 跑通主流程赶周五提测；上线后第一周由王五人工对账",
            confirm=["description"],
        ),
        seen_version=view.entity.seq,
        by=BOSS,
        why="补充对账负责人",
        now=t(17, 15, 5),
    )


def load_demo_sync(settings: Settings) -> str:
    return asyncio.run(load_demo(settings))
