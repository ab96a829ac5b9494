"""A labelled set of replies to the loop's questions, Chinese and English, each with the
promise or difference it answers and what a careful reader takes it to say.

Labels for a promise's follow-up: kept · not_yet · changed (moved, with a new time) ·
dropped · unclear (ask again). For a difference: proposed · current · unclear. The category
says why a reply is here (question back, conditional, sarcasm, other topic, mixed…).
Written apart from the rules they check: a label is what the reply says, not what the
rules happen to answer.
"""

from __future__ import annotations

from typing import NamedTuple


class PromiseReply(NamedTuple):
    what: str  # the promise the follow-up asks about
    text: str
    label: str
    category: str


class DifferenceReply(NamedTuple):
    current: str
    proposed: str
    text: str
    label: str
    category: str


ZH_QA = "前端部分提测"
ZH_LIVE = "支付模块上线"
EN_QA = "frontend submitted for QA"
EN_REL = "release notes published"
ZH_BOTH = "前端部分提测并完成接口联调"
EN_BOTH = "frontend in test and docs published by Friday"

PROMISE_REPLIES: tuple[PromiseReply, ...] = (
    # kept
    PromiseReply(ZH_QA, "已经提测了", "kept", "kept"),
    PromiseReply(ZH_QA, "提测了，刚提的", "kept", "kept"),
    PromiseReply(ZH_QA, "昨天就已经提测了", "kept", "kept"),
    PromiseReply(ZH_QA, "前端部分已经提测了", "kept", "kept"),
    PromiseReply(ZH_QA, "搞定了", "kept", "kept"),
    PromiseReply(ZH_QA, "早就提测了", "kept", "kept"),
    PromiseReply(ZH_LIVE, "支付模块已经上线了", "kept", "kept"),
    PromiseReply(ZH_LIVE, "上线了", "kept", "kept"),
    PromiseReply(ZH_LIVE, "做完了，已经上线了", "kept", "kept"),
    PromiseReply(EN_QA, "done, it's in QA", "kept", "kept"),
    PromiseReply(EN_QA, "Submitted for QA this morning", "kept", "kept"),
    PromiseReply(EN_QA, "Done.", "kept", "kept"),
    PromiseReply(EN_REL, "Release notes are published", "kept", "kept"),
    PromiseReply(EN_REL, "Yes, published yesterday", "kept", "kept"),
    # not yet
    PromiseReply(ZH_QA, "还没有", "not_yet", "not yet"),
    PromiseReply(ZH_QA, "还没提测", "not_yet", "not yet"),
    PromiseReply(ZH_QA, "快了快了", "not_yet", "not yet"),
    PromiseReply(ZH_QA, "还在改bug", "not_yet", "not yet"),
    PromiseReply(ZH_QA, "别催了，在弄", "not_yet", "not yet"),
    PromiseReply(ZH_LIVE, "支付模块还没上线", "not_yet", "not yet"),
    PromiseReply(ZH_LIVE, "差一点，马上就好", "not_yet", "not yet"),
    PromiseReply(EN_QA, "not yet", "not_yet", "not yet"),
    PromiseReply(EN_QA, "Still working on it", "not_yet", "not yet"),
    PromiseReply(EN_QA, "Almost done, a couple of tests left", "not_yet", "not yet"),
    PromiseReply(EN_REL, "Haven't published them yet", "not_yet", "not yet"),
    # moved with a new time
    PromiseReply(ZH_QA, "推迟到周五了", "changed", "moved"),
    PromiseReply(ZH_QA, "改到下周一提测", "changed", "moved"),
    PromiseReply(ZH_QA, "延期到周五下午", "changed", "moved"),
    PromiseReply(ZH_LIVE, "上线挪到下周三了", "changed", "moved"),
    PromiseReply(EN_QA, "postponed to Friday", "changed", "moved"),
    PromiseReply(EN_QA, "We pushed it to next Monday", "changed", "moved"),
    PromiseReply(EN_REL, "Moved to Friday", "changed", "moved"),
    # dropped
    PromiseReply(ZH_QA, "前端这次不提测了", "dropped", "dropped"),
    PromiseReply(ZH_LIVE, "这个需求取消了", "dropped", "dropped"),
    PromiseReply(ZH_LIVE, "砍掉了，不做了", "dropped", "dropped"),
    PromiseReply(EN_QA, "It was cancelled", "dropped", "dropped"),
    PromiseReply(EN_REL, "We scrapped the release notes", "dropped", "dropped"),
    # a question back
    PromiseReply(ZH_QA, "提测了吗？", "unclear", "question"),
    PromiseReply(ZH_QA, "你是说前端提测吗", "unclear", "question"),
    PromiseReply(ZH_QA, "提测完成了？谁说的", "unclear", "question"),
    PromiseReply(ZH_LIVE, "上线了没有？", "unclear", "question"),
    PromiseReply(EN_QA, "Did QA get it?", "unclear", "question"),
    PromiseReply(EN_QA, "Is it done?", "unclear", "question"),
    PromiseReply(EN_REL, "Were they published?", "unclear", "question"),
    # conditional
    PromiseReply(ZH_QA, "如果明天能修好就提测", "unclear", "conditional"),
    PromiseReply(ZH_QA, "要是接口好了就算提测完成了", "unclear", "conditional"),
    PromiseReply(ZH_QA, "等后端联调完了再提测", "unclear", "conditional"),
    PromiseReply(ZH_LIVE, "只要测试通过就上线了", "unclear", "conditional"),
    PromiseReply(EN_QA, "If the build passes it's done", "unclear", "conditional"),
    PromiseReply(EN_QA, "Once CI is green it's submitted", "unclear", "conditional"),
    # a plan
    PromiseReply(ZH_QA, "准备提测了", "unclear", "plan"),
    PromiseReply(ZH_QA, "今天下午提测", "unclear", "plan"),
    PromiseReply(ZH_QA, "要提测了", "unclear", "plan"),
    PromiseReply(ZH_LIVE, "明天上线", "unclear", "plan"),
    PromiseReply(EN_QA, "Will submit it tomorrow", "unclear", "plan"),
    PromiseReply(EN_QA, "Going to hand it to QA soon", "unclear", "plan"),
    # a bare acknowledgement
    PromiseReply(ZH_QA, "好的", "unclear", "ack"),
    PromiseReply(ZH_QA, "收到", "unclear", "ack"),
    PromiseReply(ZH_QA, "嗯", "unclear", "ack"),
    PromiseReply(ZH_QA, "我看看", "unclear", "ack"),
    PromiseReply(EN_QA, "ok", "unclear", "ack"),
    PromiseReply(EN_QA, "Sure", "unclear", "ack"),
    # sarcasm
    PromiseReply(ZH_QA, "提测了才怪", "unclear", "sarcasm"),
    PromiseReply(ZH_QA, "呵呵，早就完成了呢", "unclear", "sarcasm"),
    PromiseReply(ZH_LIVE, "上线？做梦呢", "unclear", "sarcasm"),
    PromiseReply(EN_QA, "Yeah right, as if it's done", "unclear", "sarcasm"),
    # another topic
    PromiseReply(ZH_QA, "后端接口上线了", "unclear", "other topic"),
    PromiseReply(ZH_QA, "文档写完了", "unclear", "other topic"),
    PromiseReply(ZH_QA, "今天中午吃什么", "unclear", "other topic"),
    PromiseReply(ZH_LIVE, "前端部分已经提测了", "unclear", "other topic"),
    PromiseReply(EN_QA, "The backend is deployed", "unclear", "other topic"),
    PromiseReply(EN_REL, "The API docs are finished", "unclear", "other topic"),
    # a negation of something else
    PromiseReply(ZH_QA, "不是我负责提测", "unclear", "negation"),
    PromiseReply(ZH_QA, "没有问题", "unclear", "negation"),
    # mixed
    PromiseReply(ZH_QA, "前端提测了，后端还没", "kept", "mixed"),
    PromiseReply(ZH_LIVE, "提测了，但还没上线", "not_yet", "mixed"),
    PromiseReply(EN_QA, "Submitted, but QA hasn't started", "kept", "mixed"),
    # mixed, part by part: one part done and another not is never met as a whole
    PromiseReply(ZH_BOTH, "已经提测了，不过接口还没联调", "not_yet", "mixed"),
    PromiseReply(ZH_QA, "已经提测了，不过接口还没联调", "kept", "mixed"),
    PromiseReply(ZH_BOTH, "提测了，联调推迟到下周一", "not_yet", "mixed"),
    PromiseReply(ZH_BOTH, "联调做完了，提测还没", "not_yet", "mixed"),
    PromiseReply(ZH_QA, "提测了一半，剩下的明天提", "not_yet", "mixed"),
    PromiseReply(ZH_LIVE, "代码合进去了，但是还没上线", "not_yet", "mixed"),
    PromiseReply(ZH_LIVE, "上线了，就是支付回调还有问题", "not_yet", "mixed"),
    PromiseReply(EN_BOTH, "the frontend is in test but docs slip to Monday", "not_yet", "mixed"),
    PromiseReply(EN_QA, "the frontend is in test but docs slip to Monday", "kept", "mixed"),
    PromiseReply(
        EN_BOTH, "Docs are published, the frontend is still in review", "not_yet", "mixed"
    ),
    PromiseReply(EN_REL, "Published the notes, the changelog comes next week", "kept", "mixed"),
    # several parts that agree are read as they say
    PromiseReply(ZH_BOTH, "都搞定了，提测和联调都完成了", "kept", "kept"),
    PromiseReply(
        EN_BOTH, "Both done: the frontend is in test and the docs are published", "kept", "kept"
    ),
    PromiseReply(ZH_QA, "还没提测，推迟到周五了", "changed", "moved"),
)

