"""Every model request of a watch check is in the cost ledger: stage
watch_check, charged to the watch and its run, written with the observation; the stand-in's
request count equals the ledger's calls plus the retries the gateway took, and the watch's
sum (`Watch.cost`) and the scope's ledger (`costLedger`) show them."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from graph.llm.ledger import CostLedger, call_totals
from tests.support import scripted_model as s
from tests.support.grounded_watch import Grounding, plain_check
from tests.support.scripted_model import ScriptedModelServer
from tests.support.watch_world import World

SINCE = datetime(2000, 1, 1, tzinfo=UTC)
UNTIL = datetime(2100, 1, 1, tzinfo=UTC)


async def test_a_watch_check_records_each_model_request_in_the_ledger(
    ctx: dict[str, Any], world: World, model_server: ScriptedModelServer
) -> None:
    state = await world.watch()
    ledger = CostLedger(world.repo.driver, world.repo.database)
    before = {(st, m): n for st, m, n, _, _ in await call_totals(ledger)}
    turns = Grounding()
    model_server.script(s.status(503), *plain_check(turns, world))
    report = await world.check(ctx, state, run_id="run-ledger")
    assert turns.misses == [] and report["outcome"] == "success"

    (cost,) = await ledger.of_watches([state.watch.watch_id])
    assert cost.calls == 3 and cost.retries == 1  # three rounds, the first retried once
    assert model_server.calls == cost.calls + cost.retries
    assert cost.prompt_tokens > 0 and cost.completion_tokens > 0

    lines = await ledger.in_scope(world.scope, SINCE, UNTIL)
    assert [(x.stage, x.watch_id, x.run_id, x.cost.calls) for x in lines] == [
        ("watch_check", state.watch.watch_id, "run-ledger", 3)
    ]
    after = {(st, m): n for st, m, n, _, _ in await call_totals(ledger)}
    key = ("watch_check", lines[0].model)
    assert after[key] - before.get(key, 0) == 3  # the /metrics totals count them too

    # a duplicate trigger of the same run asks nothing and records nothing more
    await world.check(ctx, state, run_id="run-ledger")
    assert (await ledger.of_watches([state.watch.watch_id]))[0].calls == 3
