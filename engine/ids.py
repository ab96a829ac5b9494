"""The one id factory: every id a use case mints is `<prefix>-<random hex>`.

Use cases take an `Ids` (default `new_id`) so tests can make ids predictable. Ids that must
be stable across retries (a run id from a request id, an observation id from its run) are
derived, not minted, and do not come from here.
"""

from __future__ import annotations

import uuid
from typing import Protocol

DEFAULT_LENGTH = 16


class Ids(Protocol):
    def __call__(self, prefix: str, length: int = DEFAULT_LENGTH) -> str: ...


def new_id(prefix: str, length: int = DEFAULT_LENGTH) -> str:
    """A fresh id `prefix-<length hex digits>` (an empty prefix gives the bare hex)."""
    token = uuid.uuid4().hex[:length]
    return f"{prefix}-{token}" if prefix else token
