"""Structured logs: one JSON object per line (or plain text for a person at a terminal).

Both process kinds (API, worker) call `configure_logging` once at start; modules log with
`logging.getLogger(__name__)` and pass fields through `extra={"fields": {...}}`.

Tracebacks are for faults. An expected failure (a `StorygraphError` other than INTERNAL)
logged with its exception, as arq logs every job that raised, becomes one warning line with
its code and message (`ExpectedErrors`).
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any

from engine.errors import ErrorCode, StorygraphError

_RESERVED = set(vars(logging.makeLogRecord({})))


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            entry.update(fields)
        for key, value in vars(record).items():
            if key not in _RESERVED and key not in ("fields", "message", "asctime"):
                entry[key] = value
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


class ExpectedErrors(logging.Filter):
    """Drops the traceback of an expected failure and logs it as a warning with its code."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, StorygraphError) and exc.code is not ErrorCode.INTERNAL:
            record.exc_info, record.exc_text = None, None
            record.levelno = min(record.levelno, logging.WARNING)
            record.levelname = logging.getLevelName(record.levelno)
            record.code = exc.code.value
        return True


def configure_logging(level: str = "INFO", fmt: str = "json") -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(ExpectedErrors())
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for noisy in ("neo4j", "httpx", "httpcore"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, root.level))
