"""docs/rules/reviews.md: the heartbeatEnabled switch."""

from __future__ import annotations

import pytest

from engine.errors import Disabled, InvalidInput
from engine.review.settings import (
    AppSettings,
    Work,
    admit,
    set_heartbeat_enabled,
    set_preference,
)


@pytest.mark.parametrize("stored", [None, {}, {"preferences": {"pinned": "yes"}}])
def test_missing_heartbeat_enabled_means_false(stored: dict[str, object] | None) -> None:
    assert AppSettings.from_stored(stored).heartbeat_enabled is False


@pytest.mark.parametrize("saved", [True, False])
def test_saved_value_is_kept_through_a_round_trip(saved: bool) -> None:
    loaded = AppSettings.from_stored({"heartbeatEnabled": saved})
    assert loaded.heartbeat_enabled is saved
    assert AppSettings.from_stored(loaded.to_stored()).heartbeat_enabled is saved


@pytest.mark.parametrize("bad", ["false", 0, 1, "true"])
def test_non_boolean_stored_value_is_refused_not_coerced(bad: object) -> None:
    with pytest.raises(InvalidInput):
        AppSettings.from_stored({"heartbeatEnabled": bad})


@pytest.mark.parametrize("work", [Work.MANUAL_HEARTBEAT, Work.MANUAL_REVIEW])
def test_disabled_refuses_manual_requests_with_disabled(work: Work) -> None:
    with pytest.raises(Disabled) as info:
        admit(AppSettings(), work)
    assert info.value.details["work"] == work.value


@pytest.mark.parametrize("work", [Work.SCHEDULED_CLAIM, Work.FOLLOW_UP_SUPERVISION])
def test_disabled_quietly_skips_automatic_work(work: Work) -> None:
    assert admit(AppSettings(heartbeat_enabled=False), work) is False


@pytest.mark.parametrize("work", [Work.FINISH_CLAIMED, Work.STOP])
def test_disabled_lets_claimed_runs_finish_and_stops_go_through(work: Work) -> None:
    assert admit(AppSettings(heartbeat_enabled=False), work) is True


@pytest.mark.parametrize("work", list(Work))
def test_enabled_admits_everything(work: Work) -> None:
    assert admit(AppSettings(heartbeat_enabled=True), work) is True


def test_toggling_keeps_preferences_and_changes_only_the_switch() -> None:
    s = set_preference(AppSettings(), "pinned", "false")
    on = set_heartbeat_enabled(s, True)
    off = set_heartbeat_enabled(on, False)
    assert on.heartbeat_enabled and not off.heartbeat_enabled
    assert on.preferences == off.preferences == {"pinned": "false"}


def test_unpinning_does_not_change_the_switch() -> None:
    on = set_heartbeat_enabled(AppSettings(), True)
    assert set_preference(on, "pinned", "false").heartbeat_enabled is True
