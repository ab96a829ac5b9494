"""The language a deployment writes its messages and labels in (LOCALE): Chinese by default."""

from __future__ import annotations

from typing import Literal

Lang = Literal["zh", "en"]


def lang_of(locale: str) -> Lang:
    """The message language of a deployment's LOCALE (Chinese unless it is English)."""
    return "en" if locale.startswith("en") else "zh"
