"""Promised times in replies, resolved against the message's own timestamp and timezone.

docs/rules/concerns.md: "好的，明天给你" is a commitment, and the follow-up is set to the
promised time ("按承诺时间设 next_action，不提前追问"); 部分达成判定: a goal that needs a
具体时间 is not met by "大概这两天". This module turns the time phrase into a datetime (or
says it is vague) so both rules can be applied deterministically.

Recognised (Chinese and English), relative to the message time `ts` in `tz`:
- days: 今天/今晚/明天/明早/后天/大后天, 周X/星期X/礼拜X (这/本/下/下下), X号/X日,
  X月X日, today/tonight/tomorrow/day after tomorrow, (this|next) Monday…Sunday, EOD;
- parts of day: 早上/上午/中午/下午/傍晚/晚上/下班前, morning/noon/afternoon/evening;
- clock times: 两点, 下午3点半, 10点一刻, 15:00, 3pm, 3:30 p.m., at 3;
- durations: 2小时后, 半小时后, 30分钟内, in 2 hours, within 30 minutes; 三天后, in 3 days;
- ranges that are not a specific day: 下周, 周末, 月底, next week, this weekend, end of month;
- vague: 这两天, 过几天, 尽快, 回头, 晚点, 一会儿, soon, ASAP, later, in a few days.

A promise names the latest moment it covers: a bare day means the end of its working day
(18:00), a part of day its end (上午 → 12:00, 下午 → 18:00, 晚上 → 22:00). A clock time
without a day that has already passed today means tomorrow. An hour 1–6 without 上午/am is
read as afternoon (work-hours reading of "两点给你").
"""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta
from enum import StrEnum
from zoneinfo import ZoneInfo

from pydantic import BaseModel

END_OF_DAY = time(18, 0)
_CN_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_NUM = r"(?:\d{1,2}|[零〇一二两三四五六七八九十]{1,3})"
_WEEKDAY_CN = {
    "一": 0,
    "二": 1,
    "三": 2,
    "四": 3,
    "五": 4,
    "六": 5,
    "日": 6,
    "天": 6,
    "1": 0,
    "2": 1,
    "3": 2,
    "4": 3,
    "5": 4,
    "6": 5,
    "7": 6,
}
_WEEKDAY_EN = {"mon": 0, "tue": 1, "wed": 2, "thu": 3, "fri": 4, "sat": 5, "sun": 6}
_EN_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "ten": 10,
    "half an": 0.5,
    "half": 0.5,
}


class Precision(StrEnum):
    MINUTE = "minute"  # a clock time or a duration
    PART_OF_DAY = "part_of_day"  # 明天下午
    DAY = "day"  # 明天, 周五, 3月20日
    RANGE = "range"  # 下周, 周末, 月底: a span, not a day
    VAGUE = "vague"  # 这两天, 尽快, soon


class PromisedTime(BaseModel):
    at: datetime | None
    precision: Precision
    text: str
    hedged: bool = False  # 大概/可能/估计/probably/maybe

    @property
    def specific(self) -> bool:
        """A day or finer: what a goal asking for 具体时间 accepts."""
        return self.precision in (Precision.MINUTE, Precision.PART_OF_DAY, Precision.DAY)


def cn_number(token: str) -> int:
    """Arabic or Chinese numerals up to 99 (十五, 二十三, 两)."""
    if token.isdigit():
        return int(token)
    if "十" in token:
        tens, _, ones = token.partition("十")
        return (_CN_DIGITS[tens] if tens else 1) * 10 + (_CN_DIGITS[ones] if ones else 0)
    value = 0
    for ch in token:
        value = value * 10 + _CN_DIGITS[ch]
    return value


def localize(ts: datetime, tz: str | ZoneInfo) -> datetime:
    """The timestamp in `tz`; a naive timestamp is taken to be local time in `tz`."""
    zone = tz if isinstance(tz, ZoneInfo) else ZoneInfo(tz)
    return ts.replace(tzinfo=zone) if ts.tzinfo is None else ts.astimezone(zone)


