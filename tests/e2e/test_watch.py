"""Heartbeat watches end to end: GraphQL over HTTP, a real worker process, the scripted model.

The worker is spawned here with its own queue and `MODEL_BASE_URL` pointing at a scripted
OpenAI-compatible server running in this test process, so the shared `worker` fixture is
not disturbed (→ 识别 → 核验 → 交接, checkpoints; docs/rules/watches.md).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from engine.settings import Settings
from tests.support.grounded_watch import Grounding
from tests.support.processes import Server, process_env, spawn, stop
from tests.support.scripted_model import ScriptedModelServer, ScriptedReply
from tests.support.watch import until

WATCH = """
query($scope: String!, $id: ID!) { watch(scope: $scope, id: $id) {
  id status steps { stepId kind status evidence }
  observations { runId retries outcome { status factsRecorded deliverableDone }
                 workflowChecks { stepId status } handoffStatus toolSummaries }
  handOffs { executionKey sessionId dependencies }
  checkpoints { id syncStatus syncError location }
  grants { sourceKey crossProject revokedAt }
} }"""
CREATE = """
mutation($input: CreateWatchInput!) { createWatch(input: $input) { id status
  bindings { sourceKey } } }"""
RUN = """
mutation($scope: String!, $id: ID!, $req: String) {
  runWatchNow(scope: $scope, id: $id, requestId: $req) { runId enqueued } }"""
CHECKPOINT = """
mutation($scope: String!, $id: ID!, $data: JSON!, $instructions: JSON!, $location: String) {
  recordCheckpoint(scope: $scope, watchId: $id, data: $data, instructions: $instructions,
                   location: $location) { id syncStatus } }"""


def data(response: Any) -> dict[str, Any]:
    body = response.json()
    assert "errors" not in body, body
    return body["data"]  # type: ignore[no-any-return]


def errors(response: Any) -> list[dict[str, Any]]:
    return response.json()["errors"]  # type: ignore[no-any-return]


def call(name: str, args: dict[str, Any]) -> ScriptedReply:
    return ScriptedReply(
        tool_calls=[
            {"id": f"c-{uuid.uuid4().hex[:6]}", "name": name, "arguments": json.dumps(args)}
        ]
    )


@pytest.fixture(scope="module")
def watch_stack(
    start_server: Any, services: Settings, scripted_model_server: ScriptedModelServer
) -> Iterator[Server]:
    queue = f"storygraph:test:watch:{uuid.uuid4().hex[:8]}"
    api = start_server(QUEUE_NAME=queue)
    worker = spawn(
        ["worker"],
        process_env(
            services,
            QUEUE_NAME=queue,
            MODEL_BASE_URL=scripted_model_server.base_url,
            MODEL_NAME="scripted-checker",
            # only the checks these tests ask for may reach the scripted model: a heartbeat
            # round from the cron would spend a scripted answer meant for the test
            WORKER_CRONS="false",
        ),
    )
    yield api
    stop(worker)


def test_watch_checked_by_a_worker_through_the_scripted_model(
    watch_stack: Server, model_server: ScriptedModelServer, scope: str
) -> None:
    api = watch_stack
    library = f"lib-{scope}"
    for src in (
        {"id": "n1", "kind": "NOTE", "title": "每周检查笔记", "text": "每周一检查发布页。"},
        {"id": "rec", "kind": "NOTE", "title": "记录", "text": "检查记录"},
        {
            "id": "d1",
            "kind": "KNOWLEDGE",
            "title": "发布流程",
            "text": "1. 核对官网版本号必须为 v2.3。\n2. 生成发布草稿。",
        },
    ):
        data(
            api.graphql(
                "mutation($i: UpsertSourceInput!) { upsertSource(input: $i) { id } }",
                {"i": {"scope": scope, "version": "r1", **src}},
            )
        )
    assert data(
        api.graphql(
            "mutation($s: String!, $l: String!) { placeKnowledgeDocument(scope: $s, libraryId: $l, "
            'documentId: "d1", tags: ["发布"]) }',
            {"s": scope, "l": library},
        )
    )
    rejected = api.graphql(CREATE, {"input": {"scope": scope, "sessionId": "s-1", "bindings": []}})
    assert errors(rejected)[0]["extensions"]["code"] == "INVALID_INPUT"
    created = data(
        api.graphql(
            CREATE,
            {
                "input": {
                    "scope": scope,
                    "sessionId": "s-1",
                    "title": "发布检查",
                    "executionEnabled": True,
                    "recordLocation": "note:rec",
                    "mountedLibraries": [library],
                    "bindings": [
                        {"kind": "note", "noteId": "n1", "title": "每周检查笔记"},
                        {
                            "kind": "knowledge_document",
                            "libraryId": library,
                            "documentId": "d1",
                            "title": "发布流程",
                        },
                    ],
                }
            },
        )
    )["createWatch"]
    wid, doc_key = created["id"], f"doc:{library}/d1"
    assert [b["sourceKey"] for b in created["bindings"]] == ["note:n1", doc_key]

    steps = [
        {
            "stepId": "s1",
            "kind": "check",
            "source": doc_key,
            "method": "看官网",
            "completionCriteria": "版本号为 v2.3",
            "verifyInCheck": True,
        },
        {
            "stepId": "s2",
            "kind": "execute",
            "source": doc_key,
            "preconditions": ["s1"],
            "completionCriteria": "草稿已生成",
        },
    ]
    turns = Grounding()
    model_server.script(
        turns(call("read_note_source", {"noteId": "n1"}), "note:n1"),
        turns(call("read_knowledge_source", {"title": "发布流程"}), "「发布流程」"),
        turns(
            call("check_workflow", {"steps": steps}),
            "核对官网版本号必须为 v2.3",
            "生成发布草稿",
        ),
        turns(
            ScriptedReply(
                text=json.dumps(
                    {
                        "summary": "已核对",
                        "changed": True,
                        "workflowChecks": [
                            {"stepId": "s1", "status": "done", "evidence": "官网显示 v2.3"}
                        ],
                    },
                    ensure_ascii=False,
                )
            ),
            '"registered": ["s1", "s2"]',
        ),
    )
    ticket = data(api.graphql(RUN, {"scope": scope, "id": wid, "req": "retest-1"}))
    assert ticket["runWatchNow"] == {"runId": "retest-1", "enqueued": True}
    again = data(api.graphql(RUN, {"scope": scope, "id": wid, "req": "retest-1"}))
    assert again["runWatchNow"]["enqueued"] is False, "a duplicate trigger is not enqueued"

    def observed() -> dict[str, Any] | None:
        w = data(api.graphql(WATCH, {"scope": scope, "id": wid}))["watch"]
        return w if w["observations"] else None

    until(observed)
    assert turns.misses == [], "each scripted turn stands on what the worker sent"
    # read again: the observation and the step list are committed in one transaction, but one
    # GraphQL answer reads its fields one after the other, so the answer that first showed the
    # observation may hold the step list read just before that commit
    watch = data(api.graphql(WATCH, {"scope": scope, "id": wid}))["watch"]
    [obs] = watch["observations"]
    assert obs["runId"] == "retest-1" and obs["outcome"]["status"] == "success"
    assert obs["outcome"]["factsRecorded"] and not obs["outcome"]["deliverableDone"]
    assert obs["handoffStatus"] == "delivered" and obs["retries"] == 0
    assert [(s["stepId"], s["status"]) for s in watch["steps"]] == [
        ("s1", "done"),
        ("s2", "pending"),
    ]
    assert watch["handOffs"][0]["sessionId"] == "s-1"
    assert model_server.calls == 4 and "tools" in model_server.requests[0].body

    bad = api.graphql(
        CHECKPOINT, {"scope": scope, "id": wid, "data": "not an object", "instructions": 7}
    )
    [err] = errors(bad)
    assert err["extensions"]["code"] == "INVALID_INPUT"
    assert set(err["extensions"]["fields"]) == {"data", "instructions"}
    unknown = api.graphql(
        CHECKPOINT, {"scope": scope, "id": "w-nope", "data": {}, "instructions": ""}
    )
    assert errors(unknown)[0]["extensions"]["code"] == "NOT_FOUND"
    good = data(
        api.graphql(
            CHECKPOINT,
            {"scope": scope, "id": wid, "data": {"version": "v2.3"}, "instructions": "追加到记录"},
        )
    )["recordCheckpoint"]

    def synced() -> list[dict[str, Any]] | None:
        cps = data(api.graphql(WATCH, {"scope": scope, "id": wid}))["watch"]["checkpoints"]
        return cps if cps and cps[0]["syncStatus"] != "pending" else None

    [checkpoint] = until(synced)
    assert checkpoint["id"] == good["id"] and checkpoint["syncStatus"] == "synced"

    stopped = data(
        api.graphql(
            "mutation($s: String!, $id: ID!) { stopWatch(scope: $s, id: $id) { status } }",
            {"s": scope, "id": wid},
        )
    )
    assert stopped["stopWatch"]["status"] == "stopped"
    grants = data(api.graphql(WATCH, {"scope": scope, "id": wid}))["watch"]["grants"]
    assert grants and all(g["revokedAt"] for g in grants)
    refused = api.graphql(RUN, {"scope": scope, "id": wid, "req": "after-stop"})
    assert errors(refused)[0]["extensions"]["code"] == "INVALID_INPUT"


def test_watches_is_a_relay_connection(watch_stack: Server, scope: str) -> None:
    api = watch_stack
    data(
        api.graphql(
            "mutation($i: UpsertSourceInput!) { upsertSource(input: $i) { id } }",
            {"i": {"scope": scope, "id": "n1", "kind": "NOTE", "version": "r1", "text": "x"}},
        )
    )
    for title in ("一", "二", "三"):
        data(
            api.graphql(
                CREATE,
                {
                    "input": {
                        "scope": scope,
                        "sessionId": "s",
                        "title": title,
                        "bindings": [{"kind": "note", "noteId": "n1"}],
                    }
                },
            )
        )
    page = """query($s: String!, $after: String) { watches(scope: $s, first: 2, after: $after) {
      totalCount edges { cursor node { title } } pageInfo { hasNextPage endCursor } } }"""
    first = data(api.graphql(page, {"s": scope}))["watches"]
    assert first["totalCount"] == 3 and first["pageInfo"]["hasNextPage"]
    rest = data(api.graphql(page, {"s": scope, "after": first["pageInfo"]["endCursor"]}))
    titles = [e["node"]["title"] for e in first["edges"] + rest["watches"]["edges"]]
    assert titles == ["一", "二", "三"] and not rest["watches"]["pageInfo"]["hasNextPage"]
    bad = api.graphql(page, {"s": scope, "after": "garbage"})
    assert errors(bad)[0]["extensions"]["code"] == "INVALID_INPUT"


REPORT = """
mutation($s: String!, $id: ID!, $key: String!, $entries: [SessionEntryInput!]!,
         $done: [CompletedStepInput!], $verify: Boolean!) {
  reportExecution(scope: $s, watchId: $id, executionKey: $key, entries: $entries,
                  completedSteps: $done, verifyOnly: $verify) {
    duplicate deliveryState receipt { status accepted reason completedSteps replayed } } }"""
STATE = """query($s: String!, $id: ID!) { watch(scope: $s, id: $id) {
  deliveryState steps { stepId status } receipts { status accepted } handOffs { executionKey }
  observations { observedAt }
} }"""


def test_partner_receipts_over_http_and_a_heartbeat_round_by_the_worker(
    watch_stack: Server, model_server: ScriptedModelServer, scope: str
) -> None:
    api = watch_stack
    library = f"lib-{scope}"
    data(
        api.graphql(
            "mutation($i: UpsertSourceInput!) { upsertSource(input: $i) { id } }",
            {
                "i": {
                    "scope": scope,
                    "version": "r1",
                    "id": "d1",
                    "kind": "KNOWLEDGE",
                    "title": "发布流程",
                    "text": "1. 核对版本号为 v2.3。\n2. 生成发布草稿。",
                }
            },
        )
    )
    data(
        api.graphql(
            "mutation($s: String!, $l: String!) { placeKnowledgeDocument(scope: $s, libraryId: $l, "
            'documentId: "d1") }',
            {"s": scope, "l": library},
        )
    )
    wid = data(
        api.graphql(
            CREATE,
            {
                "input": {
                    "scope": scope,
                    "sessionId": "s-2",
                    "executionEnabled": True,
                    "mountedLibraries": [library],
                    "bindings": [
                        {"kind": "knowledge_document", "libraryId": library, "documentId": "d1"}
                    ],
                }
            },
        )
    )["createWatch"]["id"]
    doc_key = f"doc:{library}/d1"
    model_server.reset()
    turns = Grounding()
    model_server.script(
        turns(call("read_knowledge_source", {"sourceKey": doc_key}), doc_key),
        turns(
            call(
                "check_workflow",
                {
                    "steps": [
                        {
                            "stepId": "s1",
                            "kind": "check",
                            "source": doc_key,
                            "method": "看版本",
                            "completionCriteria": "v2.3",
                        },
                        {
                            "stepId": "s2",
                            "kind": "execute",
                            "source": doc_key,
                            "method": "写草稿",
                            "completionCriteria": "草稿已生成",
                        },
                    ]
                },
            ),
            "核对版本号为 v2.3",
            "生成发布草稿",
        ),
        turns(
            ScriptedReply(
                text=json.dumps(
                    {
                        "summary": "ok",
                        "workflowChecks": [
                            {"stepId": "s1", "status": "done", "evidence": "版本 v2.3"}
                        ],
                    }
                )
            ),
            '"registered": ["s1", "s2"]',
        ),
    )
    data(api.graphql(RUN, {"scope": scope, "id": wid, "req": "r-receipt"}))
    # the hand-off is written just before the check's observation and steps: wait for all
    # three (the step evidence is what makes the facts recorded)
    watch = until(
        lambda: (
            (w := data(api.graphql(STATE, {"s": scope, "id": wid}))["watch"])["handOffs"]
            and w["observations"]
            and w["deliveryState"] == "facts_recorded"
            and w
        )
    )
    assert turns.misses == [], "each scripted turn stands on what the worker sent"
    key = watch["handOffs"][0]["executionKey"]

    def entries(*middle: dict[str, Any], final: bool = True) -> list[dict[str, Any]]:
        items = [{"kind": "handoff", "at": "2026-03-02T10:00:00Z", "executionKey": key}, *middle]
        if final:
            items.append(
                {"kind": "assistant_final", "at": "2026-03-02T10:09:00Z", "text": "草稿已生成"}
            )
        return items

    done = [{"stepId": "s2"}]
    rejected = data(
        api.graphql(
            REPORT,
            {
                "s": scope,
                "id": wid,
                "key": key,
                "verify": False,
                "done": done,
                "entries": entries(
                    {
                        "kind": "user_message",
                        "at": "2026-03-02T10:05:00Z",
                        "text": "先帮我订个会议室",
                    }
                ),
            },
        )
    )
    r = rejected["reportExecution"]
    assert r["receipt"]["status"] == "separated_by_user_request"
    assert not r["receipt"]["accepted"] and r["receipt"]["reason"]
    assert r["deliveryState"] == "facts_recorded"
    no_answer = data(
        api.graphql(
            REPORT,
            {
                "s": scope,
                "id": wid,
                "key": key,
                "verify": False,
                "done": done,
                "entries": entries(final=False),
            },
        )
    )
    assert no_answer["reportExecution"]["receipt"]["status"] == "no_final_answer"
    bad = api.graphql(
        REPORT,
        {
            "s": scope,
            "id": wid,
            "key": key,
            "verify": False,
            "done": [{"stepId": "s1"}],
            "entries": entries(),
        },
    )
    assert errors(bad)[0]["extensions"]["code"] == "INVALID_INPUT"

    accepted = data(
        api.graphql(
            REPORT,
            {
                "s": scope,
                "id": wid,
                "key": key,
                "verify": False,
                "done": done,
                "entries": entries({"kind": "compaction_checkpoint", "at": "2026-03-02T10:03:00Z"}),
            },
        )
    )
    a = accepted["reportExecution"]
    assert a["receipt"]["accepted"] and a["receipt"]["completedSteps"] == ["s2"]
    assert a["deliveryState"] == "deliverable_done" and not a["receipt"]["replayed"]
    check_only = data(
        api.graphql(
            REPORT,
            {"s": scope, "id": wid, "key": key, "verify": True, "done": None, "entries": entries()},
        )
    )
    assert check_only["reportExecution"]["receipt"]["completedSteps"] == []
    calls_before = model_server.calls
    watch = data(api.graphql(STATE, {"s": scope, "id": wid}))["watch"]
    assert watch["deliveryState"] == "deliverable_done"
    assert [(s["stepId"], s["status"]) for s in watch["steps"]] == [("s1", "done"), ("s2", "done")]
    assert [r["accepted"] for r in watch["receipts"]].count(True) == 2
    assert len(watch["receipts"]) == 4 and len(watch["handOffs"]) == 1

    # A heartbeat round by the worker: the verified watch closes, nothing else is checked.
    ticket = data(
        api.graphql(
            'mutation($s: String!) { runWatchRound(scope: $s, roundId: "hb-1") '
            "{ roundId enqueued } }",
            {"s": scope},
        )
    )["runWatchRound"]
    assert ticket == {"roundId": "hb-1", "enqueued": True}
    query = """query($s: String!) { watchRound(scope: $s, id: "hb-1") { closed checked } }"""
    done_round = until(lambda: data(api.graphql(query, {"s": scope}))["watchRound"])
    assert done_round == {"closed": [wid], "checked": []}
    assert model_server.calls == calls_before, "receipts and the round replayed no model call"


# --- the offline checker (no MODEL_BASE_URL) in a real worker ------------------------------

ALICE_TOKEN = "alice-e2e-token"
OFFLINE_NOTE = "1. 核对官网版本号必须为 v2.3。\n2. 生成发布草稿。\n官网当前版本号：v2.3"
OFFLINE_WATCH = """query($s: String!, $id: ID!) { watch(scope: $s, id: $id) {
  deliveryState
  steps { stepId kind status evidence evidenceRunId evidenceBy { kind id } }
  observations { runId toolSummaries error
                 outcome { status factsRecorded deliverableDone deliveryState } }
  handOffs { sessionId steps { stepId kind source status evidence completionCriteria } }
} }"""
RECORD = """mutation($s: String!, $id: ID!, $u: [StepEvidenceInput!]!) {
  recordStepEvidence(scope: $s, watchId: $id, updates: $u) {
    steps { stepId status evidenceRunId evidenceBy { kind id } } } }"""


@pytest.fixture(scope="module")
def offline_stack(start_server: Any, services: Settings) -> Iterator[Server]:
    """An API with a named person's token and a worker without a model endpoint."""
    queue = f"storygraph:test:watch-offline:{uuid.uuid4().hex[:8]}"
    tokens = json.dumps(
        [
            {
                "token": ALICE_TOKEN,
                "name": "alice",
                "scopes": ["*"],
                "roles": ["reader", "editor", "operator"],
            }
        ]
    )
    api = start_server(QUEUE_NAME=queue, API_TOKENS=tokens)
    env = process_env(services, QUEUE_NAME=queue)
    for name in ("MODEL_BASE_URL", "MODEL_API_KEY", "MODEL_NAME"):
        env.pop(name, None)
    worker = spawn(["worker"], env)
    yield api
    stop(worker)


