"""What a person's answer to a signal's concern says, read by the offline rules from the
answer text and the promise or difference it answers (`docs/rules/reply-reading.md`).

Precision before recall: a reading is definite only when the text states it. A question back
("提测了吗？"), a conditional ("如果明天能…"), a plan ("准备提测"), a negation ("还没", "张三已经
不负责了"), a bare acknowledgement ("好的", "收到") or a reply about another thing than the
promise is never read as met: it is unclear (asked again later) or not yet.

A commitment's follow-up ("<what>是否已完成"):
- kept: "已经提测了", "昨天就提测了", "done" -> when it happened (the answer's own time unless
  it names another: 昨天 -> yesterday); the reply names the promise's action, or says only
  that it is done;
- not yet: "还没", "not yet", "快了";
- moved: "推迟到周五", "改到下周一", "moved to Friday" -> the new due time;
- dropped: "不做了", "取消了";
- unclear: anything else.

A difference's question ("<field>是<current>还是<proposed>"):
- proposed / current: the answer affirms one value and only one, in a clause that does not
  negate it ("对，已经交给李四了"; "不对，还是张三负责");
- unclear: a bare "对"/"嗯", both values, neither, or a value only negated ("张三已经不负责了").
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from enum import StrEnum

from pydantic import BaseModel

from engine.language.when import localize, parse_when
from engine.signal.derive import time_phrase
from engine.signal.responsibility import names_person

_QUESTION = re.compile(
    r"[?？]|吗\s*$|吗[，,。.!！]|呢\s*$|是不是|有没有|要不要|能不能|可不可以|"
    r"^\s*(?:did|do|does|is|are|has|have|was|were|can|could|should|will|would)\b",
    re.IGNORECASE,
)
_CONDITIONAL = re.compile(
    r"如果|要是|假如|假设|若是|万一|只要|除非|的话|等.{0,12}(?:之后|以后|再)|"
    r"\bif\b|\bunless\b|\bonce\b|\bas soon as\b|\bprovided\b|\bassuming\b",
    re.IGNORECASE,
)
_SARCASM = re.compile(
    r"才怪|做梦|想得美|呵呵|哈哈哈|怎么可能|不可能|\byeah,? right\b|\bas if\b|\bsure,? sure\b|"
    r"\bin your dreams\b|\bi wish\b",
    re.IGNORECASE,
)
_NOT_YET = re.compile(
    r"还没|没有|尚未|未完成|还在|没做|没提|没好|别催|快了|马上|差不多了|差一点|就差|"
    r"\bnot yet\b|\bnot done\b|\bstill\b|\bpending\b|\bhaven'?t\b|\bhasn'?t\b|\bisn'?t\b|"
    r"\bnot\b|\bnearly\b|\balmost\b|\bworking on\b|\bin progress\b",
    re.IGNORECASE,
)
_PLAN = re.compile(
    r"准备|打算|计划|将要|就要|(?<![需重主只])要(?!求)|会(?!议)|待会|等会|稍后|晚点|回头|"
    r"明天|明早|后天|下午|晚上|今晚|下周|周[一二三四五六日天]|星期|"
    r"\bwill\b|\bgoing to\b|\bgonna\b|\babout to\b|\bsoon\b|\blater\b|\bplan|"
    r"\btomorrow\b|\btonight\b|\bnext\b",
    re.IGNORECASE,
)
_POSTPONE = re.compile(
    r"推迟|延期|延后|改到|改成|挪到|往后|顺延|推到|postpone|delay|"
    r"push(?:ed)? (?:it |this )?(?:back|to)|moved? (?:it )?to|reschedul|slipp?(?:ed)? to",
    re.IGNORECASE,
)
_DROP = re.compile(
    r"不做了|不搞了|不提测了|取消了|砍掉了|砍了|放弃了|不需要了|不用做了|不用提了|"
    r"\bcancel(?:l?ed)?\b|\bdropped\b|\bscrapped\b|\bwon'?t (?:do|happen)\b|\bcalled off\b",
    re.IGNORECASE,
)
# The word saying it happened: a completed action (…了 / 已…) or done in English.
_DONE = re.compile(
    r"(?:已经?|早就|刚刚?|都)?(?:提测|上线|发布|交付|合入|部署|修好|改好|发出去|提交|完成|做完|解决|恢复|"
    r"写完|搞定|弄好|交了|提了|发了|合了)了?|"
    r"\bdone\b|\bfinished\b|\bcompleted\b|\bshipped\b|\bmerged\b|\bdeployed\b|\breleased\b|\bpublished\b|"
    r"\bsubmitted\b|\bdelivered\b|\bin qa\b|\bin test(?:ing)?\b|\blive\b|\bresolved\b|"
    r"\bfixed\b|\bsolved\b",
    re.IGNORECASE,
)
_PERFECTIVE = re.compile(
    r"(?:提测|上线|发布|交付|合入|部署|修好|改好|发出去|提交|完成|做完|写完|搞定|弄好|解决|恢复|交|提|发|合)了|"
    r"已经?\S|早就|\bdone\b|\bfinished\b|\bcompleted\b|\bshipped\b|\bmerged\b|\bdeployed\b|"
    r"\breleased\b|\bpublished\b|\bsubmitted\b|\bdelivered\b|\bin qa\b|\bin test(?:ing)?\b|"
    r"\blive\b|\bresolved\b|\bfixed\b|\bsolved\b|\bunblocked\b",
    re.IGNORECASE,
)
# Actions a promise names; a reply naming another one is about another thing.
_ACTIONS = (
    ("提测", r"提测|\bqa\b|\btest"),
    ("上线", r"上线|\blive\b|\blaunch"),
    ("发布", r"发布|\brelease|\bpublish"),
    ("交付", r"交付|\bdeliver"),
    ("合入", r"合入|合并|\bmerge"),
    ("部署", r"部署|\bdeploy"),
    ("修复", r"修好|修复|\bfix"),
    ("提交", r"提交|\bsubmit"),
    ("文档", r"文档|\bdoc"),
    ("解决", r"解决|修好|修复|恢复|\bresolved\b|\bfixed\b|\bsolved\b|\bunblocked\b"),
)
# What a bare completion may say besides "done": nothing that names a thing.
_FILLER = re.compile(
    r"已经|已|早就|刚刚|刚|都|全|就|我们|我|这边|那边|那个|这个|的|了|啦|呀|哦|噢|嗯|好|对|是|"
    r"昨天|前天|今天|今早|早上|上午|刚才|全部|\bit'?s\b|\bit\b|\bis\b|\ball\b|\balready\b|"
    r"\bwe\b|\bi\b|\bhave\b|\bhas\b|\bjust\b|\bbeen\b|\bthe\b|\byes\b|\byeah\b|\byep\b|"
    r"\byesterday\b|\btoday\b|\bthis morning\b|\bok\b|\bokay\b|\bthat\b|\band\b|\bnow\b|"
    r"[\s，,。.!！~～、:：;；]",
    re.IGNORECASE,
)
_PAST_DAY = re.compile(r"前天|昨天|yesterday|今天早上|今早|this morning", re.IGNORECASE)


class CommitmentAnswer(StrEnum):
    KEPT = "kept"
    NOT_YET = "not_yet"
    CHANGED = "changed"
    DROPPED = "dropped"
    UNCLEAR = "unclear"


class CommitmentReading(BaseModel):
    outcome: CommitmentAnswer
    happened_at: datetime | None = None  # kept: when the person says it happened
    new_due: datetime | None = None  # changed: the new promised time
    due_text: str = ""  # changed: the time phrase as written (周五)


def _happened_at(text: str, answered_at: datetime, tz: str) -> datetime:
    m = _PAST_DAY.search(text)
    if m is None:
        return answered_at
    local = localize(answered_at, tz)
    word = m.group(0).lower()
    days = 2 if word == "前天" else 1 if word in ("昨天", "yesterday") else 0
    day = (local - timedelta(days=days)).replace(hour=18 if days else 9, minute=0, second=0)
    day = day.replace(microsecond=0)
    return min(day, answered_at)


def _actions(text: str) -> set[str]:
    return {name for name, pattern in _ACTIONS if re.search(pattern, text, re.IGNORECASE)}


def _about_the_promise(text: str, what: str) -> bool:
    """The reply names the promise's action, or says only that it is done (nothing else
    named); a reply naming another action or another thing is about something else."""
    said = _actions(text)
    promised = _actions(what)
    if said and promised:
        return bool(said & promised) and not (said - promised - {"提交", "修复"})
    rest = _FILLER.sub("", _DONE.sub("", text))
    if not rest:
        return True
    if not what:
        return False
    if what.isascii():
        words = set(re.findall(r"[a-z]+", what.lower()))
        return set(re.findall(r"[a-z]+", rest.lower())) <= words
    return rest in what


# Where a reply turns to another part: "已经提测了，不过接口还没联调", "in test but docs slip".
_PARTS = re.compile(
    r"[，,。;；!！\n]|但是|不过|可是|只是|然而|\bbut\b|\bthough\b|\balthough\b|\bhowever\b|"
    r"\bwhile\b|\bexcept\b|\band\b",
    re.IGNORECASE,
)

# Only part of it done ("提测了一半"), or what is left ("剩下的").
_PARTIAL = re.compile(
    r"一半|剩下|剩余|其余|部分还|\bhalf\b|\bthe rest\b|\bremaining\b|\bpartly\b|\bpartially\b",
    re.IGNORECASE,
)
# A part that is not definite alone but says something is still to come or wrong.
_PENDING = re.compile(
    _PLAN.pattern + r"|有问题|有bug|出问题|报错|\bissues?\b|\bproblems?\b|\bbugs?\b|\blate\b",
    re.IGNORECASE,
)


def read_commitment_answer(
    text: str, answered_at: datetime, tz: str, what: str = ""
) -> CommitmentReading:
    """One reply to the follow-up of the promise `what` ("前端部分提测"), read part by part.

    A question, a conditional or sarcasm anywhere makes the whole reply unclear. Otherwise
    each part is read on its own; parts that say nothing definite are set aside. Parts that
    agree give their reading; a mixed reply — one part done, another not yet, moved or
    dropped ("已经提测了，不过接口还没联调", "the frontend is in test but docs slip to
    Monday") — is never met: not yet when a part is still to come, else unclear."""
    unclear = CommitmentReading(outcome=CommitmentAnswer.UNCLEAR)
    if _QUESTION.search(text) or _CONDITIONAL.search(text) or _SARCASM.search(text):
        return unclear
    parts = [p for p in _PARTS.split(text) if p and p.strip()]
    readings = [_read_part(p, answered_at, tz, what) for p in parts] or [unclear]
    definite = [r for r in readings if r.outcome is not CommitmentAnswer.UNCLEAR]
    outcomes = {r.outcome for r in definite}
    if not outcomes:
        # no part is definite alone; the whole may still be ("done, it's in QA")
        return _read_part(text, answered_at, tz, what) if len(parts) > 1 else unclear
    if outcomes == {CommitmentAnswer.KEPT} and any(
        r.outcome is CommitmentAnswer.UNCLEAR and _PENDING.search(p)
        for p, r in zip(parts, readings, strict=False)
    ):
        # done, and a part still to come or a problem left ("剩下的明天提", "还有问题")
        return CommitmentReading(outcome=CommitmentAnswer.NOT_YET)
    if outcomes == {CommitmentAnswer.KEPT}:
        return definite[0].model_copy(update={"happened_at": _happened_at(text, answered_at, tz)})
    if CommitmentAnswer.KEPT in outcomes:
        # mixed: part done, part not: the promise as a whole is not met
        if outcomes & {CommitmentAnswer.NOT_YET, CommitmentAnswer.CHANGED}:
            return CommitmentReading(outcome=CommitmentAnswer.NOT_YET)
        return unclear
    # parts that do not say it happened: a move outranks a drop, a drop a not-yet
    # ("还没提测，推迟到周五了" is moved)
    for outcome in (CommitmentAnswer.CHANGED, CommitmentAnswer.DROPPED, CommitmentAnswer.NOT_YET):
        for r in definite:
            if r.outcome is outcome:
                return r
    return unclear


def _read_part(text: str, answered_at: datetime, tz: str, what: str) -> CommitmentReading:
    """One part of a reply (no question, conditional or sarcasm in the whole)."""
    unclear = CommitmentReading(outcome=CommitmentAnswer.UNCLEAR)
    if _PARTIAL.search(text):
        return CommitmentReading(outcome=CommitmentAnswer.NOT_YET)
    if _POSTPONE.search(text):
        promised = parse_when(text, answered_at, tz)
        if promised is not None and promised.specific and promised.at is not None:
            if promised.at <= answered_at:
                return unclear
            return CommitmentReading(
                outcome=CommitmentAnswer.CHANGED,
                new_due=promised.at,
                due_text=time_phrase(promised.text) or promised.text,
            )
        return unclear
    if _DROP.search(text):
        return CommitmentReading(outcome=CommitmentAnswer.DROPPED)
    if _NOT_YET.search(text):
        return CommitmentReading(outcome=CommitmentAnswer.NOT_YET)
    if _PLAN.search(text) and not re.search(r"昨天|前天|yesterday", text, re.IGNORECASE):
        return unclear
    if _PERFECTIVE.search(text) and _about_the_promise(text, what):
        return CommitmentReading(
            outcome=CommitmentAnswer.KEPT, happened_at=_happened_at(text, answered_at, tz)
        )
    return unclear


class DifferenceAnswer(StrEnum):
    PROPOSED = "proposed"
    CURRENT = "current"
    UNCLEAR = "unclear"


_CLAUSE = re.compile(r"[，,。.;；!！\n]|但是|不过|\bbut\b", re.IGNORECASE)
_NEGATED = re.compile(
    r"不是|不对|没有|没再|不再|不负责|不管|已经不|早就不|不归|没交|没换|"
    r"\bnot\b|\bno longer\b|\bisn'?t\b|\bdoesn'?t\b|\bwasn'?t\b|\bnever\b",
    re.IGNORECASE,
)


_HOLDS = re.compile(
    r"负责|接手|接了|交给|归|在管|管着|在跟|跟进|拿着|\bowns?\b|\bowner\b|\btook over\b|"
    r"\bhandles?\b|\bresponsible\b|\bon it\b|\bhas it\b|\bhis\b|\bhers\b",
    re.IGNORECASE,
)
_BARE = re.compile(
    r"对|是的|是|还是|现在|已经|了|的|嗯|\byes\b|\byeah\b|\bstill\b|\bnow\b|\bit'?s\b|"
    r"\bit is\b|[\s，,。.!！~～]",
    re.IGNORECASE,
)


def _holds(clause: str, value: str) -> bool:
    """The clause says `value` holds it: a holding word, or the name alone ("还是张三")."""
    if _HOLDS.search(clause):
        return True
    rest = (
        clause.replace(value, "")
        if not value.isascii()
        else re.sub(
            rf"(?<![A-Za-z0-9_]){re.escape(value)}(?![A-Za-z0-9_])", "", clause, flags=re.IGNORECASE
        )
    )
    return not _BARE.sub("", rest)


def read_difference_answer(text: str, current: str, proposed: str) -> DifferenceAnswer:
    """Which value the answer affirms: a value said to hold it in a clause that does not
    negate it; one value affirmed and the other not is a choice, anything else (a question,
    a conditional, a plan, sarcasm, another topic) is unclear."""
    if (
        _QUESTION.search(text)
        or _CONDITIONAL.search(text)
        or _SARCASM.search(text)
        or _PLAN.search(text)
    ):
        return DifferenceAnswer.UNCLEAR
    affirmed: set[str] = set()
    denied: set[str] = set()
    for clause in _CLAUSE.split(text):
        for key, value in (("current", current), ("proposed", proposed)):
            if not names_person(clause, value):
                continue
            if _NEGATED.search(clause):
                denied.add(key)
            elif _holds(clause, value):
                affirmed.add(key)
    if affirmed == {"proposed"} and "proposed" not in denied:
        return DifferenceAnswer.PROPOSED
    if affirmed == {"current"} and "current" not in denied:
        return DifferenceAnswer.CURRENT
    return DifferenceAnswer.UNCLEAR
