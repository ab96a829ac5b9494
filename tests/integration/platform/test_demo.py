from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone

from neo4j import AsyncDriver

from api.demo import load_into
from engine.clock import utcnow
from engine.settings import Settings
from graph.story.repository import StoryRepository

CST = timezone(timedelta(hours=8))


def at(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 3, day, hour, minute, tzinfo=CST)


async def test_demo_shows_a_different_past_at_each_record_time(
    neo4j_driver: AsyncDriver, settings: Settings, scope: str
) -> None:
    repo = StoryRepository(neo4j_driver, settings.neo4j_database)
    assert "Loaded" in await load_into(repo, scope)

    early = await repo.story_graph(scope, as_of=at(17, 10, 30))
    assert [e.title for e in early.events] == ["老板委托询问 v2.0 提测时间"]
    assert {e.name for e in early.entities} == {"张三", "李四", "王五", "v2.0"}

    midday = await repo.story_graph(scope, as_of=at(17, 13))
    assert {e.name for e in midday.entities} >= {"前端"} and "支付模块" not in {
        e.name for e in midday.entities
    }

    afternoon = await repo.story_graph(scope, as_of=at(17, 14, 30))
    names = {e.name for e in afternoon.entities}
    assert {"支付模块", "第三方回调接口", "临时 mock 方案"} <= names
    blocked = [r for r in afternoon.relations if r.type == "blocked_by"]
    assert [r.confirmation.value for r in blocked] == ["suggested"]
    assert len(afternoon.summaries) == 1

    later = await repo.story_graph(scope, as_of=at(17, 16))
    assert [r.confirmation.value for r in later.relations if r.type == "blocked_by"] == [
        "confirmed"
    ]


async def test_person_edit_survives_the_later_automatic_run_as_a_suggestion(
    neo4j_driver: AsyncDriver, settings: Settings, scope: str
) -> None:
    repo = StoryRepository(neo4j_driver, settings.neo4j_database)
    await load_into(repo, scope)
    now = await repo.story_graph(scope, as_of=utcnow())
    plan = next(e for e in now.entities if e.name == "临时 mock 方案")
    assert plan.description == "mock 跑通主流程赶周五提测；上线后第一周由王五人工对账"
    pending = [s for s in now.suggestions if s.target_id == plan.id]
    assert [(s.field, s.proposed_value) for s in pending] == [
        ("description", "mock 主流程，沙箱到位后切换真实回调")
    ]


async def test_loading_twice_writes_nothing_more(
    neo4j_driver: AsyncDriver, settings: Settings, scope: str
) -> None:
    repo = StoryRepository(neo4j_driver, settings.neo4j_database)
    await load_into(repo, scope)
    count = "MATCH (n {scope: $scope}) RETURN count(n) AS n"
    before, _, _ = await neo4j_driver.execute_query(
        count, scope=scope, database_=settings.neo4j_database
    )
    assert "already loaded" in await load_into(repo, scope)
    after, _, _ = await neo4j_driver.execute_query(
        count, scope=scope, database_=settings.neo4j_database
    )
    assert before[0]["n"] == after[0]["n"] > 0


async def test_demo_written_in_beijing_time_replays_at_the_same_instants_in_z_and_minus_five(
    neo4j_driver: AsyncDriver, settings: Settings, scope: str
) -> None:
    """The demo records at +08:00; the graph view asks in Z: the same instant, same answer."""
    repo = StoryRepository(neo4j_driver, settings.neo4j_database)
    await load_into(repo, scope)
    for tz in (UTC, timezone(timedelta(hours=-5))):
        first = await repo.story_graph(scope, as_of=at(17, 10, 10).astimezone(tz))
        assert [e.title for e in first.events] == ["老板委托询问 v2.0 提测时间"], tz
        confirmed = await repo.story_graph(scope, as_of=at(17, 15).astimezone(tz))
        assert [r.confirmation.value for r in confirmed.relations if r.type == "blocked_by"] == [
            "confirmed"
        ], tz


async def test_the_showcase_leaves_a_difference_in_the_inbox_and_a_concern_in_flight(
    neo4j_driver: AsyncDriver, settings: Settings, scope: str
) -> None:
    """`make run`'s demo: the boss's confirmed holder stands, the later run's reading waits as
    a difference a person reads (负责人 李四 → 张三, citing the stand-up line), and a concern
    asks 张三 about the sandbox. Loading again adds nothing."""
    from api.demo_showcase import BOSS, add_showcase
    from engine.story.wording import suggestion_sentence
    from jobs.concern.commands import list_concerns
    from jobs.deps import Deps
    from jobs.story.inbox import inbox, inbox_labels

    await load_into(StoryRepository(neo4j_driver, settings.neo4j_database), scope)
    deps = Deps(settings=settings, driver=neo4j_driver, pool=None)
    assert len(await add_showcase(deps, scope)) == 2
    page = await inbox(deps, BOSS, scope, kinds=["DIFFERENCE"], first=10, after=None)
    (item,) = page.items
    assert item.suggestion is not None
    labels = await inbox_labels(deps, BOSS, scope, page.items)
    sentence = suggestion_sentence(item.suggestion, labels)
    assert "负责人「李四」 → 「张三」" in sentence, sentence
    assert [r.locator for r in item.evidence] == ["lines:2-2"]
    concerns = await list_concerns(deps, BOSS, scope, first=10)
    assert [c.title for c in concerns.items] == ["第三方回调沙箱什么时候到"]
    assert await add_showcase(deps, scope) == []


