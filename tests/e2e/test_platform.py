import subprocess
import sys
import uuid

import httpx

from engine.settings import PROJECT_ROOT
from tests.support.polling import until
from tests.support.processes import Server, process_env


def test_health_answers_true_true_over_http(api: Server) -> None:
    body = api.graphql("{ health { neo4j redis version } }").json()
    assert body["data"]["health"]["neo4j"] is True
    assert body["data"]["health"]["redis"] is True
    healthz = httpx.get(f"{api.url}/healthz").json()
    assert healthz["neo4j"] is True and healthz["redis"] is True


def test_job_round_trip_api_worker_neo4j_api(api: Server, worker: subprocess.Popen[bytes]) -> None:
    probe_id = f"e2e-{uuid.uuid4().hex[:8]}"
    ticket = api.graphql(
        'mutation($id: ID!) { enqueueProbe(id: $id, note: "round trip") { id enqueued } }',
        {"id": probe_id},
    ).json()
    assert ticket["data"]["enqueueProbe"] == {"id": probe_id, "enqueued": True}
    found = until(
        lambda: api.graphql(
            "query($id: ID!) { workerProbe(id: $id) { note workerId runs } }", {"id": probe_id}
        ).json()["data"]["workerProbe"],
        lambda got: got is not None,
        "the worker writing the probe",
        30,
    )
    assert found["note"] == "round trip" and found["runs"] == 1 and found["workerId"]
    again = api.graphql(
        "mutation($id: ID!) { enqueueProbe(id: $id) { enqueued } }", {"id": probe_id}
    ).json()
    assert again["data"]["enqueueProbe"]["enqueued"] is False, (
        "a duplicate job id must not enqueue twice"
    )


def test_graphiql_page_and_metrics_are_served(api: Server) -> None:
    page = httpx.get(f"{api.url}/graphql", headers={"accept": "text/html"})
    assert page.status_code == 200 and "graphiql" in page.text.lower()
    api.graphql("{ health { neo4j } }")
    metrics = httpx.get(f"{api.url}/metrics").text
    assert 'storygraph_http_requests_total{role="api",route="/graphql",status="200"}' in metrics


def test_errors_carry_codes_and_no_stack_traces(api: Server) -> None:
    unknown = api.graphql("{ health { nope } }").json()
    assert unknown["errors"][0]["extensions"]["code"] == "INVALID_INPUT"
    deep = "{ health " + "{ a " * 15 + "}" * 16
    too_deep = api.graphql(deep).json()
    assert any("depth" in e["message"] for e in too_deep["errors"])
    too_long = api.graphql('mutation { enqueueProbe(note: "%s") { id } }' % ("x" * 501)).json()
    assert too_long["errors"][0]["extensions"] == {"field": "note", "code": "INVALID_INPUT"}
    assert "Traceback" not in str(unknown) + str(too_deep) + str(too_long)


def test_tokens_bind_roles_and_unauthenticated_calls_are_refused(start_server) -> None:  # type: ignore[no-untyped-def]
    tokens = '[{"token": "reader-t", "name": "viewer", "scopes": ["p1"], "roles": ["reader"]}]'
    secured = start_server(API_TOKENS=tokens)
    anonymous = secured.graphql("{ health { neo4j } }")
    assert anonymous.status_code == 401
    assert anonymous.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
    assert secured.graphql("{ health { neo4j } }", token="wrong").status_code == 401
    ok = secured.graphql("{ health { neo4j } }", token="reader-t").json()
    assert ok["data"]["health"]["neo4j"] is True
    denied = secured.graphql('mutation { enqueueProbe(note: "x") { id } }', token="reader-t").json()
    assert denied["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    page = httpx.get(f"{secured.url}/graphql", headers={"accept": "text/html"})
    assert page.status_code == 200


def test_public_binding_without_tokens_refuses_to_start(services) -> None:  # type: ignore[no-untyped-def]
    env = process_env(services, API_HOST="0.0.0.0", API_PORT="1")
    env.pop("API_TOKENS", None)
    done = subprocess.run(
        [sys.executable, "-m", "api.cli", "serve"],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "Refusing to serve on 0.0.0.0 without API tokens" in done.stderr
    assert "Traceback" not in done.stderr


def test_worker_serves_model_metrics_when_asked(services) -> None:  # type: ignore[no-untyped-def]
    from tests.support.processes import free_port, spawn, stop

    port = free_port()
    proc = spawn(["worker"], process_env(services, WORKER_METRICS_PORT=str(port)))
    try:

        def metrics() -> str:
            try:
                return httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=1).text
            except httpx.HTTPError:
                return ""

        text = until(metrics, lambda t: "storygraph_model_calls" in t, "the metrics page", 30)
        assert "# HELP storygraph_model_calls_total" in text
        assert "storygraph_model_retries_total" in text
    finally:
        stop(proc)


def test_with_redis_down_the_api_serves_and_says_so(start_server) -> None:  # type: ignore[no-untyped-def]
    from tests.support.processes import free_port

    degraded = start_server(REDIS_PORT=str(free_port()), REDIS_URL="")
    health = degraded.graphql("{ health { neo4j redis } }").json()
    assert health["data"]["health"] == {"neo4j": True, "redis": False}
    assert httpx.get(f"{degraded.url}/healthz").status_code == 503
    refused = degraded.graphql('mutation { enqueueProbe(note: "x") { id } }').json()
    assert refused["errors"][0]["extensions"]["code"] == "UNAVAILABLE"
    assert "Traceback" not in str(refused)
