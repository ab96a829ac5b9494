"""The concern engine's configuration: report limits, working hours, timezone, locale.

Built once by the process entry points (`ConcernPolicy.from_settings(settings)`) and passed
into every decision; nothing here reads the environment or the clock.
"""

from __future__ import annotations

from datetime import time, timedelta
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ConfigDict, Field

from engine.settings import Settings


class ConcernPolicy(BaseModel):
    model_config = ConfigDict(frozen=True)

    timezone: str = "Asia/Shanghai"
    locale: str = "zh"  # "zh" (default) or "en" for report and back-flow wording
    # docs/rules/concerns.md
    report_min_gap: timedelta = timedelta(minutes=30)
    daily_report_cap: int = 20
    work_start: time = time(9, 0)
    work_end: time = time(18, 0)
    workdays: frozenset[int] = Field(default=frozenset({0, 1, 2, 3, 4}))  # Mon=0
    # the sending window of high-priority messages to counterparts (window.py)
    extended_start: time = time(8, 0)
    extended_end: time = time(22, 0)
    extended_days: frozenset[int] = Field(default=frozenset(range(7)))
    # docs/rules/concerns.md: "3 次后考虑换渠道或升级"
    silent_followups_before_alternatives: int = 3
    recent_decisions_keep: int = 50
    handled_triggers_keep: int = 100
    # the shortest repeat a schedule concern may ask for (each run is an agent loop)
    min_every: timedelta = timedelta(seconds=60)

    @property
    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    @classmethod
    def from_settings(cls, settings: Settings, **overrides: object) -> ConcernPolicy:
        values: dict[str, object] = {
            "timezone": settings.timezone,
            "locale": settings.locale,
            "min_every": timedelta(seconds=settings.concern_min_every_seconds),
            "work_start": settings.concern_work_start,
            "work_end": settings.concern_work_end,
            "workdays": frozenset(settings.concern_workdays),
            "extended_start": settings.concern_extended_start,
            "extended_end": settings.concern_extended_end,
            "extended_days": frozenset(settings.concern_extended_days),
        }
        values.update(overrides)
        return cls.model_validate(values)
