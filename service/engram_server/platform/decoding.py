"""Request decoding that answers bad bytes with INVALID_ARGUMENT, not UNKNOWN.

grpc's own handling of a request that fails to parse (invalid UTF-8 in a string
field, corrupt wire bytes, a `Struct` nested past protobuf's recursion limit) ends
the call with UNKNOWN and a message naming a Python class. And a request can parse
and still hold what PostgreSQL cannot store: a NUL character in a string (text and
jsonb refuse it). Both are the caller's fault and both are refused here, for every
RPC of every service, before any handler runs:

- Each handler gets a deserializer that never raises. A request that fails to
  parse, or that holds a NUL in any string field (map keys and `Struct` values
  included), becomes a `MalformedRequest` carrying the field violation.
- Each handler's behaviour is wrapped so that a `MalformedRequest` raises its
  `InvalidArgument` where the error-mapping interceptor sees it. The interceptors
  (authentication, scopes, rate limit) still run first: an unauthenticated caller
  learns nothing about its payload.

One request field is left to its handler: the commits of IngestCommits, which
come from real git histories (binary files, stray NUL bytes). There the handler
cleans or refuses each commit on its own (`ITEM_CHECKED`), so one bad commit
never fails the batch it came in.

`ValidatingServer` applies both to whatever a generated `add_*_to_server` function
registers, so a new service gets them by being registered like the others.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from typing import Any

import grpc
import grpc.aio
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import DecodeError, Message

from engram_server.errors import EngramError, FieldViolation, InvalidArgument, ResourceExhausted

Parse = Callable[[bytes], Any]
Behavior = Callable[..., Any]

# How far into a request the NUL check walks. protobuf's own recursion limit (100)
# refuses deeper messages at parse time, so this bound is never the one that stops
# a request; it only keeps the walk itself from recursing without end.
_MAX_DEPTH = 128

# Top-level request fields whose strings the handler checks item by item (see
# the module's docstring), by request type.
ITEM_CHECKED: dict[str, frozenset[str]] = {
    "engram.v1.IngestCommitsRequest": frozenset({"commits"}),
}


class MalformedRequest:
    """What the deserializer returns for a request it refuses (never raises)."""

    __slots__ = ("error",)

    def __init__(self, error: EngramError) -> None:
        self.error = error


def nul_violations(message: Message, prefix: str = "") -> list[FieldViolation]:
    """Every string field of `message` (recursively) that holds a NUL character."""
    found: list[FieldViolation] = []
    _walk(message, prefix, found, 0, ITEM_CHECKED.get(message.DESCRIPTOR.full_name, frozenset()))
    return found


def _nul(path: str) -> FieldViolation:
    return FieldViolation(path, "must not contain NUL (U+0000) characters")


def _walk(
    message: Message,
    prefix: str,
    found: list[FieldViolation],
    depth: int,
    skip: frozenset[str] = frozenset(),
) -> None:
    if depth > _MAX_DEPTH:
        return
    for field, value in message.ListFields():
        if field.name in skip:
            continue
        path = f"{prefix}{field.name}"
        if _is_map(field):
            _walk_map(field, value, path, found, depth)
        elif field.is_repeated:
            for index, item in enumerate(value):
                _check_value(field, item, f"{path}[{index}]", found, depth)
        else:
            _check_value(field, value, path, found, depth)


def _walk_map(
    field: FieldDescriptor,
    entries: Mapping[Any, Any],
    path: str,
    found: list[FieldViolation],
    depth: int,
) -> None:
    entry = field.message_type
    assert entry is not None
    value_field = entry.fields_by_name["value"]
    for key, item in entries.items():
        entry_path = f"{path}[{key!r}]"
        if isinstance(key, str) and "\x00" in key:
            found.append(_nul(f"{path} (a key)"))
            continue
        _check_value(value_field, item, entry_path, found, depth)


def _check_value(
    field: FieldDescriptor, value: Any, path: str, found: list[FieldViolation], depth: int
) -> None:
    if field.type == FieldDescriptor.TYPE_STRING:
        if "\x00" in value:
            found.append(_nul(path))
    elif field.type == FieldDescriptor.TYPE_MESSAGE:
        _walk(value, f"{path}.", found, depth + 1)


def _is_map(field: FieldDescriptor) -> bool:
    entry = field.message_type
    return (
        field.is_repeated
        and entry is not None
        and field.type == FieldDescriptor.TYPE_MESSAGE
        and entry.GetOptions().map_entry
    )


def oversize(size: int, limit: int) -> ResourceExhausted:
    """The error for a request of `size` bytes over the `limit` the server accepts."""
    return ResourceExhausted(
        f"the request is {size:,} bytes, over this server's limit of {limit:,} bytes per"
        " request (setting max_request_bytes, environment ENGRAM_MAX_REQUEST_BYTES):"
        " send less per call, e.g. split the batch, or have the operator raise it",
        quota="max_request_bytes",
        subject="request",
        retryable=False,
    )


def checked_deserializer(parse: Parse, max_bytes: int | None = None) -> Parse:
    """`parse` that answers a request it cannot accept with a `MalformedRequest`.

    With `max_bytes`, a larger request is refused (RESOURCE_EXHAUSTED naming the
    setting) before it is parsed. The transport's own limit sits above it (see
    `server.grpc_options`), so the common case of a request somewhat over the limit
    gets this explanation rather than the transport's bare refusal."""

    def deserialize(data: bytes) -> Any:
        if max_bytes is not None and len(data) > max_bytes:
            return MalformedRequest(oversize(len(data), max_bytes))
        try:
            message = parse(data)
        except DecodeError:
            return MalformedRequest(
                InvalidArgument.field(
                    "request",
                    "the request could not be decoded: invalid protobuf encoding, a string"
                    " that is not valid UTF-8, or nesting deeper than 100 levels",
                )
            )
        # A string with a NUL is encoded with a zero byte: most requests have none
        # and skip the walk.
        if b"\x00" in data and isinstance(message, Message):
            violations = nul_violations(message)
            if violations:
                return MalformedRequest(InvalidArgument(violations))
        return message

    return deserialize


