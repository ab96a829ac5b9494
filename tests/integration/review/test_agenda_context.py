"""What the agenda knows when it decides (docs/rules/story-graph.md): a difference
about who is responsible reaches the bound person the graph says is responsible (the relation's
person, or the person of a responsibility relation to the entity), never someone who merely
has the same name; a second signal about what an open concern covers supplements it; a
blocker is reported to the owner once through the concern outbox; and deciding a whole
publish costs three statements with no model anywhere. Real Neo4j."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio
from neo4j import AsyncDriver, AsyncManagedTransaction

from engine.clock import utcnow
from engine.principal import OPEN_PRINCIPAL, WORKER
from engine.settings import Settings
from engine.signal.derive import from_difference, from_fact
from engine.signal.model import DecisionKind, Passage, SignalDraft
from engine.signal.policy import AgendaPolicy
from engine.signal.stored import Signal
from jobs.concern.agenda import perform_effect
from jobs.concern.channel import OutboxChannel
from jobs.concern.commands import concern_messages, find
from jobs.concern.scheduler import deliver_outbox
from jobs.deps import Deps
from jobs.signal.bindings import bind_person
from jobs.signal.record import signal_store
from jobs.story import writes
from tests.support.counting_driver import CountingTx
from tests.support.review_jobs import count
from tests.support.story import cite, entity, relation, source

OWNER = AgendaPolicy(owner_person_id="p_owner", owner_name="老板", owner_channel="feishu")


@pytest_asyncio.fixture
async def deps(neo4j_driver: AsyncDriver, services: Settings) -> AsyncIterator[Deps]:
    """Effects run inline (no pool): what they write is read back directly."""
    yield Deps(settings=services, driver=neo4j_driver, pool=None, worker_id="test")


async def graph_of(deps: Deps, scope: str) -> tuple[str, str, str]:
    """张三 (a person) responsible for 支付模块, 李四 a person too: (张三, 支付模块, relation)."""
    await writes.upsert_source(deps, OPEN_PRINCIPAL, source(scope).model_dump())
    data = {
        "scope": scope,
        "key": "k-responsible",
        "entities": [
            entity("zs", "张三", kind="person", status="main"),
            entity("ls", "李四", kind="person", status="main"),
            entity("pay", "支付模块", status="main"),
        ],
        "relations": [relation("r1", "zs", "pay", "负责", references=[cite()])],
    }
    await writes.publish_result(deps, OPEN_PRINCIPAL, data)
    records, _, _ = await deps.driver.execute_query(
        "MATCH (v:EntityVersion {scope: $s}) RETURN v.name AS name, v.id AS id "
        "UNION MATCH (v:RelationVersion {scope: $s}) RETURN v.type AS name, v.id AS id",
        s=scope,
        database_=deps.settings.neo4j_database,
    )
    ids = {r["name"]: r["id"] for r in records}
    return ids["张三"], ids["支付模块"], ids["负责"]


def difference(kind: str, target: str, locator: str, proposed: str = "李四") -> SignalDraft:
    return from_difference(
        target_kind=kind,
        target_id=target,
        field="负责人",
        confirmed_value="张三",
        proposed_value=proposed,
        text=f"支付模块改由{proposed}负责",
        passage=Passage(source_id="conv-1", source_version="v1", locator=locator),
        said_at=None,
        who="李四",
    )


async def record(
    deps: Deps, scope: str, drafts: list[SignalDraft], statements: list[str] | None = None
) -> list[Signal]:
    store = signal_store(deps)

    async def work(tx: AsyncManagedTransaction) -> list[Signal]:
        counted = CountingTx(tx, statements if statements is not None else [])
        return await store.record_in(
            counted,  # type: ignore[arg-type]
            drafts,
            scope=scope,
            run_id="run-x",
            result_id="res-x",
            now=utcnow(),
            policy=OWNER,
        )

    return await store.write(work)


async def test_a_difference_reaches_the_bound_person_responsible_never_an_equal_name(
    deps: Deps, scope: str
) -> None:
    zhang, pay, rel = await graph_of(deps, scope)
    # 李四 said it, but nobody bound: nobody reachable
    [unbound] = await record(deps, scope, [difference("relation", rel, "chars:0-1")])
    assert (unbound.decision_kind, unbound.decision_reason) == (
        DecisionKind.IGNORED,
        "no reachable person",
    )
    await bind_person(deps, OPEN_PRINCIPAL, scope, zhang, person_id="p_zs", channel="feishu")
    statements: list[str] = []
    on_relation, on_entity = await record(
        deps,
        scope,
        [difference("relation", rel, "chars:1-2"), difference("entity", pay, "chars:2-3")],
        statements,
    )
    # the known ids, the context, the write: one statement each for the whole publish
    assert len(statements) == 3, statements
    for s in (on_relation, on_entity):
        assert s.decision_kind is DecisionKind.RAISED, s.decision_reason
        assert s.decision_concern_id == f"con-{s.id}"
    done = await perform_effect(deps, OPEN_PRINCIPAL, scope, on_relation.id)
    assert done.outcome == "raised"
    again = await perform_effect(deps, OPEN_PRINCIPAL, scope, on_relation.id)
    assert again.outcome == "already"
    concern = await find(deps, OPEN_PRINCIPAL, f"con-{on_relation.id}")
    assert concern is not None
    assert concern.goal == "确认负责人是张三还是李四"
    assert [p.person_id for p in concern.counterparts] == ["p_zs"]

    # a later signal about the same target and field: the open concern covers it
    [later] = await record(deps, scope, [difference("relation", rel, "chars:3-4", "王五")])
    assert later.decision_kind is DecisionKind.SUPPLEMENTED
    assert later.decision_concern_id == concern.concern_id
    supplemented = await perform_effect(deps, OPEN_PRINCIPAL, scope, later.id)
    assert supplemented.outcome == "supplemented"
    assert (
        await count(
            deps.driver,
            deps.settings,
            "MATCH (c:Concern) WHERE c.scope = $s RETURN count(c)",
            s=scope,
        )
        == 1
    )


async def test_a_blocker_is_reported_to_the_owner_once_through_the_outbox(
    deps: Deps, scope: str
) -> None:
    await writes.upsert_source(deps, OPEN_PRINCIPAL, source(scope).model_dump())
    draft = from_fact(
        "blocker",
        "张三：支付模块卡在第三方回调",
        Passage(source_id="conv-1", source_version="v1", locator="chars:0-5"),
        utcnow(),
        "Asia/Shanghai",
    )
    assert draft is not None
    [signal] = await record(deps, scope, [draft])
    assert signal.decision_kind is DecisionKind.REPORTED
    for _ in range(2):
        assert (await perform_effect(deps, OPEN_PRINCIPAL, scope, signal.id)).outcome == "reported"
    records, _, _ = await deps.driver.execute_query(
        "MATCH (o:OutboxMessage) WHERE o.key = $k "
        "RETURN o.recipient_person_id AS who, o.text AS text, o.kind AS kind",
        k=f"signal-report:{signal.id}",
        database_=deps.settings.neo4j_database,
    )
    assert [(r["who"], r["kind"]) for r in records] == [("p_owner", "report")]
    assert records[0]["text"] == "议程报告：张三提到一项阻塞：支付模块卡在第三方回调"
    # delivered like every report, in working hours, by the outbox's sender
    [row] = (await concern_messages(deps, OPEN_PRINCIPAL, scope, "p_owner", first=5)).items
    assert (row.concern_id, row.signal_id) == (None, signal.id)  # no concern was raised
    sent = await deliver_outbox(
        deps, WORKER, OutboxChannel(), None, key=row.key, now=row.deliver_at
    )
    assert sent.sent == [f"signal-report:{signal.id}"]
    [after] = (await concern_messages(deps, OPEN_PRINCIPAL, scope, "p_owner", first=5)).items
    assert after.status == "sent" and after.recipient_name == "老板"
