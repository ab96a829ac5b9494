"""A chat-bot webhook receiver on loopback for concern tests: fails while `failing`
(503), otherwise answers 200 after `delay_s` and records each accepted POST (its JSON body
with the `Idempotency-Key` as "idem") and its raw headers and body (for signature checks)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Webhook:
    def __init__(self, *, failing: bool = True, delay_s: float = 0.0) -> None:
        self.failing = failing
        self.accepted: list[dict[str, Any]] = []
        self.raw: list[tuple[dict[str, str], bytes]] = []
        self.refused = 0
        self.lock = threading.Lock()
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                raw = self.rfile.read(int(self.headers["content-length"]))
                if hook.failing:
                    with hook.lock:
                        hook.refused += 1
                    self.send_response(503)
                else:
                    time.sleep(delay_s)
                    headers = {k.lower(): v for k, v in self.headers.items()}
                    with hook.lock:
                        hook.raw.append((headers, raw))
                        hook.accepted.append(
                            {**json.loads(raw), "idem": headers["idempotency-key"]}
                        )
                    self.send_response(200)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def by_key(self) -> dict[str, list[dict[str, Any]]]:
        """Accepted POSTs grouped by Idempotency-Key, in arrival order."""
        with self.lock:
            seen: dict[str, list[dict[str, Any]]] = {}
            for body in self.accepted:
                seen.setdefault(body["idem"], []).append(body)
            return seen

    def __enter__(self) -> Webhook:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
