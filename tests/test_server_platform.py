"""The server platform: health, reflection, limits, error mapping, deadlines, drain.

Where a behaviour needs a handler that misbehaves on purpose (raises, sleeps), a
small probe service is mounted next to the real ones through the server's own
extension points (`registrations`, `add_generic_rpc_handlers`, `extra_scopes`).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import os
import pkgutil
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import engram.v1
import grpc
import grpc.aio
import pytest
from engram.v1 import admin_pb2, admin_pb2_grpc, lifecycle_pb2, lifecycle_pb2_grpc
from engram_server import errors
from engram_server.platform.config import Settings
from engram_server.platform.context import AppContext
from engram_server.platform.interceptors import DeadlineInterceptor, ErrorMappingInterceptor
from engram_server.platform.interceptors._wrap import WrappingInterceptor
from engram_server.platform.principal import current_principal
from engram_server.platform.server import EngramServer, Registration, StartupError, serve
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from grpc_status import rpc_status

PROBE = "engram.test.Probe"


def _method(name: str) -> str:
    return f"/{PROBE}/{name}"


class Probe:
    """Raw-bytes handlers that fail, stream or sleep on request."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.entered = asyncio.Event()
        self.release = asyncio.Event()
        self.raise_next: BaseException | None = None

    async def unary(self, request: bytes, context: Any) -> bytes:
        self.calls.append("unary")
        if self.raise_next is not None:
            raise self.raise_next
        return b"tenant=" + current_principal().tenant_id.encode()

    async def stream(self, request: bytes, context: Any) -> AsyncIterator[bytes]:
        self.calls.append("stream")
        yield b"first"
        if self.raise_next is not None:
            raise self.raise_next
        yield b"second"

    async def slow(self, request: bytes, context: Any) -> bytes:
        self.calls.append("slow")
        self.entered.set()
        await asyncio.sleep(float(request.decode() or "0.5"))
        return b"done"

    def handler(self) -> grpc.GenericRpcHandler:
        return grpc.method_handlers_generic_handler(
            PROBE,
            {
                "Unary": grpc.unary_unary_rpc_method_handler(self.unary),
                "Stream": grpc.unary_stream_rpc_method_handler(self.stream),
                "Slow": grpc.unary_unary_rpc_method_handler(self.slow),
            },
        )


class Background:
    """A servicer-like object with background work, to see start/stop called."""

    def __init__(self) -> None:
        self.events: list[str] = []

    async def start(self) -> None:
        self.events.append("start")

    async def stop(self) -> None:
        self.events.append("stop")


@pytest.fixture
async def probe_server(
    app: AppContext, settings: Settings
) -> AsyncIterator[tuple[EngramServer, Probe, Background]]:
    probe = Probe()
    background = Background()
    engram = EngramServer(
        settings,
        app,
        registrations=[Registration("engram.test.Background", background, lambda s, srv: None)],
        extra_scopes={_method(m): {"read"} for m in ("Unary", "Stream", "Slow")},
    )
    engram.add_generic_rpc_handlers([probe.handler()])
    await engram.start()
    try:
        yield engram, probe, background
    finally:
        await engram.stop(grace=0.5)


async def _call(channel: grpc.aio.Channel, name: str, body: bytes = b"", **kw: Any) -> bytes:
    result: bytes = await channel.unary_unary(_method(name))(body, **kw)
    return result


def _details(err: grpc.aio.AioRpcError) -> list[Any]:
    status = rpc_status.from_call(err)
    assert status is not None, "no google.rpc.Status in the trailers"
    unpacked = []
    for detail in status.details:
        for kind in (
            error_details_pb2.BadRequest,
            error_details_pb2.ResourceInfo,
            error_details_pb2.PreconditionFailure,
            error_details_pb2.ErrorInfo,
            error_details_pb2.QuotaFailure,
            error_details_pb2.RetryInfo,
        ):
            if detail.Is(kind.DESCRIPTOR):
                message = kind()
                detail.Unpack(message)
                unpacked.append(message)
    return unpacked


# -- health, reflection, limits ------------------------------------------------------


