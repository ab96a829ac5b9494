"""docs/rules/concerns.md end to end with the DEFAULT offline rule model — what `make run`
gives without MODEL_BASE_URL: the real API and worker processes over HTTP, a moved clock
(the API's own time arguments, in 2035 so no wall-clock scheduler touches them).

老板: 帮我问一下张三李四，v2.0 什么时候能提测 → created; 30 分钟后 contacted; 2 小时后 李四
answers (partial + timeout_retry); 1 小时后 张三 answers with a blocker and a proposal
(owner_update asking the boss to decide); the boss decides, 张三 gives the day, and the
back-flow carries [回流] title / 结果 / 关键信息 / 耗时.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from engine.settings import Settings
from tests.support.concern_api import ConcernClient
from tests.support.mcp import http_client
from tests.support.polling import until
from tests.support.processes import Server, process_env, spawn, stop
from tests.support.webhook import Webhook

T0 = datetime(2035, 4, 16, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))  # a Monday
ASK = "你好，老板想了解一下 v2.0 什么时候能提测？"
BLOCKER = (
    "后端支付模块卡在第三方回调接口，沙箱还没到。"
    "我提个临时方案：先用 mock 跑通主流程，上线后第一周人工对账。"
)


@pytest.fixture
def offline_stack(services: Settings, start_server: Callable[..., Server]) -> Iterator[Server]:
    """Our own API and worker on a queue of their own, with no model endpoint at all."""
    queue = f"{services.queue_name}:concern-offline:{uuid.uuid4().hex[:6]}"
    api = start_server(QUEUE_NAME=queue)
    worker = spawn(["worker"], process_env(services, QUEUE_NAME=queue, MODEL_BASE_URL=""))
    yield api
    stop(worker)


async def test_seed_complete_example_with_the_offline_model(
    offline_stack: Server, scope: str
) -> None:
    api = ConcernClient(offline_stack, scope, T0)
    raised = api.raise_(
        0,
        type="DELEGATION",
        priority="HIGH",
        title="问张三和李四 v2.0 提测时间",
        goal="拿到张三和李四各自 v2.0 的提测时间",
        sourceDetail="帮我问一下张三李四，v2.0 什么时候能提测",
        initiator={
            "name": "老板",
            "channel": "telegram",
            "channelUserId": "123",
            "personId": "p_owner",
        },
        people=[
            {"personId": "p_zhangsan", "displayName": "张三", "lastChannel": "feishu"},
            {"personId": "p_lisi", "displayName": "李四", "lastChannel": "feishu"},
        ],
    )
    cid = raised["id"]
    api.wait_for("p_owner", 1)

    # ... 30 分钟后
    api.scheduler(30)
    api.wait_for("p_owner", 2)
    assert [m["text"] for m in api.wait_for("p_lisi", 1)] == [ASK]
    assert [m["text"] for m in api.wait_for("p_zhangsan", 1)] == [ASK]

    # ... 2 小时后，李四回复了 (张三's first follow-up is due now: high, 2 h)
    api.reply(cid, "p_lisi", "前端部分周四能提测", 150)
    api.wait_for("p_owner", 3)
    assert [m["text"] for m in api.wait_for("p_zhangsan", 2)][1] == (
        "再跟你确认一下，v2.0 什么时候能提测？方便的时候回我一下。"
    )

    # ... 又过了 1 小时，张三回复了复杂内容
    api.reply(cid, "p_zhangsan", BLOCKER, 210)
    api.wait_for("p_owner", 4)
    api.reply(cid, "p_owner", "接受临时方案，赶周五", 240)
    assert api.wait_for("p_zhangsan", 3)[2]["text"] == (
        "老板回复了：接受临时方案，赶周五。那 v2.0 什么时候能提测？"
    )
    api.reply(cid, "p_zhangsan", "好的，按临时方案周五提测", 260)
    boss = api.wait_for("p_owner", 5)

    assert [(m["kind"], "+".join(m["reportKinds"]), m["text"]) for m in boss] == [
        ("report", "created", "好的，我来联系张三和李四，有进展及时同步给你。"),
        ("report", "contacted", "已经联系张三和李四了，等他们回复。"),
        ("report", "partial+timeout_retry", "李四说前端部分周四能提测。张三还没回复，我再跟一下。"),
        (
            "report",
            "owner_update",
            f"张三回复了：{BLOCKER[:-1]}。他提了个方案，需要你决定：接受这个方案，"
            "还是等卡点解决了再推进？",
        ),
        (
            "backflow",
            "",
            "[回流] 问张三和李四 v2.0 提测时间\n"
            "结果：拿到了张三和李四的具体时间\n"
            "关键信息：张三：好的，按临时方案周五提测；李四：前端部分周四能提测\n"
            "耗时：4小时20分钟",
        ),
    ]
    assert [datetime.fromisoformat(m["deliverAt"]) for m in boss] == [
        datetime.fromisoformat(api.at(x)) for x in (0, 30, 150, 210, 260)
    ]
    assert {(m["status"], m["channel"]) for m in boss} == {("sent", "telegram")}
    final = api.concern(cid)
    assert final["status"] == "RESOLVED"
    # every loop turn's (offline) model call is in the cost ledger, charged to the concern
    cost = api.gql(CONCERN_COST, id=cid, scope=api.scope)
    mine = cost["concern"]["cost"]
    assert mine["calls"] >= 4 and mine["estimatedCalls"] == mine["calls"] and mine["tokens"] > 0
    assert cost["costLedger"]["byConcern"] == [{"id": cid, "cost": {"calls": mine["calls"]}}]
    assert {s["stage"] for s in cost["costLedger"]["byStage"]} == {"concern_loop"}


CONCERN_COST = """query($id: ID!, $scope: String!) {
  concern(id: $id) { cost { calls estimatedCalls tokens } }
  costLedger(scope: $scope, from: "2000-01-01T00:00:00Z", to: "2100-01-01T00:00:00Z") {
    byConcern { id cost { calls } } byStage { stage model } } }"""


SATURDAY = datetime(2035, 4, 21, 8, 30, tzinfo=ZoneInfo("Asia/Shanghai"))
ALL_MESSAGES = """query($scope: String!, $person: String!) {
  concernMessages(scope: $scope, personId: $person) {
    edges { node { kind reportKinds text deliverAt status } } } }"""
TIMELINE = """query($id: ID!) { concern(id: $id) { status
  timeline { type detail } conversation { direction personId text } } }"""


def _zhangsan_delegation(priority: str = "MEDIUM") -> dict[str, object]:
    return {
        "type": "DELEGATION",
        "priority": priority,
        "title": "联系张三确认提测时间",
        "goal": "拿到张三的具体提测时间点",
        "sourceDetail": "帮我问问张三提测什么时候能给",
        "initiator": {"name": "老板", "channel": "telegram", "personId": "p_owner"},
        "people": [{"personId": "p_zhangsan", "displayName": "张三", "lastChannel": "feishu"}],
    }


async def test_raising_contacts_at_once_and_the_backflow_supersedes_progress_reports(
    offline_stack: Server, scope: str
) -> None:
    """raised on a Saturday morning, the first loop turn runs at once
    (no scheduler tick: the initial message is in conversation_log); the reports to the boss
    wait for Monday 09:00 (high: working hours for reports; the message to 张三 goes at
    once); 张三 answers with a day and the concern resolves; the back-flow
    goes out, and the created / contacted reports never do — they are superseded, and the
    timeline says so. A scheduler run on Monday delivers nothing more."""
    api = ConcernClient(offline_stack, scope, SATURDAY)
    cid = api.raise_(0, **_zhangsan_delegation("HIGH"))["id"]
    # no runConcernScheduler: the raise itself enqueued the first turn
    got = api.wait_revision(cid, lambda c: c["conversation"])
    assert [(e["direction"], e["personId"]) for e in got["conversation"]] == [
        ("OUTBOUND", "p_zhangsan")
    ]
    assert api.wait_for("p_zhangsan", 1)[0]["text"] == got["conversation"][0]["text"]
    api.reply(cid, "p_zhangsan", "好的，周五提测", 20)
    api.wait_revision(cid, lambda c: c["status"] == "RESOLVED")
    api.scheduler(2 * 24 * 60 + 180)  # Monday 11:30: every deferred report is due

    def boss() -> list[dict[str, object]]:
        data = api.gql(ALL_MESSAGES, scope=scope, person="p_owner")["concernMessages"]
        return [e["node"] for e in data["edges"]]

    sent = api.wait_for("p_owner", 1)
    assert [m["kind"] for m in sent] == ["backflow"], sent
    assert {("+".join(m["reportKinds"]), m["status"]) for m in boss() if m["kind"] == "report"} == {
        ("created", "superseded"),
        ("contacted", "superseded"),
    }
    timeline = api.gql(TIMELINE, id=cid)["concern"]["timeline"]
    assert any(
        e["type"] == "REPORT" and e["detail"].startswith("2 条未发送的中途汇报已作废")
        for e in timeline
    ), timeline


async def test_counterparts_are_messaged_inside_their_prioritys_window(
    offline_stack: Server, scope: str
) -> None:
    """raised at 07:13 on a Saturday, the medium concern's message to 张三
    is recorded at once but held until Monday 09:00 (working hours), and its timeline says
    so; a critical concern raised at the same minute reaches 李四 at once."""
    early = SATURDAY.replace(hour=7, minute=13)
    api = ConcernClient(offline_stack, scope, early)
    medium = api.raise_(0, **_zhangsan_delegation("MEDIUM"))["id"]
    critical = api.raise_(
        0,
        **{
            **_zhangsan_delegation("CRITICAL"),
            "title": "联系李四确认线上故障",
            "people": [{"personId": "p_lisi", "displayName": "李四", "lastChannel": "feishu"}],
        },
    )["id"]
    api.wait_for("p_lisi", 1)  # critical: any time
    held = api.wait_revision(medium, lambda c: c["conversation"])
    assert held["status"] == "WAITING_REPLY"
    timeline = api.gql(TIMELINE, id=medium)["concern"]["timeline"]
    assert [e["detail"] for e in timeline if e["type"] == "ACTION_SEND"] == [
        "已安排发送给张三（feishu）：medium 优先级只在工作时间发送，将于 2035-04-23 09:00 发出"
    ]
    queued = api.gql(ALL_MESSAGES, scope=scope, person="p_zhangsan")["concernMessages"]
    [(status, deliver_at)] = [
        (e["node"]["status"], e["node"]["deliverAt"]) for e in queued["edges"]
    ]
    assert status == "pending"
    assert datetime.fromisoformat(deliver_at) == datetime(
        2035, 4, 23, 9, 0, tzinfo=ZoneInfo("Asia/Shanghai")
    )
    api.scheduler(5 * 60)  # Saturday noon: still outside the window
    assert api.sent_to("p_zhangsan") == []
    api.scheduler(2 * 24 * 60 + 110)  # Monday 09:03
    assert len(api.wait_for("p_zhangsan", 1)) == 1
    assert critical != medium


CHANGE = """mutation($i: ChangeConcernPriorityInput!) {
  changeConcernPriority(input: $i) { priority nextAction { when } } }"""
AGENDA = (
    """query($scope: String!) { agenda(scope: $scope) { concernRefs { concernId priority } } }"""
)


async def test_changing_the_priority_moves_the_agenda_the_window_and_the_follow_ups(
    offline_stack: Server, scope: str
) -> None:
    """a medium concern raised at 07:13 on a Saturday holds its message to
    张三 for Monday; raised to CRITICAL at 07:20 the message goes at once, the agenda entry
    says CRITICAL, the next follow-up is critical's 30 minutes after it, and the timeline
    records the change."""
    early = SATURDAY.replace(hour=7, minute=13)
    api = ConcernClient(offline_stack, scope, early)
    cid = api.raise_(0, **_zhangsan_delegation("MEDIUM"))["id"]
    api.wait_revision(cid, lambda c: c["conversation"])
    assert api.sent_to("p_zhangsan") == []
    changed = api.gql(CHANGE, i={"concernId": cid, "priority": "CRITICAL", "at": api.at(7)})
    got = changed["changeConcernPriority"]
    assert got["priority"] == "CRITICAL"
    assert datetime.fromisoformat(got["nextAction"]["when"]) == datetime.fromisoformat(api.at(37))
    [sent] = api.wait_for("p_zhangsan", 1)
    assert datetime.fromisoformat(sent["deliverAt"]) == datetime.fromisoformat(api.at(7))
    refs = api.gql(AGENDA, scope=scope)["agenda"]["concernRefs"]
    assert [(r["concernId"], r["priority"]) for r in refs] == [(cid, "CRITICAL")]
    timeline = api.gql(TIMELINE, id=cid)["concern"]["timeline"]
    assert timeline[-1]["type"] == "PRIORITY_CHANGED"
    assert timeline[-1]["detail"] == (
        "优先级 medium → critical；下次跟进 2035-04-21 07:50；"
        "1 条待发消息改按任何时间发送（2035-04-21 07:20 发出）"
    )


SCHEDULED = """query($id: ID!) { concern(id: $id) { status
  executions { outcome detail } conversation { direction personId text } } }"""


@pytest.fixture
def hooked_stack(
    services: Settings, start_server: Callable[..., Server]
) -> Iterator[tuple[Server, Webhook]]:
    """The offline stack whose worker delivers every outbox row to a loopback chat webhook."""
    queue = f"{services.queue_name}:concern-hook:{uuid.uuid4().hex[:6]}"
    with Webhook(failing=False) as hook:
        api = start_server(QUEUE_NAME=queue, CONCERN_WEBHOOK_URL=hook.url)
        worker = spawn(
            ["worker"],
            process_env(
                services, QUEUE_NAME=queue, MODEL_BASE_URL="", CONCERN_WEBHOOK_URL=hook.url
            ),
        )
        yield api, hook
        stop(worker)


def _posted(hook: Webhook, kind: str, timeout: float = 60) -> list[dict[str, object]]:
    return until(
        lambda: [b for b in hook.accepted if b["kind"] == kind],
        what=f"a {kind} POST",
        timeout=timeout,
    )


def _schedule(mode: str, people: list[dict[str, str]]) -> dict[str, object]:
    return {
        "type": "SCHEDULE",
        "priority": "HIGH",
        "title": "周五发版前确认回归结果",
        "goal": "回归结果已确认",
        "initiator": {"name": "老板", "channel": "telegram", "personId": "p_owner"},
        "people": people,
        "trigger": {"nextRunAt": SATURDAY.replace(hour=10).isoformat(), "mode": mode},
    }


async def test_scheduled_concerns_do_their_modes_part(
    hooked_stack: tuple[Server, Webhook], scope: str
) -> None:
    """with the offline model (which answers "no reply" for a scheduled
    run): direct messages 张三; via_conversation hands the item to the boss's conversation —
    a webhook POST of kind handoff and the MCP conversation-context resource — and stays
    open until the boss answers, which is recorded; system records its own outcome and, its
    goal not met, ends dropped."""
    api, hook = hooked_stack
    client = ConcernClient(api, scope, SATURDAY.replace(hour=9))
    zhang = [{"personId": "p_zhangsan", "displayName": "张三", "lastChannel": "feishu"}]
    direct = client.raise_(0, **_schedule("DIRECT", zhang))["id"]
    handed = client.raise_(0, **_schedule("VIA_CONVERSATION", []))["id"]
    system = client.raise_(0, **_schedule("SYSTEM", []))["id"]
    client.scheduler(61)  # 10:01: every run is due

    got = client.wait_revision(direct, lambda c: c["status"] == "RESOLVED")
    assert got["executions"] == [{"outcome": "sent", "detail": "已发送给张三"}]
    assert [m["text"] for m in client.wait_for("p_zhangsan", 1)] == [
        "定时提醒：周五发版前确认回归结果。"
    ]

    waiting = client.wait_revision(handed, lambda c: c["status"] == "WAITING_REPLY")
    assert [e["outcome"] for e in waiting["executions"]] == ["handed_off"]
    [post] = _posted(hook, "handoff")
    assert post["concern_id"] == handed and post["recipient"]["person_id"] == "p_owner"
    assert post["text"] == (
        "定时事项到点了：周五发版前确认回归结果（完成条件：回归结果已确认）。"
        "请在对话里处理，处理完回复我一声。"
    )
    async with http_client(api.url, None) as mcp:
        read = await mcp.read_resource(f"storygraph://{scope}/people/p_owner/context")
    ctx = json.loads(read.contents[0].text)  # type: ignore[union-attr]
    [item] = [i for i in ctx["awaiting_reply"] if i["concern_id"] == handed]
    assert item["asked"] == post["text"]
    assert client.concern(handed)["status"] == "WAITING_REPLY"  # never resolved unanswered
    client.reply(handed, "p_owner", "回归全过了，可以发", 90)
    done = client.wait_revision(handed, lambda c: c["status"] == "RESOLVED")
    assert [(e["outcome"], e["detail"]) for e in done["executions"]] == [
        ("handed_off", "已交给老板的会话处理，等待答复"),
        ("answered", "回归全过了，可以发"),
    ]

    # the system run did not reach its goal: it ends by what it did, never resolved
    ran = client.wait_revision(system, lambda c: c["status"] == "DROPPED")
    [run] = client.gql(SCHEDULED, id=system)["concern"]["executions"]
    assert run == {"outcome": "not_met", "detail": "系统已执行：周五发版前确认回归结果"}
    assert ran["conversation"] == []
