import json
import logging

from jobs.logs import JsonFormatter


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
