"""Tenant isolation over every root field (docs/architecture/index.md).

Scope B is seeded with an admin token: sources, a published result (entities, relations, a
pending suggestion), a library entry, a person, a concern, a watch, a heartbeat round, a plan,
a heartbeat run and a failed supervision run whose raw model output carries B's marker. Then a
token limited to scope A, with every role short of admin, calls each root Query, Mutation and
Subscription field (found by introspection) against B's data. The table below says how each
field is called and what it must answer; a root field without an entry fails the test, so a
new field cannot ship without saying how it is isolated.

Expectations:
- HIDDEN: an object of B reads exactly like a missing id (same answer, ids aside).
- REFUSED: a scope argument the token cannot use is FORBIDDEN or NOT_FOUND.
- ADMIN: an all-scope operation is FORBIDDEN without `admin`.
- LISTS: answers (no errors) that hold nothing of B.
- OPEN: not scoped; may answer anything but must not leak.
Every answer is searched for B's scope name, marker strings and object ids; after all the
attempts, B's data read with the admin token is unchanged, and so is every node of B (its
heartbeat and supervision runs, watch rounds and runs, document and note sources, concern,
outbox, library entry: `tests/support/isolation_snapshot.py`) and every job of the
deployment's queue that names B. A worker runs on that queue throughout, so a job an attack
slipped in would run and change B's nodes; both snapshots are taken once it has drained.
"""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import Enum
from typing import Any

import httpx
import pytest
import pytest_asyncio
import redis
import redis.asyncio as aioredis
import websockets
from neo4j import AsyncDriver, AsyncManagedTransaction

from engine.review import heartbeat as hb
from engine.review import lifecycle as lc
from engine.review.types import Scope, StageName, Trigger
from engine.settings import Settings
from graph.review.codec import RunOptions
from graph.review.heartbeats import HeartbeatRuns
from graph.review.runs import SupervisionRuns
from jobs.past_epoch import counter_key
from jobs.worker import CRON_JOBS
from tests.support.isolation_snapshot import (
    all_jobs,
    drained,
    queue_jobs,
    redis_keys,
    scope_nodes,
    unexplained,
)
from tests.support.js_clients import SseSubscription
from tests.support.polling import until
from tests.support.processes import Server, forget_queue, process_env, spawn, stop

ADMIN, P1 = "iso-admin-token", "iso-p1-token"
P1_NAME = "iso-app"
T0 = datetime(2026, 9, 1, 8, 0, tzinfo=UTC)


class Expect(Enum):
    HIDDEN = "reads like a missing id"
    REFUSED = "refused (FORBIDDEN or NOT_FOUND)"
    ADMIN = "needs admin (FORBIDDEN)"
    LISTS = "answers without B's items"
    OPEN = "unscoped, leaks nothing"


@dataclass
class Seed:
    """Scope B's objects (seeded by admin) and the attacker's own scope A."""

    a: str
    b: str
    marker: str
    library: str
    entity: str = ""
    relation: str = ""
    suggestion: str = ""
    result: str = ""
    concern: str = ""
    watch: str = ""
    own_watch: str = ""
    plan: str = ""
    run: str = ""
    heartbeat: str = ""
    round: str = ""
    save_preview: str = ""
    talk_preview: str = ""
    unknown: str = field(default_factory=lambda: f"unknown-{uuid.uuid4().hex[:10]}")

    def secrets(self) -> list[str]:
        """Strings of B that no answer to the A token may contain."""
        ids = [self.entity, self.relation, self.suggestion, self.result, self.concern,
               self.watch, self.plan, self.run, self.heartbeat]  # fmt: skip
        return [self.b, self.marker, *[i for i in ids if i]]


Vars = Callable[[Seed], dict[str, Any]]


@dataclass(frozen=True)
class Case:
    query: str
    variables: Vars
    expect: Expect
    # HIDDEN: the variable holding B's id, replaced by an unknown id for the comparison call
    hidden: str = ""


def case(query: str, expect: Expect, variables: Vars | None = None, hidden: str = "") -> Case:
    return Case(query, variables or (lambda s: {}), expect, hidden)


H, R, A, L, OPEN = Expect.HIDDEN, Expect.REFUSED, Expect.ADMIN, Expect.LISTS, Expect.OPEN


def relation_cases(name: str) -> list[Case]:
    q = f"mutation($s: String!, $id: ID!) {{ {name}(scope: $s, id: $id) {{ id confirmation }} }}"
    return [
        case(q, R, lambda s: {"s": s.b, "id": s.relation}),
        case(q, H, lambda s: {"s": s.a, "id": s.relation}, hidden="id"),
    ]


def suggestion_cases(name: str) -> list[Case]:
    q = f"mutation($s: String!, $id: ID!) {{ {name}(scope: $s, id: $id) {{ id status }} }}"
    return [
        case(q, R, lambda s: {"s": s.b, "id": s.suggestion}),
        case(q, H, lambda s: {"s": s.a, "id": s.suggestion}, hidden="id"),
    ]


def watch_cases(
    name: str, tail: str = "{ id }", args: str = "id: $id", extra: str = "",
    values: dict[str, Any] | None = None, id_type: str = "ID!",
) -> list[Case]:  # fmt: skip
    q = f"mutation($s: String!, $id: {id_type}{extra}) {{ {name}(scope: $s, {args}) {tail} }}"
    more = values or {}
    return [
        case(q, R, lambda s: {"s": s.b, "id": s.watch, **more}),
        case(q, H, lambda s: {"s": s.a, "id": s.watch, **more}, hidden="id"),
    ]


def run_cases(name: str) -> list[Case]:
    q = f"mutation($id: String!) {{ {name}(id: $id) {{ id status }} }}"
    return [case(q, H, lambda s: {"id": s.run}, hidden="id")]


def concern_cases(name: str, input_: Callable[[Seed, str], dict[str, Any]], gql_type: str
                  ) -> list[Case]:  # fmt: skip
    q = f"mutation($i: {gql_type}!) {{ {name}(input: $i) {{ jobId concern {{ id }} }} }}"
    return [case(q, H, lambda s: {"i": input_(s, s.concern)}, hidden="i.concernId")]


def result_input(scope: str, key: str, marker: str, entity_id: str | None = None
                 ) -> dict[str, Any]:  # fmt: skip
    pay: dict[str, Any] = {"ref": "pay", "name": f"支付模块 {marker}", "status": "MAIN",
                           "description": f"后端支付 {marker}"}  # fmt: skip
    if entity_id:
        pay = {**pay, "id": entity_id, "description": f"自动整理 {marker}"}
    return {
        "scope": scope,
        "key": key,
        "events": [
            {
                "ref": "e1",
                "title": f"卡在回调 {marker}",
                "at": "2026-03-17T13:20:00+08:00",
                "references": [{"sourceId": "chat", "sourceVersion": "v1", "locator": "lines:1-1"}],
            }
        ],  # fmt: skip
        "entities": [pay, {"ref": "cb", "name": f"回调接口 {marker}", "status": "MAIN"}],
        "changes": [{"event": "e1", "entity": "pay", "kind": "REVISED"}],
        "relations": [
            {
                "ref": "r1",
                "from": "pay",
                "to": "cb",
                "type": "blocked_by",
                "reason": f"沙箱未到 {marker}",
            }
        ],  # fmt: skip
    }


