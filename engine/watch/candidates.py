"""Several candidate watches in one heartbeat (last sentence; docs/rules/watches.md).

"多候选关注每轮优先闭环一个事项，除非明确要求全量核验，不让无关候选阻断已核实事项":

- Each round focuses on closing one item, unless a full verification was explicitly asked
  for, in which case every candidate is in focus.
- The focus goes to an item already verified and waiting to be closed, then to the item
  checked longest ago (never checked first). An item waiting on another candidate it
  depends on yields to items that can close now.
- A verified item closes on its own outcome; candidates it does not depend on never block
  it, whatever their state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from engine.errors import InvalidInput
from engine.watch.model import Frozen, Outcome, OutcomeStatus


class Candidate(Frozen):
    watch_id: str
    verified: bool = False
    last_checked_at: datetime | None = None
    depends_on: frozenset[str] = frozenset()


class RoundPlan(Frozen):
    focus: tuple[str, ...]
    later: tuple[str, ...]
    full_verification: bool


class RoundSettlement(Frozen):
    closed: tuple[str, ...]
    still_open: tuple[str, ...]


def _unmet(candidate: Candidate, by_id: Mapping[str, Candidate]) -> bool:
    return any(d in by_id and not by_id[d].verified for d in candidate.depends_on)


def plan_round(candidates: Sequence[Candidate], *, full_verification: bool = False) -> RoundPlan:
    """Choose the item(s) this round works on."""
    ids = [c.watch_id for c in candidates]
    if len(ids) != len(set(ids)):
        raise InvalidInput("a candidate watch appears twice", field="candidates")
    by_id = {c.watch_id: c for c in candidates}

    def order(c: Candidate) -> tuple[bool, bool, bool, datetime, str]:
        checked = c.last_checked_at
        return (
            _unmet(c, by_id),
            not c.verified,
            checked is not None,
            checked or datetime.min,
            c.watch_id,
        )

    ranked = sorted(candidates, key=order)
    if full_verification:
        return RoundPlan(focus=tuple(c.watch_id for c in ranked), later=(), full_verification=True)
    if not ranked:
        return RoundPlan(focus=(), later=(), full_verification=False)
    return RoundPlan(
        focus=(ranked[0].watch_id,),
        later=tuple(c.watch_id for c in ranked[1:]),
        full_verification=False,
    )


def settle_round(
    candidates: Sequence[Candidate], outcomes: Mapping[str, Outcome]
) -> RoundSettlement:
    """Close every candidate whose own check succeeded and whose dependencies are met.

    Only a candidate's own `depends_on` can hold it back; unrelated candidates that failed,
    were blocked or were not checked this round do not.
    """
    by_id = {c.watch_id: c for c in candidates}
    succeeded = {
        wid for wid, o in outcomes.items() if wid in by_id and o.status is OutcomeStatus.SUCCESS
    }
    done = succeeded | {c.watch_id for c in candidates if c.verified}
    closed: list[str] = []
    for c in candidates:
        if c.watch_id not in succeeded:
            continue
        if all(d not in by_id or d in done for d in c.depends_on):
            closed.append(c.watch_id)
    return RoundSettlement(
        closed=tuple(closed),
        still_open=tuple(c.watch_id for c in candidates if c.watch_id not in closed),
    )
