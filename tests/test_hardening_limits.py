"""Issue 22 §4 (second half) and §8: an oversize request says which limit refused
it and how to raise it; reflection is served as v1 beside v1alpha."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from typing import Any

import engram
import grpc
import pytest
from engram.errors import from_rpc_error
from engram.v1 import (
    admin_pb2,
    decisions_pb2,
    evidence_pb2,
    lifecycle_pb2,
    lifecycle_pb2_grpc,
    pool_pb2,
    recall_pb2,
)
from engram_server.platform.server import EngramServer, build_context, transport_receive_limit
from google.protobuf import descriptor_pb2
from google.protobuf.descriptor import MethodDescriptor
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2

from tests.conftest import open_channel
from tests.lifecycle_helpers import proposal, propose, status_details

ENGRAM_SERVICES = (admin_pb2, decisions_pb2, evidence_pb2, lifecycle_pb2, pool_pb2, recall_pb2)


def _explains_the_limit(err: grpc.aio.AioRpcError, limit: int) -> None:
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    details = err.details() or ""
    assert f"{limit:,} bytes" in details
    assert "max_request_bytes" in details and "ENGRAM_MAX_REQUEST_BYTES" in details
    # Sending it again cannot help: no retry hint.
    assert not any(
        d.Is(error_details_pb2.RetryInfo.DESCRIPTOR) for d in status_details(err).details
    )


async def test_an_oversize_request_names_the_limit(make_tenant: Any, settings: Any) -> None:
    t = await make_tenant()
    other = await make_tenant()
    limit = settings.max_request_bytes
    big = proposal("s", "x" * (limit + 1024))
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await t.lifecycle.ProposeMemory(lifecycle_pb2.ProposeMemoryRequest(proposal=big))
    _explains_the_limit(err.value, limit)
    # A stream message over the limit ends the stream with the same explanation.
    stream = t.lifecycle.AppendMessages(
        iter(
            [
                lifecycle_pb2.AppendMessagesRequest(
                    space="s",
                    session="c",
                    message=lifecycle_pb2.SessionMessage(role="user", content="y" * (limit + 1)),
                )
            ]
        )
    )
    with pytest.raises(grpc.aio.AioRpcError) as err:
        async for _ in stream:
            pass
    _explains_the_limit(err.value, limit)
    # Unauthenticated services get the same check.
    async with grpc.aio.insecure_channel(t.address) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service="h" * (limit + 10))
            )
    _explains_the_limit(err.value, limit)
    # Neither the caller nor anyone else is affected afterwards.
    assert (await propose(t.lifecycle, "s", "small enough")).memory.name
    assert (await propose(other.lifecycle, "s", "unaffected")).memory.name


def test_the_transport_limit_sits_above_the_setting(settings: Any) -> None:
    assert transport_receive_limit(settings) == 4 * settings.max_request_bytes


async def _reflect(channel: grpc.aio.Channel, service: str, request: Any) -> Any:
    call = channel.stream_stream(
        f"/{service}/ServerReflectionInfo",
        request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
        response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
    )(iter([request]))
    return [response async for response in call]


@pytest.mark.parametrize(
    "service", ["grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"]
)
async def test_reflection_is_served_as_v1_and_v1alpha(server: Any, service: str) -> None:
    async with grpc.aio.insecure_channel(server.address) as channel:
        (listed,) = await _reflect(
            channel, service, reflection_pb2.ServerReflectionRequest(list_services="")
        )
        names = {s.name for s in listed.list_services_response.service}
        assert {
            "engram.v1.RecallService",
            "grpc.reflection.v1.ServerReflection",
            "grpc.reflection.v1alpha.ServerReflection",
        } <= names
        for symbol in ("engram.v1.LifecycleService", "grpc.reflection.v1.ServerReflection"):
            (found,) = await _reflect(
                channel,
                service,
                reflection_pb2.ServerReflectionRequest(file_containing_symbol=symbol),
            )
            assert found.WhichOneof("message_response") == "file_descriptor_response"
            files = [
                descriptor_pb2.FileDescriptorProto.FromString(raw)
                for raw in found.file_descriptor_response.file_descriptor_proto
            ]
            package = symbol.rsplit(".", 1)[0]
            assert any(f.package == package for f in files)


# -- every service, several sizes -----------------------------------------------------

# A small setting keeps the far-over requests cheap; the transport's ceiling sits
# at 1 MiB (its floor), 16 times over it.
SMALL_LIMIT = 64 * 1024


def unknown_field_padding(total: int) -> bytes:
    """A valid protobuf encoding of exactly `total` bytes: one unknown
    length-delimited field (number 1000) that every request type skips."""

    def varint(value: int) -> bytes:
        out = bytearray()
        while True:
            byte = value & 0x7F
            value >>= 7
            if value:
                out.append(byte | 0x80)
            else:
                out.append(byte)
                return bytes(out)

    tag = varint((1000 << 3) | 2)
    body = total - len(tag) - 1
    while len(tag) + len(varint(body)) + body != total:
        body -= 1
    return tag + varint(body) + b"p" * body


def oversize_targets() -> list[tuple[str, MethodDescriptor]]:
    """(path, method): every streaming method and the first two unary ones of every
    Engram service, plus health and both reflection services."""
    targets: list[tuple[str, MethodDescriptor]] = []
    for module in (*ENGRAM_SERVICES, health_pb2, reflection_pb2):
        for service in module.DESCRIPTOR.services_by_name.values():
            streaming = [m for m in service.methods if m.client_streaming or m.server_streaming]
            unary = [m for m in service.methods if m not in streaming]
            targets += [(f"/{service.full_name}/{m.name}", m) for m in [*unary[:2], *streaming]]
    reflect = reflection_pb2.DESCRIPTOR.services_by_name["ServerReflection"].methods[0]
    targets.append((f"/grpc.reflection.v1.ServerReflection/{reflect.name}", reflect))
    return targets


async def _call(
    channel: grpc.aio.Channel, path: str, method: MethodDescriptor, payload: bytes, secret: str
) -> None:
    metadata = (("authorization", f"Bearer {secret}"),)
    if method.client_streaming:
        call = channel.stream_stream(path)(iter([payload]), metadata=metadata, timeout=30)
        async for _ in call:
            pass
    elif method.server_streaming:
        async for _ in channel.unary_stream(path)(payload, metadata=metadata, timeout=30):
            break
    else:
        await channel.unary_unary(path)(payload, metadata=metadata, timeout=30)


@pytest.fixture
async def small_limit_server(settings: Any, tmp_path: Any) -> AsyncIterator[str]:
    own = dataclasses.replace(
        settings, max_request_bytes=SMALL_LIMIT, data_dir=str(tmp_path / "data")
    )
    ctx = await build_context(own)
    server = EngramServer(own, ctx)
    port = await server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        await server.stop(grace=1.0)
        await ctx.close()


async def test_every_service_explains_oversize_requests_at_every_size(
    make_tenant: Any, settings: Any, small_limit_server: str
) -> None:
    """Requests just over the setting, twice it, at the transport's ceiling, just
    past the ceiling and far past it, to streaming and unary RPCs of every service:
    always RESOURCE_EXHAUSTED. Up to the ceiling the server's message names the
    setting; past it gRPC core answers on its own (see docs/hardening.md), with the
    sizes, and the SDK turns that into the same explanation. The channel, the
    server and another tenant's calls are unaffected."""
    t = await make_tenant()
    other = await make_tenant()
    own = dataclasses.replace(settings, max_request_bytes=SMALL_LIMIT)
    ceiling = transport_receive_limit(own)
    assert ceiling > 2 * SMALL_LIMIT
    explained = [SMALL_LIMIT + 1, 2 * SMALL_LIMIT, ceiling]
    beyond = [ceiling + 1, 8 * ceiling]
    checked = 0
    async with grpc.aio.insecure_channel(small_limit_server) as channel:
        other_channel = open_channel(small_limit_server, other.secret)
        other_stub = lifecycle_pb2_grpc.LifecycleServiceStub(other_channel)
        health = health_pb2_grpc.HealthStub(channel)
        for path, method in oversize_targets():
            for size in [*explained, *beyond]:
                with pytest.raises(grpc.aio.AioRpcError) as err:
                    await _call(channel, path, method, unknown_field_padding(size), t.secret)
                where = f"{path} at {size:,} bytes: {err.value.details()!r}"
                assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, where
                if size in explained:
                    _explains_the_limit(err.value, SMALL_LIMIT)
                    assert f"the request is {size:,} bytes" in (err.value.details() or ""), where
                else:
                    assert (err.value.details() or "") == (
                        f"SERVER: Received message larger than max ({size} vs. {ceiling})"
                    ), where
                    sdk_error = from_rpc_error(err.value)
                    assert isinstance(sdk_error, engram.ResourceExhausted)
                    assert f"{size:,} bytes" in sdk_error.message
                    assert "ENGRAM_MAX_REQUEST_BYTES" in sdk_error.message, sdk_error.message
                    assert sdk_error.quota_violations[0].subject == "request"
                checked += 1
            # The same channel still works, the server is healthy, the other tenant writes.
            reply = await health.Check(health_pb2.HealthCheckRequest(), timeout=30)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING, path
            written = await propose(other_stub, "s", f"after {path}")
            assert written.memory.name, path
        await other_channel.close()
    assert checked == 5 * len(oversize_targets())