async def test_health_and_reflection_need_no_key(server: Any) -> None:
    async with grpc.aio.insecure_channel(server.address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        overall = await health.Check(health_pb2.HealthCheckRequest())
        assert overall.status == health_pb2.HealthCheckResponse.SERVING
        lifecycle = await health.Check(
            health_pb2.HealthCheckRequest(service="engram.v1.LifecycleService")
        )
        assert lifecycle.status == health_pb2.HealthCheckResponse.SERVING

        reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
        responses = reflection.ServerReflectionInfo(
            iter([reflection_pb2.ServerReflectionRequest(list_services="")])
        )
        names = set()
        async for response in responses:
            names |= {s.name for s in response.list_services_response.service}
    assert {"engram.v1.LifecycleService", "engram.v1.AdminService"} <= names
    assert "grpc.health.v1.Health" in names


async def test_health_reports_every_served_service_serving(server: Any) -> None:
    registrations = server.server.registrations
    assert all(r.served for r in registrations)
    assert {"engram.v1.PoolService", "engram.v1.EvidenceService", "engram.v1.DecisionsService"} <= {
        r.service_name for r in registrations
    }
    async with grpc.aio.insecure_channel(server.address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        for r in registrations:
            reply = await health.Check(health_pb2.HealthCheckRequest(service=r.service_name))
            assert reply.status == health_pb2.HealthCheckResponse.SERVING, r.service_name


async def test_a_registration_not_serving_is_reported_not_serving(
    app: AppContext, settings: Settings, server: Any
) -> None:
    """A registration that only answers UNIMPLEMENTED passes `serving=False`: the
    health service then reports it NOT_SERVING, the server itself SERVING."""
    import dataclasses

    from engram_server.platform.server import Registration

    # The running server's own (stateless) admin servicer: building new servicers
    # would rebind the shared context's recall runtime and write path.
    admin = next(r for r in server.server.registrations if r.service_name.endswith("AdminService"))
    assert admin.served
    held = Registration("engram.v1.DecisionsService", object(), lambda *_: None, serving=False)
    engram = EngramServer(
        dataclasses.replace(settings, listen="127.0.0.1:0"), app, registrations=[admin, held]
    )
    await engram.start()
    try:
        async with grpc.aio.insecure_channel(engram.address) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            served = await health.Check(health_pb2.HealthCheckRequest(service=admin.service_name))
            assert served.status == health_pb2.HealthCheckResponse.SERVING
            reply = await health.Check(health_pb2.HealthCheckRequest(service=held.service_name))
            assert reply.status == health_pb2.HealthCheckResponse.NOT_SERVING
            overall = await health.Check(health_pb2.HealthCheckRequest())
            assert overall.status == health_pb2.HealthCheckResponse.SERVING
    finally:
        await engram.stop(grace=0)


async def test_oversize_request_is_resource_exhausted(server: Any, settings: Settings) -> None:
    big = "x" * (settings.max_request_bytes + 1024)
    async with grpc.aio.insecure_channel(server.address) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=big)
            )
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "max_request_bytes" in (caught.value.details() or "")


async def test_listen_failure_is_a_startup_error(app: AppContext, settings: Settings) -> None:
    import dataclasses

    bad = dataclasses.replace(settings, listen="256.0.0.1:1")
    engram = EngramServer(bad, app, registrations=[])
    with pytest.raises(StartupError):
        await engram.start()


async def test_a_port_in_use_is_named_as_such(app: AppContext, settings: Settings) -> None:
    """Another process on the port: the error says so and how to pick another,
    instead of gRPC's "Failed to bind ... set GRPC_VERBOSITY"."""
    import dataclasses
    import socket

    with socket.create_server(("127.0.0.1", 0)) as taken:
        listen = f"127.0.0.1:{taken.getsockname()[1]}"
        engram = EngramServer(dataclasses.replace(settings, listen=listen), app, registrations=[])
        with pytest.raises(StartupError) as caught:
            await engram.start()
    message = str(caught.value)
    assert message.startswith(f"cannot listen on {listen}: the address is in use"), message
    assert "ENGRAM_LISTEN" in message and "GRPC_VERBOSITY" not in message


# -- the principal and error mapping on a live server -------------------------------


async def test_handler_sees_the_callers_principal(probe_server: Any, make_tenant: Any) -> None:
    engram, _, _ = probe_server
    tenant = await make_tenant(scopes=("read",))
    async with grpc.aio.insecure_channel(engram.address) as channel:
        reply = await _call(
            channel, "Unary", metadata=(("authorization", f"Bearer {tenant.secret}"),)
        )
    assert reply == f"tenant={tenant.tenant_id}".encode()