def plan_input(scope: str, config_id: str | None = None) -> dict[str, Any]:
    return {"configId": config_id, "name": "iso plan", "scope": {"projectIds": [scope]},
            "everySeconds": 3600.0, "anchor": T0.isoformat(), "windowSeconds": 3600.0}  # fmt: skip


def note_binding(note: str) -> dict[str, Any]:
    return {"kind": "note", "noteId": note, "title": "笔记"}


def doc_binding(project: str, library: str) -> dict[str, Any]:
    return {"kind": "knowledge_document", "project": project, "libraryId": library,
            "documentId": "doc", "title": "文档"}  # fmt: skip


ENTRIES = "{ totalCount edges { node { id } } }"

TABLE: dict[str, list[Case]] = {
    # --- queries ---------------------------------------------------------------------------
    "health": [case("{ health { neo4j redis } }", OPEN)],
    "workerProbe": [
        case(
            "query($id: ID!) { workerProbe(id: $id) { id note } }",
            OPEN,
            lambda s: {"id": s.unknown},
        )
    ],  # fmt: skip
    "storyGraph": [
        case(
            "query($s: String!) { storyGraph(scope: $s) { entities { id name } } }",
            R,
            lambda s: {"s": s.b},
        )
    ],  # fmt: skip
    "storyGraphDiff": [
        case(
            "query($s: String!, $t: DateTime!) { storyGraphDiff(scope: $s, since: $t) {"
            " edges { node { objectId change fields { field before after } } } } }",
            R,
            lambda s: {"s": s.b, "t": "2000-01-01T00:00:00Z"},
        )
    ],  # fmt: skip
    "search": [
        case(
            "query($s: String!, $t: String!) { search(scope: $s, text: $t) "
            "{ edges { node { id passage } } } }",
            R,
            lambda s: {"s": s.b, "t": s.marker},
        ),
        case(
            "query($s: String!, $t: String!) { search(scope: $s, text: $t) "
            "{ totalCount edges { node { id passage } } } }",
            L,
            lambda s: {"s": s.a, "t": f"回调 支付 {s.marker}"},
        ),
    ],  # fmt: skip
    "inbox": [
        case(
            "query($s: String!) { inbox(scope: $s) { edges { node { kind proposedValue"
            " evidence { locator } } } } }",
            R,
            lambda s: {"s": s.b},
        )
    ],  # fmt: skip
    "inboxCounts": [
        case("query($s: String!) { inboxCounts(scope: $s) { total } }", R, lambda s: {"s": s.b})
    ],  # fmt: skip
    "costLedger": [
        case(
            "query($s: String!, $t: DateTime!) { costLedger(scope: $s, from: $t) {"
            " total { calls tokens } lines(first: 5) { totalCount edges { node { runId stage } } } } }",
            R,
            lambda s: {"s": s.b, "t": "2000-01-01T00:00:00Z"},
        )
    ],  # fmt: skip
    "graphView": [
        case(
            "query($s: String!) { graphView(scope: $s) { nodes { label } } }",
            R,
            lambda s: {"s": s.b},
        )
    ],  # fmt: skip
    "graphReplay": [
        case("query($s: String!) { graphReplay(scope: $s) { tables } }", R, lambda s: {"s": s.b})
    ],  # fmt: skip
    "entity": [
        case(
            "query($s: String!, $id: ID!) { entity(scope: $s, id: $id) { entity { name } } }",
            R,
            lambda s: {"s": s.b, "id": s.entity},
        ),
        case(
            "query($s: String!, $id: ID!) { entity(scope: $s, id: $id) { entity { name } } }",
            H,
            lambda s: {"s": s.a, "id": s.entity},
            hidden="id",
        ),
    ],  # fmt: skip
    "storyObjects": [
        case(
            "query($s: String!, $id: ID!) { storyObjects(scope: $s, ids: [$id]) {"
            " entities { id name } relations { id } references { id } } }",
            R,
            lambda s: {"s": s.b, "id": s.entity},
        ),
        case(
            "query($s: String!, $id: ID!) { storyObjects(scope: $s, ids: [$id]) {"
            " entities { id name } relations { id } references { id } } }",
            L,
            lambda s: {"s": s.a, "id": s.entity},
        ),
    ],  # fmt: skip
    "result": [
        case(
            "query($s: String!, $id: ID!) { result(scope: $s, id: $id) { result { id } } }",
            R,
            lambda s: {"s": s.b, "id": s.result},
        ),
        case(
            "query($s: String!, $id: ID!) { result(scope: $s, id: $id) { result { id } } }",
            H,
            lambda s: {"s": s.a, "id": s.result},
            hidden="id",
        ),
    ],  # fmt: skip
    "entities": [
        case(f"query($s: String!) {{ entities(scope: $s) {ENTRIES} }}", R, lambda s: {"s": s.b})
    ],  # fmt: skip
    "relations": [
        case(f"query($s: String!) {{ relations(scope: $s) {ENTRIES} }}", R, lambda s: {"s": s.b})
    ],  # fmt: skip
    "events": [
        case(f"query($s: String!) {{ events(scope: $s) {ENTRIES} }}", R, lambda s: {"s": s.b})
    ],  # fmt: skip
    "agendaPolicy": [
        case(
            "query($s: String!) { agendaPolicy(scope: $s) { version ownerName } }",
            R,
            lambda s: {"s": s.b},
        )
    ],  # fmt: skip
    "saveAgendaPolicy": [
        case(
            "mutation($s: String!) { saveAgendaPolicy(scope: $s, seenVersion: 1,"
            " policy: {loopEnabled: false, actOn: []}) { version } }",
            R,
            lambda s: {"s": s.b},
        )
    ],  # fmt: skip
    "signals": [
        case(
            "query($s: String!) { signals(scope: $s) { edges { node { id what } } } }",
            R,
            lambda s: {"s": s.b},
        )
    ],  # fmt: skip
    "signal": [
        case(
            "query($s: String!, $id: ID!) { signal(scope: $s, id: $id) { id what } }",
            R,
            lambda s: {"s": s.b, "id": "sig-any"},
        ),
        case(
            "query($s: String!, $id: ID!) { signal(scope: $s, id: $id) { id what } }",
            H,
            lambda s: {"s": s.a, "id": "sig-any"},
            hidden="id",
        ),
    ],  # fmt: skip
    "personBindings": [
        case(
            "query($s: String!) { personBindings(scope: $s) { edges { node { id personId } } } }",
            R,
            lambda s: {"s": s.b},
        )
    ],  # fmt: skip
    "bindPerson": [
        case(
            "mutation($s: String!, $id: String!) { bindPerson(scope: $s, entityId: $id,"
            ' personId: "p_attack", channel: "feishu") { id } }',
            R,
            lambda s: {"s": s.b, "id": s.entity},
        ),
        case(
            "mutation($s: String!, $id: String!) { bindPerson(scope: $s, entityId: $id,"
            ' personId: "p_attack", channel: "feishu") { id } }',
            H,
            lambda s: {"s": s.a, "id": s.entity},
            hidden="id",
        ),
    ],  # fmt: skip
    "unbindPerson": [
        case(
            "mutation($s: String!, $id: String!) { unbindPerson(scope: $s, entityId: $id) { id } }",
            R,
            lambda s: {"s": s.b, "id": s.entity},
        ),
        case(
            "mutation($s: String!, $id: String!) { unbindPerson(scope: $s, entityId: $id) { id } }",
            H,
            lambda s: {"s": s.a, "id": s.entity},
            hidden="id",
        ),
    ],  # fmt: skip
    "watches": [
        case(f"query($s: String!) {{ watches(scope: $s) {ENTRIES} }}", R, lambda s: {"s": s.b})
    ],  # fmt: skip
    "watch": [
        case(
            "query($s: String!, $id: ID!) { watch(scope: $s, id: $id) { id title } }",
            R,
            lambda s: {"s": s.b, "id": s.watch},
        ),
        case(
            "query($s: String!, $id: ID!) { watch(scope: $s, id: $id) { id title } }",
            H,
            lambda s: {"s": s.a, "id": s.watch},
            hidden="id",
        ),
    ],  # fmt: skip
    "watchRound": [
        case(
            "query($s: String!, $id: String!) { watchRound(scope: $s, id: $id) { closed } }",
            R,
            lambda s: {"s": s.b, "id": s.round},
        ),
        case(
            "query($s: String!, $id: String!) { watchRound(scope: $s, id: $id) { closed } }",
            H,
            lambda s: {"s": s.a, "id": s.round},
            hidden="id",
        ),
    ],  # fmt: skip
    "settings": [case("{ settings { heartbeatEnabled } }", OPEN)],
    # exactly the token's own scopes: B is neither listed nor counted
    "scopes": [
        case("{ scopes { scope events entities relations sources concerns watches } }", L)
    ],  # fmt: skip
    "plans": [case("{ plans { configId name scope { key projectIds } } }", L)],
    "supervisionRuns": [
        case(f"{{ supervisionRuns {ENTRIES} }}", L),
        case(
            f"query($sc: ReviewScopeInput) {{ supervisionRuns(scope: $sc) {ENTRIES} }}",
            R,
            lambda s: {"sc": {"projectIds": [s.b]}},
        ),
    ],  # fmt: skip
    "supervisionRun": [
        case(
            "query($id: String!) { supervisionRun(id: $id) { id status error { rawOutput } } }",
            H,
            lambda s: {"id": s.run},
            hidden="id",
        ),
    ],  # fmt: skip
    "heartbeatRun": [
        case(
            "query($id: String!) { heartbeatRun(id: $id) { id state report } }",
            H,
            lambda s: {"id": s.heartbeat},
            hidden="id",
        ),
    ],  # fmt: skip
    "activity": [
        case("{ activity { totalCount edges { node { id scope report supervision } } } }", L),
        case(
            "query($sc: ReviewScopeInput) { activity(scope: $sc) { totalCount } }",
            R,
            lambda s: {"sc": {"projectIds": [s.b]}},
        ),
    ],  # fmt: skip
    "concernTools": [case("{ concernTools }", OPEN)],
    "concerns": [
        case(f"query($s: String!) {{ concerns(scope: $s) {ENTRIES} }}", R, lambda s: {"s": s.b})
    ],  # fmt: skip
    "concern": [
        case(
            "query($id: ID!) { concern(id: $id) { id title } }",
            H,
            lambda s: {"id": s.concern},
            hidden="id",
        )
    ],  # fmt: skip
    "agenda": [
        case("query($s: String!) { agenda(scope: $s) { scope } }", R, lambda s: {"s": s.b})
    ],  # fmt: skip
    "conversationContext": [
        case(
            'query($s: String!) { conversationContext(scope: $s, personId: "p_b") '
            "{ person { displayName } } }",
            R,
            lambda s: {"s": s.b},
        ),
    ],  # fmt: skip
    "concernMessages": [
        case(
            'query($s: String!) { concernMessages(scope: $s, personId: "p_owner") { totalCount } }',
            R,
            lambda s: {"s": s.b},
        ),
    ],  # fmt: skip
    "knowledgeEntry": [
        case(
            "query($s: String!, $id: ID!) { knowledgeEntry(scope: $s, id: $id) { text } }",
            R,
            lambda s: {"s": s.b, "id": "chat"},
        ),
        case(
            "query($s: String!, $id: ID!) { knowledgeEntry(scope: $s, id: $id) { text } }",
            H,
            lambda s: {"s": s.a, "id": "chat"},
            hidden="id",
        ),
    ],  # fmt: skip
    # --- mutations -------------------------------------------------------------------------
    "enqueueProbe": [case('mutation { enqueueProbe(note: "iso") { enqueued } }', OPEN)],
    "confirmRelation": relation_cases("confirmRelation"),
    "rejectRelation": relation_cases("rejectRelation"),
    "removeRelation": relation_cases("removeRelation"),
    "restoreRelation": relation_cases("restoreRelation"),
    "acceptSuggestion": suggestion_cases("acceptSuggestion"),
    "dismissSuggestion": suggestion_cases("dismissSuggestion"),
    "upsertSource": [
        case(
            "mutation($i: UpsertSourceInput!) { upsertSource(input: $i) { id } }",
            R,
            lambda s: {
                "i": {
                    "scope": s.b,
                    "id": "chat",
                    "kind": "CONVERSATION",
                    "version": "v9",
                    "text": "overwritten",
                }
            },
        ),
    ],  # fmt: skip
    "withdrawSource": [
        case(
            "mutation($s: String!, $id: String!) { withdrawSource(scope: $s, sourceId: $id,"
            ' version: "v1") { version } }',
            R,
            lambda s: {"s": s.b, "id": "chat"},
        ),
        case(
            "mutation($s: String!, $id: String!) { withdrawSource(scope: $s, sourceId: $id,"
            ' version: "v1") { version } }',
            H,
            lambda s: {"s": s.a, "id": "chat"},
            hidden="id",
        ),
    ],  # fmt: skip
    "publishResult": [
        case(
            "mutation($i: PublishResultInput!) { publishResult(input: $i) { repeat } }",
            R,
            lambda s: {"i": result_input(s.b, "attack", "attack")},
        ),
    ],  # fmt: skip
    "updateEntity": [
        case(
            "mutation($s: String!, $id: ID!) { updateEntity(scope: $s, id: $id, seenVersion: 1,"
            ' edit: {description: "attack"}) { id } }',
            R,
            lambda s: {"s": s.b, "id": s.entity},
        ),
        case(
            "mutation($s: String!, $id: ID!) { updateEntity(scope: $s, id: $id, seenVersion: 1,"
            ' edit: {description: "attack"}) { id } }',
            H,
            lambda s: {"s": s.a, "id": s.entity},
            hidden="id",
        ),
    ],  # fmt: skip
    "runWatchNow": watch_cases("runWatchNow", "{ runId }"),
    "runWatchCheck": watch_cases("runWatchCheck", "{ runId }"),
    "createWatch": [
        case(
            "mutation($i: CreateWatchInput!) { createWatch(input: $i) { id } }",
            R,
            lambda s: {"i": {"scope": s.b, "sessionId": "x", "bindings": [note_binding("n")]}},
        ),
        # the attack of a watch of A bound to a document of B's project
        case(
            "mutation($i: CreateWatchInput!) { createWatch(input: $i) { id } }",
            R,
            lambda s: {
                "i": {"scope": s.a, "sessionId": "x", "bindings": [doc_binding(s.b, s.library)]}
            },
        ),
    ],  # fmt: skip
    "stopWatch": watch_cases("stopWatch"),
    "resumeWatch": watch_cases("resumeWatch"),
    "deleteWatch": watch_cases("deleteWatch"),
    "rebindWatch": [
        *watch_cases(
            "rebindWatch",
            args="id: $id, bindings: $b",
            extra=", $b: [BindingInput!]!",
            values={"b": [note_binding("n")]},
        ),
        case(
            "mutation($s: String!, $id: ID!, $b: [BindingInput!]!) { rebindWatch(scope: $s,"
            " id: $id, bindings: $b) { id } }",
            R,
            lambda s: {"s": s.a, "id": s.own_watch, "b": [doc_binding(s.b, s.library)]},
        ),
    ],  # fmt: skip
    "recordStepEvidence": watch_cases(
        "recordStepEvidence",
        args="watchId: $id, updates: $u",
        extra=", $u: [StepEvidenceInput!]!",
        values={"u": [{"stepId": "s1", "status": "done", "evidence": "attack"}]},
    ),
    "recordCheckpoint": watch_cases(
        "recordCheckpoint", args="watchId: $id, data: {a: 1}, instructions: {b: 2}"
    ),
    "placeKnowledgeDocument": [
        case(
            "mutation($s: String!, $l: String!) { placeKnowledgeDocument(scope: $s,"
            ' libraryId: $l, documentId: "doc") }',
            R,
            lambda s: {"s": s.b, "l": s.library},
        ),
        # the attack of the same (library, document) placed from A must not re-point
        # B's entry (checked by the snapshot of B's library)
        case(
            "mutation($s: String!, $l: String!) { placeKnowledgeDocument(scope: $s,"
            ' libraryId: $l, documentId: "doc") }',
            OPEN,
            lambda s: {"s": s.a, "l": s.library},
        ),
    ],  # fmt: skip
    "reportExecution": watch_cases(
        "reportExecution",
        tail="{ duplicate }",
        args='watchId: $id, executionKey: "k", entries: $e',
        extra=", $e: [SessionEntryInput!]!",
        values={"e": [{"kind": "assistant_final", "at": T0.isoformat(), "text": "done"}]},
    ),
    "acknowledgeWatchHandOff": [
        case(
            'mutation($s: String!) { acknowledgeWatchHandOff(scope: $s, executionKey: "k") '
            "{ executionKey } }",
            R,
            lambda s: {"s": s.b},
        )
    ],  # fmt: skip
    "runWatchRound": [
        case(
            "mutation($s: String!) { runWatchRound(scope: $s) { roundId } }",
            R,
            lambda s: {"s": s.b},
        )
    ],  # fmt: skip
    "setHeartbeatEnabled": [
        case("mutation { setHeartbeatEnabled(enabled: true) { heartbeatEnabled } }", A),
    ],
    "deleteScope": [
        case(
            "mutation($s: String!) { deleteScope(scope: $s) { deletedNodes } }",
            A,
            lambda s: {"s": s.b},
        ),
        case(
            "mutation($s: String!) { deleteScope(scope: $s) { deletedNodes } }",
            A,
            lambda s: {"s": s.a},
        ),
    ],  # fmt: skip
    "savePlan": [
        case(
            "mutation($p: PlanInput!) { savePlan(plan: $p) { configId } }",
            R,
            lambda s: {"p": plan_input(s.b)},
        ),
        # re-point B's plan at A by its config id
        case(
            "mutation($p: PlanInput!) { savePlan(plan: $p) { configId } }",
            H,
            lambda s: {"p": plan_input(s.a, s.plan)},
            hidden="p.configId",
        ),
    ],  # fmt: skip
    "deletePlan": [
        case(
            "mutation($id: String!) { deletePlan(configId: $id) }",
            H,
            lambda s: {"id": s.plan},
            hidden="id",
        )
    ],  # fmt: skip
    "runPlanNow": [
        case(
            "mutation($id: String!) { runPlanNow(configId: $id) { runId } }",
            H,
            lambda s: {"id": s.plan},
            hidden="id",
        )
    ],  # fmt: skip
    "startReview": [
        case(
            "mutation($sc: ReviewScopeInput!, $f: DateTime!, $t: DateTime!) {"
            " startReview(scope: $sc, from: $f, to: $t) { id } }",
            R,
            lambda s: {
                "sc": {"projectIds": [s.b]},
                "f": T0.isoformat(),
                "t": (T0 + timedelta(days=1)).isoformat(),
            },
        ),
        case(
            "mutation($sc: ReviewScopeInput!, $f: DateTime!, $t: DateTime!) {"
            " startReview(scope: $sc, from: $f, to: $t) { id } }",
            R,
            lambda s: {
                "sc": {"isGlobal": True},
                "f": T0.isoformat(),
                "t": (T0 + timedelta(days=1)).isoformat(),
            },
        ),
    ],  # fmt: skip
    "continueReview": run_cases("continueReview"),
    "pauseReview": run_cases("pauseReview"),
    "cancelReview": run_cases("cancelReview"),
    "raiseConcern": [
        case(
            "mutation($i: RaiseConcernInput!) { raiseConcern(input: $i) { id } }",
            R,
            lambda s: {
                "i": {
                    "scope": s.b,
                    "title": "attack",
                    "goal": "attack",
                    "people": [{"personId": "p_b", "displayName": "乙"}],
                }
            },
        ),
    ],  # fmt: skip
    "advanceConcern": concern_cases(
        "advanceConcern",
        lambda s, cid: {"concernId": cid, "personId": "p_b", "text": "attack"},
        "AdvanceConcernInput",
    ),
    "changeConcernPriority": [
        case(
            "mutation($i: ChangeConcernPriorityInput!) { changeConcernPriority(input: $i) { id } }",
            H,
            lambda s: {"i": {"concernId": s.concern, "priority": "CRITICAL"}},
            hidden="i.concernId",
        ),
    ],  # fmt: skip
    "reportConcernFact": concern_cases(
        "reportConcernFact",
        lambda s, cid: {"concernId": cid, "factId": "f1", "kind": "merge"},
        "ConcernFactInput",
    ),
    "upsertPerson": [
        case(
            "mutation($i: PersonInput!) { upsertPerson(input: $i) { personId } }",
            R,
            lambda s: {"i": {"scope": s.b, "personId": "p_b", "displayName": "attack"}},
        ),
    ],  # fmt: skip
    "runConcernScheduler": [
        case('mutation { runConcernScheduler(now: "2100-01-01T00:00:00Z") }', A),
        case("mutation($s: String) { runConcernScheduler(scope: $s) }", R, lambda s: {"s": s.b}),
    ],  # fmt: skip
    "previewSaveToKnowledge": [
        case(
            "mutation($s: String!, $r: ID) { previewSaveToKnowledge(scope: $s, resultId: $r)"
            " { previewId } }",
            R,
            lambda s: {"s": s.b, "r": s.result},
        ),
        case(
            "mutation($s: String!, $r: ID) { previewSaveToKnowledge(scope: $s, resultId: $r)"
            " { previewId } }",
            H,
            lambda s: {"s": s.a, "r": s.result},
            hidden="r",
        ),
    ],  # fmt: skip
    "confirmSaveToKnowledge": [
        case(
            "mutation($id: ID!) { confirmSaveToKnowledge(previewId: $id) { repeat } }",
            R,
            lambda s: {"id": s.save_preview},
        ),
    ],  # fmt: skip
    "previewContinueDiscussion": [
        case(
            "mutation($s: String!, $r: ID) { previewContinueDiscussion(scope: $s, resultId: $r)"
            " { previewId text } }",
            R,
            lambda s: {"s": s.b, "r": s.result},
        ),
        case(
            "mutation($s: String!, $r: ID) { previewContinueDiscussion(scope: $s, resultId: $r)"
            " { previewId text } }",
            H,
            lambda s: {"s": s.a, "r": s.result},
            hidden="r",
        ),
    ],  # fmt: skip
    "confirmContinueDiscussion": [
        case(
            "mutation($id: ID!) { confirmContinueDiscussion(previewId: $id) { repeat } }",
            R,
            lambda s: {"id": s.talk_preview},
        ),
    ],  # fmt: skip
    # --- subscriptions (graphql-transport-ws) ----------------------------------------------
    "graphChanged": [
        case(
            "subscription($s: String!) { graphChanged(scope: $s) { scope ids } }",
            R,
            lambda s: {"s": s.b},
        )
    ],  # fmt: skip
    "watchHandOffs": [
        case(
            "subscription($s: String!) { watchHandOffs(scope: $s) { executionKey } }",
            R,
            lambda s: {"s": s.b},
        )
    ],  # fmt: skip
    "runProgress": [
        case(
            "subscription($id: String!) { runProgress(runId: $id) { runId status } }",
            H,
            lambda s: {"id": s.run},
            hidden="id",
        )
    ],  # fmt: skip
}