async def test_the_demo_shows_the_loop_signals_and_an_answered_difference_in_the_inbox(
    neo4j_driver: AsyncDriver, settings: Settings, scope: str
) -> None:
    """`make run`'s demo: 周三同步 reviewed by the offline model leaves 李四's promise (an open
    commitment due Friday) and 王五's blocker as signals; "支付模块改由李四负责" against the
    boss's confirmation is a difference 张三 answered through a concern, and its proposal,
    quoting him, is the inbox's first item. Loading again adds nothing."""
    from api.demo_loop import ANSWER, add_loop
    from api.demo_showcase import BOSS, add_showcase
    from engine.signal.model import SignalKind
    from jobs.deps import Deps
    from jobs.queue import open_pool
    from jobs.signal.reads import signals_page
    from jobs.story.inbox import inbox

    await load_into(StoryRepository(neo4j_driver, settings.neo4j_database), scope)
    pool = await open_pool(settings)  # a review's stages run on the worker's Redis
    deps = Deps(settings=settings, driver=neo4j_driver, pool=pool)
    await add_showcase(replace(deps, pool=None), scope)
    assert len(await add_loop(deps, scope)) == 2
    found = (await signals_page(deps, BOSS, scope, 20)).items
    kinds = sorted(str(s.kind) for s in found)
    assert kinds == ["blocker", "commitment", "difference"], kinds
    [promise] = [s for s in found if s.kind is SignalKind.COMMITMENT]
    assert promise.who == "李四" and promise.due is not None
    assert promise.due.astimezone(CST).date().isoformat() == "2026-03-20"  # that Friday
    page = await inbox(deps, BOSS, scope, kinds=["DIFFERENCE"], first=10, after=None)
    answered = page.items[0].suggestion  # newest first: the answered difference
    assert answered is not None and answered.via_concern is not None
    assert answered.why == f"张三 在跟进中答复：{ANSWER}"
    assert await add_loop(deps, scope) == []
    await pool.aclose()


async def test_the_demo_has_a_watch_whose_check_found_its_evidence_in_the_stand_up(
    neo4j_driver: AsyncDriver, settings: Settings, scope: str
) -> None:
    """`make run`'s demo (`load_showcase`, as `storygraph up` loads it): the watch 提测前检查
    reads the checklist note and the stand-up; its check (the offline checker, through the real
    check loop, on the demo's clock) recorded the check step done with 张三's stand-up line as
    evidence, left the execute step pending, and its hand-off waits for the partner session.
    Loading again adds nothing."""
    from api.demo_showcase import BOSS, STANDUP, load_showcase
    from api.demo_watch import RUN_ID
    from engine.watch.model import OutcomeStatus, StepKind, StepStatus
    from graph.watch.records import WatchRecords
    from jobs.deps import Deps
    from jobs.watch.commands import list_watches

    await load_into(StoryRepository(neo4j_driver, settings.neo4j_database), scope)
    said = await load_showcase(settings, scope)
    assert "the watch 提测前检查 checked the stand-up" in said, said
    deps = Deps(settings=settings, driver=neo4j_driver, pool=None)
    page = await list_watches(deps, BOSS, scope, first=10, after=None, with_total=False)
    assert len(page.items) == 1, "the demo has one watch"
    (state,) = page.items
    assert state.watch.title == "提测前检查"
    assert [b.note_id for b in state.watch.bindings] == ["pretest-checklist", STANDUP]
    check, execute = state.steps
    assert (check.kind, check.status) == (StepKind.CHECK, StepStatus.DONE)
    assert check.completion_criteria == "mock 跑主流程"
    assert check.evidence is not None
    assert (
        check.evidence.text
        == f"note:{STANDUP} L1: 张三: 沙箱还没到，支付模块继续用 mock 跑主流程。"
    )
    assert (execute.kind, execute.status) == (StepKind.EXECUTE, StepStatus.PENDING)
    records = WatchRecords(neo4j_driver, settings.neo4j_database)
    (seen,) = await records.observations(scope, state.watch.watch_id)
    assert seen.observation.run_id == RUN_ID
    assert seen.observation.outcome is not None
    assert seen.observation.outcome.status is OutcomeStatus.SUCCESS
    assert seen.observation.observed_at.astimezone(CST) == at(18, 12, 1)  # the demo's clock
    (handoff,) = await records.handoffs(scope, state.watch.watch_id)
    assert handoff.session_id == "demo-session"
    assert await load_showcase(settings, scope) == "the showcase is there already"