_VAGUE = re.compile(
    r"这两天|这几天|过两天|过几天|最近|近期|近几天|尽快|尽早|回头|改天|晚点|晚些|等会儿?|"
    r"晚一点|迟一点|一会儿?|待会儿?|稍后|有空|抽空|再说|\bsoon\b|\basap\b|\blater\b|"
    r"in a (?:few|couple of) days|"
    r"\bsometime\b|when i (?:can|get a chance)|\bshortly\b|one of these days",
    re.IGNORECASE,
)
_HEDGE = re.compile(
    r"大概|可能|应该|估计|差不多|争取|\bprobably\b|\bmaybe\b|\bmight\b|"
    r"\bhopefully\b|\bshould be\b",
    re.IGNORECASE,
)
_CLAUSE = re.compile(r"[，,。;；!！?？\n]|\.(?:\s|$)")

_DURATION_CN = re.compile(
    rf"(半|{_NUM})\s*个?\s*(半)?\s*(小时|钟头|分钟)\s*(?:后|以后|之后|内|以内)"
)
_DURATION_EN = re.compile(
    r"\b(?:in|within)\s+(\d+|an?|one|two|three|four|five|six|ten|half an)\s+"
    r"(hours?|hrs?|minutes?|mins?)\b",
    re.IGNORECASE,
)
_DAYS_LATER = re.compile(
    rf"({_NUM})\s*天\s*(?:后|以后|之后|内|以内)|\b(?:in|within)\s+(\d+|two|three|four|five)\s+days\b",
    re.IGNORECASE,
)
_DAY_CN = re.compile(r"大后天|后天|明天|明日|明早|明晚|今天|今日|今晚|今早|今儿")
_WEEK_CN = re.compile(r"(下下|下个?|这个?|本)?\s*(?:周|星期|礼拜)([一二三四五六日天1-7])")
_DATE_CN = re.compile(rf"({_NUM})\s*月\s*({_NUM})\s*[日号]?")
_MDAY_CN = re.compile(rf"({_NUM})\s*[号日]")
_RANGE_CN = re.compile(
    r"(下下|下个?|这个?|本)?(?:周末|礼拜天前)|(?:下个?|这个?)?月底|"
    r"下个?(?:周|星期|礼拜)(?![一二三四五六日天1-7])"
)
_PART_CN = re.compile(r"早上|早晨|上午|中午|下午|傍晚|晚上|夜里|下班前|下班|明早|明晚|今晚|今早")
_CLOCK_CN = re.compile(
    rf"(?<![快慢晚早多少好有差再稍])({_NUM})\s*[点时](?![点儿])(?:\s*(半|一刻|三刻|({_NUM})\s*分?))?"
)
_CLOCK_COLON = re.compile(r"(?<!\d)(\d{1,2})[:：](\d{2})(?!\d)")
_DAY_EN = re.compile(
    r"\b(?:the\s+)?day after tomorrow\b|\btomorrow\b|\btoday\b|\btonight\b|"
    r"\beod\b|\bend of (?:the )?day\b",
    re.IGNORECASE,
)
_WEEK_EN = re.compile(
    r"\b(this|next|coming)?\s*(mon|tue|wed|thu|fri|sat|sun)(?:day|s|sday|nesday|rsday|urday)?\b",
    re.IGNORECASE,
)
_RANGE_EN = re.compile(
    r"\b(?:this|next)?\s*weekend\b|\bnext week\b|\bend of (?:the )?(?:week|month)\b", re.IGNORECASE
)
_PART_EN = re.compile(r"\bmorning\b|\bnoon\b|\bafternoon\b|\bevening\b|\btonight\b", re.IGNORECASE)
_CLOCK_EN = re.compile(
    r"\b(\d{1,2})(?::(\d{2}))?\s*(a\.?m\.?|p\.?m\.?)(?![a-z])|\bat\s+(\d{1,2})(?::(\d{2}))?\b",
    re.IGNORECASE,
)

