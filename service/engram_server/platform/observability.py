"""Metrics and the access log.

Metrics are OpenTelemetry instruments on the global meter `engram`. With
`ENGRAM_METRICS_LISTEN` set, `setup_metrics` installs a meter provider whose
Prometheus reader is served on that separate port (`/metrics`); with
`OTEL_METRICS_EXPORTER=otlp` the same instruments are also pushed over OTLP.
Without either the instruments are the API's no-ops.

Instruments (Prometheus names in brackets):
- `rpc.server.call.duration` [`rpc_server_call_duration_seconds`]: histogram per
  service, method and status code name; its `_count` counts calls per code.
- `engram.outbox.backlog` / `engram.outbox.retrying` / `engram.outbox.oldest_age`:
  indexing work queued in the outbox and not yet in the vector index, sampled
  every `metrics_sample_seconds` by `BacklogSampler`.
- `engram.watch.streams`: open WatchTransitions streams of this replica.
- `engram.working_memory.session_messages` / `..._session_tokens`: buffer size of
  a session after each append (histograms).
- `engram.llm.tokens`: LLM tokens used, per provider, model and direction.

The access log: one line per RPC on logger `engram.access` with method, code,
duration, tenant, request id and trace id, never request content. With
`ENGRAM_LOG_FORMAT=json` every log line (access log included) is one JSON object.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
import sys
import time
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

import grpc
from opentelemetry import metrics, trace
from opentelemetry.metrics import CallbackOptions, Observation
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import MetricReader
from opentelemetry.sdk.resources import Resource

from engram_server.platform.config import Settings

log = logging.getLogger(__name__)
access_log = logging.getLogger("engram.access")

METER_NAME = "engram"
# Seconds: RPCs take from a fraction of a millisecond (cached reads) to seconds
# (LLM-backed consolidation).
DURATION_BUCKETS = (
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
    30.0,
)
SIZE_BUCKETS = (1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 50000)

_meter = metrics.get_meter(METER_NAME)
rpc_duration = _meter.create_histogram(
    "rpc.server.call.duration",
    unit="s",
    description="Duration of server RPCs, by service, method and status code",
    explicit_bucket_boundaries_advisory=list(DURATION_BUCKETS),
)
watch_streams = _meter.create_up_down_counter(
    "engram.watch.streams", unit="{stream}", description="Open WatchTransitions streams"
)
pool_streams = _meter.create_up_down_counter(
    "engram.pool.streams",
    unit="{stream}",
    description="Open SyncPool (kind=sync) and SubscribeTopic (kind=topic) streams",
)
session_messages = _meter.create_histogram(
    "engram.working_memory.session_messages",
    unit="{message}",
    description="Messages buffered in a working-memory session after an append",
    explicit_bucket_boundaries_advisory=list(SIZE_BUCKETS),
)
session_tokens = _meter.create_histogram(
    "engram.working_memory.session_tokens",
    unit="{token}",
    description="Tokens buffered in a working-memory session after an append",
    explicit_bucket_boundaries_advisory=list(SIZE_BUCKETS),
)
llm_tokens = _meter.create_counter(
    "engram.llm.tokens", unit="{token}", description="LLM tokens used, by direction"
)

# The last backlog sample (`BacklogSampler`), read by the gauges' callbacks.
_backlog: dict[str, float] = {"pending": 0, "retrying": 0, "oldest_age": 0.0}


def _observe(key: str) -> Any:
    def callback(_options: CallbackOptions) -> Iterable[Observation]:
        return [Observation(_backlog[key])]

    return callback


_meter.create_observable_gauge(
    "engram.outbox.backlog",
    callbacks=[_observe("pending")],
    unit="{item}",
    description="Outbox items waiting for the vector index",
)
_meter.create_observable_gauge(
    "engram.outbox.retrying",
    callbacks=[_observe("retrying")],
    unit="{item}",
    description="Outbox items that failed at least once and wait for a retry",
)
_meter.create_observable_gauge(
    "engram.outbox.oldest_age",
    callbacks=[_observe("oldest_age")],
    unit="s",
    description="Age of the oldest outbox item waiting for the vector index",
)


# -- metrics set-up -------------------------------------------------------------


class MetricsEndpoint:
    """The meter provider and the HTTP server that serves it to Prometheus."""

    def __init__(self, provider: MeterProvider, http_server: Any | None) -> None:
        self.provider = provider
        self._http_server = http_server

    @property
    def port(self) -> int | None:
        if self._http_server is None:
            return None
        port: int = self._http_server.server_address[1]
        return port

    def shutdown(self) -> None:
        if self._http_server is not None:
            self._http_server.shutdown()
            self._http_server.server_close()
        self.provider.shutdown()


def _split_listen(listen: str) -> tuple[str, int]:
    host, _, port = listen.rpartition(":")
    if not port.isdigit():
        raise ValueError(f"ENGRAM_METRICS_LISTEN: expected host:port, got {listen!r}")
    return host.strip("[]") or "0.0.0.0", int(port)


def metrics_url(host: str, port: int) -> str:
    """The scrape URL for the bound host and port (an IPv6 host in brackets)."""
    return f"http://[{host}]:{port}/metrics" if ":" in host else f"http://{host}:{port}/metrics"


def _otlp_metrics_wanted(environ: Mapping[str, str]) -> bool:
    chosen = {p.strip().lower() for p in environ.get("OTEL_METRICS_EXPORTER", "").split(",")}
    return "otlp" in chosen


def setup_metrics(
    settings: Settings, environ: Mapping[str, str] | None = None
) -> MetricsEndpoint | None:
    """Installs the global meter provider; None when no exporter is configured."""
    env = os.environ if environ is None else environ
    readers: list[MetricReader] = []
    http_server: Any | None = None
    if settings.metrics_listen:
        from opentelemetry.exporter.prometheus import PrometheusMetricReader
        from prometheus_client import start_http_server

        host, port = _split_listen(settings.metrics_listen)
        readers.append(PrometheusMetricReader())
        http_server, _thread = start_http_server(port, addr=host)
    if _otlp_metrics_wanted(env):
        from opentelemetry.exporter.otlp.proto.grpc.metric_exporter import OTLPMetricExporter
        from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader

        readers.append(PeriodicExportingMetricReader(OTLPMetricExporter()))
    if not readers:
        return None
    # One process, one instance (Prometheus `target_info`): the workers of `engram
    # serve --workers` tell themselves apart by it.
    resource = Resource.create(
        {
            "service.name": env.get("OTEL_SERVICE_NAME", "engram"),
            "service.instance.id": f"{socket.gethostname()}/{os.getpid()}",
        }
    )
    provider = MeterProvider(resource=resource, metric_readers=readers)
    metrics.set_meter_provider(provider)
    endpoint = MetricsEndpoint(provider, http_server)
    if endpoint.port is not None:
        host, _ = _split_listen(settings.metrics_listen)
        log.info("metrics on %s", metrics_url(host, endpoint.port))
    return endpoint


class BacklogSampler:
    """Samples the indexing backlog (outbox) for the backlog gauges.

    Gauge callbacks run in the exporter's thread and cannot query PostgreSQL, so a
    task samples on the server's loop and the callbacks read the last sample. It
    walks the tenants with queued work (`engram_tenants_with_outbox`) and reads each
    one's backlog in its own RLS-scoped transaction.
    """

    MAX_TENANTS = 1000

    def __init__(self, db: Any, interval: float) -> None:
        self._db = db
        self._interval = interval
        self._task: asyncio.Task[None] | None = None

    async def sample(self) -> None:
        async with self._db.platform_tx() as conn:
            cur = await conn.execute(
                "SELECT tenant_id FROM engram_tenants_with_outbox(%s)", (self.MAX_TENANTS,)
            )
            tenants = [row["tenant_id"] for row in await cur.fetchall()]
        pending = retrying = 0
        oldest: datetime | None = None
        for tenant in tenants:
            rows = await self._db.tenant_read(
                tenant,
                "SELECT count(*) AS pending, count(*) FILTER (WHERE attempts > 0) AS retrying,"
                " min(create_time) AS oldest FROM outbox WHERE processed_at IS NULL",
                (),
            )
            row = rows[0]
            pending += int(row["pending"])
            retrying += int(row["retrying"])
            if row["oldest"] is not None and (oldest is None or row["oldest"] < oldest):
                oldest = row["oldest"]
        _backlog["pending"] = pending
        _backlog["retrying"] = retrying
        _backlog["oldest_age"] = (datetime.now(UTC) - oldest).total_seconds() if oldest else 0.0

    async def _run(self) -> None:
        while True:
            try:
                await self.sample()
            except Exception:
                log.warning("sampling the outbox backlog failed", exc_info=True)
            await asyncio.sleep(self._interval)

    def start(self) -> None:
        if self._task is None and self._interval > 0:
            self._task = asyncio.create_task(self._run(), name="engram-backlog-sampler")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None


# -- per-RPC observation ----------------------------------------------------------


def _split_method(method: str) -> tuple[str, str]:
    service, _, name = method.lstrip("/").partition("/")
    return service, name


class RpcObserver:
    """Records one finished RPC: the duration histogram and the access-log line."""

    def __init__(self, settings: Settings) -> None:
        self._access = settings.access_log
        self._names: dict[str, tuple[str, str]] = {}

    def finish(
        self,
        method: str,
        code: grpc.StatusCode,
        started: float,
        tenant: str,
        request: Any,
        metadata: Iterable[Any] | None,
    ) -> None:
        duration = time.perf_counter() - started
        names = self._names.get(method)
        if names is None:
            names = self._names[method] = _split_method(method)
        service, name = names
        rpc_duration.record(
            duration,
            {"rpc.service": service, "rpc.method": name, "rpc.grpc.status_code": code.name},
        )
        if self._access and access_log.isEnabledFor(logging.INFO):
            context = trace.get_current_span().get_span_context()
            access_log.info(
                "%s %s %.1fms",
                method,
                code.name,
                duration * 1000,
                extra={
                    "rpc": {
                        "method": method,
                        "code": code.name,
                        "duration_ms": round(duration * 1000, 3),
                        "tenant": tenant,
                        "request_id": request_id_of(request, metadata),
                        "trace_id": format(context.trace_id, "032x") if context.is_valid else "",
                    }
                },
            )


def request_id_of(request: Any, metadata: Iterable[Any] | None) -> str:
    """The call's request id: `x-request-id` metadata, else the request's field."""
    for item in metadata or ():
        if item[0] == "x-request-id":
            value = item[1]
            return value.decode() if isinstance(value, bytes) else str(value)
    value = getattr(request, "request_id", "")
    return value if isinstance(value, str) else ""


# -- log format -----------------------------------------------------------------


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, and RPC fields."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        rpc = getattr(record, "rpc", None)
        if isinstance(rpc, dict):
            out.update(rpc)
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str)


def configure_logging(settings: Settings) -> None:
    """The root logger at `log_level`, as text or JSON lines on stderr."""
    fmt = settings.log_format.lower()
    if fmt not in {"text", "json"}:
        raise ValueError(f"ENGRAM_LOG_FORMAT: expected text or json, got {settings.log_format!r}")
    handler = logging.StreamHandler(sys.stderr)
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for existing in list(root.handlers):
        root.removeHandler(existing)
    root.addHandler(handler)
    root.setLevel(settings.log_level.upper())
