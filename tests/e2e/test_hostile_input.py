"""Every bad input answers a clear error with a code, and a rejected mutation writes nothing.

Before: a variable of the wrong type, a missing variable and a DateTime without a zone
answered INTERNAL "internal error (request id ...)"; `from` later than `to` was accepted (and
startReview failed later, in the worker); a body that is not JSON got a plain-text 400; no
request, string or list was too large.
"""

from __future__ import annotations

import base64
import json
import uuid
from typing import Any

import httpx
import pytest

from tests.support.processes import Server

Z = "2026-03-16T10:00:00Z"
LATER = "2026-03-20T10:00:00Z"


def scope() -> str:
    return f"p-{uuid.uuid4().hex[:10]}"


def only_error(response: httpx.Response) -> dict[str, Any]:
    body = response.json()
    (error,) = body["errors"]
    assert isinstance(error, dict)
    return error


def code_of(response: httpx.Response) -> str:
    return str(only_error(response)["extensions"]["code"])


def test_variable_of_the_wrong_type_is_invalid_input_naming_the_argument(api: Server) -> None:
    r = api.graphql(
        'query($at: DateTime) { storyGraph(scope: "p1", asOf: $at) { events { id } } }',
        {"at": "next tuesday"},
    )
    error = only_error(r)
    assert error["extensions"]["code"] == "INVALID_INPUT"
    assert "storyGraph.asOf" in error["message"] and "request id" not in error["message"]

    r = api.graphql(
        'query($n: Int) { events(scope: "p1", first: $n) { totalCount } }', {"n": "ten"}
    )
    assert code_of(r) == "INVALID_INPUT" and "events.first" in only_error(r)["message"]


def test_missing_required_variable_is_invalid_input(api: Server) -> None:
    r = api.graphql("query($s: String!) { events(scope: $s) { totalCount } }", {})
    assert code_of(r) == "INVALID_INPUT" and "events.scope" in only_error(r)["message"]


@pytest.mark.parametrize(
    ("query", "argument"),
    [
        ('query($t: DateTime) { storyGraph(scope: "p1", asOf: $t) { events { id } } }', "asOf"),
        ('query($t: DateTime) { storyGraph(scope: "p1", from: $t) { events { id } } }', "from"),
        ('query($t: DateTime) { graphView(scope: "p1", to: $t) { __typename } }', "to"),
        ('query($t: DateTime) { events(scope: "p1", from: $t) { totalCount } }', "from"),
        (
            'query($t: DateTime) { entity(scope: "p1", id: "e", asOf: $t) { __typename } }',
            "asOf",
        ),
    ],
)
def test_a_time_without_a_zone_is_invalid_input_in_any_argument(
    api: Server, query: str, argument: str
) -> None:
    r = api.graphql(query, {"t": "2026-03-16T10:00:00"})
    error = only_error(r)
    assert error["extensions"]["code"] == "INVALID_INPUT", error
    assert "time zone" in error["message"] and f".{argument}" in error["message"]


def test_a_literal_time_without_a_zone_names_its_argument(api: Server) -> None:
    r = api.graphql('{ events(scope: "p1", to: "2026-03-16T10:00:00") { totalCount } }')
    error = only_error(r)
    assert error["extensions"]["code"] == "INVALID_INPUT"
    assert "events.to" in error["message"] and "time zone" in error["message"]


@pytest.mark.parametrize(
    "query",
    [
        f'{{ storyGraph(scope: "p1", from: "{LATER}", to: "{Z}") {{ events {{ id }} }} }}',
        f'{{ graphView(scope: "p1", from: "{LATER}", to: "{Z}") {{ __typename }} }}',
        f'{{ events(scope: "p1", from: "{LATER}", to: "{Z}") {{ totalCount }} }}',
    ],
)
def test_from_later_than_to_is_invalid_input(api: Server, query: str) -> None:
    r = api.graphql(query)
    assert code_of(r) == "INVALID_INPUT" and "from" in only_error(r)["message"]


