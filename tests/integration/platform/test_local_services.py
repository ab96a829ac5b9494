import httpx
import pytest

from engine.settings import Settings
from local.neo4j_server import LocalNeo4j
from local.redis_server import LocalRedis


@pytest.fixture
def local(services: Settings) -> Settings:
    if not services.manages_neo4j:
        pytest.fail("these tests check the project's own Neo4j; unset NEO4J_URI to run them")
    return services


def test_neo4j_start_and_status_are_idempotent(local: Settings) -> None:
    server = LocalNeo4j(local)
    first = server.status()
    assert first.running and first.version and first.version.startswith("5.26.")
    again = server.start()
    assert again.pid == first.pid


def test_neo4j_browser_is_served_and_auth_is_on(local: Settings) -> None:
    base = f"http://127.0.0.1:{local.neo4j_http_port}"
    page = httpx.get(f"{base}/browser/", timeout=10)
    assert page.status_code == 200 and "Neo4j Browser" in page.text
    discovery = httpx.get(f"{base}/", timeout=10).json()
    assert discovery["bolt_direct"] == f"bolt://127.0.0.1:{local.neo4j_bolt_port}"
    anonymous = httpx.post(
        f"{base}/db/neo4j/tx/commit", json={"statements": [{"statement": "RETURN 1"}]}, timeout=10
    )
    assert anonymous.status_code == 401


def test_generated_password_is_stored_privately(local: Settings) -> None:
    path = local.neo4j_password_file
    assert path.exists() and oct(path.stat().st_mode & 0o777) == "0o600"
    password = path.read_text().strip()
    base = f"http://127.0.0.1:{local.neo4j_http_port}"
    ok = httpx.post(
        f"{base}/db/neo4j/tx/commit",
        auth=(local.neo4j_user, password),
        json={"statements": [{"statement": "RETURN 1 AS x"}]},
        timeout=10,
    )
    assert ok.status_code == 200 and ok.json()["results"][0]["data"][0]["row"] == [1]


def test_redis_start_and_status_are_idempotent(services: Settings) -> None:
    if not services.manages_redis:
        pytest.fail("this test checks the project's own Redis; unset REDIS_URL to run it")
    server = LocalRedis(services)
    first = server.status()
    assert first.running
    assert server.start().pid == first.pid
