"""Data for graph view page tests: a large scope written through `publishResult`; opening
the view and moving its slider as a person does (also used by `bench/graph_view.py`).

The scale  (1,000 entities, 2,000 relations, 600 events) is written as a few big
results, one per batch, so the scope has one record moment per batch for the replay slider.
Each batch's relations join its own entities; its events fall on a few days each, so the
time ring has dense days to aggregate.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

from playwright.async_api import Page

from tests.support.processes import Server

PUBLISH = """mutation($input: PublishResultInput!) {
  publishResult(input: $input) { result { id recordedAt } repeat } }"""

START = datetime(2026, 1, 5, 9, 0, tzinfo=timezone(timedelta(hours=8)))


def large_batch(scope: str, batch: int, *, entities: int, relations: int, events: int) -> dict:  # type: ignore[type-arg]
    rnd = random.Random(batch)
    names = [f"实体 {batch}-{i} Entity" for i in range(entities)]
    ent = [
        {
            "ref": f"e{i}",
            "name": name,
            "kind": ("person", "module", "task")[i % 3],
            "description": f"{name} 的描述 (batch {batch})",
        }
        for i, name in enumerate(names)
    ]
    pairs: set[tuple[int, int]] = set()
    while len(pairs) < relations:
        a, b = rnd.randrange(entities), rnd.randrange(entities)
        if a != b:
            pairs.add((a, b))
    rel = [
        {
            "ref": f"r{k}",
            "from": f"e{a}",
            "to": f"e{b}",
            "type": ("依赖", "负责", "影响")[k % 3],
            "reason": f"理由 {batch}-{k}",
        }
        for k, (a, b) in enumerate(sorted(pairs))
    ]
    day0 = START + timedelta(days=batch * 15)
    evs, changes = [], []
    for k in range(events):
        # a few dense days per batch: 10 events on each of events/10 days
        at = day0 + timedelta(days=k // 10, minutes=7 * (k % 10))
        evs.append({"ref": f"v{k}", "title": f"事件 {batch}-{k}", "at": at.isoformat()})
        for j in range(2):
            changes.append(
                {"event": f"v{k}", "entity": f"e{(k * 2 + j) % entities}", "kind": "PROPOSED"}
            )
    return {
        "scope": scope,
        "key": f"large-{batch}",
        "entities": ent,
        "relations": rel,
        "events": evs,
        "changes": changes,
    }


def publish_large_scope(
    api: Server,
    scope: str,
    *,
    entities: int = 1000,
    relations: int = 2000,
    events: int = 600,
    batches: int = 4,
) -> list[str]:
    """Publish the scope in `batches` results; returns their record times."""
    moments = []
    for b in range(batches):
        body = large_batch(
            scope,
            b,
            entities=entities // batches,
            relations=relations // batches,
            events=events // batches,
        )
        answer = api.graphql(PUBLISH, {"input": body}).json()
        assert "errors" not in answer, answer["errors"]
        moments.append(answer["data"]["publishResult"]["result"]["recordedAt"])
    return moments


async def open_view(page: Page, url: str) -> None:
    await page.goto(url, wait_until="load")
    await page.wait_for_function("() => window.viz && window.viz.ready", timeout=20_000)


async def move_slider(page: Page, index: int) -> float:
    """Move the slider as a person does (an input event) and return ms until painted."""
    return float(
        await page.evaluate(
            """async (i) => {
              const s = document.getElementById('moment'), t = performance.now();
              s.value = String(i); s.dispatchEvent(new Event('input', { bubbles: true }));
              while (viz.renderedMoment !== i) await new Promise(r => requestAnimationFrame(r));
              await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
              return performance.now() - t;
            }""",
            index,
        )
    )
