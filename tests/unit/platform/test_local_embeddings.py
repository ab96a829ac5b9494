"""EMBEDDINGS=local: the settings it implies and the process `storygraph up` manages."""

import socket
import sys
from pathlib import Path

import pytest

from engine.settings import LOCAL_EMBEDDING_MODEL, LOCAL_MIN_SIMILARITY, Settings
from local import embeddings_server
from local.embeddings_server import LocalEmbeddings
from local.neo4j_server import LocalServiceError


def test_local_embeddings_default_the_endpoint_and_the_measured_search_settings() -> None:
    s = Settings(embeddings="local", local_embeddings_port=8299)
    assert (s.embedding_base_url, s.embedding_model, s.embedding_dimensions) == (
        "http://127.0.0.1:8299/v1",
        LOCAL_EMBEDDING_MODEL,
        384,
    )
    assert s.embedding_input_type and s.embeddings_on
    assert s.search_min_similarity == LOCAL_MIN_SIMILARITY
    # a value the user gives wins over the local default
    own = Settings(embeddings="local", search_min_similarity=0.9, embedding_dimensions=384)
    assert own.search_min_similarity == 0.9
    assert Settings().embedding_base_url is None  # lexical stays the plain default


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# a stand-in for the model's server: answers /health on the port it is given
_HEALTH = (
    "import sys, http.server as h\n"
    "class H(h.BaseHTTPRequestHandler):\n"
    "    def do_GET(self):\n"
    "        self.send_response(200); self.end_headers(); self.wfile.write(b'{}')\n"
    "    def log_message(self, *a): pass\n"
    "h.HTTPServer(('127.0.0.1', int(sys.argv[1])), H).serve_forever()\n"
)


def test_the_model_process_is_started_waited_for_and_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = _free_port()
    local = LocalEmbeddings(Settings(local_dir=tmp_path, local_embeddings_port=port))
    monkeypatch.setattr(embeddings_server.importlib.util, "find_spec", lambda name: object())
    monkeypatch.setattr(local, "command", lambda: [sys.executable, "-c", _HEALTH, str(port)])
    status = local.start(timeout=30)
    try:
        assert status.running and status.started_in is not None
        assert f"http://127.0.0.1:{port}/v1" in status.describe()
        assert local.status().running and local.start().started_in is None  # already up
    finally:
        assert local.stop()
    assert not local.status().running


def test_without_the_package_the_start_is_one_clear_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(embeddings_server.importlib.util, "find_spec", lambda name: None)
    local = LocalEmbeddings(Settings(local_dir=tmp_path, local_embeddings_port=_free_port()))
    with pytest.raises(LocalServiceError, match="make run EMBEDDINGS=local"):
        local.start()


def test_the_model_process_waits_without_spinning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OpenMP threads that spin while they wait slowed each embedding 6-10x on a machine
    whose cores are busy (docs/search.md): the server is started with passive waiting."""
    port = _free_port()
    seen = tmp_path / "policy"
    local = LocalEmbeddings(Settings(local_dir=tmp_path, local_embeddings_port=port))
    monkeypatch.setenv("OMP_WAIT_POLICY", "active")
    monkeypatch.setattr(embeddings_server.importlib.util, "find_spec", lambda name: object())
    record = f"import os; open({str(seen)!r}, 'w').write(os.environ.get('OMP_WAIT_POLICY', ''))\n"
    monkeypatch.setattr(
        local, "command", lambda: [sys.executable, "-c", record + _HEALTH, str(port)]
    )
    local.start(timeout=30)
    try:
        assert seen.read_text() == "passive"
    finally:
        assert local.stop()
