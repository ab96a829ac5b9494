"""A webhook's refusal is recorded by its status and size, never by its body (readers see a
delivery's last error)."""

from __future__ import annotations

import httpx

from jobs.concern.channel import refusal


def test_a_refusal_is_summarised_without_its_body() -> None:
    body = "Traceback: db password=hunter2 at internal-host:5432"
    answer = httpx.Response(500, text=body, headers={"content-type": "text/plain; charset=utf-8"})
    summary = refusal(answer)
    assert (
        summary == f"webhook answered 500 Internal Server Error ({len(body)} bytes of text/plain)"
    )
    assert "hunter2" not in summary and "internal-host" not in summary
