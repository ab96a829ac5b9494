"""A change of the responsible person is a pending difference, never a silent overwrite
(docs/rules/story-graph.md: "新增证据与已确认结论冲突时显示待核对差异，不能自动断言
旧观点失效"). Default offline model, real worker, real Neo4j.

A review of "张三负责支付模块" records 张三 -[responsible_for]-> 支付模块; a person confirms it;
a later review of "支付模块改由李四负责" leaves it as it is and records one pending DIFFERENCE
suggestion on it (current 张三, proposed 李四) and one difference signal that reads with names;
reviewing the same message again adds neither. Accepting the suggestion moves the relation
to 李四 as a new version (as of before: 张三; after: 李四); dismissing it keeps 张三. Against
a relation only a run recorded, the later review revises it to 李四 itself.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from engine.clock import utcnow
from engine.principal import OPEN_PRINCIPAL
from engine.review.types import Scope
from engine.story.corrections import RelationAction
from jobs.deps import Deps
from jobs.review.common import runs_of
from jobs.review.runs import Opened, open_run
from jobs.story.writes import correct_relation, resolve_suggestion
from tests.support.in_process import graphql
from tests.support.review_jobs import push_conversation, run_worker

SHANGHAI = ZoneInfo("Asia/Shanghai")
MONDAY = datetime(2026, 3, 16, 10, 0, tzinfo=SHANGHAI)
STATED = f"[{MONDAY.isoformat()}] 王五: 张三负责支付模块\n"
GRAPH = """query($s: String!, $at: DateTime) {
  storyGraph(scope: $s, asOf: $at) {
    entities { id name kind }
    relations { id fromId toId type confirmation seq }
    suggestions { id kind targetId field currentValue proposedValue currentLabel
                  proposedLabel status }
    signals(kind: DIFFERENCE) { id targetId field confirmedValue proposedValue suggestionId
                                sourceId locator } } }"""


async def review(deps: Deps, scope: str, around: datetime) -> str:
    got = await open_run(
        deps,
        Scope.projects(scope),
        interval=(around - timedelta(hours=1), around + timedelta(hours=1)),
    )
    assert isinstance(got, Opened)
    await run_worker(deps.settings)
    run = (await runs_of(deps).get(got.run.run_id)).run
    assert run.result_id, run
    return run.run_id


async def graph(deps: Deps, scope: str, at: datetime | None = None) -> dict[str, Any]:
    variables = {"s": scope, "at": at.isoformat() if at else None}
    data = await graphql(deps.settings, deps.driver, GRAPH, variables, pool=deps.pool)
    found: dict[str, Any] = data["storyGraph"]
    return found


def responsible(g: dict[str, Any]) -> list[tuple[str, str]]:
    """(holder name, thing name) of each responsibility relation of a storyGraph answer."""
    names = {e["id"]: e["name"] for e in g["entities"]}
    return sorted(
        (names.get(r["fromId"], r["fromId"]), names.get(r["toId"], r["toId"]))
        for r in g["relations"]
        if r["type"] == "responsible_for"
    )


async def stated_and_confirmed(deps: Deps, scope: str) -> str:
    """张三负责支付模块, reviewed and confirmed by a person: the relation's id."""
    await push_conversation(deps, scope, "chat-1", STATED)
    await review(deps, scope, MONDAY)
    g = await graph(deps, scope)
    assert responsible(g) == [("张三", "支付模块")]
    [rel] = g["relations"]
    kinds = {e["name"]: e["kind"] for e in g["entities"]}
    assert kinds["张三"] == "person"
    await correct_relation(deps, OPEN_PRINCIPAL, RelationAction.CONFIRM, scope, rel["id"])
    return str(rel["id"])


@pytest.mark.parametrize(
    "said",
    ["支付模块改由李四负责", "支付模块交给李四负责了", "李四接手支付模块"],
)
async def test_a_new_holder_of_a_confirmed_responsibility_is_a_pending_difference(
    offline_deps: Deps, scope: str, said: str
) -> None:
    deps = offline_deps
    rel_id = await stated_and_confirmed(deps, scope)
    later = MONDAY + timedelta(days=1)
    line = f"[{later.isoformat()}] 王五: {said}\n"
    await push_conversation(deps, scope, "chat-1", STATED + line, version="v2")
    await review(deps, scope, later)

    g = await graph(deps, scope)
    # the confirmed relation stands as it was: no parallel relation, no retraction
    assert responsible(g) == [("张三", "支付模块")]
    [rel] = g["relations"]
    assert (rel["id"], rel["confirmation"], rel["seq"]) == (rel_id, "CONFIRMED", 2)
    names = {e["name"]: e["id"] for e in g["entities"]}
    [sug] = [s for s in g["suggestions"] if s["kind"] == "DIFFERENCE"]
    assert sug["targetId"] == rel_id and sug["field"] == "from_id"
    assert (sug["currentValue"], sug["proposedValue"]) == (names["张三"], names["李四"])
    assert (sug["currentLabel"], sug["proposedLabel"]) == ("张三", "李四")
    assert sug["status"] == "PENDING"
    # the difference signal reads as a person reads it, citing the sentence
    [signal] = g["signals"]
    assert signal["targetId"] == rel_id and signal["suggestionId"] == sug["id"]
    assert (signal["field"], signal["confirmedValue"], signal["proposedValue"]) == (
        "负责人",
        "张三",
        "李四",
    )
    start = len(STATED) + line.index(said)
    assert signal["sourceId"] == "chat-1" and signal["locator"].startswith(f"chars:{start}-")

    await review(deps, scope, later)  # the same message again: nothing new
    again = await graph(deps, scope)
    assert [s["id"] for s in again["suggestions"]] == [sug["id"]]
    assert [s["id"] for s in again["signals"]] == [signal["id"]]
    assert responsible(again) == [("张三", "支付模块")]


