"""What the offline rules never take as a fact (docs/rules/precision.md).

Precision before recall: a greeting, thanks, an acknowledgement or a small-talk question
states nothing that happened and asks nobody for anything, so it is no event and no
signal. A sentence is chatter when, with its punctuation, emoji and a trailing vocative
(one or two words: "Thanks Mel!", "Hey Melanie") taken off, it is one of these phrases, or
when it opens with thanks. A question is a request only when it asks someone to do or give
something (能不能/可以…吗/请/帮/麻烦, can you/could you/would you/please/will you/can we).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_ACK = (
    # zh
    "好|好的|好滴|好嘞|好吧|嗯|嗯嗯|哦|噢|收到|了解|明白|知道了|行|可以|没问题|OK|ok|"
    "谢谢|多谢|感谢|谢了|辛苦了|辛苦|哈哈|哈哈哈|呵呵|赞|厉害|棒|太棒了|早|早上好|晚安|"
    "你好|您好|大家好|在吗|在|拜拜|再见|好久不见|"
    # en
    "hi|hey|hello|hiya|yo|morning|good morning|good afternoon|good evening|good night|"
    "night|bye|goodbye|see you|see ya|take care|cheers|thanks|thank you|thx|ty|"
    "thanks a lot|thanks so much|thank you so much|ok|okay|k|sure|yes|yeah|yep|yup|no|"
    "nope|cool|great|awesome|nice|wow|whoa|lol|haha|hahaha|omg|amazing|wonderful|"
    "sounds good|sounds great|sounds fun|sounds awesome|sounds amazing|got it|noted|"
    "will do|no problem|no worries|of course|definitely|absolutely|totally|agreed|"
    "same|me too|exactly|true|right|glad to hear|glad to hear that|congrats|"
    "congratulations|that's great|that's awesome|that's amazing|that's cool|that's nice|"
    "that's so cool|that's wonderful|good to know|good luck|you too|same here|welcome|"
    "you're welcome|love it|i love it|i agree|me neither|indeed|gotcha|alright|all right"
)
_VOCATIVE = r"(?:\s+(?:[A-Za-z][\w']{0,15}|[\u4e00-\u9fff]{1,3}))"
_ACK_RE = re.compile(rf"^(?:{_ACK})(?:\s+(?:{_ACK}))*{_VOCATIVE}{{0,2}}$", re.IGNORECASE)
_ACK_ZH = re.compile(rf"^(?:{_ACK})+$")
_THANKS = re.compile(r"^(?:thanks|thank you|thx|谢谢|多谢|感谢)\b", re.IGNORECASE)
_SMALL_TALK = re.compile(
    r"^(?:hey|hi|hello)?[\s,]*(?:\S+[\s,]+)?"
    r"(?:how(?:'s| is| are| was| have| has)?\s+(?:it going|you|things|your|everything|"
    r"life|the|been)|what's up|whats up|what's new|how about you|and you|you\??$|"
    r"最近(?:怎么样|如何|好吗)|吃了吗|你呢|在忙什么|还好吗|怎么样)",
    re.IGNORECASE,
)
_REQUEST = re.compile(
    r"能不能|能否|可不可以|可以.{0,20}吗|请|帮(?:我|忙)|麻烦|什么时候|几点|谁来|"
    r"\b(?:can|could|would|will) (?:you|u|we|someone)\b|\bplease\b|\bwhen (?:will|can)\b(?!')|"
    r"\bwho (?:will|can)\b(?!')",
    re.IGNORECASE,
)
_STRIP = re.compile(r"[^\w\s'\u4e00-\u9fff]+")


def _bare(sentence: str) -> str:
    return " ".join(_STRIP.sub(" ", sentence).split())


def is_chatter(sentence: str) -> bool:
    """A greeting, thanks, acknowledgement or small-talk question."""
    bare = _bare(sentence)
    if not bare:
        return True
    if _THANKS.match(bare) or _SMALL_TALK.match(bare):
        return True
    if _ACK_RE.match(bare):
        return True
    return bool(_ACK_ZH.match(bare.replace(" ", "")))


def is_request(sentence: str) -> bool:
    """A question that asks someone to do or give something."""
    return bool(_REQUEST.search(sentence))


def is_answered(asker: str, question: str, later: Sequence[str], people: Sequence[str]) -> bool:
    """A question is answered in the conversation when someone it asks (a person it names,
    or, naming nobody, anyone but the asker) speaks after it (`later`: the speakers of the
    messages that follow it)."""
    asked = [p for p in people if p and p != asker and p in question]
    return any(s != asker and (not asked or s in asked) for s in later)
