"""How arq jobs travel through Redis: JSON, never pickle.

arq pickles by default, so anyone who can write to the queue's Redis runs code in every
worker that unpickles a job. Every job argument here is JSON already (ids, ISO times,
`model_dump(mode="json")`); a job's result is stored as JSON too, with anything else
(a datetime, a model, an exception) written as its text.
"""

from __future__ import annotations

import json
from datetime import date, datetime
from typing import Any


def _fallback(value: object) -> object:
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return repr(value) if isinstance(value, BaseException) else str(value)


def serialize(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, default=_fallback, ensure_ascii=False).encode("utf-8")


def deserialize(data: bytes) -> dict[str, Any]:
    value = json.loads(data)
    if not isinstance(value, dict):
        raise ValueError("an arq job or result is a JSON object")
    return value


SERIALIZERS: dict[str, Any] = {"job_serializer": serialize, "job_deserializer": deserialize}
