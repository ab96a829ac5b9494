"""The project's own Neo4j Community 5.26 server, for when NEO4J_URI is unset.

Jars (server, Browser) are resolved from Maven Central with `mvn` using `ops/neo4j/pom.xml`
into `.local/neo4j/lib` once; later starts reuse them. The server is the real
`org.neo4j.server.CommunityEntryPoint` from those jars, run as a detached JVM on
127.0.0.1 with auth on. Before its first start the generated password (stored in
`.local/neo4j-password`, git-ignored, printed by `make run` for Neo4j Browser) is set
with `neo4j-admin dbms set-initial-password` (AdminTool from the same jars), so the server
never accepts `neo4j/neo4j`, not even for the seconds of its first start.

Each instance lives in `.local/neo4j/home-<bolt port>`, so a test server on its own ports
never touches the one `make run` serves. start/stop/status are idempotent, and every
foreseeable failure (no java, no mvn, port taken, server exited) is one clear sentence.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from engine.settings import PROJECT_ROOT, Settings
from local.process import (
    LocalServiceError,
    pid_alive,
    port_open,
    read_pid,
    secret_file,
    stop_pid_file,
)

__all__ = ["LocalNeo4j", "LocalServiceError", "Neo4jStatus"]

POM = PROJECT_ROOT / "ops" / "neo4j" / "pom.xml"
ENTRY_POINT = "org.neo4j.server.CommunityEntryPoint"
ADMIN_TOOL = "org.neo4j.cli.AdminTool"  # neo4j-admin
JVM_OPENS = (
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
)
START_TIMEOUT_S = 180.0


@dataclass(frozen=True)
class Neo4jStatus:
    running: bool
    pid: int | None
    bolt_url: str
    browser_url: str
    version: str | None = None

    def describe(self) -> str:
        if not self.running:
            return "Neo4j is not running."
        return (
            f"Neo4j {self.version or ''} is running (pid {self.pid}) at {self.bolt_url}, "
            f"Browser {self.browser_url}"
        )


def guide_url(settings: Settings) -> str:
    """Where the API serves the storygraph guide for Neo4j Browser (`:play <url>`)."""
    # `localhost` is on Browser's default allowlist, so the guide also opens when the post-connect
    # command runs before Browser has read this server's allowlist
    return f"http://localhost:{settings.api_port}/guide/storygraph.html"


def browser_settings(settings: Settings) -> list[str]:
    """Neo4j Browser on the project's server: open storygraph's guide (served by the API on
    loopback) on connect, alone (Browser runs its own `:play start` as it connects; the
    post-connect commands, split at `;`, clear that frame first), fetch guides from loopback
    only, send no product analytics.
    (`browser.allow_outgoing_connections` is not a setting of Neo4j Community: the server
    refuses to start with it, so Browser's own fonts and feeds stay as they are.)"""
    return [
        f"browser.post_connect_cmd=clear; play {guide_url(settings)}",
        "browser.remote_content_hostname_whitelist=127.0.0.1,localhost",
        "client.allow_telemetry=false",
    ]


def generated_password(path: Path) -> str:
    """The stored password, created (random, 0600) the first time."""
    return secret_file(path, lambda: secrets.token_urlsafe(18))


class LocalNeo4j:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.root = settings.local_dir / "neo4j"
        self.lib = self.root / "lib"
        self.home = self.root / f"home-{settings.neo4j_bolt_port}"
        self.pid_file = self.home / "run" / "neo4j.pid"
        self.log_file = self.home / "logs" / "console.log"

    # --- jars -------------------------------------------------------------------------
    def _pom_stamp(self) -> str:
        text = POM.read_text(encoding="utf-8") + self.settings.neo4j_version
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def resolve(self, quiet: bool = True) -> Path:
        """Copy the server and Browser jars from Maven Central once (cached by pom hash)."""
        stamp_file = self.lib / ".resolved"
        if stamp_file.exists() and stamp_file.read_text().strip() == self._pom_stamp():
            return self.lib
        if shutil.which("mvn") is None:
            raise LocalServiceError(
                "Maven (`mvn`) is not installed, so Neo4j cannot be fetched: "
                "install it (apt-get install maven) or set NEO4J_URI to an existing server."
            )
        self._require_java()
        tmp = self.root / "lib.partial"
        shutil.rmtree(tmp, ignore_errors=True)
        cmd = [
            "mvn",
            "-B",
            "-f",
            str(POM),
            "dependency:copy-dependencies",
            f"-Dneo4j.version={self.settings.neo4j_version}",
            f"-DoutputDirectory={tmp}",
            "-DincludeScope=runtime",
        ]
        if quiet:
            cmd.insert(1, "-q")
        proc = subprocess.run(cmd, capture_output=quiet, text=True)
        if proc.returncode != 0:
            tail = (proc.stdout or "")[-800:] if quiet else ""
            raise LocalServiceError(
                f"Maven could not resolve Neo4j {self.settings.neo4j_version}. {tail}"
            )
        shutil.rmtree(self.lib, ignore_errors=True)
        tmp.rename(self.lib)
        stamp_file.write_text(self._pom_stamp())
        return self.lib

    @staticmethod
    def _require_java() -> str:
        java = shutil.which("java")
        if java is None:
            raise LocalServiceError(
                "Java is not installed, so Neo4j cannot run: install a Java 17 runtime "
                "(apt-get install openjdk-17-jre-headless) or set NEO4J_URI."
            )
        return java

    # --- configuration ----------------------------------------------------------------
    def _write_config(self) -> Path:
        conf = self.home / "conf"
        for sub in ("conf", "data", "logs", "plugins", "run", "import"):
            (self.home / sub).mkdir(parents=True, exist_ok=True)
        s = self.settings
        lines = [
            "server.default_listen_address=127.0.0.1",
            "server.default_advertised_address=127.0.0.1",
            f"server.bolt.listen_address=127.0.0.1:{s.neo4j_bolt_port}",
            f"server.bolt.advertised_address=127.0.0.1:{s.neo4j_bolt_port}",
            f"server.http.listen_address=127.0.0.1:{s.neo4j_http_port}",
            f"server.http.advertised_address=127.0.0.1:{s.neo4j_http_port}",
            "server.https.enabled=false",
            f"server.memory.heap.initial_size={s.neo4j_heap}",
            f"server.memory.heap.max_size={s.neo4j_heap}",
            f"server.memory.pagecache.size={s.neo4j_pagecache}",
            "dbms.security.auth_enabled=true",
            "dbms.usage_report.enabled=false",
            "db.logs.query.enabled=INFO",
            "server.directories.import=import",
            "db.tx_log.rotation.retention_policy=1 files",
            # the server's own bound on every transaction (clients set the same per transaction)
            f"db.transaction.timeout={s.neo4j_tx_timeout_seconds:g}s",
            *browser_settings(s),
        ]
        (conf / "neo4j.conf").write_text("\n".join(lines) + "\n", encoding="utf-8")
        return conf

    # --- lifecycle --------------------------------------------------------------------
    def status(self) -> Neo4jStatus:
        s = self.settings
        pid = read_pid(self.pid_file)
        running = pid_alive(pid) and port_open(s.neo4j_bolt_port)
        version = None
        if running:
            try:
                version = (
                    httpx.get(f"http://127.0.0.1:{s.neo4j_http_port}/", timeout=2)
                    .json()
                    .get("neo4j_version")
                )
            except (httpx.HTTPError, ValueError):
                version = None
        return Neo4jStatus(
            running=running,
            pid=pid if running else None,
            bolt_url=f"bolt://127.0.0.1:{s.neo4j_bolt_port}",
            browser_url=f"http://127.0.0.1:{s.neo4j_http_port}/browser/",
            version=version,
        )

    def start(self, timeout: float = START_TIMEOUT_S) -> Neo4jStatus:
        """Start (or find running) the local server; returns once Bolt answers with our password."""
        current = self.status()
        if current.running:
            self._ensure_password()
            return current
        s = self.settings
        for port in (s.neo4j_bolt_port, s.neo4j_http_port):
            if port_open(port):
                raise LocalServiceError(
                    f"Port {port} on 127.0.0.1 is already in use by another program; stop it or "
                    "choose other ports with NEO4J_BOLT_PORT / NEO4J_HTTP_PORT."
                )
        java = self._require_java()
        self.resolve()
        conf = self._write_config()
        self._set_initial_password(java, conf)
        self.log_file.parent.mkdir(parents=True, exist_ok=True)
        cmd = [
            java,
            f"-Xms{s.neo4j_heap}",
            f"-Xmx{s.neo4j_heap}",
            "-XX:+UseG1GC",
            "-XX:+ExitOnOutOfMemoryError",
            *JVM_OPENS,
            "-Dfile.encoding=UTF-8",
            "-cp",
            f"{self.lib}/*",
            ENTRY_POINT,
            f"--home-dir={self.home}",
            f"--config-dir={conf}",
            "--console-mode",
        ]
        with open(self.log_file, "ab") as log:
            proc = subprocess.Popen(
                cmd,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                cwd=self.home,
            )
        self.pid_file.write_text(str(proc.pid))
        self._wait_ready(proc, timeout)
        self._ensure_password()
        return self.status()

    def _wait_ready(self, proc: subprocess.Popen[bytes], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        url = f"http://127.0.0.1:{self.settings.neo4j_http_port}/"
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise LocalServiceError(
                    f"Neo4j exited during start-up (code {proc.returncode}); see {self.log_file}."
                )
            try:
                if httpx.get(url, timeout=1).status_code == 200 and port_open(
                    self.settings.neo4j_bolt_port
                ):
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        self.stop()
        raise LocalServiceError(f"Neo4j did not start within {timeout:.0f} s; see {self.log_file}.")

    def _set_initial_password(self, java: str, conf: Path) -> None:
        """Before a new home's first start: `neo4j-admin dbms set-initial-password`, so the
        server starts with the generated password. The password travels in a 0600 argument
        file (`java @file`), never on a command line other local users can read."""
        if (self.home / "data" / "dbms" / "auth.ini").exists() or (
            self.home / "data" / "databases" / "system"
        ).exists():
            return  # set already, or a home from before (changed over Bolt at its first start)
        password = generated_password(self.settings.neo4j_password_file)
        argfile = self.home / "run" / "initial-password.args"
        argfile.unlink(missing_ok=True)
        fd = os.open(argfile, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            # `--` ends the options: a password starting with "-" is the password, not an
            # option neo4j-admin does not know (token_urlsafe starts with "-" 1 time in 64)
            out.write(f'dbms\nset-initial-password\n--\n"{password}"\n')
        try:
            proc = subprocess.run(
                [java, "-cp", f"{self.lib}/*", ADMIN_TOOL, f"@{argfile}"],
                env={**os.environ, "NEO4J_HOME": str(self.home), "NEO4J_CONF": str(conf)},
                capture_output=True,
                text=True,
                stdin=subprocess.DEVNULL,
                cwd=self.home,
            )
        finally:
            argfile.unlink(missing_ok=True)
        if proc.returncode != 0:
            raise LocalServiceError(
                f"neo4j-admin could not set the initial password in {self.home}: "
                f"{(proc.stderr or proc.stdout).strip()[-300:]}"
            )

    def _ensure_password(self) -> None:
        """The generated password works; a home first started before the initial password
        was set by neo4j-admin gets it replaced over Bolt once (auth stays on)."""
        from neo4j import GraphDatabase
        from neo4j.exceptions import AuthError

        password = generated_password(self.settings.neo4j_password_file)
        uri = f"bolt://127.0.0.1:{self.settings.neo4j_bolt_port}"
        try:
            with GraphDatabase.driver(uri, auth=(self.settings.neo4j_user, password)) as d:
                d.verify_connectivity()
                return
        except AuthError:
            pass
        try:
            with GraphDatabase.driver(uri, auth=("neo4j", "neo4j")) as d:
                with d.session(database="system") as session:
                    session.run(
                        "ALTER CURRENT USER SET PASSWORD FROM 'neo4j' TO $pw", pw=password
                    ).consume()
        except AuthError as exc:
            raise LocalServiceError(
                f"The local Neo4j in {self.home} has a password other than the one in "
                f"{self.settings.neo4j_password_file}; delete {self.home} to start afresh."
            ) from exc

    def stop(self, timeout: float = 60.0) -> bool:
        """Stop the server if it runs; True when something was stopped."""
        return stop_pid_file(self.pid_file, timeout)
