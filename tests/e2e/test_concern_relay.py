"""An agenda token cannot use concerns as a message relay: by default (this server sets no
CONCERN_KNOWN_PEOPLE_ONLY) recipients and initiators are people the scope knows, on the
channels the deployment allows; a scope's new concerns may name only so many people an hour;
every concern action records the token that asked."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from tests.support.processes import Server

AGENDA = "t-agenda"
RAISE = """mutation($i: RaiseConcernInput!) { raiseConcern(input: $i) {
  id timeline { type by } } }"""
PERSON = "mutation($i: PersonInput!) { upsertPerson(input: $i) { personId } }"
PRIORITY = """mutation($i: ChangeConcernPriorityInput!) { changeConcernPriority(input: $i) {
  timeline { type by } } }"""
ADVANCE = """mutation($i: AdvanceConcernInput!) { advanceConcern(input: $i) {
  concern { revision } } }"""
CONCERN = "query($id: ID!) { concern(id: $id) { conversation { personId recordedBy } } }"
COUNT = "query($s: String!) { concerns(scope: $s, first: 5) { totalCount } }"


@pytest.fixture(scope="module")
def guarded(start_server) -> tuple[Server, str]:  # type: ignore[no-untyped-def]
    name = f"hub-{uuid.uuid4().hex[:6]}"
    tokens = [{"token": AGENDA, "name": name, "scopes": ["*"], "roles": ["agenda", "reader"]}]
    api = start_server(
        API_TOKENS=json.dumps(tokens),
        CONCERN_CHANNELS='["feishu", "telegram"]',
        CONCERN_RECIPIENTS_PER_HOUR="3",
    )
    return api, name


def call(api: Server, query: str, **variables: Any) -> dict[str, Any]:
    return api.graphql(query, variables, token=AGENDA).json()  # type: ignore[no-any-return]


def critical_schedule(scope: str, person: str, channel: str = "feishu") -> dict[str, Any]:
    return {
        "scope": scope,
        "type": "SCHEDULE",
        "priority": "CRITICAL",
        "title": "提醒",
        "goal": "发出提醒",
        "trigger": {"nextRunAt": "2035-01-01T00:00:00Z", "mode": "DIRECT"},
        "people": [{"personId": person, "displayName": "x", "lastChannel": channel}],
    }


def test_a_concern_for_an_unknown_address_is_refused_and_writes_nothing(
    guarded: tuple[Server, str],
) -> None:
    api, _ = guarded
    scope = f"relay-{uuid.uuid4().hex[:8]}"
    refused = call(api, RAISE, i=critical_schedule(scope, "sms:+15550100"))
    error = refused["errors"][0]
    assert error["extensions"]["code"] == "INVALID_INPUT", refused
    assert "people[0].personId" in error["message"]
    ini = {"name": "x", "channel": "telegram", "channelUserId": "+15550100"}
    by_initiator = call(api, RAISE, i={**critical_schedule(scope, "p1"), "initiator": ini})
    assert by_initiator["errors"][0]["extensions"]["code"] == "INVALID_INPUT", by_initiator
    call(api, PERSON, i={"scope": scope, "personId": "p1", "displayName": "甲"})
    off_channel = call(api, RAISE, i=critical_schedule(scope, "p1", channel="sms"))
    assert "lastChannel" in off_channel["errors"][0]["message"], off_channel
    assert call(api, COUNT, s=scope)["data"]["concerns"]["totalCount"] == 0


def test_a_known_person_is_messaged_and_every_action_names_the_token(
    guarded: tuple[Server, str],
) -> None:
    api, name = guarded
    scope = f"relay-{uuid.uuid4().hex[:8]}"
    call(api, PERSON, i={"scope": scope, "personId": "p1", "displayName": "甲"})
    raised = call(api, RAISE, i=critical_schedule(scope, "p1"))["data"]["raiseConcern"]
    assert raised["timeline"][0]["by"] == name, raised
    changed = call(api, PRIORITY, i={"concernId": raised["id"], "priority": "LOW"})
    assert changed["data"]["changeConcernPriority"]["timeline"][-1]["by"] == name, changed
    reply = {"concernId": raised["id"], "personId": "p1", "text": "好的", "channel": "feishu"}
    assert "errors" not in call(api, ADVANCE, i=reply)
    log = call(api, CONCERN, id=raised["id"])["data"]["concern"]["conversation"]
    assert {"personId": "p1", "recordedBy": name} in log, log


def test_a_scope_has_an_hourly_allowance_of_people_to_message(
    guarded: tuple[Server, str],
) -> None:
    api, _ = guarded
    scope = f"relay-{uuid.uuid4().hex[:8]}"
    call(api, PERSON, i={"scope": scope, "personId": "p1", "displayName": "甲"})
    for _ in range(3):
        assert "errors" not in call(api, RAISE, i=critical_schedule(scope, "p1"))
    over = call(api, RAISE, i=critical_schedule(scope, "p1"))
    assert over["errors"][0]["extensions"]["code"] == "RATE_LIMITED", over
    assert call(api, COUNT, s=scope)["data"]["concerns"]["totalCount"] == 3
