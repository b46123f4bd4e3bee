"""Server reflection, both versions: `grpc.reflection.v1` beside `v1alpha`.

grpcio-reflection ships only v1alpha. The v1 protocol is the same messages under
another package (field for field, so the same wire format), which is how it is
served here: v1 requests are decoded with the v1alpha classes and answered by the
same servicer. A v1 descriptor (v1alpha's, renamed) is added to the default pool so
that clients can describe the v1 service itself too.
"""

from __future__ import annotations

from typing import Any

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection, reflection_pb2, reflection_pb2_grpc

V1_SERVICE_NAME = "grpc.reflection.v1.ServerReflection"
V1ALPHA_SERVICE_NAME: str = reflection.SERVICE_NAME
_V1_FILE = "grpc/reflection/v1/reflection.proto"


def _register_v1_descriptor() -> None:
    pool = descriptor_pool.Default()
    try:
        pool.FindFileByName(_V1_FILE)
        return
    except KeyError:
        pass
    alpha = descriptor_pb2.FileDescriptorProto()
    reflection_pb2.DESCRIPTOR.CopyToProto(alpha)
    v1 = descriptor_pb2.FileDescriptorProto()
    v1.CopyFrom(alpha)
    v1.name = _V1_FILE
    v1.package = "grpc.reflection.v1"
    for message in v1.message_type:
        for field in message.field:
            if field.HasField("type_name"):
                field.type_name = field.type_name.replace(".v1alpha.", ".v1.")
    for service in v1.service:
        for method in service.method:
            method.input_type = method.input_type.replace(".v1alpha.", ".v1.")
            method.output_type = method.output_type.replace(".v1alpha.", ".v1.")
    pool.Add(v1)


def add_reflection(service_names: list[str], server: Any) -> None:
    """Serves reflection (v1 and v1alpha) of `service_names` plus both reflection
    services on `server` (a grpc.aio server, or a stand-in with the same methods)."""
    _register_v1_descriptor()
    names = [*service_names, V1_SERVICE_NAME, V1ALPHA_SERVICE_NAME]
    servicer = reflection.aio.ReflectionServicer(names)
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(servicer, server)
    handler = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(V1_SERVICE_NAME, {"ServerReflectionInfo": handler}),)
    )
