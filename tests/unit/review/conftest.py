"""Shared values for review-engine unit tests."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

T0 = datetime(2026, 9, 23, 9, 0, tzinfo=UTC)


@pytest.fixture
def t0() -> datetime:
    return T0
