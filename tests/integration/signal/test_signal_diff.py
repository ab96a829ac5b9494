"""storyGraphDiff lists signals like every versioned object: the
commitment a review found is added; when 李四's answer keeps it, its status is revised via
the concern by the review of the concern's conversation, beside the event that review
proposed; a window before any of it is empty of them."""

from __future__ import annotations

from neo4j import AsyncDriver

from engine.clock import utcnow
from engine.settings import Settings
from jobs.deps import Deps
from tests.support.in_process import graphql
from tests.support.signal_chain import build_chain

DIFF = """query($s: String!, $since: DateTime!, $until: DateTime) {
  storyGraphDiff(scope: $s, since: $since, until: $until) { edges { node {
    objectKind objectId change fields { field before after } by { kind id } viaConcern } } } }"""


async def diff(deps: Deps, scope: str, since: str, until: str | None = None) -> list[dict]:
    variables = {"s": scope, "since": since, "until": until}
    data = await graphql(deps.settings, deps.driver, DIFF, variables)
    return [e["node"] for e in data["storyGraphDiff"]["edges"]]


async def test_a_signal_is_added_then_its_status_revised_via_the_concern(
    neo4j_driver: AsyncDriver, settings: Settings, scope: str
) -> None:
    deps = Deps(settings=settings, driver=neo4j_driver, pool=None)
    before = utcnow()
    chain = await build_chain(deps, scope)

    whole = await diff(deps, scope, before.isoformat())
    [signal] = [e for e in whole if e["objectKind"] == "signal"]
    assert signal["objectId"] == chain.signal.id and signal["change"] == "ADDED"
    assert {"field": "status", "before": None, "after": "kept"} in signal["fields"]

    # since the concern was raised: the answer kept the signal and brought the event
    later = await diff(deps, scope, chain.raised_at.isoformat())
    by_kind = {e["objectKind"]: e for e in later}
    kept = by_kind["signal"]
    assert kept["change"] == "REVISED" and kept["viaConcern"] == chain.concern_id
    assert kept["fields"] == [{"field": "status", "before": "open", "after": "kept"}]
    # by the review of the concern's conversation that read the answer
    assert kept["by"] == {"kind": "RUN", "id": chain.run_id}
    assert chain.run_id.startswith(f"sup-{chain.concern_id}-m")
    event = by_kind["event"]
    assert event["change"] == "ADDED" and event["viaConcern"] == chain.concern_id
    assert event["objectId"] == chain.event_id and event["by"] == kept["by"]

    # up to the moment before the signal was recorded: no signal in the window
    assert not [e for e in await diff(deps, scope, before.isoformat(), before.isoformat())]