_PART_END = {
    "morning": time(12),
    "noon": time(13),
    "afternoon": time(18),
    "evening": time(22),
    "night": time(22),
    "eod": END_OF_DAY,
}
_PART_OF = {
    "早上": "morning",
    "早晨": "morning",
    "上午": "morning",
    "今早": "morning",
    "明早": "morning",
    "中午": "noon",
    "下午": "afternoon",
    "傍晚": "evening",
    "晚上": "evening",
    "夜里": "night",
    "今晚": "evening",
    "明晚": "evening",
    "下班前": "eod",
    "下班": "eod",
    "tonight": "evening",
}


def _week_start(d: date) -> date:
    return d - timedelta(days=d.weekday())


def _day_of(match: str, today: date) -> date:
    key = match.lower()
    if key in ("大后天",):
        return today + timedelta(days=3)
    if key in ("后天",) or "day after tomorrow" in key:
        return today + timedelta(days=2)
    if key.startswith("明") or key == "tomorrow":
        return today + timedelta(days=1)
    return today


def _weekday_date(prefix: str, weekday: int, today: date) -> tuple[date, bool]:
    """(date, explicit) for 周X with its prefix; a bare weekday is the next one not past."""
    p = (prefix or "").strip().lower()
    if p.startswith("下下"):
        return _week_start(today) + timedelta(weeks=2, days=weekday), True
    if p.startswith("下") or p == "next":
        return _week_start(today) + timedelta(weeks=1, days=weekday), True
    if p.startswith("这") or p in ("本", "this"):
        return _week_start(today) + timedelta(days=weekday), True
    ahead = (weekday - today.weekday()) % 7
    return today + timedelta(days=ahead), False


def _hour_with_part(hour: int, part: str | None, explicit_period: str | None) -> int:
    if explicit_period:
        pm = explicit_period.lower().startswith("p")
        if pm and hour < 12:
            return hour + 12
        if not pm and hour == 12:
            return 0
        return hour
    if part in ("afternoon", "evening", "night", "eod") and hour < 12:
        return hour + 12
    if part == "noon" and 1 <= hour <= 2:
        return hour + 12
    if part == "morning":
        return hour
    if part is None and 1 <= hour <= 6:
        return hour + 12  # "两点给你": working hours, so 14:00
    return hour


def _clock(clause: str) -> tuple[int, int, str | None] | None:
    m = _CLOCK_COLON.search(clause)
    if m:
        return int(m.group(1)), int(m.group(2)), None
    m = _CLOCK_EN.search(clause)
    if m:
        if m.group(3):
            return int(m.group(1)), int(m.group(2) or 0), m.group(3)
        return int(m.group(4)), int(m.group(5) or 0), None
    m = next((c for c in _CLOCK_CN.finditer(clause) if not _a_little(clause, c)), None)
    if m:
        hour, extra = cn_number(m.group(1)), m.group(2)
        minute = 0
        if extra == "半":
            minute = 30
        elif extra == "一刻":
            minute = 15
        elif extra == "三刻":
            minute = 45
        elif m.group(3):
            minute = cn_number(m.group(3))
        return hour, minute, None
    return None


def _a_little(clause: str, m: re.Match[str]) -> bool:
    """ "一点" / "一时" are as often "a little" / "for a while" ("喝一点", "一时想不起来"): one
    o'clock only with a day or a part of the day before it (明天一点, 下午一点) or minutes after
    it (一点半)."""
    if m.group(1) != "一" or m.group(2):
        return False
    before = clause[max(0, m.start() - 3) : m.start()]
    return not (_PART_CN.search(before) or re.search(r"[天日号]$|(?:周|星期|礼拜).$", before))


def _duration(clause: str) -> timedelta | None:
    m = _DURATION_CN.search(clause)
    if m:
        amount = 0.5 if m.group(1) == "半" else float(cn_number(m.group(1)))
        if m.group(2):
            amount += 0.5
        return timedelta(minutes=amount) if m.group(3) == "分钟" else timedelta(hours=amount)
    m = _DURATION_EN.search(clause)
    if m:
        raw = m.group(1).lower()
        amount = float(raw) if raw.isdigit() else float(_EN_NUMBERS[raw])
        unit = m.group(2).lower()
        return timedelta(hours=amount) if unit.startswith("h") else timedelta(minutes=amount)
    return None


