"""By default a concern messages only people its scope knows: raising one for a person never
registered (upsertPerson) nor bound is INVALID_INPUT and writes nothing; registered, the same
request is raised."""

from __future__ import annotations

import pytest
from arq.connections import ArqRedis
from neo4j import AsyncDriver

from engine.errors import InvalidInput
from engine.principal import WORKER
from engine.settings import Settings
from jobs.concern import commands
from tests.support.concern_jobs import T0, concern_deps, delegation, upsert_people_of


async def test_a_concern_for_people_the_scope_does_not_know_is_refused_by_default(
    neo4j_driver: AsyncDriver, settings: Settings, pool: ArqRedis, queue_name: str, scope: str
) -> None:
    deps = concern_deps(neo4j_driver, settings, pool, queue_name)
    ask = delegation()
    with pytest.raises(InvalidInput) as refused:
        await commands.raise_concern(deps, WORKER, ask, scope=scope, at=T0)
    assert "people[0].personId" in str(refused.value) and "upsertPerson" in str(refused.value)
    listed = await commands.list_concerns(deps, WORKER, scope, first=5, with_total=True)
    assert listed.total == 0

    await upsert_people_of(deps, scope, ask)
    raised = await commands.raise_concern(deps, WORKER, ask, scope=scope, at=T0)
    assert "p_zhangsan" in {p.person_id for p in raised.people}


async def test_an_operator_may_turn_the_check_off(
    neo4j_driver: AsyncDriver, settings: Settings, pool: ArqRedis, queue_name: str, scope: str
) -> None:
    """CONCERN_KNOWN_PEOPLE_ONLY=false: people and initiators are taken as given."""
    off = settings.model_copy(update={"concern_known_people_only": False})
    deps = concern_deps(neo4j_driver, off, pool, queue_name)
    raised = await commands.raise_concern(deps, WORKER, delegation(), scope=scope, at=T0)
    assert "p_zhangsan" in {p.person_id for p in raised.people}
