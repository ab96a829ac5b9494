"""GraphQL helpers for the concern e2e tests: raise, reply, run the scheduler, read what a
person received (sent outbox rows, in order) and the concern itself."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, Protocol

import httpx

from tests.support.polling import until


class Api(Protocol):
    def graphql(
        self,
        query: str,
        variables: dict | None = None,  # type: ignore[type-arg]
        token: str | None = None,
    ) -> httpx.Response: ...


MESSAGES = """query($scope: String!, $person: String!) {
  concernMessages(scope: $scope, personId: $person, status: ["sent"]) {
    totalCount edges { node { kind reportKinds text deliverAt status attempts channel } } } }"""
ADVANCE = """mutation($input: AdvanceConcernInput!) {
  advanceConcern(input: $input) { jobId enqueued concern { status revision } } }"""
RAISE = """mutation($input: RaiseConcernInput!) {
  raiseConcern(input: $input) { id status nextAction { when } } }"""
SCHEDULER = """mutation($now: DateTime!, $scope: String!) {
  runConcernScheduler(now: $now, scope: $scope) }"""
CONCERN = """query($id: ID!) { concern(id: $id) { status nextAction { when what }
  executions { outcome detail }
  conversation { direction personId text } } }"""


class ConcernClient:
    def __init__(self, api: Api, scope: str, t0: datetime) -> None:
        self.api, self.scope, self.t0 = api, scope, t0

    def at(self, minutes: float) -> str:
        return (self.t0 + timedelta(minutes=minutes)).isoformat()

    def gql(self, query: str, **variables: Any) -> dict[str, Any]:
        body = self.api.graphql(query, variables).json()
        assert "errors" not in body, body["errors"]
        return body["data"]  # type: ignore[no-any-return]

    def raise_(self, minute: float, **fields: Any) -> dict[str, Any]:
        data = {"scope": self.scope, "at": self.at(minute), **fields}
        register_people(self.gql, data)
        return self.gql(RAISE, input=data)["raiseConcern"]  # type: ignore[no-any-return]

    def reply(self, cid: str, person: str, words: str, minute: float) -> dict[str, Any]:
        return self.gql(
            ADVANCE,
            input={  # type: ignore[no-any-return]
                "concernId": cid,
                "personId": person,
                "text": words,
                "at": self.at(minute),
                "channel": "feishu",
                "messageId": f"{person}@{minute}",
            },
        )["advanceConcern"]

    def scheduler(self, minute: float) -> None:
        assert self.gql(SCHEDULER, now=self.at(minute), scope=self.scope)

    def concern(self, cid: str) -> dict[str, Any]:
        return self.gql(CONCERN, id=cid)["concern"]  # type: ignore[no-any-return]

    def sent_to(self, person: str) -> list[dict[str, Any]]:
        data = self.gql(MESSAGES, scope=self.scope, person=person)["concernMessages"]
        return [e["node"] for e in data["edges"]]

    def wait_for(self, person: str, count: int, timeout: float = 60) -> list[dict[str, Any]]:
        return until(
            lambda: self.sent_to(person),
            lambda got: len(got) >= count,
            f"{person} receiving {count} messages",
            timeout,
        )

    def wait_revision(self, cid: str, predicate: Any, timeout: float = 60) -> dict[str, Any]:
        return until(lambda: self.concern(cid), predicate, f"concern {cid}", timeout)


UPSERT_PERSON = "mutation($i: PersonInput!) { upsertPerson(input: $i) { personId } }"


def people_to_register(raise_input: dict[str, Any]) -> list[dict[str, Any]]:
    """PersonInput of everyone a raiseConcern input names (its people and its initiator's
    personId): a concern messages only people its scope knows (engine/concern/recipients.py)."""
    scope = raise_input["scope"]
    people = {
        p.get("personId") or p["person_id"]: p.get("displayName") or p.get("display_name", "")
        for p in raise_input.get("people", [])
    }
    ini = raise_input.get("initiator") or {}
    pid = ini.get("personId") or ini.get("person_id")
    if pid:
        people.setdefault(pid, ini.get("name", pid))
    return [{"scope": scope, "personId": pid, "displayName": name} for pid, name in people.items()]


def register_people(call: Callable[..., object], raise_input: dict[str, Any]) -> None:
    """upsertPerson, through `call(query, **variables)`, everyone `raise_input` names."""
    for person in people_to_register(raise_input):
        call(UPSERT_PERSON, i=person)