async def test_accepting_the_difference_moves_the_responsibility_as_of_then(
    offline_deps: Deps, scope: str
) -> None:
    deps = offline_deps
    await stated_and_confirmed(deps, scope)
    later = MONDAY + timedelta(days=1)
    line = f"[{later.isoformat()}] 王五: 支付模块改由李四负责\n"
    await push_conversation(deps, scope, "chat-1", STATED + line, version="v2")
    await review(deps, scope, later)
    [sug] = (await graph(deps, scope))["suggestions"]

    before = utcnow()
    await resolve_suggestion(deps, OPEN_PRINCIPAL, "accept", scope, sug["id"], why="对，交给李四了")
    after = await graph(deps, scope)
    assert responsible(after) == [("李四", "支付模块")]
    assert responsible(await graph(deps, scope, before)) == [("张三", "支付模块")]
    [rel] = after["relations"]
    assert rel["confirmation"] == "CONFIRMED" and rel["seq"] == 3
    assert [s["status"] for s in after["suggestions"]] == ["ACCEPTED"]

    await review(deps, scope, later)  # the same message once more: nothing new to settle
    again = await graph(deps, scope)
    assert [s["status"] for s in again["suggestions"]] == ["ACCEPTED"]
    assert responsible(again) == [("李四", "支付模块")] and len(again["signals"]) == 1


async def test_dismissing_the_difference_keeps_the_confirmed_holder(
    offline_deps: Deps, scope: str
) -> None:
    deps = offline_deps
    await stated_and_confirmed(deps, scope)
    later = MONDAY + timedelta(days=1)
    line = f"[{later.isoformat()}] 王五: 支付模块改由李四负责\n"
    await push_conversation(deps, scope, "chat-1", STATED + line, version="v2")
    await review(deps, scope, later)
    [sug] = (await graph(deps, scope))["suggestions"]
    await resolve_suggestion(deps, OPEN_PRINCIPAL, "dismiss", scope, sug["id"], why="还是张三")
    assert responsible(await graph(deps, scope)) == [("张三", "支付模块")]
    await review(deps, scope, later)  # the dismissed proposal on the same words stays away
    g = await graph(deps, scope)  # (kept as a dismissed repeat, : never pending)
    assert {s["status"] for s in g["suggestions"]} == {"DISMISSED"}
    assert responsible(g) == [("张三", "支付模块")] and len(g["signals"]) == 1


async def test_an_unconfirmed_responsibility_is_revised_by_the_later_review(
    offline_deps: Deps, scope: str
) -> None:
    deps = offline_deps
    await push_conversation(deps, scope, "chat-1", STATED)
    await review(deps, scope, MONDAY)
    [rel] = (await graph(deps, scope))["relations"]
    later = MONDAY + timedelta(days=1)
    line = f"[{later.isoformat()}] 王五: 支付模块改由李四负责\n"
    await push_conversation(deps, scope, "chat-1", STATED + line, version="v2")
    before = utcnow()
    await review(deps, scope, later)
    g = await graph(deps, scope)
    assert responsible(g) == [("李四", "支付模块")]
    assert [(r["id"], r["seq"], r["confirmation"]) for r in g["relations"]] == [
        (rel["id"], 2, "SUGGESTED")
    ]
    assert g["suggestions"] == [] and g["signals"] == []
    assert responsible(await graph(deps, scope, before)) == [("张三", "支付模块")]


async def test_an_english_change_of_owner_is_a_pending_difference(
    offline_deps: Deps, scope: str
) -> None:
    deps = offline_deps
    first = f"[{MONDAY.isoformat()}] Wang Wu: Zhang San is responsible for the payment module\n"
    await push_conversation(deps, scope, "chat-1", first)
    await review(deps, scope, MONDAY)
    g = await graph(deps, scope)
    assert responsible(g) == [("Zhang San", "payment module")]
    await correct_relation(
        deps, OPEN_PRINCIPAL, RelationAction.CONFIRM, scope, g["relations"][0]["id"]
    )
    later = MONDAY + timedelta(days=1)
    line = f"[{later.isoformat()}] Wang Wu: Li Si now owns the payment module\n"
    await push_conversation(deps, scope, "chat-1", first + line, version="v2")
    await review(deps, scope, later)
    g = await graph(deps, scope)
    assert responsible(g) == [("Zhang San", "payment module")]
    [sug] = g["suggestions"]
    assert (sug["currentLabel"], sug["proposedLabel"]) == ("Zhang San", "Li Si")
