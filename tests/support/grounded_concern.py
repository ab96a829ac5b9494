"""A prompt-grounded concern responder for the scripted model server.

`concern_loop_responder(request) -> ScriptedReply` answers one agent-loop turn the way a
model following docs/rules/concerns.md would, built ONLY from what the product sent in the request:
the goal, the people listed in it, and the conversation_log (the reply text). It keeps its
own small phrase table (not the product's rule model), so a test proves the HTTP path
carries the context: a request without the reply reads as silence, a person missing from
the request is never addressed.

Readings of the newest counterpart lines since our last message to them:
- none: silent -> follow_up (the engine's gates and interval table decide);
- 别催 / 在做 / working on it: resistant_working -> wait;
- 这两天 / 过几天 / 下周 with a goal asking for a time: vague -> follow_up now, asking the
  replier for a date;
- a weekday / 明天 / 后天 with a goal asking for a time: committed -> resolve;
- 好 / 可以 with a goal asking to confirm: resolve;
- anything else (我看看, 嗯 …): vague -> wait.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tests.support.scripted_model import LoggedRequest, ScriptedReply, text

RESISTANT = re.compile(r"别催|在做了|在弄了|正在|working on it|stop pushing", re.IGNORECASE)
VAGUE_TIME = re.compile(r"这两天|这几天|过几天|过两天|下周|尽快|soon", re.IGNORECASE)
DAY = re.compile(
    r"明天|后天|周[一二三四五六日天]|星期[一二三四五六日天]|\d+号|tomorrow", re.IGNORECASE
)
YES = re.compile(r"^\s*(好|好的|可以|行|没问题|ok)\b", re.IGNORECASE)
ASK_DATE = "好的，能给个具体日期吗？"


def _answer(output: dict[str, Any]) -> ScriptedReply:
    return text(json.dumps(output, ensure_ascii=False))


def _recent_replies(log: list[dict[str, Any]], person_id: str) -> list[str]:
    lines = [e for e in sorted(log, key=lambda e: e["ts"]) if e.get("person_id") == person_id]
    last_out = max((i for i, e in enumerate(lines) if e["direction"] == "outbound"), default=-1)
    return [e["text"] for e in lines[last_out + 1 :] if e["direction"] == "inbound"]


def read_turn(ctx: dict[str, Any]) -> dict[str, Any]:
    """The LoopOutput fields for one turn, from the request's JSON alone."""
    goal = str(ctx.get("goal") or "")
    wants_time = bool(re.search(r"时间|什么时候|日期|when|date", goal, re.IGNORECASE))
    wants_confirm = "确认" in goal and not wants_time
    log = list(ctx.get("conversation_log") or [])
    people = [p["person_id"] for p in ctx.get("counterparts") or []]
    for pid in people:
        replies = _recent_replies(log, pid)
        if not replies:
            continue
        said = "。".join(replies)
        if wants_time and DAY.search(said) and not VAGUE_TIME.search(said):
            return {
                "goal_met": True,
                "step": "resolve",
                "attitude": "committed",
                "conclusion": f"拿到了时间：{said}",
                "key_information": said,
                "done_person_ids": [pid],
            }
        if wants_confirm and YES.search(said):
            return {
                "goal_met": True,
                "step": "resolve",
                "attitude": "committed",
                "conclusion": "对方确认了",
                "key_information": said,
                "done_person_ids": [pid],
            }
        if RESISTANT.search(said):
            return {
                "goal_met": False,
                "step": "wait",
                "attitude": "resistant_working",
                "summary": "对方在做，别催",
            }
        if wants_time and VAGUE_TIME.search(said):
            return {
                "goal_met": False,
                "step": "follow_up",
                "attitude": "vague",
                "messages": [{"person_id": pid, "text": ASK_DATE}],
            }
        return {"goal_met": False, "step": "wait", "attitude": "vague"}
    contacted = any(e["direction"] == "outbound" for e in log)
    return {"goal_met": False, "step": "follow_up", "attitude": "silent" if contacted else "none"}


# Its own small table for reading a reply against the subject the request carries (not the
# product's rules): a question back or a condition is unclear; the promise's own verb with
# 了 (or "解决了" for a blocker) is met; a value of a difference affirmed alone is a choice.
_BACK = re.compile(r"[?？]|吗|如果|要是|的话|\bif\b", re.IGNORECASE)
_NOT = re.compile(r"不|没|还在|not", re.IGNORECASE)


def read_subject(ctx: dict[str, Any]) -> dict[str, Any] | None:
    """The reading of the newest reply against the request's `subject`, judged with the
    question we asked (our last outbound line): None when the request carries no subject or
    no question was asked — the stand-in cannot know what a reply answers without them."""
    subject = ctx.get("subject")
    log = list(ctx.get("conversation_log") or [])
    replies = [i for i, e in enumerate(log) if e["direction"] == "inbound"]
    asked = [e for e in log if e["direction"] == "outbound"]
    if not subject or not replies or not asked:
        return None
    line = replies[-1]
    said = log[line]["text"]
    reading: dict[str, Any] = {"outcome": "unclear", "line": line + 1}
    if _BACK.search(said):
        return reading
    if subject["kind"] == "difference":
        current, proposed = subject["current"], subject["proposed"]
        if proposed in said and current not in said and not _NOT.search(said):
            reading.update(outcome="met", choice="proposed")
        elif current in said and proposed not in said and not _NOT.search(said):
            reading.update(outcome="met", choice="current")
        return reading
    verb = "解决" if subject["kind"] in ("blocker", "risk") else (subject.get("what") or "")[-2:]
    if verb and f"{verb}了" in said and not _NOT.search(said):
        reading["outcome"] = "met"
    elif _NOT.search(said):
        reading["outcome"] = "not_yet"
    return reading


def concern_loop_responder(request: LoggedRequest) -> ScriptedReply:
    ctx = request.user_json()
    if not isinstance(ctx, dict) or "goal" not in ctx:
        return _answer({"goal_met": False, "step": "wait"})  # nothing to judge from
    reading = read_subject(ctx)
    if reading is None:
        return _answer(read_turn(ctx))
    if reading["outcome"] == "met":
        said = ctx["conversation_log"][reading["line"] - 1]["text"]
        return _answer(
            {
                "goal_met": True,
                "step": "resolve",
                "conclusion": said,
                "key_information": said,
                "reading": reading,
            }
        )
    return _answer({**read_turn(ctx), "goal_met": False, "step": "wait", "reading": reading})