def test_the_offline_checker_in_a_worker_checks_a_note_with_numbered_steps(
    offline_stack: Server, scope: str
) -> None:
    api = offline_stack

    def gql(query: str, variables: dict[str, Any]) -> dict[str, Any]:
        return data(api.graphql(query, variables, token=ALICE_TOKEN))

    gql(
        "mutation($i: UpsertSourceInput!) { upsertSource(input: $i) { id } }",
        {
            "i": {
                "scope": scope,
                "id": "n1",
                "kind": "NOTE",
                "version": "r1",
                "title": "发布检查笔记",
                "text": OFFLINE_NOTE,
            }
        },
    )
    created = gql(
        CREATE,
        {
            "input": {
                "scope": scope,
                "sessionId": "s-offline",
                "title": "发布检查",
                "executionEnabled": True,
                "bindings": [{"kind": "note", "noteId": "n1", "title": "发布检查笔记"}],
            }
        },
    )
    wid = created["createWatch"]["id"]
    ticket = gql(RUN, {"scope": scope, "id": wid, "req": "offline-e2e"})["runWatchNow"]
    assert ticket == {"runId": "offline-e2e", "enqueued": True}

    watch = until(
        lambda: (w := gql(OFFLINE_WATCH, {"s": scope, "id": wid})["watch"])["observations"] and w
    )
    [obs] = watch["observations"]
    assert obs["runId"] == "offline-e2e" and obs["error"] is None
    assert obs["toolSummaries"][0].startswith("[heartbeat_read_note_source note:n1")
    outcome = obs["outcome"]
    assert outcome["status"] == "success"
    assert outcome["factsRecorded"] and not outcome["deliverableDone"]
    assert outcome["deliveryState"] == watch["deliveryState"] == "facts_recorded"
    s1, s2 = watch["steps"]
    assert (s1["stepId"], s1["kind"], s1["status"]) == ("s1", "check", "done")
    assert s1["evidence"] == "note:n1 L3: 官网当前版本号：v2.3"
    assert s1["evidenceBy"] == {"kind": "RUN", "id": "offline-e2e"}
    assert (s2["stepId"], s2["kind"], s2["status"]) == ("s2", "execute", "pending")
    [handoff] = watch["handOffs"]
    assert handoff["sessionId"] == "s-offline"
    assert [(s["stepId"], s["kind"], s["status"]) for s in handoff["steps"]] == [
        ("s1", "check", "done"),
        ("s2", "execute", "pending"),
    ]
    assert handoff["steps"][0]["source"] == "note:n1"

    steps = gql(
        RECORD,
        {
            "s": scope,
            "id": wid,
            "u": [{"stepId": "s2", "status": "blocked", "evidence": "发布平台维护中，我明天再发"}],
        },
    )["recordStepEvidence"]["steps"]
    assert steps[1]["status"] == "blocked"
    assert (steps[1]["evidenceRunId"], steps[1]["evidenceBy"]) == (
        None,
        {"kind": "USER", "id": "alice"},
    )
    assert steps[0]["evidenceBy"] == {"kind": "RUN", "id": "offline-e2e"}
