"""The listening socket of `storygraph serve --workers N`: one per worker process on Linux.

uvicorn's workers share the parent's one socket, and the worker whose event loop wakes first
accepts every connection waiting in the backlog: 32 clients connecting together were split
28 / 4, 25 / 7, 21 / 11 between two workers, so one core served most of them while the
other idled (a 32-client p95 above the peer's). With SO_REUSEPORT each worker listens on a
socket of its own bound to the same address, and the kernel spreads new connections over
the listening sockets by their addresses' hash.

`WorkerListener` is the parent's socket, bound (so a port in use is reported at once, and
the address stays taken) but never listening; handed to a worker (multiprocessing pickles
it into the spawned process), it arrives as a fresh SO_REUSEPORT socket of that worker's
own, a restarted worker included. Elsewhere (no SO_REUSEPORT balancing) the parent's socket
is shared as before.
"""

from __future__ import annotations

import socket
import sys
from typing import Any

BALANCED = sys.platform == "linux" and hasattr(socket, "SO_REUSEPORT")


def reuse_port_socket(host: str, port: int) -> socket.socket:
    """A socket bound to (host, port) with SO_REUSEPORT, not yet listening."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    return sock


class WorkerListener(socket.socket):
    """The parent's bound socket; each worker process receives a listening socket of its own
    for the same address (see the module note)."""

    def __init__(self, host: str, port: int) -> None:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        super().__init__(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        self.bind((host, port))
        self.address = (host, self.getsockname()[1])

    def __reduce__(self) -> tuple[Any, tuple[str, int]]:
        return reuse_port_socket, self.address