def _range(clause: str, local: datetime) -> datetime | None:
    m = _RANGE_CN.search(clause) or _RANGE_EN.search(clause)
    if not m:
        return None
    text = m.group(0).lower()
    today = local.date()
    if "月底" in text or "month" in text:
        first_next = (today.replace(day=28) + timedelta(days=4)).replace(day=1)
        return datetime.combine(first_next - timedelta(days=1), END_OF_DAY, local.tzinfo)
    next_week = text.startswith("下") or "next" in text
    if "周末" in text or "weekend" in text:
        sunday = _week_start(today) + timedelta(weeks=1 if next_week else 0, days=6)
        return datetime.combine(sunday, END_OF_DAY, local.tzinfo)
    friday = _week_start(today) + timedelta(weeks=1, days=4)
    if "end of" in text and "week" in text:
        friday = _week_start(today) + timedelta(days=4)
    return datetime.combine(friday, END_OF_DAY, local.tzinfo)


# fixed-date holidays (a lunar one, 除夕 or 春节, has no fixed date: not read)
_HOLIDAY = re.compile(
    r"元旦|平安夜|圣诞节?|\bNew Year'?s(?: Eve| Day)?|\bChristmas(?: Eve| Day)?", re.IGNORECASE
)


def _holiday(name: str) -> tuple[int, int]:
    name = name.lower()
    if "eve" in name or name == "平安夜":
        return (12, 31) if "new" in name else (12, 24)
    if "christmas" in name or name.startswith("圣诞"):
        return 12, 25
    return 1, 1


def _explicit_day(clause: str, local: datetime) -> tuple[date, str] | None:
    today = local.date()
    m = _HOLIDAY.search(clause)
    if m:
        d = date(today.year, *_holiday(m.group(0)))
        return (d if d >= today else d.replace(year=today.year + 1)), m.group(0)
    m = _DATE_CN.search(clause)
    if m:
        month, day = cn_number(m.group(1)), cn_number(m.group(2))
        try:
            d = date(today.year, month, day)
        except ValueError:
            return None
        if d < today:
            d = d.replace(year=today.year + 1)
        return d, m.group(0)
    m = _DAY_CN.search(clause) or _DAY_EN.search(clause)
    if m:
        return _day_of(m.group(0), today), m.group(0)
    m = _WEEK_CN.search(clause)
    if m:
        return _weekday_date(m.group(1) or "", _WEEKDAY_CN[m.group(2)], today)[0], m.group(0)
    m = _WEEK_EN.search(clause)
    if m:
        d, _ = _weekday_date(m.group(1) or "", _WEEKDAY_EN[m.group(2).lower()], today)
        return d, m.group(0).strip()
    m = _MDAY_CN.search(clause)
    if m and not _CLOCK_CN.search(m.group(0)):
        day = cn_number(m.group(1))
        try:
            d = today.replace(day=day)
        except ValueError:
            return None
        if d < today:
            month_after = (today.replace(day=28) + timedelta(days=4)).replace(day=1)
            try:
                d = month_after.replace(day=day)
            except ValueError:
                return None
        return d, m.group(0)
    return None


def _part(clause: str) -> str | None:
    m = _PART_CN.search(clause) or _PART_EN.search(clause)
    if m:
        key = m.group(0).lower()
        return _PART_OF.get(key, key)
    if re.search(r"\beod\b|end of (?:the )?day", clause, re.IGNORECASE):
        return "eod"
    return None


