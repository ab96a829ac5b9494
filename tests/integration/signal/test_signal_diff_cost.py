"""storyGraphDiff's signal part costs what the window's changes cost, not the scope's history (rule, held for signals): PROFILE of `story/diff_page` over a window
holding one new signal reads as many rows in a scope with 400 older signals as in a scope
with none, through the (scope, recorded_at) index."""

from __future__ import annotations

from datetime import timedelta

from neo4j import AsyncDriver

from bench.story_profile import db_hits
from engine.clock import utcnow
from engine.settings import Settings
from engine.signal.derive import from_fact
from engine.signal.model import Passage, SignalDraft
from graph.queries import queries
from graph.story.diff import StoryDiff
from jobs.deps import Deps
from jobs.signal.record import signal_store
from tests.support.review_jobs import push_conversation
from tests.support.signal_chain import SAID


def drafts(n: int, start: int) -> list[SignalDraft]:
    made = []
    for i in range(start, start + n):
        passage = Passage(source_id="chat", source_version="v1", locator=f"chars:{i}-{i + 1}")
        draft = from_fact("risk", f"张三：风险{i}", passage, SAID, "Asia/Shanghai")
        assert draft is not None
        made.append(draft)
    return made


async def record(deps: Deps, scope: str, found: list[SignalDraft]) -> None:
    store = signal_store(deps)

    async def work(tx):  # type: ignore[no-untyped-def]
        return await store.record_in(
            tx, found, scope=scope, run_id="run-cost", result_id="res-cost", now=utcnow()
        )

    await store.write(work)


async def window_hits(deps: Deps, scope: str, history: int) -> int:
    await push_conversation(deps, scope, "chat", "x" * 1000)
    if history:
        await record(deps, scope, drafts(history, 0))
    since = utcnow()
    await record(deps, scope, drafts(1, 900))  # the one change in the window
    params = StoryDiff.page_params(scope, since, utcnow() + timedelta(seconds=1), None, 50)
    records, summary, _ = await deps.driver.execute_query(
        "PROFILE " + queries().text("story/diff_page"),
        params,
        database_=deps.settings.neo4j_database,
    )
    assert [r["kind"] for r in records] == ["signal"]
    assert summary.profile is not None
    return db_hits(summary.profile)


async def test_the_signal_diff_costs_the_changes_not_the_history(
    neo4j_driver: AsyncDriver, settings: Settings, scope: str, other_scope: str
) -> None:
    deps = Deps(settings=settings, driver=neo4j_driver, pool=None)
    small = await window_hits(deps, scope, 0)
    large = await window_hits(deps, other_scope, 400)
    print(f"diff_page db hits, one new signal: no history {small}, 400 older signals {large}")
    assert large <= small * 1.3, (small, large)