@pytest.mark.parametrize(
    ("error", "code", "detail_type"),
    [
        (
            errors.InvalidArgument.field("proposal.confidence", "must be within [0, 1]"),
            grpc.StatusCode.INVALID_ARGUMENT,
            error_details_pb2.BadRequest,
        ),
        (
            errors.NotFound("memory", "tenants/x/memories/1"),
            grpc.StatusCode.NOT_FOUND,
            error_details_pb2.ResourceInfo,
        ),
        (
            errors.AlreadyExists("tenant", "tenants/x"),
            grpc.StatusCode.ALREADY_EXISTS,
            error_details_pb2.ResourceInfo,
        ),
        (
            errors.InvalidTransition("memories/1", "REJECTED", "ACTIVE"),
            grpc.StatusCode.FAILED_PRECONDITION,
            error_details_pb2.PreconditionFailure,
        ),
        (
            errors.PermissionDenied("needs write", "write"),
            grpc.StatusCode.PERMISSION_DENIED,
            error_details_pb2.ErrorInfo,
        ),
        (
            errors.ResourceExhausted("too many", "max_memories", "tenants/x"),
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            error_details_pb2.QuotaFailure,
        ),
        (errors.Aborted("stale etag"), grpc.StatusCode.ABORTED, None),
        (errors.Unavailable("redis down"), grpc.StatusCode.UNAVAILABLE, None),
    ],
)
async def test_domain_errors_arrive_with_rich_details(
    probe_server: Any,
    make_tenant: Any,
    error: errors.EngramError,
    code: grpc.StatusCode,
    detail_type: Any,
) -> None:
    engram, probe, _ = probe_server
    tenant = await make_tenant(scopes=("read",))
    probe.raise_next = error
    auth = (("authorization", f"Bearer {tenant.secret}"),)
    async with grpc.aio.insecure_channel(engram.address) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await _call(channel, "Unary", metadata=auth)
        assert caught.value.code() == code
        if isinstance(error, errors.Unavailable):
            # Logged as a failure: the message also names the log line's error id.
            assert (caught.value.details() or "").startswith(f"{error.message} (error id ")
        else:
            assert caught.value.details() == error.message
        details = _details(caught.value)
        if detail_type is not None:
            assert any(isinstance(d, detail_type) for d in details), details

        # The same error after a streamed message still ends the stream mapped.
        call = channel.unary_stream(_method("Stream"))(b"", metadata=auth)
        received = []
        with pytest.raises(grpc.aio.AioRpcError) as streamed:
            async for message in call:
                received.append(message)
        assert received == [b"first"]
        assert streamed.value.code() == code
        if detail_type is not None:
            assert any(isinstance(d, detail_type) for d in _details(streamed.value))


async def test_bad_request_names_the_field(probe_server: Any, make_tenant: Any) -> None:
    engram, probe, _ = probe_server
    tenant = await make_tenant(scopes=("read",))
    probe.raise_next = errors.InvalidArgument(
        [
            errors.FieldViolation("proposal.content", "must not be empty"),
            errors.FieldViolation("proposal.confidence", "must be within [0, 1]"),
        ]
    )
    async with grpc.aio.insecure_channel(engram.address) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await _call(channel, "Unary", metadata=(("authorization", f"Bearer {tenant.secret}"),))
    (bad_request,) = _details(caught.value)
    assert [v.field for v in bad_request.field_violations] == [
        "proposal.content",
        "proposal.confidence",
    ]


async def test_unexpected_exception_is_internal_without_leaking(
    probe_server: Any, make_tenant: Any, caplog: pytest.LogCaptureFixture
) -> None:
    engram, probe, _ = probe_server
    tenant = await make_tenant(scopes=("read",))
    probe.raise_next = RuntimeError("SELECT secret FROM tenants WHERE id = 'other-tenant'")
    async with grpc.aio.insecure_channel(engram.address) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await _call(channel, "Unary", metadata=(("authorization", f"Bearer {tenant.secret}"),))
    assert caught.value.code() == grpc.StatusCode.INTERNAL
    assert "other-tenant" not in (caught.value.details() or "")
    assert "other-tenant" not in str(caught.value.trailing_metadata())
    assert "other-tenant" in caplog.text  # ...but the operator can see it in the log
    error_id = (caught.value.details() or "").split("(error id ", 1)[1].split(")", 1)[0]
    assert f"failed (error id {error_id})" in caplog.text


async def test_real_rpc_not_found_carries_resource_info(server: Any, make_tenant: Any) -> None:
    tenant = await make_tenant(scopes=("read", "admin"))
    admin = admin_pb2_grpc.AdminServiceStub(tenant.channel)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await admin.RevokeApiKey(
            admin_pb2.RevokeApiKeyRequest(name=f"{tenant.name}/apiKeys/doesnotexist")
        )
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    (info,) = [d for d in _details(caught.value) if isinstance(d, error_details_pb2.ResourceInfo)]
    assert info.resource_name.endswith("doesnotexist")


