"""Operations generated from the schema (hypothesis-graphql), sent over HTTP; the tally.

Used by the bounded property test in the suite and by `make fuzz` (tests/fuzz_api.py).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx

OTHER_SCOPE = "fuzz-other-scope"


@dataclass
class Tally:
    sent: int = 0
    codes: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)

    def check(self, query: str, response: httpx.Response) -> None:
        """No 5xx, no INTERNAL, every error with a code, nothing of another scope."""
        self.sent += 1
        if response.status_code >= 500:
            self.problems.append(f"{response.status_code} for {query}")
            return
        body: dict[str, Any] = response.json()
        errors = body.get("errors") or []
        if not errors:
            self.codes["OK"] += 1
        for error in errors:
            code = (error.get("extensions") or {}).get("code")
            self.codes[str(code)] += 1
            if code is None or code == "INTERNAL":
                self.problems.append(f"{code}: {error.get('message')} for {query}")
        if OTHER_SCOPE in response.text and OTHER_SCOPE not in query:
            self.problems.append(f"another scope's data in the answer to {query}")

    def figures(self) -> str:
        by_code = ", ".join(f"{k} {v}" for k, v in self.codes.most_common())
        internal = self.codes["INTERNAL"]
        return f"operations sent: {self.sent}; answers by code: {by_code}; INTERNAL: {internal}"
