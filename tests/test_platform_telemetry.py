"""Tracing: a server span per RPC, tagged with the tenant, with DB and Redis children."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc.aio
import pytest
from engram.v1 import lifecycle_pb2, lifecycle_pb2_grpc
from engram_server.platform.config import Settings
from engram_server.platform.server import EngramServer, build_context
from engram_server.platform.telemetry import (
    exporter_kind,
    instrument_libraries,
    setup_tracing,
    uninstrument_libraries,
)
from grpc_health.v1 import health_pb2, health_pb2_grpc
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter


@pytest.fixture(scope="module")
async def traced(
    settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[tuple[EngramServer, InMemorySpanExporter]]:
    """A server whose pools were opened after instrumentation, exporting to memory."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrument_libraries(provider)
    # Its own data dir: embedded engines there belong to one process-wide server each.
    settings = dataclasses.replace(settings, data_dir=str(tmp_path_factory.mktemp("traced")))
    ctx = await build_context(settings)
    engram = EngramServer(settings, ctx, tracer_provider=provider)
    await engram.start()
    try:
        yield engram, exporter
    finally:
        await engram.stop(grace=0.5)
        await ctx.close()
        uninstrument_libraries()
        provider.shutdown()


def _descends_from(span: ReadableSpan, root: ReadableSpan, by_id: dict[int, ReadableSpan]) -> bool:
    current: ReadableSpan | None = span
    while current is not None and current.parent is not None:
        if current.parent.span_id == root.context.span_id:
            return True
        current = by_id.get(current.parent.span_id)
    return False


async def test_rpc_yields_a_server_span_with_tenant_and_child_store_spans(
    traced: tuple[EngramServer, InMemorySpanExporter], make_tenant: Any, raw_pg: Any
) -> None:
    engram, exporter = traced
    tenant = await make_tenant(scopes=("read",))
    # A quota makes the rate limiter count in Redis, so the call touches both stores.
    await raw_pg.execute(
        "UPDATE tenants SET quota_requests_per_second = 1000 WHERE id = %s", (tenant.tenant_id,)
    )
    exporter.clear()
    async with grpc.aio.insecure_channel(engram.address) as channel:
        await lifecycle_pb2_grpc.LifecycleServiceStub(channel).ListMemories(
            lifecycle_pb2.ListMemoriesRequest(),
            metadata=(("authorization", f"Bearer {tenant.secret}"),),
        )
    servers = await _finished_spans(
        exporter, lambda s: (s.attributes or {}).get("rpc.method") == "ListMemories"
    )
    spans = exporter.get_finished_spans()
    assert len(servers) == 1, [s.name for s in spans]
    server_span = servers[0]
    assert server_span.name == "/engram.v1.LifecycleService/ListMemories"
    assert server_span.attributes is not None
    assert server_span.attributes["engram.tenant"] == tenant.tenant_id
    assert server_span.attributes["rpc.service"] == "engram.v1.LifecycleService"

    by_id = {s.context.span_id: s for s in spans}
    children = [s for s in spans if _descends_from(s, server_span, by_id)]
    systems = {(s.attributes or {}).get("db.system") for s in children} | {
        (s.attributes or {}).get("db.system.name") for s in children
    }
    assert "postgresql" in systems, [(s.name, s.attributes) for s in children]
    assert "redis" in systems, [(s.name, s.attributes) for s in children]
    db_statements = [s for s in children if "postgresql" in str(s.attributes)]
    assert all(s.context.trace_id == server_span.context.trace_id for s in db_statements)


async def _finished_spans(
    exporter: InMemorySpanExporter, wanted: Callable[[ReadableSpan], bool]
) -> list[ReadableSpan]:
    """The finished spans `wanted` selects, once there are any (or none after 60 s)."""
    for _ in range(1200):
        found = [s for s in exporter.get_finished_spans() if wanted(s)]
        if found:
            return found
        await asyncio.sleep(0.05)
    return []


async def test_health_checks_are_not_traced(
    traced: tuple[EngramServer, InMemorySpanExporter],
) -> None:
    engram, exporter = traced
    exporter.clear()
    async with grpc.aio.insecure_channel(engram.address) as channel:
        await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
    assert [s for s in exporter.get_finished_spans() if "Health" in s.name] == []


async def test_failed_rpc_span_carries_the_status(
    traced: tuple[EngramServer, InMemorySpanExporter],
) -> None:
    engram, exporter = traced
    exporter.clear()
    async with grpc.aio.insecure_channel(engram.address) as channel:
        with pytest.raises(grpc.aio.AioRpcError):
            await lifecycle_pb2_grpc.LifecycleServiceStub(channel).ListMemories(
                lifecycle_pb2.ListMemoriesRequest()
            )
    # The server ends its span after the status reaches the client: wait for it.
    (span,) = await _finished_spans(exporter, lambda s: s.name.endswith("/ListMemories"))
    assert span.attributes is not None
    # (Per the RPC conventions a client error leaves the server span's status unset.)
    assert span.attributes["rpc.grpc.status_code"] == grpc.StatusCode.UNAUTHENTICATED.value[0]


@pytest.mark.parametrize(
    ("environ", "kind"),
    [
        ({}, "none"),
        ({"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4317"}, "none"),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4317"}, "otlp"),
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4317"}, "otlp"),
        ({"OTEL_TRACES_EXPORTER": "otlp"}, "otlp"),
        ({"OTEL_TRACES_EXPORTER": "console"}, "console"),
        ({"OTEL_TRACES_EXPORTER": "Console "}, "console"),
    ],
)
def test_exporter_follows_the_standard_environment(environ: dict[str, str], kind: str) -> None:
    assert exporter_kind(environ) == kind


def test_no_exporter_means_no_tracing(settings: Settings) -> None:
    assert setup_tracing(settings, environ={}) is None
