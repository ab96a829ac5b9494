"""Past answers computed once (docs/guides/graphql.md).

A read whose every root field is a time-sliced story read (`storyGraph`, `graphView`,
`entities`, `relations`, `events`) with an `asOf` older than `past_cache_settle_seconds` can
change only when a source version of its scope is withdrawn or the scope is deleted; both
move the scope's counter (`jobs.past_epoch`). Its answer is kept under a key built from the
query text, operation name and variables (hashed: no caller text becomes a key), the scopes
and their counters, in an in-process LRU bounded by bytes whose entries expire like their
copies in Redis (with a TTL and an entry size bound), which every API process shares. A read
that selects a field read as of now (`READ_AS_OF_NOW`) is never cached. The answer is served
only to a caller that may read every scope it names (`reader` on each): any other caller runs
the read and gets what the read gives it (FORBIDDEN). Its key's hash is the answer's ETag.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass

import orjson
from cross_web import HTTPException
from graphql import (
    DocumentNode,
    FieldNode,
    OperationType,
    StringValueNode,
    VariableNode,
    Visitor,
    get_operation_ast,
    visit,
)
from prometheus_client import Counter, Gauge
from redis.asyncio import Redis
from redis.exceptions import RedisError

from api.documents import Documents
from api.metrics import REGISTRY
from engine.principal import Principal
from engine.settings import Settings
from jobs import past_epoch

log = logging.getLogger("storygraph.api.past_cache")

PAST_READS = frozenset({"storyGraph", "graphView", "entities", "relations", "events"})
# Fields of a past read that are read as of now, not as of its asOf (a concern's state,
# signal and cost): a read selecting one is never cached, so it is always answered fresh.
READ_AS_OF_NOW = frozenset({"throughConcern"})
REDIS_PREFIX = "storygraph:past:answer:"

LOOKUPS = Counter(
    "storygraph_past_cache_lookups_total",
    "Past answers looked up, by where they were found (memory, redis, miss)",
    ["found"],
    registry=REGISTRY,
)
EVICTIONS = Counter(
    "storygraph_past_cache_evictions_total",
    "Past answers dropped from the in-process LRU to stay within its bytes",
    registry=REGISTRY,
)
SIZE = Gauge(
    "storygraph_past_cache_bytes",
    "Bytes of past answers held in process (summed over API processes)",
    registry=REGISTRY,
    multiprocess_mode="livesum",
)
ENTRIES = Gauge(
    "storygraph_past_cache_entries",
    "Past answers held in process (summed over API processes)",
    registry=REGISTRY,
    multiprocess_mode="livesum",
)


@dataclass(frozen=True)
class PastRead:
    scopes: tuple[str, ...]
    digest: str  # the query, operation name and variables, hashed


def _value(node: object, variables: dict[str, object]) -> object:
    if isinstance(node, StringValueNode):
        return node.value
    if isinstance(node, VariableNode):
        return variables.get(node.name.value)
    return None


def _instant(value: object) -> dt.datetime | None:
    if not isinstance(value, str):
        return None
    try:
        parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.utcoffset() is not None else None


def past_read(
    query: str | None,
    operation_name: str | None,
    variables: dict[str, object] | None,
    now: dt.datetime,
    settle: dt.timedelta,
    documents: Documents,
) -> PastRead | None:
    """The cacheable read a request asks for, or None (anything else, or not yet past, or a
    text the limits refuse: the request itself answers that)."""
    if not query or "asOf" not in query:
        return None
    document = documents.try_parse(query)
    if document is None:
        return None
    operation = get_operation_ast(document, operation_name)
    if operation is None or operation.operation != OperationType.QUERY:
        return None
    variables = variables or {}
    scopes: set[str] = set()
    for selection in operation.selection_set.selections:
        if not isinstance(selection, FieldNode):
            return None
        if selection.name.value == "__typename":
            continue
        if selection.name.value not in PAST_READS:
            return None
        args = {a.name.value: _value(a.value, variables) for a in selection.arguments or ()}
        scope, as_of = args.get("scope"), _instant(args.get("asOf"))
        if not isinstance(scope, str) or as_of is None or as_of > now - settle:
            return None
        scopes.add(scope)
    if not scopes or _selects(document, READ_AS_OF_NOW):
        return None
    raw = orjson.dumps([query, operation_name, variables], option=orjson.OPT_SORT_KEYS)
    return PastRead(tuple(sorted(scopes)), hashlib.sha256(raw).hexdigest())


def _selects(document: DocumentNode, names: frozenset[str]) -> bool:
    """Whether any field of the document (its fragments too) is one of `names`."""
    found = False

    class Finder(Visitor):
        def enter_field(self, node: FieldNode, *_: object) -> None:
            nonlocal found
            found = found or node.name.value in names

    visit(document, Finder())
    return found


def may_read(principal: Principal | None, read: PastRead) -> bool:
    return (
        principal is not None
        and principal.has_role("reader")
        and all(principal.can_scope(s) for s in read.scopes)
    )


class PastCache:
    """The in-process LRU (bounded by bytes) in front of the shared copy in Redis."""

    def __init__(self, settings: Settings) -> None:
        self.max_bytes = settings.past_cache_bytes
        self.ttl = settings.past_cache_redis_ttl_seconds
        self.max_entry = settings.past_cache_redis_max_entry_bytes
        self.settle = dt.timedelta(seconds=settings.past_cache_settle_seconds)
        # key -> (monotonic deadline, answer): an entry expires like its copy in Redis
        self.entries: OrderedDict[str, tuple[float, bytes]] = OrderedDict()
        self.size = 0

    @property
    def enabled(self) -> bool:
        return self.max_bytes > 0

    async def key(self, redis: Redis, read: PastRead) -> str | None:
        """The answer's key under the scopes' current counters; None without Redis (no
        counter can be trusted, so nothing is cached or served)."""
        try:
            counters = await past_epoch.read(redis, read.scopes)
        except (RedisError, OSError) as exc:
            log.warning("past cache off: Redis unreachable", extra={"fields": {"error": str(exc)}})
            return None
        material = "\n".join([counters, *read.scopes, read.digest]).encode()
        return hashlib.sha256(material).hexdigest()

    async def get(self, redis: Redis, key: str) -> bytes | None:
        held = self.entries.get(key)
        if held is not None and held[0] > time.monotonic():
            self.entries.move_to_end(key)
            LOOKUPS.labels("memory").inc()
            return held[1]
        if held is not None:
            self._drop(key)
        try:
            shared = await redis.get(REDIS_PREFIX + key)
        except (RedisError, OSError):
            shared = None
        if isinstance(shared, bytes):
            LOOKUPS.labels("redis").inc()
            self._keep(key, shared)
            return shared
        LOOKUPS.labels("miss").inc()
        return None

    async def put(self, redis: Redis, key: str, answer: bytes) -> None:
        self._keep(key, answer)
        if len(answer) <= self.max_entry:
            try:
                await redis.set(REDIS_PREFIX + key, answer, ex=self.ttl)
            except (RedisError, OSError) as exc:
                log.warning("past answer not shared", extra={"fields": {"error": str(exc)}})

    def _keep(self, key: str, answer: bytes) -> None:
        if len(answer) > self.max_bytes:
            return
        self._drop(key)
        self.entries[key] = (time.monotonic() + self.ttl, answer)
        self.size += len(answer)
        while self.size > self.max_bytes:
            _, (_, dropped) = self.entries.popitem(last=False)
            self.size -= len(dropped)
            EVICTIONS.inc()
        SIZE.set(self.size)
        ENTRIES.set(len(self.entries))

    def _drop(self, key: str) -> None:
        old = self.entries.pop(key, None)
        if old is not None:
            self.size -= len(old[1])


def etag(key: str) -> str:
    return f'"past-{key[:40]}"'


MAX_IF_NONE_MATCH = 1024


class NotModified(Exception):
    """The client holds the current answer: 304 with these headers."""

    def __init__(self, headers: dict[str, str]) -> None:
        super().__init__("not modified")
        self.headers = headers


def check_if_none_match(headers: Mapping[str, str]) -> None:
    """An If-None-Match longer than any list of our ETags is refused (431), never parsed."""
    value = headers.get("if-none-match")
    if value is not None and len(value) > MAX_IF_NONE_MATCH:
        raise HTTPException(431, f"If-None-Match is longer than {MAX_IF_NONE_MATCH} characters")


def if_none_match(headers: Mapping[str, str]) -> set[str]:
    value = headers.get("if-none-match") or ""
    return {part.strip().removeprefix("W/") for part in value.split(",") if part.strip()}
