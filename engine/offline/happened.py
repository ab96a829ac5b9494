"""What happened: a past-tense statement of something done (docs/rules/precision.md).

Precision before recall: an offline review states a plain remark as an event only when the
text grounds it as something that happened — a subject followed by a verb in the past
("I found a wallet in the park today", "the teacher praised me", "你之前参加过一个科学展览",
"上次我藏在一个树后面"), or a past marker with a completed verb ("上次你在那家店吃了芒果冰淇淋").
Never a wish, a plan, an offer, a guess, a habit or a question ("I want to go again", "we can
plan to go this weekend", "you must have studied hard", "sometimes I win",
"你一定努力复习了很多吧").
"was/were" + an adjective ("that was fantastic") is a remark, not an event.

`plan_with_time` is the other side: a stated plan or promise with a time it names
("we'll go this weekend", "我周五去交材料") is a commitment (its due time is the signal's).
"""

from __future__ import annotations

import re

_IRREGULAR = (
    "ate|began|bought|brought|built|came|caught|chose|did|drank|drew|drove|fell|fought|"
    "found|flew|forgot|gave|got|grew|had|heard|held|hid|hit|kept|led|left|lent|lost|made|"
    "met|paid|put|ran|rang|read|rode|sang|sat|saw|said|sent|showed|slept|sold|spent|spoke|"
    "stood|swam|taught|threw|told|took|went|woke|won|wore|wrote"
)
_NOT_PAST_ED = (
    r"(?!need\b|feed\b|seed\b|speed\b|bed\b|red\b|shed\b|bleed\b|proceed\b|succeed\b|"
    r"wanted\b|hoped\b|wished\b|liked\b|loved\b|used\b|planned\b|interested\b|excited\b)"
)
_SUBJECT_EN = (
    r"(?:I|we|you|he|she|they|everyone|everybody|someone|somebody|"
    r"(?i:my|our|your|his|her|their|the|that|this|a)\s+[a-z]+|[A-Z][a-z]+)"
)
_ADVERB_EN = r"(?:(?:also|just|even|really|finally|actually|already|once|then|all|both)\s+)?"
_PAST_EN = re.compile(
    rf"\b{_SUBJECT_EN}\s+{_ADVERB_EN}(?:{_IRREGULAR}|{_NOT_PAST_ED}[a-z]{{2,}}ed)\b"
)
# not what happened: a wish, a plan, an offer, a guess, a habit, a condition, a negation
_NOT_EN = re.compile(
    r"\b(?:if|would|could|should|must|might|may|want|wish|hope|will|can|let's|let us|"
    r"always|usually|often|sometimes|every (?:day|time|week)|never|didn't|did not|"
    r"don't|not)\b|'ll\b",
    re.IGNORECASE,
)

_SUBJECT_ZH = r"(?:我们|你们|他们|她们|咱们|咱俩|大家|我|你|他|她|老师|妈妈|爸爸|同学)"
_MARKER_ZH = (
    r"(?:昨天|前天|上次|上回|那次|那天|之前|以前|刚才|刚刚|去年|前几天|前几个月|当时|今天|早上)"
)
# a verb done: 做了 / 参加过 / 得到 / 找到 — not an adjective's 了 ("太好了", "开心了")
_DONE_ZH = re.compile(
    r"[\u4e00-\u9fff](?<![太好真很乐心兴坏死极对除为])(?:了|过)(?![吗吧呢])|"
    r"(?:找|得|拿|收|做|看|学|写)到"
)
_PAST_ZH = re.compile(rf"{_MARKER_ZH}|^\s*{_SUBJECT_ZH}")
_NOT_ZH = re.compile(
    r"一定|可能|也许|应该|如果|要是|想(?!起)|要|会|能|可以|希望|打算|计划|准备|别|不|没|吗|吧|？|\?|"
    r"有时候?|经常|总是|每次|每天|一直|喜欢|爱|觉得|知道"
)

_PLAN = re.compile(
    r"计划|打算|准备|要去|会去|我们(?:一起)?去|我们?要(?!是)|\bplan(?:ning)? to\b|\bgoing to\b|"
    r"\b(?:I|we)(?:'ll| will)\b|\blet's\b",
    re.IGNORECASE,
)


def happened(sentence: str) -> bool:
    """A statement that something was done (subject + past verb), never a wish or a habit."""
    if re.search(r"[\u4e00-\u9fff]", sentence):
        return any(_happened_zh(c.replace("是不是", "")) for c in re.split(r"[，,]", sentence))
    return bool(_PAST_EN.search(sentence)) and not _NOT_EN.search(sentence)


def _happened_zh(clause: str) -> bool:
    return bool(_PAST_ZH.search(clause) and _DONE_ZH.search(clause)) and not _NOT_ZH.search(clause)


def plan_with_time(sentence: str, has_time: bool) -> bool:
    """A stated plan or promise naming the time it is for."""
    return has_time and bool(_PLAN.search(sentence)) and not happened(sentence)