# --- the deployment and B's data -----------------------------------------------------------


@dataclass
class Deployment:
    api: Server
    seed: Seed
    queue: str


def gql(api: Server, query: str, token: str, **variables: Any) -> dict[str, Any]:
    body = api.graphql(query, variables, token=token).json()
    assert "errors" not in body, body["errors"]
    return body["data"]  # type: ignore[no-any-return]


@pytest_asyncio.fixture
async def deployment(
    services: Settings, start_server: Callable[..., Server], neo4j_driver: AsyncDriver
) -> AsyncIterator[Deployment]:
    tag = uuid.uuid4().hex[:8]
    a, b = f"iso-a-{tag}", f"iso-b-{tag}"
    queue = f"{services.queue_name}:iso-{tag}"
    tokens = [
        {"token": ADMIN, "name": "iso-admin", "scopes": ["*"], "roles": ["admin"]},
        {"token": P1, "name": P1_NAME, "scopes": [a],
         "roles": ["reader", "editor", "agenda", "operator"]},
    ]  # fmt: skip
    # past answers count as settled after 1 s, so the cache rows below see B's data cached
    api = start_server(API_TOKENS=json.dumps(tokens), QUEUE_NAME=queue,
                       PAST_CACHE_SETTLE_SECONDS="1")  # fmt: skip
    # a worker on the deployment's queue for the whole test: a job an attack slipped in runs,
    # and what it did shows in B's nodes
    worker = spawn(["worker"], process_env(services, QUEUE_NAME=queue))
    seed = Seed(a=a, b=b, marker=f"B-SECRET-{tag}", library=f"lib-{tag}")
    try:
        await asyncio.to_thread(seed_b, api, seed)
        await seed_runs(neo4j_driver, services, queue, seed)
        await asyncio.to_thread(seed_a, api, seed)
        yield Deployment(api, seed, queue)
    finally:
        stop(worker)
        r = redis.Redis.from_url(services.effective_redis_url)
        forget_queue(r, queue)
        r.close()
        await neo4j_driver.execute_query(
            "MATCH (n) WHERE n.scope IN $scopes OR n.deployment = $q DETACH DELETE n",
            scopes=[a, b], q=queue, database_=services.neo4j_database,
        )  # fmt: skip