async def test_real_rpc_bad_input_is_invalid_argument(server: Any, make_tenant: Any) -> None:
    tenant = await make_tenant(scopes=("read", "write"))
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await tenant.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name="not a name"))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    (bad_request,) = [
        d for d in _details(caught.value) if isinstance(d, error_details_pb2.BadRequest)
    ]
    assert bad_request.field_violations[0].field == "name"


# -- deadlines -------------------------------------------------------------------------


class _SlowStart(WrappingInterceptor):
    """Holds the call back before later layers run, as a busy event loop would.

    It blocks instead of awaiting: grpc.aio cancels a call whose deadline passes
    at its next await, so only a call that reaches the handler without one (an
    overloaded loop) shows the deadline check at work.
    """

    def __init__(self, delay: float) -> None:
        self._delay = delay

    @contextlib.asynccontextmanager
    async def around(self, details: Any, context: Any) -> AsyncIterator[None]:
        time.sleep(self._delay)  # noqa: ASYNC251 - blocking on purpose, see above
        yield


async def _run_late_call(interceptors: list[grpc.aio.ServerInterceptor]) -> tuple[Probe, Any]:
    probe = Probe()
    server = grpc.aio.server(interceptors=[_SlowStart(0.3), *interceptors])
    server.add_generic_rpc_handlers((probe.handler(),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await _call(channel, "Slow", b"0", timeout=0.1)
        await asyncio.sleep(0.5)  # let the server get to the call
    finally:
        await server.stop(None)
    return probe, caught.value.code()


async def test_expired_deadline_skips_the_handler() -> None:
    probe, code = await _run_late_call([ErrorMappingInterceptor(), DeadlineInterceptor()])
    assert code == grpc.StatusCode.DEADLINE_EXCEEDED
    assert probe.calls == []


async def test_without_the_deadline_check_a_late_call_would_run() -> None:
    # The control for the test above: the probe does get called late.
    probe, code = await _run_late_call([ErrorMappingInterceptor()])
    assert code == grpc.StatusCode.DEADLINE_EXCEEDED
    assert probe.calls == ["slow"]


async def test_deadline_cancels_a_long_handler(probe_server: Any, make_tenant: Any) -> None:
    engram, _, _ = probe_server
    tenant = await make_tenant(scopes=("read",))
    started = time.monotonic()
    async with grpc.aio.insecure_channel(engram.address) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await _call(
                channel,
                "Slow",
                b"30",
                timeout=0.3,
                metadata=(("authorization", f"Bearer {tenant.secret}"),),
            )
    assert caught.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert time.monotonic() - started < 5


# -- graceful drain ----------------------------------------------------------------------


async def test_stop_lets_in_flight_calls_finish(
    app: AppContext, settings: Settings, make_tenant: Any
) -> None:
    tenant = await make_tenant(scopes=("read",))
    probe = Probe()
    background = Background()
    engram = EngramServer(
        settings,
        app,
        registrations=[Registration("engram.test.Background", background, lambda s, srv: None)],
        extra_scopes={_method("Slow"): {"read"}},
    )
    engram.add_generic_rpc_handlers([probe.handler()])
    await engram.start()
    assert background.events == ["start"]
    auth = (("authorization", f"Bearer {tenant.secret}"),)
    async with grpc.aio.insecure_channel(engram.address) as channel:
        in_flight = asyncio.create_task(_call(channel, "Slow", b"0.6", metadata=auth))
        await asyncio.wait_for(probe.entered.wait(), 5)
        stopping = asyncio.create_task(engram.stop(grace=5))
        await asyncio.sleep(0.1)
        assert not stopping.done(), "stop must wait for the in-flight call"
        async with grpc.aio.insecure_channel(engram.address) as late_channel:
            with pytest.raises(grpc.aio.AioRpcError):
                await health_pb2_grpc.HealthStub(late_channel).Check(
                    health_pb2.HealthCheckRequest(), timeout=1
                )
        assert await in_flight == b"done"
        await asyncio.wait_for(stopping, 10)
    assert background.events == ["start", "stop"]


async def test_stop_cancels_calls_that_outlive_the_grace(
    app: AppContext, settings: Settings, make_tenant: Any
) -> None:
    tenant = await make_tenant(scopes=("read",))
    probe = Probe()
    engram = EngramServer(settings, app, registrations=[], extra_scopes={_method("Slow"): {"read"}})
    engram.add_generic_rpc_handlers([probe.handler()])
    await engram.start()
    auth = (("authorization", f"Bearer {tenant.secret}"),)
    async with grpc.aio.insecure_channel(engram.address) as channel:
        in_flight = asyncio.create_task(_call(channel, "Slow", b"30", metadata=auth))
        await asyncio.wait_for(probe.entered.wait(), 5)
        started = time.monotonic()
        await engram.stop(grace=0.3)
        assert time.monotonic() - started < 5
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await in_flight
    assert caught.value.code() in (grpc.StatusCode.CANCELLED, grpc.StatusCode.UNAVAILABLE)


# -- serve(): configuration errors and the dev mode end to end --------------------------


async def test_serve_without_urls_outside_dev_mode_is_a_clear_error(settings: Settings) -> None:
    import dataclasses

    bare = dataclasses.replace(settings, database_url="", redis_url="")
    with pytest.raises(StartupError, match="ENGRAM_DATABASE_URL and ENGRAM_REDIS_URL"):
        await serve(bare, dev=False)


# The real entry point (`engram serve --dev`), event loop choice included.
_SERVE_SCRIPT = """
import sys
from engram_server.cli import main
sys.exit(main(["serve", "--dev"]))
"""


async def test_dev_mode_starts_embedded_stores_prints_a_key_and_drains(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ENGRAM_", "OTEL_"))}
    env.update(
        ENGRAM_LISTEN="127.0.0.1:0",
        ENGRAM_DATA_DIR=str(tmp_path / "data"),
        ENGRAM_SHUTDOWN_GRACE_SECONDS="2",
        ENGRAM_BOOTSTRAP_TOKEN="dev-mode-test-bootstrap-token",
    )
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        _SERVE_SCRIPT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    try:
        address = key = None
        output: list[str] = []
        async with asyncio.timeout(120):
            while key is None:
                line = (await process.stdout.readline()).decode()
                if not line:
                    stderr = await process.stderr.read() if process.stderr else b""
                    pytest.fail(f"serve exited early:\n{''.join(output)}\n{stderr.decode()}")
                output.append(line)
                if "serving on" in line:
                    address = line.rsplit(" ", 1)[-1].strip()
                if line.strip().startswith("egk_"):
                    key = line.strip()
        assert address is not None
        assert (tmp_path / "data" / "postgres" / "PG_VERSION").exists()
        auth = (("authorization", f"Bearer {key}"),)
        async with grpc.aio.insecure_channel(address) as channel:
            listed = await lifecycle_pb2_grpc.LifecycleServiceStub(channel).ListMemories(
                lifecycle_pb2.ListMemoriesRequest(), metadata=auth
            )
            assert list(listed.memories) == []
            bootstrap = (("authorization", "Bearer dev-mode-test-bootstrap-token"),)
            tenants = await admin_pb2_grpc.AdminServiceStub(channel).ListTenants(
                admin_pb2.ListTenantsRequest(), metadata=bootstrap
            )
            assert {"tenants/dev", "tenants/default"} <= {t.name for t in tenants.tenants}
        process.send_signal(signal.SIGTERM)
        async with asyncio.timeout(60):
            _, stderr = await process.communicate()
        assert process.returncode == 0
        assert "event loop: uvloop)" in stderr.decode()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        # The embedded cluster was stopped on the way out.
        # PostgreSQL removes its pid file last; on a loaded machine its shutdown
        # checkpoint can take a while, so this waits (up to two minutes) rather
        # than assuming how long.
        pid_file = tmp_path / "data" / "postgres" / "postmaster.pid"
        for _ in range(600):
            if not pid_file.exists():
                break
            await asyncio.sleep(0.2)
        assert not pid_file.exists(), "embedded PostgreSQL still running"


async def test_every_api_service_is_served(server: Any) -> None:
    declared = set()
    for module_info in pkgutil.iter_modules(engram.v1.__path__):
        if module_info.name.endswith("_pb2"):
            module = importlib.import_module(f"engram.v1.{module_info.name}")
            declared |= {s.full_name for s in module.DESCRIPTOR.services_by_name.values()}
    assert declared == set(server.server.service_names)


async def test_calls_without_a_key_are_unauthenticated(server: Any, make_tenant: Any) -> None:
    from engram.v1 import recall_pb2, recall_pb2_grpc

    tenant = await make_tenant(scopes=("read",))
    stub = recall_pb2_grpc.RecallServiceStub(tenant.channel)
    try:
        await stub.GetIndexStatus(recall_pb2.GetIndexStatusRequest())
    except grpc.aio.AioRpcError as err:
        assert err.code() in (grpc.StatusCode.UNIMPLEMENTED, grpc.StatusCode.INVALID_ARGUMENT)
    async with grpc.aio.insecure_channel(server.address) as anonymous:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await recall_pb2_grpc.RecallServiceStub(anonymous).GetIndexStatus(
                recall_pb2.GetIndexStatusRequest()
            )
    assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
