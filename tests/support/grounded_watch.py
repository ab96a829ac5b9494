"""Prompt-grounded turns for the scripted watch checker (heartbeat checks; docs/rules/watches.md).

A watch test scripts the checker's turns (read the sources, register the steps, report the
checks), but each turn is only given when the request the product sent carries what that turn
stands for: the strings it names (`needs`: a source key from the opening prompt, a line of
the document a read returned, a step id `check_workflow` registered) must appear in a system,
user or tool message (never in the model's own earlier turns), and every tool call of the
previous grounded turn must come back as a tool result. Otherwise the model answers
`缺少上下文：...` (not a tool call, not the JSON the checker expects) and the miss is kept in
`misses`, so a product that withholds the context fails the test.

    turns = Grounding()
    model_server.script(turns(read_all(world), "note:n1", world.doc_key), ...)
    ...
    assert turns.misses == []
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.scripted_model import LoggedRequest, Responder, ScriptedReply, text
from tests.support.watch_world import World, answer, calls, read_all, verified, workflow


def _leaves(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in _leaves(v)]
    if isinstance(value, list):
        return [s for v in value for s in _leaves(v)]
    return [str(value)]


def _plain(content: Any) -> str:
    """A message's content as text; a JSON tool result re-dumped without ASCII escapes and
    followed by its string values (so a needle may be a fragment of the JSON or a text)."""
    raw = str(content or "")
    try:
        parsed = json.loads(raw)
    except (json.JSONDecodeError, TypeError):
        return raw
    return "\n".join([json.dumps(parsed, ensure_ascii=False), *_leaves(parsed)])


def heard(req: LoggedRequest) -> str:
    """Everything the product told the model in `req` (not the model's own turns)."""
    return "\n".join(_plain(m.get("content")) for m in req.messages if m.get("role") != "assistant")


def tool_results(req: LoggedRequest) -> set[str]:
    """The tool call ids `req` carries results for."""
    return {str(m.get("tool_call_id")) for m in req.messages if m.get("role") == "tool"}


class Grounding:
    """Builds grounded turns of one scripted check; `misses` lists what a request lacked."""

    def __init__(self) -> None:
        self.misses: list[str] = []
        self._pending: set[str] = set()

    def __call__(self, reply: ScriptedReply, *needs: str) -> Responder:
        def respond(req: LoggedRequest) -> ScriptedReply:
            said = heard(req)
            lacking = [f"result of {c}" for c in sorted(self._pending - tool_results(req))]
            lacking += [n for n in needs if n not in said]
            if lacking:
                self.misses.extend(lacking)
                self._pending = set()
                return text("缺少上下文：" + "、".join(lacking))
            self._pending = {str(c["id"]) for c in reply.tool_calls}
            return reply

        return respond


def plain_check(turns: Grounding, world: World, summary: str = "已核对") -> list[Responder]:
    """The grounded turns of a plain check of the seeded world: read both bound sources (their
    keys from the opening prompt), register the document's two steps (its lines from the read
    results), report s1 done (the ids `check_workflow` registered)."""
    return [
        turns(read_all(world), world.note_key, world.doc_key),
        turns(
            calls(("check_workflow", {"steps": workflow(world)})),
            "核对官网版本号必须为 v2.3",
            "生成发布草稿",
        ),
        turns(answer(summary, [verified()]), '"registered": ["s1", "s2"]'),
    ]