def seed_b(api: Server, s: Seed) -> None:
    def admin(query: str, **variables: Any) -> dict[str, Any]:
        return gql(api, query, ADMIN, **variables)

    upsert = "mutation($i: UpsertSourceInput!) { upsertSource(input: $i) { id } }"
    for src in (
        {"id": "chat", "kind": "CONVERSATION", "text": f"张三: 卡在第三方回调 {s.marker}"},
        {"id": "doc", "kind": "KNOWLEDGE", "text": f"# 发布流程\n核对 {s.marker}"},
        {"id": "n", "kind": "NOTE", "text": f"笔记 {s.marker}"},
    ):
        admin(upsert, i={"scope": s.b, "version": "v1", **src})
    publish = """mutation($i: PublishResultInput!) {
      publishResult(input: $i, runId: "iso") { result { id } } }"""
    s.result = admin(publish, i=result_input(s.b, "k1", s.marker))["publishResult"]["result"]["id"]
    graph = admin("query($s: String!) { storyGraph(scope: $s) { entities { id name seq }"
                  " relations { id } } }", s=s.b)["storyGraph"]  # fmt: skip
    pay = next(e for e in graph["entities"] if e["name"].startswith("支付模块"))
    s.entity, s.relation = pay["id"], graph["relations"][0]["id"]
    admin("mutation($s: String!, $id: ID!, $seen: Int!) { updateEntity(scope: $s, id: $id,"
          " seenVersion: $seen, edit: {description: \"人工\"}) { seq } }",
          s=s.b, id=s.entity, seen=pay["seq"])  # fmt: skip
    admin(publish, i=result_input(s.b, "k2", s.marker, entity_id=s.entity))
    view = admin("query($s: String!, $id: ID!) { entity(scope: $s, id: $id) {"
                 " pendingSuggestions { id } } }", s=s.b, id=s.entity)  # fmt: skip
    s.suggestion = view["entity"]["pendingSuggestions"][0]["id"]
    assert admin(
        "mutation($s: String!, $l: String!) { placeKnowledgeDocument(scope: $s,"
        ' libraryId: $l, documentId: "doc", tags: ["b"]) }',
        s=s.b,
        l=s.library,
    )
    for pid, name in (("p_b", f"乙 {s.marker}"), ("p_owner", "老板")):
        admin(
            "mutation($i: PersonInput!) { upsertPerson(input: $i) { personId } }",
            i={"scope": s.b, "personId": pid, "displayName": name},
        )
    s.concern = admin(
        "mutation($i: RaiseConcernInput!) { raiseConcern(input: $i) { id } }",
        i={"scope": s.b, "title": f"问乙 {s.marker}", "goal": f"拿到 {s.marker}",
           "initiator": {"name": "老板", "channel": "telegram", "channelUserId": "1",
                         "personId": "p_owner"},
           "people": [{"personId": "p_b", "displayName": "乙"}], "at": "2035-03-19T10:00:00Z"},
    )["raiseConcern"]["id"]  # fmt: skip
    s.watch = admin(
        "mutation($i: CreateWatchInput!) { createWatch(input: $i) { id } }",
        i={"scope": s.b, "sessionId": "sb", "title": f"发布检查 {s.marker}",
           "bindings": [note_binding("n"), doc_binding(s.b, s.library)]},
    )["createWatch"]["id"]  # fmt: skip
    s.round = admin("mutation($s: String!) { runWatchRound(scope: $s) { roundId } }",
                    s=s.b)["runWatchRound"]["roundId"]  # fmt: skip
    s.plan = admin("mutation($p: PlanInput!) { savePlan(plan: $p) { configId } }",
                   p=plan_input(s.b))["savePlan"]["configId"]  # fmt: skip
    s.save_preview = admin(
        "mutation($s: String!, $r: ID) { previewSaveToKnowledge(scope: $s, resultId: $r)"
        " { previewId } }",
        s=s.b,
        r=s.result,
    )["previewSaveToKnowledge"]["previewId"]
    s.talk_preview = admin(
        "mutation($s: String!, $o: [ObjectRefInput!]) { previewContinueDiscussion(scope: $s,"
        " objects: $o) { previewId } }",
        s=s.b,
        o=[{"kind": "RELATION", "id": s.relation}],
    )["previewContinueDiscussion"]["previewId"]