DIFFERENCE_REPLIES: tuple[DifferenceReply, ...] = (
    DifferenceReply("张三", "李四", "对，已经交给李四了", "proposed", "proposed"),
    DifferenceReply("张三", "李四", "是的，李四接手了", "proposed", "proposed"),
    DifferenceReply("张三", "李四", "不是张三了，交给李四了", "proposed", "proposed"),
    DifferenceReply("张三", "李四", "现在李四负责", "proposed", "proposed"),
    DifferenceReply("张三", "李四", "不对，还是张三负责", "current", "current"),
    DifferenceReply("张三", "李四", "还是张三", "current", "current"),
    DifferenceReply("张三", "李四", "张三", "current", "current"),
    DifferenceReply("张三", "李四", "对", "unclear", "ack"),
    DifferenceReply("张三", "李四", "嗯，我问问", "unclear", "ack"),
    DifferenceReply("张三", "李四", "张三已经不负责了", "unclear", "negation"),
    DifferenceReply("张三", "李四", "不是李四", "unclear", "negation"),
    DifferenceReply("张三", "李四", "张三和李四一起负责", "unclear", "mixed"),
    DifferenceReply("张三", "李四", "是李四吗？", "unclear", "question"),
    DifferenceReply("张三", "李四", "如果李四有空就交给他", "unclear", "conditional"),
    DifferenceReply("张三", "李四", "下周会交给李四", "unclear", "plan"),
    DifferenceReply("张三", "李四", "李四负责？才怪", "unclear", "sarcasm"),
    DifferenceReply("张三", "李四", "李四在休假", "unclear", "other topic"),
    DifferenceReply("Alice", "Bob", "Yes, Bob owns it now", "proposed", "proposed"),
    DifferenceReply("Alice", "Bob", "Still Alice", "current", "current"),
    DifferenceReply("Alice", "Bob", "Alice is no longer on it", "unclear", "negation"),
    DifferenceReply("Alice", "Bob", "Is it Bob?", "unclear", "question"),
    DifferenceReply("Alice", "Bob", "If Bob agrees, it's his", "unclear", "conditional"),
    DifferenceReply("Alice", "Bob", "ok", "unclear", "ack"),
    DifferenceReply("Alice", "Bob", "Bob will take it over next week", "unclear", "plan"),
)
