"""OpenTelemetry set-up from the standard `OTEL_*` environment.

Exporter choice: `OTEL_TRACES_EXPORTER=otlp` or any `OTEL_EXPORTER_OTLP_*ENDPOINT`
-> OTLP, over gRPC or, with `OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL=http/protobuf`,
over HTTP; `OTEL_TRACES_EXPORTER=console` -> spans printed to stdout;
otherwise (or `none`) no tracing at all. Service name and resource attributes come
from `OTEL_SERVICE_NAME` / `OTEL_RESOURCE_ATTRIBUTES` as usual.

Spans: one server span per RPC (opentelemetry-instrumentation-grpc, which
continues the caller's trace from its `traceparent` metadata; tagged with
`engram.tenant` by the authentication interceptor and with the status code), and
child spans for every Postgres statement (opentelemetry-instrumentation-psycopg,
which wraps the connections the pool opens), every Redis command or pipeline
(opentelemetry-instrumentation-redis), every vector engine call
(`store.vectors.traced`), embedding (`embedding.*`) and LLM call (`llm.*`).
Spans never carry memory content.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Any

import grpc.aio
from opentelemetry import trace
from opentelemetry.instrumentation.grpc import aio_server_interceptor
from opentelemetry.instrumentation.grpc.filters import any_of, negate, service_name
from opentelemetry.instrumentation.psycopg import PsycopgInstrumentor
from opentelemetry.instrumentation.redis import RedisInstrumentor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    ConsoleSpanExporter,
    SimpleSpanProcessor,
    SpanExporter,
)

from engram_server.platform.config import Settings
from engram_server.platform.scopes import PUBLIC_SERVICES

log = logging.getLogger(__name__)

DEFAULT_SERVICE_NAME = "engram"


def exporter_kind(environ: Mapping[str, str] | None = None) -> str:
    """`otlp`, `console` or `none`, from the standard OTEL_* variables."""
    env = os.environ if environ is None else environ
    chosen = {
        part.strip().lower()
        for part in env.get("OTEL_TRACES_EXPORTER", "").split(",")
        if part.strip()
    }
    if "none" in chosen:
        return "none"
    if "otlp" in chosen:
        return "otlp"
    if "console" in chosen:
        return "console"
    if not chosen and (
        env.get("OTEL_EXPORTER_OTLP_ENDPOINT") or env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    ):
        return "otlp"
    return "none"


def _exporter(kind: str, environ: Mapping[str, str]) -> SpanExporter:
    if kind == "console":
        return ConsoleSpanExporter()
    protocol = environ.get(
        "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", environ.get("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
    )
    if protocol.startswith("http"):
        if protocol != "http/protobuf":
            log.warning("OTLP protocol %r is not bundled; exporting http/protobuf", protocol)
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import (
            OTLPSpanExporter as HTTPSpanExporter,
        )

        return HTTPSpanExporter()
    if protocol != "grpc":
        log.warning("OTLP protocol %r is not bundled; exporting over gRPC instead", protocol)
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter()


def setup_tracing(
    settings: Settings, environ: Mapping[str, str] | None = None
) -> TracerProvider | None:
    """Installs the global tracer provider the environment asks for.

    Returns the provider (flush it with `shutdown_tracing` at exit), or None when
    tracing is off, in which case nothing is instrumented and spans cost nothing.
    """
    env = os.environ if environ is None else environ
    kind = exporter_kind(env)
    if kind == "none":
        return None
    # Resource.create also reads OTEL_RESOURCE_ATTRIBUTES.
    resource = Resource.create({"service.name": env.get("OTEL_SERVICE_NAME", DEFAULT_SERVICE_NAME)})
    provider = TracerProvider(resource=resource)
    exporter = _exporter(kind, env)
    # Console output is for a developer watching: show spans as they end.
    processor = SimpleSpanProcessor(exporter) if kind == "console" else BatchSpanProcessor(exporter)
    provider.add_span_processor(processor)
    trace.set_tracer_provider(provider)
    instrument_libraries(provider)
    log.info("tracing enabled (%s exporter) for %s", kind, settings.listen)
    return provider


def instrument_libraries(tracer_provider: trace.TracerProvider | None = None) -> None:
    """Traces every Postgres statement and Redis command from now on.

    Postgres connections opened before this call stay untraced, so it runs before
    the pools open. Idempotent.
    """
    psycopg_instrumentor = PsycopgInstrumentor()
    if not psycopg_instrumentor.is_instrumented_by_opentelemetry:
        psycopg_instrumentor.instrument(tracer_provider=tracer_provider, skip_dep_check=True)
    redis_instrumentor = RedisInstrumentor()
    if not redis_instrumentor.is_instrumented_by_opentelemetry:
        redis_instrumentor.instrument(tracer_provider=tracer_provider, skip_dep_check=True)


def uninstrument_libraries() -> None:
    PsycopgInstrumentor().uninstrument()
    RedisInstrumentor().uninstrument()


def shutdown_tracing(provider: TracerProvider | None) -> None:
    """Flushes and stops the exporter."""
    if provider is not None:
        provider.shutdown()


def tracing_enabled(tracer_provider: trace.TracerProvider | None = None) -> bool:
    """Whether spans go anywhere: a provider was given or one was installed globally.

    Without either, every span is a no-op, and the per-call work of the gRPC
    instrumentation (propagation, attributes, peer parsing, a wrapped context)
    buys nothing.
    """
    if tracer_provider is not None:
        return True
    return not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)


def server_tracing_interceptor(
    tracer_provider: trace.TracerProvider | None = None,
) -> grpc.aio.ServerInterceptor:
    """A server span per RPC; health probes and reflection are not traced."""
    quiet = any_of(*(service_name(name) for name in sorted(PUBLIC_SERVICES)))
    # The instrumentation package is untyped.
    factory: Any = aio_server_interceptor
    interceptor: grpc.aio.ServerInterceptor = factory(
        tracer_provider=tracer_provider, filter_=negate(quiet)
    )
    return interceptor