@pytest.mark.parametrize("to", [Z, "2026-03-16T09:00:00Z"])
def test_start_review_with_an_empty_or_reversed_window_enqueues_nothing(
    api: Server, to: str
) -> None:
    project = scope()
    r = api.graphql(
        "mutation($p: [String!]!, $f: DateTime!, $t: DateTime!) {"
        " startReview(scope: {projectIds: $p}, from: $f, to: $t) { id } }",
        {"p": [project], "f": Z, "t": to},
    )
    assert code_of(r) == "INVALID_INPUT" and "startReview" in only_error(r)["message"]
    runs = api.graphql(
        "query($p: [String!]!) { supervisionRuns(scope: {projectIds: $p}) { totalCount } }",
        {"p": [project]},
    )
    assert runs.json()["data"]["supervisionRuns"]["totalCount"] == 0


@pytest.mark.parametrize("cursor", ["o:-5", "garbage", "!!", "o:3x"])
def test_a_cursor_this_api_did_not_issue_is_invalid_input(api: Server, cursor: str) -> None:
    for after in (cursor, base64.urlsafe_b64encode(cursor.encode()).decode()):
        r = api.graphql(
            'query($a: String) { events(scope: "p1", after: $a) { totalCount } }', {"a": after}
        )
        assert code_of(r) == "INVALID_INPUT", (after, r.text)


def test_one_maximum_for_first_everywhere(api: Server) -> None:
    for query in (
        '{ events(scope: "p1", first: 501) { totalCount } }',
        '{ watches(scope: "p1", first: 501) { totalCount } }',
        '{ concerns(scope: "p1", first: 501) { totalCount } }',
    ):
        r = api.graphql(query)
        assert code_of(r) == "INVALID_INPUT" and "500" in only_error(r)["message"], query
    ok = api.graphql('{ watches(scope: "p1", first: 500) { totalCount } }')
    assert "errors" not in ok.json(), ok.text


