"""A load client light enough not to be what a throughput bench measures.

`httpx.AsyncClient` costs ~1.3 ms of CPU per request with 8 connections and ~4 ms with 32
(its pool is scanned per request); one Python process driving 32 clients on a busy two-core
machine ran out of CPU before either server did, and both servers then measured the same.
`KeptAlive` is one HTTP/1.1 connection kept open, a request's bytes built once, the answer
read by its Content-Length (or chunks) and parsed once: ~0.1 ms per request, as a `wrk`
connection would. Only for bench/: the servers see an ordinary HTTP/1.1 client.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import urlsplit

import orjson


class KeptAlive:
    """One kept-alive HTTP/1.1 connection POSTing one GraphQL request again and again."""

    reopened = 0  # connections a server closed between requests, over every instance

    def __init__(self, url: str, query: str, variables: dict[str, Any]) -> None:
        parts = urlsplit(url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        body = json.dumps({"query": query, "variables": variables}).encode()
        head = (
            f"POST {parts.path or '/'} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
            "Content-Type: application/json\r\nAccept: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        )
        self.request = head.encode() + body
        self.url = url
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def __aenter__(self) -> KeptAlive:
        await self._connect()
        return self

    async def __aexit__(self, *_: object) -> None:
        if self.writer is not None:
            self.writer.close()

    async def _connect(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def call(self) -> None:
        """One request; an answer that is not a 200 without `errors` raises. A connection
        the server closed before answering is opened again and the request sent again once
        (what any keep-alive client does)."""
        assert self.reader is not None and self.writer is not None
        self.writer.write(self.request)
        try:
            head = await self.reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError) as exc:
            if isinstance(exc, asyncio.IncompleteReadError) and exc.partial:
                raise
            KeptAlive.reopened += 1
            await self._connect()
            assert self.reader is not None and self.writer is not None
            self.writer.write(self.request)
            head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head[9:12])
        length, chunked = -1, False
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"transfer-encoding" and b"chunked" in value.lower():
                chunked = True
        if chunked:
            body = await self._chunks()
        else:
            body = await self.reader.readexactly(length)
        if status != 200 or orjson.loads(body).get("errors"):
            raise RuntimeError(f"{self.url}: {status} {body[:300]!r}")

    async def _chunks(self) -> bytes:
        assert self.reader is not None
        parts: list[bytes] = []
        while True:
            size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                await self.reader.readuntil(b"\r\n")
                return b"".join(parts)
            parts.append(await self.reader.readexactly(size))
            await self.reader.readexactly(2)