async def seed_runs(driver: AsyncDriver, services: Settings, queue: str, s: Seed) -> None:
    """A heartbeat and a failed supervision run of B, its raw model output carrying B's text."""
    scope = Scope.projects(s.b)
    s.run, s.heartbeat = f"sup-{uuid.uuid4().hex[:10]}", f"hb-{uuid.uuid4().hex[:10]}"
    heartbeats = HeartbeatRuns(driver, services.neo4j_database, deployment=queue)
    beat = hb.HeartbeatRun(run_id=s.heartbeat, config_id=s.plan, scope=scope,
                           trigger=Trigger.AUTOMATIC, state=hb.HeartbeatState.COMPLETED,
                           claimed_at=T0, ended_at=T0 + timedelta(seconds=5),
                           supervision_run_id=s.run)  # fmt: skip
    await heartbeats.claim(beat, f"k:{s.heartbeat}")

    async def report(tx: AsyncManagedTransaction) -> None:  # its report names B's secret
        await heartbeats.put_in(tx, beat, report=f"报告：张三说 {s.marker}")

    await heartbeats.write(report)
    run = lc.create_run(
        run_id=s.run, scope=scope, trigger=Trigger.AUTOMATIC, mode=lc.ReviewMode.INCREMENTAL,
        worker_id="gone", per_batch=100, stage_timeout=timedelta(seconds=60), now=T0,
    )  # fmt: skip
    error = lc.RunError(stage=StageName.LEAVES, kind=lc.ErrorKind.VALIDATION,
                        message="invalid", raw_output=f"张三说 {s.marker}")  # fmt: skip
    failed = run.model_copy(update={"status": lc.RunStatus.FAILED, "stopped": True,
                                    "ended_at": T0, "error": error})  # fmt: skip
    await SupervisionRuns(driver, services.neo4j_database, deployment=queue).create(
        failed, RunOptions()
    )


