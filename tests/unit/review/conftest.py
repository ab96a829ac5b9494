"""Fixtures for review-engine unit tests (the values live in tests/support/review.py)."""

from __future__ import annotations

from datetime import datetime

import pytest

from tests.support.review import T0


@pytest.fixture
def t0() -> datetime:
    return T0
