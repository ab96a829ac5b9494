"""`Reference.excerpt` reads every cited version a response asks for in one query (a
per-request DataLoader), and still never shows today's text for an unrecoverable version."""

from __future__ import annotations

from typing import Any

from neo4j import AsyncDriver

from api.context import Context
from api.schema import build_schema
from engine.clock import utcnow
from engine.principal import OPEN_PRINCIPAL
from engine.settings import Settings
from engine.story.inputs import PublishResultInput, SourceInput
from engine.story.models import Actor
from graph.story.repository import StoryRepository
from tests.support.counting_driver import CountingDriver

GRAPH = """query($s: String!) { storyGraph(scope: $s) {
  references { sourceVersion locator excerpt { available text warning } } } }"""


async def publish(repo: StoryRepository, scope: str, n: int) -> None:
    lines = "\n".join(f"第{i}行" for i in range(1, 11))
    await repo.upsert_source(
        SourceInput.model_validate(
            {
                "scope": scope,
                "id": "chat",
                "kind": "conversation",
                "version": "v2",
                "text": lines,
                "previous": [{"version": "v1", "text": None}],
            }
        ),
        now=utcnow(),
    )
    refs = [
        {"source_id": "chat", "source_version": "v2", "locator": f"lines:{i}-{i}"}
        for i in range(1, n)
    ] + [{"source_id": "chat", "source_version": "v1", "locator": "lines:1-1"}]
    await repo.publish_result(
        PublishResultInput.model_validate(
            {
                "scope": scope,
                "key": f"k{n}",
                "events": [
                    {
                        "ref": "e",
                        "title": "事件",
                        "at": "2026-03-17T10:00:00+08:00",
                        "references": refs,
                    }
                ],
            }
        ),
        by=Actor.run("r"),
        now=utcnow(),
    )


async def cost(
    driver: AsyncDriver, settings: Settings, scope: str
) -> tuple[int, list[dict[str, Any]]]:
    counting = CountingDriver(driver)
    context = Context(
        request=None,
        settings=settings,
        driver=counting,  # type: ignore[arg-type]
        pool=None,
        principal=OPEN_PRINCIPAL,
    )  # type: ignore[arg-type]
    result = await build_schema().execute(
        GRAPH, variable_values={"s": scope}, context_value=context
    )
    assert result.errors is None, result.errors
    assert result.data is not None
    excerpt_queries = [q for q in counting.queries if "Reference.excerpt" in q]
    return len(excerpt_queries), result.data["storyGraph"]["references"]


async def test_excerpts_cost_one_query_for_two_or_eight_references(
    neo4j_driver: AsyncDriver, settings: Settings, scope: str
) -> None:
    repo = StoryRepository(neo4j_driver, settings.neo4j_database)
    await publish(repo, scope, 2)
    small, two = await cost(neo4j_driver, settings, scope)
    await publish(repo, scope, 8)
    large, ten = await cost(neo4j_driver, settings, scope)
    assert len(two) == 2 and len(ten) == 10
    assert small == large == 1
    by_locator = {(r["sourceVersion"], r["locator"]): r["excerpt"] for r in ten}
    assert by_locator[("v2", "lines:3-3")] == {"available": True, "text": "第3行", "warning": None}
    gone = by_locator[("v1", "lines:1-1")]
    assert gone["available"] is False and gone["text"] is None and "不可恢复" in gone["warning"]