def seed_a(api: Server, s: Seed) -> None:
    """The attacker's own watch in A (to try rebinding it to B's document)."""
    gql(
        api,
        "mutation($i: UpsertSourceInput!) { upsertSource(input: $i) { id } }",
        P1,
        i={"scope": s.a, "id": "n", "kind": "NOTE", "version": "v1", "text": "A 的笔记"},
    )
    s.own_watch = gql(api, "mutation($i: CreateWatchInput!) { createWatch(input: $i) { id } }",
                      P1, i={"scope": s.a, "sessionId": "sa",
                             "bindings": [note_binding("n")]})["createWatch"]["id"]  # fmt: skip


# kinds of B's nodes the snapshot must hold (besides the story graph's own)
COVERED = {"HeartbeatRun", "SupervisionRun", "WatchRound", "WatchRun", "Watch", "Concern", "Source",
           "SourceVersion", "Result", "Entity", "Relation"}  # fmt: skip

SNAPSHOT = """query($s: String!, $entity: ID!, $watch: ID!, $concern: ID!, $run: String!) {
  storyGraph(scope: $s, includeRemoved: true) {
    entities { id name description seq } relations { id confirmation removed seq }
    events { title } }
  entity(scope: $s, id: $entity) { pendingSuggestions { id status } }
  watch(scope: $s, id: $watch) { id status title bindings { sourceKey } steps { stepId status }
    checkpoints { id } }
  concern(id: $concern) { id status revision title }
  supervisionRun(id: $run) { id status }
  plans { configId name enabled scope { key } }
  settings { heartbeatEnabled }
  concernMessages(scope: $s, personId: "p_owner") { totalCount }
  conversationContext(scope: $s, personId: "p_b") { person { displayName } }
  sources: knowledgeEntry(scope: $s, id: "chat") { version text }
}"""


async def snapshot(d: Deployment, driver: AsyncDriver, services: Settings) -> dict[str, Any]:
    """B as its admin reads it, every node of B, and every job of the queue naming B's
    objects, once the worker has done what was due."""
    s = d.seed
    queue = aioredis.Redis.from_url(services.effective_redis_url)
    try:
        await drained(queue, d.queue)
        jobs = await queue_jobs(queue, d.queue, s.secrets())
        every_job = await all_jobs(queue, d.queue)
        keys = await redis_keys(queue)
    finally:
        await queue.aclose()
    seen = await asyncio.to_thread(
        gql, d.api, SNAPSHOT, ADMIN, s=s.b, entity=s.entity, watch=s.watch, concern=s.concern,
        run=s.run,
    )  # fmt: skip
    library, _, _ = await driver.execute_query(
        "MATCH (n) WHERE n.library_id = $l OR n.libraryId = $l "
        "RETURN labels(n) AS labels, properties(n) AS props ORDER BY n.scope",
        l=s.library, database_=services.neo4j_database,
    )  # fmt: skip
    seen["library"] = [
        {"labels": r["labels"], "props": {k: str(v) for k, v in r["props"].items()}}
        for r in library
        if r["props"].get("scope") != s.a
    ]
    seen["nodes"] = await scope_nodes(
        driver, services.neo4j_database, s.b, s.library, other_scope=s.a
    )
    seen["jobs"] = jobs
    # compared apart (`unaccounted`): A's own work and housekeeping may add to them
    seen["every_job"], seen["keys"] = every_job, keys
    return seen


