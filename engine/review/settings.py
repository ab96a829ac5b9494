"""The heartbeat app switch (FR-S1, FR-S4, FR-S5, US-S14; docs/rules/reviews.md).

One switch, `heartbeatEnabled`, governs both the smart heartbeat and the supervisor:

- missing means false (new installs and old settings); a saved true or false is kept;
- disabled: no scheduled heartbeat is claimed, manual heartbeat and review requests are
  refused (`Disabled`), and no automatic supervision follows a finished heartbeat;
- runs claimed before the switch went off finish and save their result; if the app is off
  when such a run finishes, no automatic supervision is appended;
- toggling touches nothing else: it creates, seeds or enables no plan, and plans (with their
  `enabled`), history and navigation preferences survive it.

`admit` is the one gate the jobs and API layers ask before doing heartbeat or review work.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

from pydantic import Field

from engine.errors import Disabled, InvalidInput
from engine.review.types import ReviewModel

SETTING_KEY = "heartbeatEnabled"


class AppSettings(ReviewModel):
    heartbeat_enabled: bool = False
    # Navigation preferences (pinned entry, panel layout...): kept across toggles.
    # docs/rules/reviews.md: "取消常驻只改变导航入口，不改变应用启用或计划状态".
    preferences: dict[str, str] = Field(default_factory=dict)

    @classmethod
    def from_stored(cls, stored: Mapping[str, object] | None) -> AppSettings:
        """Load saved settings; a missing `heartbeatEnabled` means false.

        A stored value that is not a boolean is refused rather than coerced ("false" is truthy
        to a careless reader and would silently switch the app on).
        """
        stored = stored or {}
        raw = stored.get(SETTING_KEY, stored.get("heartbeat_enabled"))
        if raw is None:
            enabled = False
        elif isinstance(raw, bool):
            enabled = raw
        else:
            raise InvalidInput(f"{SETTING_KEY} must be a boolean", value=repr(raw))
        prefs = stored.get("preferences") or {}
        if not isinstance(prefs, Mapping):
            raise InvalidInput("preferences must be a mapping", value=repr(prefs))
        return cls(
            heartbeat_enabled=enabled, preferences={str(k): str(v) for k, v in prefs.items()}
        )

    def to_stored(self) -> dict[str, object]:
        return {SETTING_KEY: self.heartbeat_enabled, "preferences": dict(self.preferences)}


def set_heartbeat_enabled(settings: AppSettings, enabled: bool) -> AppSettings:
    """`setHeartbeatEnabled`: flips the switch and nothing else.

    No effect is returned on purpose: enabling must not create, seed or enable a plan, and
    disabling must not cancel claimed runs or touch plans, history or preferences.
    """
    return settings.model_copy(update={"heartbeat_enabled": enabled})


def set_preference(settings: AppSettings, name: str, value: str) -> AppSettings:
    """Navigation preferences change only the entry point, never the switch or plans."""
    if not name.strip():
        raise InvalidInput("a preference needs a name")
    return settings.model_copy(update={"preferences": {**settings.preferences, name: value}})


class Work(StrEnum):
    """Kinds of heartbeat/review work the switch governs."""

    SCHEDULED_CLAIM = "scheduled_claim"  # cron claiming a due plan's run
    MANUAL_HEARTBEAT = "manual_heartbeat"  # runPlanNow
    MANUAL_REVIEW = "manual_review"  # startReview / continueReview
    FOLLOW_UP_SUPERVISION = "follow_up_supervision"  # automatic review after a heartbeat
    FINISH_CLAIMED = "finish_claimed"  # a run claimed before the switch went off
    STOP = "stop"  # pauseReview / cancelReview of an existing run


_MANUAL = {Work.MANUAL_HEARTBEAT, Work.MANUAL_REVIEW}
_AUTOMATIC = {Work.SCHEDULED_CLAIM, Work.FOLLOW_UP_SUPERVISION}


def admit(settings: AppSettings, work: Work) -> bool:
    """May `work` go ahead?  True: do it.  False: quietly do nothing (automatic work).

    Raises `Disabled` for a manual request while the app is off: the person gets told at once.
    """
    if settings.heartbeat_enabled:
        return True
    if work in _MANUAL:
        raise Disabled(
            "the heartbeat app is disabled; enable it to run heartbeats or reviews",
            work=work.value,
        )
    if work in _AUTOMATIC:
        return False
    # FINISH_CLAIMED and STOP: turning the app off never strands or force-cancels a run.
    return True
