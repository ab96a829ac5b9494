"""The five-minute tour (docs/getting-started/tour.md, linked from README) runs as written.

Every ```graphql block of the tour page is sent, in order and unchanged, to the real API (with a
real worker), as a reader pastes it into GraphiQL; the `sh` block of the tour (the MCP call)
is run with curl. The only edit is the reader's own: `<field.path>` stands for that value in
an earlier answer (`<raiseConcern.id>`). A block preceded by `<!-- expect: TEXT -->` must
answer TEXT; a query is asked again until it does (work the worker has still to do), with a
deadline. Any GraphQL error fails the tour.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest_asyncio
from neo4j import AsyncDriver
from redis.asyncio import Redis

from api.demo import load_into
from engine.settings import PROJECT_ROOT, Settings
from graph.story.repository import StoryRepository
from tests.support.polling import until
from tests.support.processes import Server

README = PROJECT_ROOT / "README.md"
TOUR = PROJECT_ROOT / "docs" / "getting-started" / "tour.md"
BLOCK = re.compile(
    r"(?:<!-- expect: (?P<expect>.+?) -->\n)?```(?P<lang>graphql|sh)\n(?P<body>.*?)```", re.S
)
PLACEHOLDER = re.compile(r"<([A-Za-z][A-Za-z0-9]*(?:\.[A-Za-z0-9_]+)+)>")
TOUR_SCOPES = ("tour", "demo")  # both removed after: no other test sees them


@dataclass(frozen=True)
class Block:
    lang: str
    body: str
    expect: str | None
    line: int


def tour_blocks() -> list[Block]:
    """The blocks of the tour page, in order."""
    text = TOUR.read_text(encoding="utf-8")
    return [
        Block(m["lang"], m["body"], m["expect"], text[: m.start()].count("\n") + 1)
        for m in BLOCK.finditer(text)
    ]


def test_the_tour_comes_right_after_the_two_commands() -> None:
    headings = [
        line for line in README.read_text(encoding="utf-8").splitlines() if line.startswith("## ")
    ]
    assert headings[:2] == ["## The two commands", "## A five-minute tour"], headings
    assert "(docs/getting-started/tour.md)" in README.read_text(encoding="utf-8")
    blocks = tour_blocks()
    assert sum(b.lang == "graphql" for b in blocks) >= 10
    for b in blocks:
        if b.lang == "graphql":  # a whole operation: no bare field pasted on its own
            assert b.body.lstrip().startswith(("{", "mutation {", "query")), b


def fill(body: str, answers: dict[str, Any]) -> str:
    def value(m: re.Match[str]) -> str:
        root, *path = m.group(1).split(".")
        assert root in answers, f"{m.group(0)}: no earlier answer has {root}"
        found: Any = answers[root]
        for key in path:
            found = found[int(key)] if isinstance(found, list) else found[key]
        return str(found)

    return PLACEHOLDER.sub(value, body)


def graphql(api: Server, body: str, answers: dict[str, Any]) -> str:
    answer = api.graphql(fill(body, answers)).json()
    assert "errors" not in answer, (body, answer["errors"])
    answers.update(answer["data"])
    return json.dumps(answer, ensure_ascii=False)


def shell(api: Server, body: str) -> str:
    command = body.replace("http://127.0.0.1:8000", api.url)
    assert command.startswith("curl "), command
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout


def run(api: Server, block: Block, answers: dict[str, Any]) -> str:
    ask = (lambda: shell(api, block.body)) if block.lang == "sh" else None
    if ask is None:
        body = block.body
        ask = lambda: graphql(api, body, answers)  # noqa: E731
    started = time.monotonic()
    repeatable = block.lang == "sh" or not block.body.lstrip().startswith("mutation")
    if block.expect and repeatable:  # work the worker has still to do: asked again
        expect = block.expect
        got = until(ask, lambda answer: expect in answer, f"tour line {block.line}")
    else:
        got = ask()
    assert block.expect is None or block.expect in got, (
        f"tour line {block.line}: wanted {block.expect!r} in {got[:1500]}"
    )
    print(f"tour line {block.line}: {time.monotonic() - started:.2f} s")
    return got


@pytest_asyncio.fixture
async def tour_world(neo4j_driver: AsyncDriver, services: Settings) -> AsyncIterator[None]:
    """What `make run` gives: the demo in scope `demo`, and no `tour` scope yet. The test
    Redis outlives a run: the scheduler scan the tour asks for (`concern-scan:tour:<now>`)
    is a keyed job whose result arq keeps an hour, so it is forgotten as on a fresh stack."""

    async def drop() -> None:
        for scope in TOUR_SCOPES:
            await neo4j_driver.execute_query(
                "MATCH (n {scope: $scope}) DETACH DELETE n",
                scope=scope,
                database_=services.neo4j_database,
            )

    await drop()
    client = Redis.from_url(services.effective_redis_url)
    async for key in client.scan_iter(match="arq:*concern-scan:tour:*"):
        await client.delete(key)
    await client.aclose()
    await load_into(StoryRepository(neo4j_driver, services.neo4j_database), "demo")
    yield
    await drop()


async def test_every_block_of_the_tour_runs_in_order(
    api: Server,
    worker: subprocess.Popen[bytes],
    tour_world: None,
) -> None:
    answers: dict[str, Any] = {}
    blocks = tour_blocks()
    try:
        for block in blocks:
            run(api, block, answers)
    finally:  # the tour turns the heartbeat app off itself; a failed tour must too
        api.graphql("mutation { setHeartbeatEnabled(enabled: false) { heartbeatEnabled } }")
    # what the tour tells the reader they will see
    assert answers["acceptSuggestion"]["status"] == "ACCEPTED"
    assert answers["setHeartbeatEnabled"]["heartbeatEnabled"] is False
    by_run = [
        s
        for s in answers["storyGraph"]["suggestions"]
        if s["by"]["id"] == answers["startReview"]["id"]
    ]
    assert by_run == [], "the offline rules describe nobody: no raw lines proposed"
    titles = [e["title"] for e in answers["storyGraph"]["events"]]
    assert "周三把联调报告发给老板" in titles, titles  # pushed as messages, reviewed
    assert not [t for t in titles if "：" in t or t.startswith("张三")], titles  # no speaker
    names = [e["name"] for e in answers["storyGraph"]["entities"]]
    assert names.count("张三") == 1, "the review reused the MAIN 张三"
    morning = answers["morning"]
    assert [e["title"] for e in morning["events"]] == ["老板委托询问 v2.0 提测时间"]
    assert len(answers["afternoon"]["events"]) == 4