async def _raise(error: EngramError) -> Any:
    raise error


async def _raise_streaming(error: EngramError) -> AsyncIterator[Any]:
    raise error
    yield  # pragma: no cover - makes this an async generator


async def _checked_stream(requests: AsyncIterator[Any]) -> AsyncIterator[Any]:
    async for request in requests:
        if isinstance(request, MalformedRequest):
            raise request.error
        yield request


def _unary_request(behavior: Behavior, streaming_response: bool) -> Behavior:
    def checked(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        if isinstance(request, MalformedRequest):
            return _raise_streaming(request.error) if streaming_response else _raise(request.error)
        return behavior(request, context)

    return checked


def _streaming_request(behavior: Behavior) -> Behavior:
    def checked(requests: AsyncIterator[Any], context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        return behavior(_checked_stream(requests), context)

    return checked


def validating_handler(
    handler: grpc.RpcMethodHandler[Any, Any], max_bytes: int | None = None
) -> grpc.RpcMethodHandler[Any, Any]:
    """`handler` with a deserializer that never raises and a behaviour that refuses
    what the deserializer refused."""
    parse = handler.request_deserializer
    if parse is None:
        return handler
    kwargs: dict[str, Any] = {
        "request_deserializer": checked_deserializer(parse, max_bytes),
        "response_serializer": handler.response_serializer,
    }
    if handler.request_streaming and handler.response_streaming:
        assert handler.stream_stream is not None
        return grpc.stream_stream_rpc_method_handler(
            _streaming_request(handler.stream_stream), **kwargs
        )
    if handler.request_streaming:
        assert handler.stream_unary is not None
        return grpc.stream_unary_rpc_method_handler(
            _streaming_request(handler.stream_unary), **kwargs
        )
    if handler.response_streaming:
        assert handler.unary_stream is not None
        return grpc.unary_stream_rpc_method_handler(
            _unary_request(handler.unary_stream, True), **kwargs
        )
    assert handler.unary_unary is not None
    return grpc.unary_unary_rpc_method_handler(_unary_request(handler.unary_unary, False), **kwargs)


class _ValidatingGenericHandler(grpc.GenericRpcHandler):
    def __init__(self, inner: grpc.GenericRpcHandler, max_bytes: int | None) -> None:
        self._inner = inner
        self._max_bytes = max_bytes

    def service(
        self, handler_call_details: grpc.HandlerCallDetails
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = self._inner.service(handler_call_details)
        return None if handler is None else validating_handler(handler, self._max_bytes)


class ValidatingServer:
    """Stands in for a grpc.aio server in generated `add_*_to_server` functions and
    registers every handler they add with `validating_handler`."""

    def __init__(self, server: grpc.aio.Server, max_request_bytes: int | None = None) -> None:
        self._server = server
        self._max_bytes = max_request_bytes

    def add_generic_rpc_handlers(self, handlers: Iterable[grpc.GenericRpcHandler]) -> None:
        self._server.add_generic_rpc_handlers(
            tuple(_ValidatingGenericHandler(handler, self._max_bytes) for handler in handlers)
        )

    def add_registered_method_handlers(
        self, service_name: str, method_handlers: Mapping[str, grpc.RpcMethodHandler[Any, Any]]
    ) -> None:
        self._server.add_registered_method_handlers(
            service_name,
            {
                name: validating_handler(handler, self._max_bytes)
                for name, handler in method_handlers.items()
            },
        )