def test_a_body_that_is_not_json_is_a_json_bad_request(api: Server) -> None:
    r = httpx.post(
        f"{api.url}/graphql",
        content=b"{not json",
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 400
    assert r.headers["content-type"].startswith("application/json")
    assert code_of(r) == "BAD_REQUEST"


def test_a_schedule_faster_than_the_floor_is_invalid_input_and_not_stored(api: Server) -> None:
    project = scope()
    r = api.graphql(
        "mutation($i: RaiseConcernInput!) { raiseConcern(input: $i) { id } }",
        {
            "i": {
                "scope": project,
                "type": "SCHEDULE",
                "title": "提醒",
                "goal": "发出提醒",
                "initiator": {"name": "老板", "channel": "wechat"},
                "trigger": {"nextRunAt": "0001-01-01T00:00:00Z", "everySeconds": 1},
            }
        },
    )
    assert code_of(r) == "INVALID_INPUT" and "everySeconds" in only_error(r)["message"]
    listed = api.graphql(
        "query($s: String!) { concerns(scope: $s) { totalCount } }", {"s": project}
    )
    assert listed.json()["data"]["concerns"]["totalCount"] == 0


# --- limits, on a server with small ones --------------------------------------------------


@pytest.fixture(scope="module")
def tight(start_server) -> Server:  # type: ignore[no-untyped-def]
    return start_server(
        API_MAX_BODY_BYTES="20000",
        INPUT_MAX_STRING_CHARS="50",
        INPUT_MAX_TEXT_CHARS="200",
        INPUT_MAX_LIST_ITEMS="3",
        GRAPHQL_MAX_TOKENS="300",
        GRAPHQL_MAX_VARIABLE_TOKENS="300",
    )


def publish(project: str, events: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    return (
        "mutation($i: PublishResultInput!) { publishResult(input: $i) { repeat } }",
        {"i": {"scope": project, "key": uuid.uuid4().hex, "events": events}},
    )


def event_count(server: Server, project: str) -> int:
    r = server.graphql("query($s: String!) { events(scope: $s) { totalCount } }", {"s": project})
    return int(r.json()["data"]["events"]["totalCount"])


def test_a_body_over_the_limit_is_413_with_a_json_error(tight: Server) -> None:
    body = json.dumps({"query": "{ __typename }", "variables": {"x": "a" * 30000}})
    r = httpx.post(
        f"{tight.url}/graphql", content=body, headers={"content-type": "application/json"}
    )
    assert r.status_code == 413 and code_of(r) == "PAYLOAD_TOO_LARGE"


def test_too_many_rows_or_too_long_a_string_is_invalid_input_and_writes_nothing(
    tight: Server,
) -> None:
    project = scope()
    row = {"ref": "e", "title": "提测", "at": Z}
    too_many = [{**row, "ref": f"e{i}"} for i in range(4)]
    r = tight.graphql(*publish(project, too_many))
    assert (
        code_of(r) == "INVALID_INPUT" and "publishResult.input.events" in only_error(r)["message"]
    )
    r = tight.graphql(*publish(project, [{**row, "description": "长" * 51}]))
    assert code_of(r) == "INVALID_INPUT"
    assert "publishResult.input.events[0].description" in only_error(r)["message"]
    assert event_count(tight, project) == 0
    r = tight.graphql(*publish(project, [row]))
    assert "errors" not in r.json(), r.text
    assert event_count(tight, project) == 1


def test_source_text_has_its_own_larger_limit(tight: Server) -> None:
    mutation = "mutation($i: UpsertSourceInput!) { upsertSource(input: $i) { id } }"
    source = {"scope": scope(), "id": "s1", "kind": "NOTE", "version": "v1"}
    assert "errors" not in tight.graphql(mutation, {"i": {**source, "text": "字" * 200}}).json()
    r = tight.graphql(mutation, {"i": {**source, "version": "v2", "text": "字" * 201}})
    assert code_of(r) == "INVALID_INPUT" and "upsertSource.input.text" in only_error(r)["message"]


def test_the_token_limit_counts_the_variables(tight: Server) -> None:
    r = tight.graphql("query($v: JSON) { __typename }", {"v": {f"k{i}": i for i in range(200)}})
    assert code_of(r) == "INVALID_INPUT" and "tokens" in only_error(r)["message"]


def test_a_result_of_a_thousand_events_fits_the_default_budgets(api: Server) -> None:
    """The default limits refuse hostile documents, not an app's ordinary bulk write: a
    publishResult of 1,000 events goes through (its variables have their own budget)."""
    project = f"p-{uuid.uuid4().hex[:8]}"
    events = [
        {"ref": f"e{i}", "title": f"第 {i} 件事", "at": "2026-11-30T10:00:00+08:00"}
        for i in range(1000)
    ]
    query, variables = publish(project, events)
    r = api.graphql(query, variables)
    assert "errors" not in r.json(), r.json()
    assert event_count(api, project) == 1000


def test_a_document_is_checked_each_time_it_is_sent(tight: Server) -> None:
    """Validation is remembered for a document that passed, never for one that failed: a
    refused document is refused again, and a remembered one is still held to the variables'
    budget and to its variables' types."""
    deep = "{ health " + "{ a " * 15 + "}" * 16
    aliased = "{ " + " ".join(f"a{i}: __typename" for i in range(40)) + " }"
    for _ in range(2):
        for document, word in ((deep, "depth"), (aliased, "aliases")):
            errors = tight.graphql(document).json()["errors"]
            assert any(word in e["message"] for e in errors), errors
    query = "query($s: String!, $f: Int) { events(scope: $s, first: $f) { totalCount } }"
    fine = {"s": "p-cache", "f": 1}
    assert tight.graphql(query, fine).json() == {"data": {"events": {"totalCount": 0}}}
    over = tight.graphql(query, {**fine, "junk": {f"k{i}": i for i in range(200)}})
    assert code_of(over) == "INVALID_INPUT" and "tokens" in only_error(over)["message"]
    assert code_of(tight.graphql(query, {**fine, "f": "x"})) == "INVALID_INPUT"
    assert tight.graphql(query, fine).json() == {"data": {"events": {"totalCount": 0}}}


@pytest.mark.parametrize(
    ("query", "variables", "argument", "form"),
    [
        # a DateTime that is no date, and one the calendar lacks
        (
            'query($t: DateTime) { storyGraph(scope: "p1", asOf: $t) { scopeKnown } }',
            {"t": "yesterday"},
            "storyGraph.asOf",
            "a DateTime is an ISO 8601 date and time with a zone, such as",
        ),
        (
            '{ storyGraph(scope: "p1", asOf: "2026-02-30T10:00:00Z") { scopeKnown } }',
            None,
            "storyGraph.asOf",
            "not a date and time on the calendar (day is out of range for month)",
        ),
        # an enum value that does not exist lists the values that do
        (
            '{ signals(scope: "p1", kind: PROMIS) { totalCount } }',
            None,
            "signals.kind",
            '"PROMIS" is not a SignalKind; expected one of COMMITMENT, BLOCKER',
        ),
        (
            'query($k: SignalKind) { signals(scope: "p1", kind: $k) { totalCount } }',
            {"k": "PROMIS"},
            "signals.kind",
            "expected one of COMMITMENT, BLOCKER",
        ),
        # an ID that is a number with a fraction, an Int that is a word
        (
            '{ entity(scope: "p1", id: 3.5) { __typename } }',
            None,
            "entity.id",
            "3.5 is not an ID; an ID is a string",
        ),
        (
            '{ events(scope: "p1", first: "ten") { totalCount } }',
            None,
            "events.first",
            '"ten" is not an Int; an Int is a whole number',
        ),
        # a cursor this list did not issue, a scope that is no scope, an unknown inbox kind
        (
            '{ events(scope: "p1", after: "zzz") { totalCount } }',
            None,
            "after",
            "is not a cursor of this list; after takes an edge's cursor or pageInfo.endCursor",
        ),
        (
            '{ events(scope: "bad scope!") { totalCount } }',
            None,
            "scope",
            "is not a scope; a scope is a project id",
        ),
        (
            '{ inbox(scope: "p1", kinds: ["FIELDS"]) { totalCount } }',
            None,
            "kinds",
            "is not an inbox kind; expected one of DIFFERENCE, FAILED_RUN, FIELD",
        ),
        # no object ids to read the details of
        (
            '{ storyObjects(scope: "p1", ids: []) { scopeKnown } }',
            None,
            "ids",
            "ids takes 1 to 100 object ids",
        ),
    ],
)
def test_every_input_error_names_the_argument_and_the_form_it_takes(
    api: Server, query: str, variables: dict[str, Any] | None, argument: str, form: str
) -> None:
    error = only_error(api.graphql(query, variables))
    assert error["extensions"]["code"] == "INVALID_INPUT", error
    message = error["message"]
    assert message.startswith(f"argument {argument}"), message
    assert form in message, message
    assert (
        "Expected" not in message and "does not exist in" not in message
    )  # graphql-core's own words


def test_a_source_id_in_the_concern_prefix_is_refused_and_writes_nothing(api: Server) -> None:
    """`concern-<id>` is the loop's conversation of a concern, which ordinary reviews skip:
    an app's source under that prefix would never be read, so it is refused, not stored."""
    mutation = "mutation($i: UpsertSourceInput!) { upsertSource(input: $i) { id } }"
    project = scope()
    source = {"scope": project, "id": "concern-c1", "kind": "NOTE", "version": "v1", "text": "hi"}
    r = api.graphql(mutation, {"i": source})
    assert code_of(r) == "INVALID_INPUT", r.text
    (problem,) = only_error(r)["extensions"]["errors"]
    assert problem["loc"] == "id" and "'concern-'" in problem["msg"], problem
    known = api.graphql(
        "query($s: String!) { storyGraph(scope: $s) { scopeKnown } }", {"s": project}
    )
    assert known.json()["data"]["storyGraph"]["scopeKnown"] is False
    r = api.graphql(mutation, {"i": {**source, "id": "c1-concern-"}})
    assert "errors" not in r.json(), r.text
