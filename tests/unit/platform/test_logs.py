import io
import json
import logging

from engine.errors import Conflict
from jobs.logs import JsonFormatter, configure_logging


def test_log_lines_are_json_with_fields() -> None:
    record = logging.makeLogRecord(
        {
            "name": "storygraph.x",
            "levelname": "INFO",
            "levelno": 20,
            "msg": "run %s",
            "args": ("r1",),
            "fields": {"run_id": "r1", "stage": "leaves"},
        }
    )
    entry = json.loads(JsonFormatter().format(record))
    assert entry["msg"] == "run r1"
    assert entry["run_id"] == "r1" and entry["stage"] == "leaves"
    assert entry["level"] == "info"


def _failed_job_line(exc: Exception) -> dict[str, object]:
    """What a worker process configured by `configure_logging` writes when arq logs a job
    that raised `exc` (arq calls `logger.exception`)."""
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    out = io.StringIO()
    try:
        configure_logging("INFO", "json")
        root.handlers[0].setStream(out)  # type: ignore[attr-defined]
        try:
            raise exc
        except Exception as raised:
            logging.getLogger("arq.worker").exception("%s failed, %s", "job:1", raised)
    finally:
        root.handlers[:], root.level = saved[0], saved[1]
    [line] = out.getvalue().splitlines()
    return json.loads(line)  # type: ignore[no-any-return]


def test_an_expected_failure_is_one_warning_line_without_a_traceback() -> None:
    line = _failed_job_line(Conflict("heartbeat already linked to another supervision run"))
    assert line["level"] == "warning" and line["code"] == "CONFLICT"
    assert "exc" not in line and "already linked" in str(line["msg"])


def test_a_fault_keeps_its_traceback() -> None:
    line = _failed_job_line(RuntimeError("driver closed"))
    assert line["level"] == "error" and "code" not in line
    assert "Traceback" in str(line["exc"]) and "RuntimeError: driver closed" in str(line["exc"])
