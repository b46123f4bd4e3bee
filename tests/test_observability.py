"""Traces, metrics and access log of a real `engram serve` process.

The process gets only the standard OTEL_* environment; its spans are received by
an OTLP (gRPC) receiver this test runs. The caller's `traceparent` must become
the parent of the server span, the server span must carry tenant, method and
code, store / vector / embedding spans must hang below it, and no span, metric
or log line may carry memory content.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest
from engram.v1 import (
    lifecycle_pb2,
    lifecycle_pb2_grpc,
    pool_pb2,
    pool_pb2_grpc,
    recall_pb2,
    recall_pb2_grpc,
)
from engram_server.platform.telemetry import _exporter
from opentelemetry.proto.collector.trace.v1 import (
    trace_service_pb2,
    trace_service_pb2_grpc,
)
from opentelemetry.proto.trace.v1 import trace_pb2

from tests.deploy_helpers import ServeProcess, free_port, start_serve
from tests.lifecycle_helpers import proposal

CONTENT = "Observability-canary-content: the vault code is 7731"
QUERY = "Observability-canary-query vault code"


class Receiver(trace_service_pb2_grpc.TraceServiceServicer):
    """A minimal OTLP trace receiver: keeps every span it is sent."""

    def __init__(self) -> None:
        self.spans: list[tuple[dict[str, Any], trace_pb2.Span]] = []

    async def Export(
        self, request: trace_service_pb2.ExportTraceServiceRequest, context: Any
    ) -> trace_service_pb2.ExportTraceServiceResponse:
        for resource_spans in request.resource_spans:
            resource = {a.key: _value(a.value) for a in resource_spans.resource.attributes}
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    self.spans.append((resource, span))
        return trace_service_pb2.ExportTraceServiceResponse()


def _value(value: Any) -> Any:
    kind = value.WhichOneof("value")
    return getattr(value, kind) if kind else None


def _attributes(span: trace_pb2.Span) -> dict[str, Any]:
    return {a.key: _value(a.value) for a in span.attributes}


@pytest.fixture
async def receiver() -> AsyncIterator[tuple[Receiver, int]]:
    received = Receiver()
    server = grpc.aio.server()
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(received, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        yield received, port
    finally:
        await server.stop(0)


@pytest.fixture
async def observed(
    receiver: tuple[Receiver, int], database_url: str, redis_url: str, tmp_path: Path
) -> AsyncIterator[tuple[ServeProcess, Receiver]]:
    received, port = receiver
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ENGRAM_", "OTEL_"))}
    env.update(
        ENGRAM_DATABASE_URL=database_url,
        ENGRAM_REDIS_URL=redis_url,
        ENGRAM_DATA_DIR=str(tmp_path / "data"),
        ENGRAM_LISTEN=f"127.0.0.1:{free_port()}",
        ENGRAM_METRICS_LISTEN=f"127.0.0.1:{free_port()}",
        ENGRAM_METRICS_SAMPLE_SECONDS="0.2",
        ENGRAM_MIGRATE_ON_START="false",
        ENGRAM_LOG_FORMAT="json",
        ENGRAM_SHUTDOWN_GRACE_SECONDS="2",
        OTEL_EXPORTER_OTLP_ENDPOINT=f"http://127.0.0.1:{port}",
        OTEL_SERVICE_NAME="engram-observed",
        OTEL_BSP_SCHEDULE_DELAY="200",
    )
    engram = Path(sys.executable).parent / "engram"
    serve = start_serve(engram, env, tmp_path / "logs", "observed")
    try:
        await asyncio.to_thread(serve.wait_serving, env)
        yield serve, received
    finally:
        await asyncio.to_thread(serve.terminate)


async def test_spans_metrics_and_access_log_follow_the_caller_without_content(
    observed: tuple[ServeProcess, Receiver], make_tenant: Any, raw_pg: Any
) -> None:
    serve, received = observed
    tenant = await make_tenant()
    # A quota makes the rate limiter count in Redis: every call touches Redis too.
    await raw_pg.execute(
        "UPDATE tenants SET quota_requests_per_second = 1000 WHERE id = %s", (tenant.tenant_id,)
    )
    trace_id = secrets.token_hex(16)
    parent_span = secrets.token_hex(8)
    metadata = (
        ("authorization", f"Bearer {tenant.secret}"),
        ("traceparent", f"00-{trace_id}-{parent_span}-01"),
        ("x-request-id", "observed-1"),
    )
    async with grpc.aio.insecure_channel(serve.address) as channel:
        lifecycle = lifecycle_pb2_grpc.LifecycleServiceStub(channel)
        await lifecycle.ProposeMemory(
            lifecycle_pb2.ProposeMemoryRequest(proposal=proposal("kb", CONTENT)),
            metadata=metadata,
        )
        await recall_pb2_grpc.RecallServiceStub(channel).Recall(
            recall_pb2.RecallRequest(
                query=QUERY,
                spaces=["kb"],
                k=3,
                consistency=recall_pb2.READ_CONSISTENCY_READ_YOUR_WRITES,
            ),
            metadata=metadata,
        )
        with pytest.raises(grpc.aio.AioRpcError):
            await lifecycle.GetMemory(
                lifecycle_pb2.GetMemoryRequest(name="memories/not-a-uuid"), metadata=metadata
            )
        watch = lifecycle.WatchTransitions(
            lifecycle_pb2.WatchTransitionsRequest(cursor="0"), metadata=metadata
        )
        await watch.read()  # the proposal's event: the stream is open
        pools = pool_pb2_grpc.PoolServiceStub(channel)
        await pools.CreatePool(
            pool_pb2.CreatePoolRequest(pool=pool_pb2.Pool(display_name="obs"), pool_id="obs"),
            metadata=metadata,
        )
        sync = pools.SyncPool(
            pool_pb2.SyncPoolRequest(pool="pools/obs", follow=True), metadata=metadata
        )
        assert (await sync.read()).caught_up  # the stream is open and following
        exposition = await asyncio.to_thread(serve.metrics)
        watch.cancel()
        sync.cancel()
    # Draining flushes the exporter.
    assert await asyncio.to_thread(serve.terminate) == 0, serve.logs()

    # -- traces ---------------------------------------------------------------------
    ours = [(r, s) for r, s in received.spans if s.trace_id.hex() == trace_id]
    by_name = {s.name: s for _, s in ours}
    propose = by_name["/engram.v1.LifecycleService/ProposeMemory"]
    assert propose.parent_span_id.hex() == parent_span  # the caller's span
    attrs = _attributes(propose)
    assert attrs["engram.tenant"] == tenant.tenant_id
    assert attrs["rpc.method"] == "ProposeMemory"
    assert attrs["rpc.grpc.status_code"] == 0
    failed = _attributes(by_name["/engram.v1.LifecycleService/GetMemory"])
    assert failed["rpc.grpc.status_code"] == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert all(r["service.name"] == "engram-observed" for r, _ in ours)

    recall = by_name["/engram.v1.RecallService/Recall"]
    spans_by_id = {s.span_id: s for _, s in ours}

    def below(span: trace_pb2.Span, root: trace_pb2.Span) -> bool:
        current = span
        while current.parent_span_id in spans_by_id:
            if current.parent_span_id == root.span_id:
                return True
            current = spans_by_id[current.parent_span_id]
        return current.parent_span_id == root.span_id

    under_propose = [s for _, s in ours if below(s, propose)]
    under_recall = [s for _, s in ours if below(s, recall)]
    systems = {
        _attributes(s).get("db.system") or _attributes(s).get("db.system.name")
        for s in under_propose
    }
    assert {"postgresql", "redis"} <= systems, [s.name for s in under_propose]
    recall_names = {s.name for s in under_recall}
    assert "embedding.query" in recall_names, recall_names
    assert "vector.search" in recall_names, recall_names

    # Nothing of the content or the query in any span of any trace.
    everything = json.dumps(
        [[s.name, _attributes(s), [e.name for e in s.events]] for _, s in received.spans],
        default=str,
    )
    assert "canary" not in everything

    # -- metrics --------------------------------------------------------------------
    assert "rpc_server_call_duration_seconds_bucket" in exposition
    counts = [
        line
        for line in exposition.splitlines()
        if line.startswith("rpc_server_call_duration_seconds_count")
        and 'rpc_method="ProposeMemory"' in line
    ]
    assert counts and 'rpc_grpc_status_code="OK"' in counts[0], counts
    assert any(
        line.startswith("rpc_server_call_duration_seconds_count")
        and 'rpc_method="GetMemory"' in line
        and 'rpc_grpc_status_code="INVALID_ARGUMENT"' in line
        for line in exposition.splitlines()
    )
    lines = exposition.splitlines()
    watch_line = [line for line in lines if line.startswith("engram_watch_streams")]
    assert watch_line and float(watch_line[0].rsplit(" ", 1)[1]) >= 1, watch_line
    sync_line = [
        line for line in lines if line.startswith("engram_pool_streams") and 'kind="sync"' in line
    ]
    assert sync_line and float(sync_line[0].rsplit(" ", 1)[1]) >= 1, sync_line
    for gauge in ("engram_outbox_backlog", "engram_outbox_oldest_age_seconds"):
        assert any(line.startswith(gauge) for line in exposition.splitlines()), gauge
    assert "canary" not in exposition

    # -- access log -----------------------------------------------------------------
    stderr = serve.stderr.read_text()
    access = [
        entry
        for entry in (json.loads(line) for line in stderr.splitlines() if line.startswith("{"))
        if entry.get("logger") == "engram.access"
    ]
    (propose_line,) = [a for a in access if a["method"].endswith("/ProposeMemory")]
    assert propose_line["code"] == "OK"
    assert propose_line["tenant"] == tenant.tenant_id
    assert propose_line["request_id"] == "observed-1"
    assert propose_line["trace_id"] == trace_id
    assert propose_line["duration_ms"] > 0
    (get_line,) = [a for a in access if a["method"].endswith("/GetMemory")]
    assert get_line["code"] == "INVALID_ARGUMENT"
    assert any(a["method"].endswith("/WatchTransitions") for a in access)
    assert "canary" not in stderr
    assert tenant.secret not in stderr
    # The start-up line names the scrape URL once, with the port once.
    messages = [
        json.loads(line).get("message", "") for line in stderr.splitlines() if line[:1] == "{"
    ]
    (metrics_line,) = [m for m in messages if m.startswith("metrics on ")]
    assert metrics_line == f"metrics on http://127.0.0.1:{serve.metrics_port}/metrics"


def test_otlp_protocol_follows_the_standard_variables() -> None:
    grpc_exporter = _exporter("otlp", {})
    http_exporter = _exporter("otlp", {"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"})
    assert "grpc" in type(grpc_exporter).__module__
    assert "http" in type(http_exporter).__module__
    traces_only = _exporter(
        "otlp",
        {
            "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
            "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf",
        },
    )
    assert "http" in type(traces_only).__module__
