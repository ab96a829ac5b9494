"""Security headers on every HTTP answer: no page of this API can be framed (a page elsewhere
cannot overlay the graph view and have a person click its Accept or Confirm), no answer is
sniffed into another type, and pages run only this API's own scripts.

- `X-Frame-Options: DENY` and CSP `frame-ancestors 'none'`;
- `X-Content-Type-Options: nosniff`;
- `Content-Security-Policy`: scripts from this origin and the pages' own inline scripts,
  named by their SHA-256 (read from `web/*.html` at start, so an edited page keeps
  working), nothing else; connections, images, fonts and styles from this origin (inline
  styles and `data:` images allowed: the pages and GraphiQL use them); no plugins, no
  `<base>`, forms post only here;
- `Referrer-Policy: no-referrer`.
"""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.S)


def inline_script_hashes(pages: Path) -> list[str]:
    """The CSP source of each inline script of the pages under `pages`."""
    found = []
    for page in sorted(pages.glob("*.html")):
        for body in INLINE_SCRIPT.findall(page.read_text(encoding="utf-8")):
            digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
            found.append(f"'sha256-{digest}'")
    return found


def content_security_policy(pages: Path) -> str:
    scripts = " ".join(["'self'", *inline_script_hashes(pages)])
    return "; ".join(
        [
            "default-src 'self'",
            f"script-src {scripts}",
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data:",
            "font-src 'self' data:",
            "connect-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ]
    )


class PageHeaders:
    def __init__(self, app: ASGIApp, pages: Path) -> None:
        self.app = app
        self.headers = {
            "content-security-policy": content_security_policy(pages),
            "x-frame-options": "DENY",
            "x-content-type-options": "nosniff",
            "referrer-policy": "no-referrer",
        }

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in self.headers.items():
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, with_headers)
