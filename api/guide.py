"""The storygraph guide for Neo4j Browser, served on loopback (`:play <url>`).

Browser fetches a remote guide from its own page (another origin), so the answer allows any
origin; it is public documentation with no data in it. The runnable queries are the saved
queries of `cypher/browser/` (and `cypher/browser/guide/`) as they are, so the guide and the
files never differ. The project's own Neo4j opens it on connect (`browser.post_connect_cmd`,
written by local/neo4j_server.py) and allows fetching guides from 127.0.0.1 and localhost only.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from engine.settings import PROJECT_ROOT

GUIDE = PROJECT_ROOT / "web" / "guide" / "storygraph.html"
BROWSER_QUERIES = PROJECT_ROOT / "cypher" / "browser"
SLOT = re.compile(r"\{\{([a-z_]+)\}\}")


def _query(name: str) -> str:
    for folder in (BROWSER_QUERIES, BROWSER_QUERIES / "guide"):
        path = folder / f"{name}.cypher"
        if path.exists():
            return path.read_text(encoding="utf-8").strip()
    raise FileNotFoundError(f"no saved query {name}.cypher for the guide")


def render_guide(template: Path = GUIDE) -> str:
    """The guide page with each `{{name}}` replaced by the saved query of that name."""
    page = template.read_text(encoding="utf-8")
    return SLOT.sub(lambda m: html.escape(_query(m.group(1)), quote=False), page)


# Browser asks with its own headers (pragma, cache-control, sentry-trace, ...), so a preflight
# (OPTIONS) comes first: any header is allowed, the page is public and sent without credentials
CORS = {"access-control-allow-origin": "*", "access-control-allow-methods": "GET"}


async def guide_endpoint(request: Request) -> Response:
    if request.method == "OPTIONS":
        asked = request.headers.get("access-control-request-headers", "")
        return Response(
            status_code=204, headers={**CORS, "access-control-allow-headers": asked or "*"}
        )
    return HTMLResponse(render_guide(), headers={**CORS, "cache-control": "no-cache"})