CRONS = {job.name for job in CRON_JOBS}
SCOPELESS = {"probe"}  # enqueueProbe's round trip: a platform check that names no scope

# keys a deployment writes on its own while it runs: liveness, arq's health check and the
# crons' jobs (every scope's ticks, none of them a reading or writing of B)
HOUSEKEEPING = re.compile(
    r"^(storygraph:alive:|arq:cron:|.*:health-check$"
    rf"|arq:(job|result|retry|in-progress):({'|'.join(sorted(CRONS))}):)"
)


def unaccounted(d: Deployment, before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """Every job and Redis key that appeared, changed or went between the snapshots, unless
    it is the attacker's own (it names A's scope and nothing of B) or housekeeping; a job of
    a cron tick names no scope at all."""
    s = d.seed
    secrets = s.secrets()

    def of_a(text: str) -> bool:
        return s.a in text and not any(x in text for x in secrets)

    jobs = after["every_job"]

    def job_explained(job_id: str, call: str) -> bool:
        function = json.loads(call)[1]
        own = function in CRONS | SCOPELESS and not any(x in call for x in secrets)
        return of_a(call) or own

    def key_explained(key: str, _digest: str) -> bool:
        # A's writes move A's past-answer counter; B's must stay where it was
        if HOUSEKEEPING.match(key) or key in (d.queue, counter_key(s.a)) or of_a(key):
            return True
        job_id = key.split(":", 2)[-1] if key.startswith("arq:") else None
        call = jobs.get(job_id or "") or before["every_job"].get(job_id or "")
        return call is not None and job_explained(job_id or "", call)

    return [
        *(f"job {j}" for j in unexplained(before["every_job"], jobs, job_explained)),
        *(f"key {k}" for k in unexplained(before["keys"], after["keys"], key_explained)),
    ]


# --- calling a case ----------------------------------------------------------------------


def operation_kind(query: str) -> str:
    head = query.lstrip()
    return "subscription" if head.startswith("subscription") else "http"


async def subscribe(api: Server, query: str, variables: dict[str, Any], token: str
                    ) -> dict[str, Any]:  # fmt: skip
    """The first answer of a subscription over graphql-transport-ws, as a response body."""
    url = api.url.replace("http://", "ws://") + "/graphql"
    headers = {"authorization": f"Bearer {token}"}
    async with websockets.connect(url, subprotocols=["graphql-transport-ws"],  # type: ignore[list-item]
                                  additional_headers=headers) as ws:  # fmt: skip
        await ws.send(json.dumps({"type": "connection_init"}))
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        payload = {"query": query, "variables": variables}
        await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
        try:
            message = json.loads(await asyncio.wait_for(ws.recv(), timeout=3))
        except TimeoutError:
            return {"data": None, "subscribed": "waiting for events"}
        if message["type"] == "error":
            return {"errors": message["payload"]}
        if message["type"] == "next":
            return message["payload"]  # type: ignore[no-any-return]
        return {"message": message}


async def call(api: Server, c: Case, variables: dict[str, Any], token: str) -> dict[str, Any]:
    if operation_kind(c.query) == "subscription":
        return await subscribe(api, c.query, variables, token)

    def post() -> dict[str, Any]:
        return api.graphql(c.query, variables, token=token).json()  # type: ignore[no-any-return]

    return await asyncio.to_thread(post)


def replace(variables: dict[str, Any], path: str, value: str) -> dict[str, Any]:
    head, _, rest = path.partition(".")
    inner = variables[head]
    return {**variables, head: replace(inner, rest, value) if rest else value}


def lookup(variables: dict[str, Any], path: str) -> str:
    value: Any = variables
    for part in path.split("."):
        value = value[part]
    return str(value)


INSTANT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:\d\d|Z)?")


def comparable(body: dict[str, Any], ident: str) -> str:
    """An answer with the asked-for id and the instants of "now" taken out."""
    text = json.dumps(body, ensure_ascii=False, sort_keys=True).replace(ident, "<id>")
    return INSTANT.sub("<instant>", text)


def codes(body: dict[str, Any]) -> list[str]:
    return [e.get("extensions", {}).get("code", "") for e in body.get("errors") or []]


def leaks(body: dict[str, Any], seed: Seed, variables: dict[str, Any]) -> list[str]:
    """B's strings in an answer, other than those the caller itself sent."""
    sent = json.dumps(variables, ensure_ascii=False)
    text = json.dumps(body, ensure_ascii=False)
    return [x for x in seed.secrets() if x in text and x not in sent]


async def check(d: Deployment, name: str, n: int, c: Case) -> list[str]:
    """What is wrong with the A token's answer to one table row (empty: isolated)."""
    seed = d.seed
    variables = c.variables(seed)
    body = await call(d.api, c, variables, P1)
    where = f"{name}[{n}] ({c.expect.value})"
    problems = [f"{where} leaked {x!r}: {body}" for x in leaks(body, seed, variables)]
    got = codes(body)
    if c.expect is Expect.HIDDEN:
        b_id = lookup(variables, c.hidden)
        missing_vars = replace(variables, c.hidden, seed.unknown)
        missing = await call(d.api, c, missing_vars, P1)
        as_b, as_missing = comparable(body, b_id), comparable(missing, seed.unknown)
        if as_b != as_missing:
            problems.append(f"{where}: B's object {as_b} but a missing id {as_missing}")
        if not got and body.get("data") and any(body["data"].values()):
            problems.append(f"{where}: answered B's object with data: {body}")
    elif c.expect is Expect.REFUSED:
        if not got or got[0] not in ("FORBIDDEN", "NOT_FOUND"):
            problems.append(f"{where}: not refused: {body}")
    elif c.expect is Expect.ADMIN:
        if got[:1] != ["FORBIDDEN"]:
            problems.append(f"{where}: ran without admin: {body}")
    elif c.expect is Expect.LISTS:
        if got:
            problems.append(f"{where}: a list read failed: {body}")
    return problems


async def root_fields(api: Server) -> set[str]:
    query = """{ __schema {
      queryType { fields(includeDeprecated: true) { name } }
      mutationType { fields(includeDeprecated: true) { name } }
      subscriptionType { fields(includeDeprecated: true) { name } } } }"""

    def fetch() -> dict[str, Any]:
        return gql(api, query, ADMIN)["__schema"]

    schema = await asyncio.to_thread(fetch)
    return {f["name"] for kind in schema.values() if kind for f in kind["fields"]}


