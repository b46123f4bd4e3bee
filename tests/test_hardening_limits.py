"""Issue 22 §4 (second half) and §8: an oversize request says which limit refused
it and how to raise it; reflection is served as v1 beside v1alpha."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from engram.v1 import lifecycle_pb2
from engram_server.platform.server import transport_receive_limit
from google.protobuf import descriptor_pb2
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2

from tests.lifecycle_helpers import proposal, propose, status_details


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
