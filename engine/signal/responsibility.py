"""A change of the responsible person, recognised in plain text (offline rule model).

"支付模块改由李四负责", "支付模块交给李四负责了", "李四接手支付模块", "Li Si now owns the
payment module": each says who is responsible for something now. A review compares the claim
with what the graph holds; against a confirmed or person-edited responsibility it is a pending
difference, never a silent overwrite (docs/rules/story-graph.md: "新增证据与已确认结论冲突时显示待核
对差异，不能自动断言旧观点失效").

A plain statement of who is responsible ("张三负责支付模块", "支付模块由张三负责", "支付模块的
负责人是张三", "Zhang San is responsible for the payment module", "The payment module is
owned by Zhang San") is found by `find_holders`; a review records it as a responsibility
relation (`RESPONSIBLE_FOR`, person -> thing). A change is never read as a statement.

A claim names a person only as the text writes it: it is matched with people the caller
already knows by id, never by an equal name alone (docs/rules/story-graph.md).
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict

_NAME_ZH = r"[\u4e00-\u9fa5A-Za-z][\u4e00-\u9fa5A-Za-z0-9_.-]{0,15}?"
_NAME_EN = r"[A-Z][\w.-]*(?: [A-Z][\w.-]*){0,2}"
_LEAD = re.compile(r"^(?:对|是的|嗯|好|没错|已经|现在|目前|从今天起|以后|后续|[，,\s])+")
_PATTERNS: tuple[re.Pattern[str], ...] = (
    # 支付模块改由李四负责 / 支付模块现在由李四负责 / 支付模块转由李四来负责
    re.compile(
        rf"(?P<target>[^，,。；;]+?)(?:改由|改成由|改为由|现在由|转由|换成由|换由)\s*"
        rf"(?P<person>{_NAME_ZH})\s*(?:来)?(?:负责|接手|主导|跟进|管)"
    ),
    # 支付模块交给李四负责 / 支付模块已经交给李四了 / 支付模块移交给李四
    re.compile(
        rf"(?P<target>[^，,。；;]+?)(?:已经)?(?:交给|转给|移交给|移交|交由)\s*"
        rf"(?P<person>{_NAME_ZH})\s*(?:来)?(?:负责|处理|跟进|了|$|[，,。；;])"
    ),
    # 李四接手支付模块 / 李四接管了支付模块 / 李四负责支付模块了
    re.compile(
        rf"(?P<person>{_NAME_ZH})\s*(?:已经)?(?:接手|接管|接过)了?\s*(?P<target>[^，,。；;]+)"
    ),
    # Li Si now owns the payment module / Li Si has taken over the payment module
    re.compile(
        rf"(?P<person>{_NAME_EN})\s+(?:now owns|owns .+ now|has taken over|took over|"
        rf"is now responsible for|now leads|is the new owner of)\s+(?:the\s+)?"
        rf"(?P<target>[^,.;]+)",
    ),
    # The payment module is now owned by Li Si / was handed over to Li Si
    re.compile(
        rf"(?:the\s+)?(?P<target>[^,.;]+?)\s+(?:is now owned by|is now handled by|"
        rf"was handed (?:over )?to|has been handed (?:over )?to|moved to)\s+"
        rf"(?P<person>{_NAME_EN})",
        re.IGNORECASE,
    ),
)


# a plain statement of who is responsible (not a change); tried where no change claim stands
_HOLDER_PATTERNS: tuple[re.Pattern[str], ...] = (
    # 支付模块的负责人是张三 / 支付模块负责人：张三
    re.compile(rf"(?P<target>[^，,。；;]+?)的?负责人(?:是|为|[:：])\s*(?P<person>{_NAME_ZH})$"),
    # 张三负责支付模块 / 张三来负责支付模块 / 张三主导支付模块
    re.compile(
        rf"^(?P<person>{_NAME_ZH})\s*(?:来|将|会)?(?:负责|主导|主管)(?![人的任])\s*(?P<target>[^，,。；;]+)"
    ),
    # 支付模块由张三负责 / 支付模块目前由张三负责
    re.compile(rf"(?P<target>[^，,。；;]+?)由\s*(?P<person>{_NAME_ZH})\s*(?:来)?(?:负责|主导)"),
    # Zhang San is responsible for the payment module / Zhang San owns the payment module
    re.compile(
        rf"^(?P<person>{_NAME_EN})\s+(?:is responsible for|owns|leads|is the owner of)\s+"
        rf"(?:the\s+)?(?P<target>[^,.;]+)"
    ),
    # The payment module is owned by Zhang San
    re.compile(
        rf"^(?:the\s+)?(?P<target>[^,.;]+?)\s+(?:is owned by|is led by|is handled by)\s+"
        rf"(?P<person>{_NAME_EN})",
        re.IGNORECASE,
    ),
)
# words in the person's place that name no one (a review never invents a person from them)
_NO_ONE = frozenset(
    {
        "我",
        "我们",
        "你",
        "你们",
        "他",
        "她",
        "他们",
        "她们",
        "大家",
        "谁",
        "咱们",
        "这边",
        "那边",
        "I",
        "We",
        "You",
        "He",
        "She",
        "They",
        "Who",
        "It",
        "This",
        "That",
        "Now",
    }
)


class ResponsibilityClaim(BaseModel):
    """`person` is responsible for `target` now, as the text at `start:end` says."""

    model_config = ConfigDict(frozen=True)

    target: str
    person: str
    start: int
    end: int
    change: bool = True  # False: a plain statement of who is responsible


# a holder's name has no particle, no 的 phrase and no verb of asking in it
_NOT_A_NAME = re.compile(r"[的吗呢吧哦啊呀嘛帮]")


def _clean(value: str) -> str:
    value = _LEAD.sub("", value.strip())
    return value.strip(" ，,。.；;了的")


def _matches(
    text: str,
    patterns: tuple[re.Pattern[str], ...],
    taken: list[tuple[int, int]],
    *,
    change: bool,
) -> list[ResponsibilityClaim]:
    claims = []
    for pattern in patterns:
        for m in pattern.finditer(text):
            if any(m.start() < end and start < m.end() for start, end in taken):
                continue
            target, person = _clean(m.group("target")), _clean(m.group("person"))
            if not target or not person or target == person or person in _NO_ONE:
                continue
            if _NOT_A_NAME.search(person):
                continue  # "交给附近的警察叔叔帮忙哦": a description, not someone's name
            taken.append((m.start(), m.end()))
            claims.append(
                ResponsibilityClaim(
                    target=target, person=person, start=m.start(), end=m.end(), change=change
                )
            )
    return claims


def find_claims(text: str) -> list[ResponsibilityClaim]:
    """Every change of responsibility the text states, left to right, one per sentence span."""
    return sorted(_matches(text, _PATTERNS, [], change=True), key=lambda c: c.start)


def find_responsibility(sentence: str) -> list[ResponsibilityClaim]:
    """Who is responsible for what in one sentence: its changes (`change`) and, where no
    change stands, its plain statements ("张三负责支付模块"), left to right."""
    taken: list[tuple[int, int]] = []
    claims = _matches(sentence, _PATTERNS, taken, change=True)
    claims += _matches(sentence, _HOLDER_PATTERNS, taken, change=False)
    return sorted(claims, key=lambda c: c.start)


def names_person(text: str, name: str) -> bool:
    """Whether `text` names `name` (whole word for Latin names, substring for CJK)."""
    if not name:
        return False
    if name.isascii():
        # Latin word boundaries only: "还是Alice" names Alice (a CJK letter is no part of it)
        pattern = rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])"
        return re.search(pattern, text, re.IGNORECASE) is not None
    return name in text
