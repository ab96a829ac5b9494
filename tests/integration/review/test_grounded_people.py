"""The extraction request carries what a real model needs and the product holds the answer to
it (docs/rules/story-graph.md).

With the prompt-grounded stand-in, a leaf request carries the segment's text and the known
people (the scope's stored person entities the text names, with their ids), and the answer
names the stored 张三 by the id the request listed — withhold the people list and the stand-in
answers with a new 张三, so the first test fails. An answer naming an id the request did not
offer is rejected: the run fails at the leaves stage with the answer kept, and nothing is
published.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from neo4j import AsyncDriver

from engine.clock import utcnow
from engine.review.types import Scope
from engine.story.inputs import PublishResultInput, parse_input
from engine.story.models import Actor
from jobs.deps import Deps
from jobs.review.common import runs_of
from jobs.review.runs import Opened, open_run
from jobs.story.common import story_repo
from tests.support.grounded_review import leaf_requests, review_answer
from tests.support.review_jobs import BASE, push_conversation, run_worker
from tests.support.scripted_model import ScriptedModelServer, text

LINE = f"[{BASE.isoformat()}] 王五: 张三负责支付模块，李四周四交接\n"


async def seed(deps: Deps, scope: str, name: str, kind: str) -> str:
    published = await story_repo(deps).publish_result(
        parse_input(
            PublishResultInput,
            {
                "scope": scope,
                "key": f"seeded-{name}",
                "entities": [{"ref": "x", "name": name, "kind": kind, "status": "main"}],
            },
        ),
        by=Actor.run("seed"),
        now=utcnow(),
    )
    [entity] = published.plan.entities
    return entity.id


async def review(deps: Deps, scope: str, start: datetime) -> str:
    got = await open_run(deps, Scope.projects(scope), interval=(start, BASE + timedelta(days=1)))
    assert isinstance(got, Opened)
    await run_worker(deps.settings)
    return got.run.run_id


async def test_the_leaf_request_carries_the_text_and_the_known_people_by_id(
    deps: Deps, model_server: ScriptedModelServer, scope: str
) -> None:
    zhang = await seed(deps, scope, "张三", "person")
    payment = await seed(deps, scope, "支付模块", "other")
    model_server.answer_with(review_answer)
    await push_conversation(deps, scope, "chat-1", LINE)
    run = (await runs_of(deps).get(await review(deps, scope, BASE - timedelta(hours=1)))).run
    assert run.result_id, run.error

    [sent] = leaf_requests(model_server)
    assert "张三负责支付模块，李四周四交接" in "".join(s["text"] for s in sent["segments"])
    assert sent["known_people"] == [{"id": zhang, "name": "张三", "aliases": []}]
    assert payment in {k["id"] for k in sent["known_entities"]}  # a thing is no person
    result = await story_repo(deps).result(scope, run.result_id)
    by_name = {m.mention.name: m.mention.entity_id for m in result.mentions}
    assert by_name["张三"] == zhang  # the stored person, by the id the request listed
    assert "李四" not in by_name  # nobody stored: no id to give, and the stand-in never guesses


async def test_an_answer_naming_a_person_the_request_did_not_offer_is_rejected(
    deps: Deps, model_server: ScriptedModelServer, neo4j_driver: AsyncDriver, scope: str
) -> None:
    try:
        await rejected(deps, model_server, scope)
    finally:
        await neo4j_driver.execute_query(
            "MATCH (n {scope: $scope}) DETACH DELETE n",
            scope=f"{scope}-x",
            database_=deps.settings.neo4j_database,
        )


async def rejected(deps: Deps, model_server: ScriptedModelServer, scope: str) -> None:
    elsewhere = await seed(deps, f"{scope}-x", "张三", "person")  # not this scope's
    invented = {
        "facts": [{"text": "王五：张三负责支付模块", "entities": ["p0"]}],
        "entities": [{"ref": "p0", "name": "张三", "kind": "person", "id": elsewhere}],
        "summary": "1",
    }
    model_server.script(text(json.dumps(invented, ensure_ascii=False)))
    await push_conversation(deps, scope, "chat-1", LINE)
    run = (await runs_of(deps).get(await review(deps, scope, BASE - timedelta(hours=1)))).run

    [sent] = leaf_requests(model_server)
    assert sent["known_people"] == []  # nobody of this scope is known yet
    assert run.result_id is None and run.error is not None
    assert run.error.kind.value == "validation" and run.error.stage.value == "leaves"
    assert elsewhere in run.error.message and "was not offered" in run.error.message
    assert run.error.raw_output is not None and elsewhere in run.error.raw_output