def _parse_clause(clause: str, local: datetime) -> PromisedTime | None:
    later = _DAYS_LATER.search(clause)
    if later is not None:
        raw = later.group(1) or later.group(2).lower()
        days = int(_EN_NUMBERS.get(raw, 0)) or cn_number(raw)
        return PromisedTime(
            at=datetime.combine(local.date() + timedelta(days=days), END_OF_DAY, local.tzinfo),
            precision=Precision.DAY,
            text=clause,
        )
    duration = _duration(clause)
    if duration is not None:
        return PromisedTime(at=local + duration, precision=Precision.MINUTE, text=clause)
    day = _explicit_day(clause, local)
    part = _part(clause)
    clock = _clock(clause)
    if day is None and part is None and clock is None:
        at = _range(clause, local)
        if at is not None:
            return PromisedTime(at=at, precision=Precision.RANGE, text=clause)
        return None
    base = day[0] if day else local.date()
    if clock is not None:
        hour, minute, period = clock
        hour = _hour_with_part(hour, part, period)
        if not (0 <= hour <= 23 and 0 <= minute <= 59):
            return None
        at = datetime.combine(base, time(hour, minute), local.tzinfo)
        if day is None and at <= local:
            at += timedelta(days=1)
        return PromisedTime(at=at, precision=Precision.MINUTE, text=clause)
    if part is not None:
        at = datetime.combine(base, _PART_END[part], local.tzinfo)
        if day is None and at <= local:
            at += timedelta(days=1)
        return PromisedTime(at=at, precision=Precision.PART_OF_DAY, text=clause)
    assert day is not None
    return PromisedTime(
        at=datetime.combine(day[0], END_OF_DAY, local.tzinfo), precision=Precision.DAY, text=clause
    )


def parse_when(text: str, ts: datetime, tz: str | ZoneInfo) -> PromisedTime | None:
    """The first time phrase in `text`, resolved against `ts` in `tz`; None if there is none.

    A vague phrase (这两天, soon) yields `PromisedTime(at=None, precision=VAGUE)` unless the
    same message also names a specific time.
    """
    local = localize(ts, tz)
    hedged = bool(_HEDGE.search(text))
    for clause in (c.strip() for c in _CLAUSE.split(text)):
        if not clause:
            continue
        if _VAGUE.search(clause) and not (_explicit_day(clause, local) or _clock(clause)):
            continue
        found = _parse_clause(clause, local)
        if found is not None:
            return found.model_copy(update={"hedged": hedged})
    vague = _VAGUE.search(text)
    if vague:
        return PromisedTime(at=None, precision=Precision.VAGUE, text=vague.group(0), hedged=hedged)
    return None


_PAST = re.compile(
    r"(?P<zh>大前天|前天|昨天|昨晚|昨日|上周|上个星期|上礼拜)|"
    r"(?P<n>\d{1,2}|[一二两三四五六七八九十]{1,3})\s*天前|"
    r"\b(?P<en>yesterday|last night|last week|the other day)\b|"
    r"\b(?P<k>\d{1,2}|a|one|two|three|four|five|six|seven)\s+days?\s+ago\b",
    re.IGNORECASE,
)
_PAST_DAYS = {
    "大前天": 3,
    "前天": 2,
    "昨天": 1,
    "昨晚": 1,
    "昨日": 1,
    "上周": 7,
    "上个星期": 7,
    "上礼拜": 7,
    "yesterday": 1,
    "last night": 1,
    "last week": 7,
    "the other day": 2,
}
_EN_COUNT = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}


def parse_past(text: str, ts: datetime) -> datetime | None:
    """When a sentence says something happened before `ts` (昨天, 前天, 3天前, yesterday,
    last night, 2 days ago, last week): `ts` moved back that many days; None if it names no
    past day. The hour is the message's: a day is all such a phrase gives."""
    m = _PAST.search(text)
    if m is None:
        return None
    if m.group("zh") or m.group("en"):
        days = _PAST_DAYS[(m.group("zh") or m.group("en")).lower()]
    elif m.group("n"):
        days = cn_number(m.group("n"))
    else:
        raw = m.group("k").lower()
        days = _EN_COUNT[raw] if raw in _EN_COUNT else int(raw)
    return ts - timedelta(days=days)
