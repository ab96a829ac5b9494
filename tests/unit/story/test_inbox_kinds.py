"""The inbox's kinds: unknown kinds are INVALID_INPUT; none means all."""

from __future__ import annotations

import pytest

from engine.errors import InvalidInput
from engine.story.inbox import counts, inbox_kinds


def test_kinds_default_to_all_and_unknown_ones_are_invalid() -> None:
    assert inbox_kinds(None) == ["difference", "failed", "field", "paused"]
    assert inbox_kinds(["paused_run", "FAILED_RUN"]) == ["failed", "paused"]
    assert inbox_kinds(["FIELD"]) == ["field"]
    with pytest.raises(InvalidInput):
        inbox_kinds(["FIELD", "GOSSIP"])
    assert counts({"field": 2, "paused": 1}) == {
        "FIELD": 2,
        "DIFFERENCE": 0,
        "FAILED_RUN": 0,
        "PAUSED_RUN": 1,
    }