# --- the test ----------------------------------------------------------------------------


@pytest.mark.timeout(600)  # every root field's cases; minutes on a busy 2-core machine
async def test_a_token_of_one_scope_cannot_read_change_or_learn_about_another_scope(
    deployment: Deployment, neo4j_driver: AsyncDriver, services: Settings
) -> None:
    d = deployment
    fields = await root_fields(d.api)
    assert fields - TABLE.keys() == set(), "root fields without an isolation entry in TABLE"
    assert TABLE.keys() - fields == set(), "TABLE rows for fields the schema no longer has"

    before = await snapshot(d, neo4j_driver, services)
    assert before["library"], "B's library entry is stored"
    kinds = {label for node in before["nodes"] for label in json.loads(node)["labels"]}
    assert COVERED <= kinds, COVERED - kinds
    assert before["jobs"], "the jobs B's own setup enqueued are in the snapshot"
    problems: list[str] = []
    for name in sorted(TABLE):
        for n, c in enumerate(TABLE[name]):
            problems += await check(d, name, n, c)
    after = await snapshot(d, neo4j_driver, services)
    problems += [f"not A's own nor housekeeping: {x}" for x in unaccounted(d, before, after)]
    for name in ("every_job", "keys"):
        before.pop(name), after.pop(name)
    if after != before:
        problems.append(f"B's data changed:\nbefore {before}\nafter  {after}")
    assert not problems, "\n".join(problems)


def test_the_actor_of_a_write_is_the_token_and_only_admin_acts_for_a_user(
    deployment: Deployment,
) -> None:
    d, s = deployment, deployment.seed
    gql(
        d.api,
        "mutation($i: UpsertSourceInput!) { upsertSource(input: $i) { id } }",
        P1,
        i={"scope": s.a, "id": "chat", "kind": "CONVERSATION", "version": "v1", "text": "a"},
    )
    gql(d.api, "mutation($i: PublishResultInput!) { publishResult(input: $i) { repeat } }", P1,
        i=result_input(s.a, "own", "a"))  # fmt: skip
    entities = gql(d.api, "query($s: String!) { storyGraph(scope: $s) { entities { id seq } } }",
                   P1, s=s.a)["storyGraph"]["entities"]  # fmt: skip
    edit = """mutation($s: String!, $id: ID!, $seen: Int!, $user: String) {
      updateEntity(scope: $s, id: $id, seenVersion: $seen, edit: {description: "改"},
                   userId: $user) { seq by { kind id } } }"""
    first, second = entities[0], entities[1]

    credited = d.api.graphql(edit, {"s": s.a, "id": first["id"], "seen": first["seq"],
                                    "user": "boss"}, token=P1).json()  # fmt: skip
    assert codes(credited) == ["FORBIDDEN"], "a non-admin token cannot write as someone else"
    own = gql(d.api, edit, P1, s=s.a, id=first["id"], seen=first["seq"])["updateEntity"]
    assert own["by"] == {"kind": "USER", "id": P1_NAME}
    for_user = gql(d.api, edit, ADMIN, s=s.a, id=second["id"], seen=second["seq"], user="boss")
    assert for_user["updateEntity"]["by"] == {"kind": "USER", "id": "boss via iso-admin"}


# --- cached past answers (api/past_cache.py): kept per scope, served only to its readers ---

PAST_READS = {
    "storyGraph": "query($s: String!, $a: DateTime!) { storyGraph(scope: $s, asOf: $a) {"
    " entities { name description } events { title } } }",
    "graphView": "query($s: String!, $a: DateTime!) { graphView(scope: $s, asOf: $a) {"
    " nodes { id label } } }",
    "entities": "query($s: String!, $a: DateTime!) { entities(scope: $s, asOf: $a) {"
    " edges { node { name description } } } }",
    "events": "query($s: String!, $a: DateTime!) { events(scope: $s, asOf: $a) {"
    " edges { node { title } } } }",
    "relations": "query($s: String!, $a: DateTime!) { relations(scope: $s, asOf: $a) {"
    " edges { node { type reason } } } }",
}


async def test_a_cached_past_answer_of_b_is_never_served_to_a_token_of_a(
    deployment: Deployment,
) -> None:
    d, s = deployment, deployment.seed
    as_of = datetime.now(UTC)
    until(lambda: datetime.now(UTC) - as_of >= timedelta(seconds=1.5), what="as_of settled")

    def get(query: str, token: str, **headers: str) -> httpx.Response:
        variables = json.dumps({"s": s.b, "a": as_of.isoformat()})
        return httpx.get(f"{d.api.url}/graphql", params={"query": query, "variables": variables},
                         headers={"authorization": f"Bearer {token}", **headers}, timeout=30)  # fmt: skip

    problems: list[str] = []
    for name, query in PAST_READS.items():
        get(query, ADMIN)
        held = get(query, ADMIN)
        if held.headers.get("x-past-cache") != "hit" or s.marker not in held.text:
            problems.append(f"{name}: admin's past answer is not cached: {held.headers}")
        tag = held.headers.get("etag", '"none"')
        for attempt in (get(query, P1), get(query, P1, **{"if-none-match": tag})):
            code = attempt.json().get("errors", [{}])[0].get("extensions", {}).get("code")
            leaked = s.marker in attempt.text or "etag" in attempt.headers
            if attempt.status_code != 200 or code not in ("FORBIDDEN", "NOT_FOUND") or leaked:
                problems.append(f"{name}: A's token got {attempt.status_code} {attempt.text[:200]}")
        forged = get(query, "forged", **{"if-none-match": tag})
        if forged.status_code != 401:
            problems.append(f"{name}: a forged token got {forged.status_code}")
    assert not problems, "\n".join(problems)


async def test_every_subscription_over_sse_refuses_a_token_of_a_like_over_websockets(
    deployment: Deployment,
) -> None:
    """The subscription rows of TABLE, sent over Server-Sent Events (graphql-sse's own client)
    with A's token: the same code as over websockets, nothing of B in the answer."""
    d, s = deployment, deployment.seed
    problems: list[str] = []
    for name, cases in TABLE.items():
        for c in cases:
            if operation_kind(c.query) != "subscription":
                continue
            variables = c.variables(s)
            over_ws = await subscribe(d.api, c.query, variables, P1)
            stream = await SseSubscription.start(f"{d.api.url}/graphql", P1, c.query, variables)
            try:
                assert (await stream.line())["event"] == "connected"
                got = await stream.line()
            finally:
                await stream.close()
            ws_codes = [e["extensions"]["code"] for e in over_ws.get("errors") or []]
            sse_codes = [e["extensions"]["code"] for e in got["payload"].get("errors") or []]
            if not sse_codes or sse_codes != ws_codes or s.marker in json.dumps(got):
                problems.append(f"{name}: websocket {ws_codes}, SSE {got}")
    assert not problems, "\n".join(problems)
