"""The configured model judges a reply to a signal's follow-up with the promise and the
question asked in its prompt: through the HTTP gateway to the prompt-grounded stand-in, which
reads only what the request carries (tests/support/grounded_concern.py). Without the subject
in the request it cannot say a reply met anything."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import httpx

from engine.concern.policy import ConcernPolicy
from engine.concern.scheduler import Trigger, TriggerKind
from engine.llm.reading import ReplyOutcome
from engine.settings import Settings
from engine.signal.derive import from_fact
from engine.signal.model import Passage
from engine.signal.stored import new_signals
from engine.signal.wording import subject_of
from jobs.concern.loop import model_context
from jobs.llm.gateway import build_gateway
from tests.support.grounded_concern import concern_loop_responder
from tests.support.scripted_model import ScriptedModelServer
from tests.support.signal_answers import FOLLOW_UP, ended_concern

SH = ZoneInfo("Asia/Shanghai")
MONDAY = datetime(2026, 3, 16, 10, 0, tzinfo=SH)
FRIDAY = datetime(2026, 3, 20, 9, 0, tzinfo=SH)
PASSAGE = Passage(source_id="chat-1", source_version="v1", locator="chars:0-20")


async def judged(settings: Settings, reply: str, *, with_subject: bool):  # type: ignore[no-untyped-def]
    draft = from_fact("commitment", "李四：前端部分周四能提测", PASSAGE, MONDAY, "Asia/Shanghai")
    assert draft is not None
    [signal] = new_signals([draft], scope="p1", run_id="r", result_id="res", now=MONDAY)
    concern = ended_concern(
        signal,
        reply,
        answered_at=FRIDAY + timedelta(minutes=20),
        goal=FOLLOW_UP,
        asked=("李四，前端部分周四提测了吗？", FRIDAY),
    ).model_copy(update={"status": "waiting_reply", "reading": None})
    trigger = Trigger(kind=TriggerKind.REPLY, event_key="m-1", person_id="p_lisi")
    policy = ConcernPolicy(timezone="Asia/Shanghai")
    subject = subject_of(signal) if with_subject else None
    ctx = model_context(concern, trigger, FRIDAY + timedelta(minutes=21), policy, subject=subject)
    async with httpx.AsyncClient() as http:
        gateway = build_gateway(settings, http=http)
        return (await gateway.judge_loop(ctx)).value


async def test_the_model_reads_a_reply_against_the_promise_and_question_it_was_sent(
    services: Settings, model_server: ScriptedModelServer
) -> None:
    model_server.answer_with(concern_loop_responder)
    settings = services.model_copy(update={"model_base_url": model_server.base_url})

    kept = await judged(settings, "已经提测了", with_subject=True)
    assert kept.goal_met and kept.reading is not None
    assert kept.reading.outcome is ReplyOutcome.MET and kept.reading.line == 2
    sent = model_server.requests[-1].user_json()
    assert sent["subject"]["what"] == "前端部分提测" and sent["subject"]["kind"] == "commitment"
    assert sent["conversation_log"][0]["text"] == "李四，前端部分周四提测了吗？"

    asked_back = await judged(settings, "提测了吗？", with_subject=True)
    assert not asked_back.goal_met and asked_back.reading is not None
    assert asked_back.reading.outcome is ReplyOutcome.UNCLEAR

    # the product withholding the promise: the stand-in has nothing to read the reply against
    blind = await judged(settings, "已经提测了", with_subject=False)
    assert blind.reading is None
