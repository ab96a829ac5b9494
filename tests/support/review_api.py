"""GraphQL helpers for the review e2e tests: a scripted leaf answer, a query that must not
fail, and waiting for a supervision run to reach a status."""

from __future__ import annotations

import json
import threading
from typing import Any

from tests.support.polling import until
from tests.support.processes import Server
from tests.support.scripted_model import text


def leaf(
    label: str,
    delay: float = 0.0,
    hold: threading.Event | None = None,
    grounded_in: tuple[str, ...] = (),
) -> Any:
    """A leaf answer; with `hold`, the model answers only once the test sets it; with
    `grounded_in`, only when the request carries those texts."""
    return text(
        json.dumps(
            {"facts": [{"text": f"{label}：提测推进"}], "summary": label}, ensure_ascii=False
        ),
        delay=delay,
        hold=hold,
        grounded_in=grounded_in,
    )


def gql(api: Server, query: str, **variables: Any) -> dict[str, Any]:
    body = api.graphql(query, variables).json()
    assert "errors" not in body, body
    return body["data"]  # type: ignore[no-any-return]


RUN = (
    "query($id: String!) { supervisionRun(id: $id) { status resultId error { kind message } "
    "batches { index state attempts } stages { stage state done total } } }"
)


def wait_run(api: Server, run_id: str, status: str, timeout: float = 60) -> dict[str, Any]:
    run: dict[str, Any] = until(
        lambda: gql(api, RUN, id=run_id)["supervisionRun"],
        lambda r: r["status"] == status,
        f"run {run_id} {status}",
        timeout,
    )
    return run
