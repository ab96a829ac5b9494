"""The per-scope agenda policy: versioned, read and edited by an operator (or an
admin); a save against a stale version is CONFLICT and writes nothing; a reader may not edit
it; scopes never share a policy."""

from __future__ import annotations

import pytest
from neo4j import AsyncDriver

from engine.errors import Conflict, Forbidden
from engine.principal import Principal
from engine.settings import Settings
from engine.signal.model import SignalKind
from jobs.deps import Deps
from jobs.signal.policy import PolicyEdit, agenda_policy, save_agenda_policy

OPERATOR = Principal("olga", frozenset({"*"}), frozenset({"operator"}))
READER = Principal("rita", frozenset({"*"}), frozenset({"reader"}))
EDIT = PolicyEdit(
    loop_enabled=True,
    owner_person_id="p_wangwu",
    owner_name="王五",
    owner_channel="feishu",
    act_on=frozenset({SignalKind.COMMITMENT, SignalKind.DIFFERENCE}),
)


async def test_an_operator_edits_the_policy_by_version_and_a_stale_save_is_a_conflict(
    neo4j_driver: AsyncDriver, services: Settings, scope: str
) -> None:
    deps = Deps(settings=services, driver=neo4j_driver, pool=None)  # type: ignore[arg-type]
    default = await agenda_policy(deps, OPERATOR, scope)
    assert default.policy.version == 1 and default.by == "" and default.policy.loop_enabled
    assert default.policy.question.act is False and default.policy.commitment.act

    saved = await save_agenda_policy(deps, OPERATOR, scope, EDIT, seen_version=1)
    assert saved.policy.version == 2 and saved.by == "olga"
    now = await agenda_policy(deps, OPERATOR, scope)
    assert now.policy.version == 2 and now.policy.owner_person_id == "p_wangwu"
    assert not now.policy.blocker.act and now.policy.difference.act and now.by == "olga"

    off = PolicyEdit(False, None, "", "", frozenset())
    with pytest.raises(Conflict):
        await save_agenda_policy(deps, OPERATOR, scope, off, seen_version=1)
    with pytest.raises(Forbidden):
        await save_agenda_policy(deps, READER, scope, off, seen_version=2)
    assert (await agenda_policy(deps, OPERATOR, scope)).policy == now.policy

    other = await agenda_policy(deps, OPERATOR, f"{scope}-other")
    assert other.policy.version == 1 and other.policy.owner_person_id is None
