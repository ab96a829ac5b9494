"""Story test helpers: small input builders, a clock that moves one minute per call, and a
count of what a scope holds in Neo4j (to prove that a refused write wrote nothing)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from neo4j import AsyncDriver

from engine.story.inputs import PublishResultInput, SourceInput
from engine.story.models import Actor

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
RUN = Actor.run("run-1")
ALICE = Actor.user("u-zhangsan")


def at(hours: float) -> datetime:
    return T0 + timedelta(hours=hours)


def source(scope: str, source_id: str = "conv-1", version: str = "v1", **kw: Any) -> SourceInput:
    return SourceInput.model_validate(
        {
            "scope": scope,
            "id": source_id,
            "kind": "conversation",
            "version": version,
            "text": kw.pop("text", f"{source_id} {version}: 张三说支付回调明天联调"),
            **kw,
        }
    )


def cite(
    source_id: str = "conv-1", version: str = "v1", locator: str = "chars:0-8"
) -> dict[str, str]:
    return {"source_id": source_id, "source_version": version, "locator": locator}


def entity(ref: str, name: str, **kw: Any) -> dict[str, Any]:
    return {"ref": ref, "name": name, **kw}


def relation(ref: str, a: str, b: str, type_: str = "depends_on", **kw: Any) -> dict[str, Any]:
    return {"ref": ref, "from": a, "to": b, "type": type_, **kw}


def publish(scope: str, key: str, **parts: Any) -> PublishResultInput:
    return PublishResultInput.model_validate({"scope": scope, "key": key, **parts})


def two_people(scope: str, key: str, **extra: Any) -> PublishResultInput:
    """张三 and 李四 with a suggested relation, an event and a change, citing conv-1@v1."""
    return publish(
        scope,
        key,
        events=[{"ref": "e1", "title": "提测会议", "at": T0, "references": [cite()]}],
        entities=[
            entity("zs", "张三", kind="person", description="测试负责人", status="main"),
            entity("ls", "李四", kind="person", status="main"),
        ],
        changes=[{"event": "e1", "entity": "zs", "kind": "proposed", "references": [cite()]}],
        relations=[
            relation("r1", "zs", "ls", "works_with", reason="一起提测", references=[cite()])
        ],
        **extra,
    )


class StepClock:
    """Each call returns a later time, so record times are strictly increasing."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(minutes=1)
        return self.now


async def scope_counts(driver: AsyncDriver, database: str, scope: str) -> dict[str, int]:
    records, _, _ = await driver.execute_query(
        "MATCH (n {scope: $scope}) UNWIND labels(n) AS label "
        "RETURN label, count(*) AS n ORDER BY label",
        scope=scope,
        database_=database,
    )
    return {r["label"]: r["n"] for r in records}
