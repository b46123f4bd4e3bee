"""Exceptions raised by every SDK call.

The server reports errors as gRPC status codes with `google.rpc.Status` details in
the `grpc-status-details-bin` trailer. Each call turns a failed RPC into the
`EngramError` subclass of its code, keeps the whole decoded `google.rpc.Status` in
`.status` and the unpacked detail messages in `.details`, and surfaces the common
ones as attributes (`InvalidArgument.field_violations`, `NotFound.resource_name`...).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple, TypeVar

import grpc
from google.protobuf import any_pb2
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2

STATUS_DETAILS_KEY = "grpc-status-details-bin"

_M = TypeVar("_M", bound=Message)

# Detail types the server sends (google/rpc/error_details.proto), by full name.
_DETAIL_TYPES: dict[str, type[Message]] = {
    cls.DESCRIPTOR.full_name: cls
    for cls in (
        error_details_pb2.BadRequest,
        error_details_pb2.ResourceInfo,
        error_details_pb2.PreconditionFailure,
        error_details_pb2.QuotaFailure,
        error_details_pb2.ErrorInfo,
        error_details_pb2.RetryInfo,
        error_details_pb2.DebugInfo,
        error_details_pb2.RequestInfo,
        error_details_pb2.Help,
        error_details_pb2.LocalizedMessage,
    )
}


class FieldViolation(NamedTuple):
    """A bad request field (`field` is a dotted path such as `proposal.confidence`)."""

    field: str
    description: str


class PreconditionViolation(NamedTuple):
    type: str
    subject: str
    description: str


class QuotaViolation(NamedTuple):
    subject: str
    description: str


class EngramError(Exception):
    """Base of every error an SDK call raises.

    `code` is the `grpc.StatusCode`, `message` the server's message, `details` the
    unpacked `google.rpc` detail messages and `status` the full `google.rpc.Status`
    (None when the server sent no rich status, e.g. a connection failure).
    """

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        details: Sequence[Message] = (),
        status: status_pb2.Status | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = tuple(details)
        self.status = status

    def __str__(self) -> str:
        return f"{self.code.name}: {self.message}"

    def detail(self, kind: type[_M]) -> _M | None:
        """The first detail message of type `kind`, if the server sent one."""
        for item in self.details:
            if isinstance(item, kind):
                return item
        return None

    @property
    def error_info(self) -> error_details_pb2.ErrorInfo | None:
        return self.detail(error_details_pb2.ErrorInfo)

    @property
    def retry_delay(self) -> float | None:
        """Seconds the server asked the caller to wait before retrying, if it did."""
        info = self.detail(error_details_pb2.RetryInfo)
        if info is None:
            return None
        return float(info.retry_delay.seconds + info.retry_delay.nanos / 1e9)

    @property
    def error_id(self) -> str:
        """The server's reference for an INTERNAL or UNAVAILABLE error: its log line
        about this failure carries the same id (give it to the operator)."""
        info = self.error_info
        return info.metadata.get("error_id", "") if info is not None else ""


class _ResourceError(EngramError):
    """An error about one resource, named by a `google.rpc.ResourceInfo` detail."""

    @property
    def resource_type(self) -> str:
        info = self.detail(error_details_pb2.ResourceInfo)
        return info.resource_type if info else ""

    @property
    def resource_name(self) -> str:
        info = self.detail(error_details_pb2.ResourceInfo)
        return info.resource_name if info else ""


class InvalidArgument(EngramError):
    """INVALID_ARGUMENT: bad input; `field_violations` names every bad field."""

    @property
    def field_violations(self) -> list[FieldViolation]:
        return [
            FieldViolation(v.field, v.description)
            for d in self.details
            if isinstance(d, error_details_pb2.BadRequest)
            for v in d.field_violations
        ]

    @property
    def fields(self) -> list[str]:
        return [v.field for v in self.field_violations]


class NotFound(_ResourceError):
    """NOT_FOUND: the resource does not exist (or belongs to another tenant)."""


class AlreadyExists(_ResourceError):
    """ALREADY_EXISTS: creating a resource that exists."""


class FailedPrecondition(EngramError):
    """FAILED_PRECONDITION: the resource's state forbids the call (e.g. a transition)."""

    @property
    def violations(self) -> list[PreconditionViolation]:
        return [
            PreconditionViolation(v.type, v.subject, v.description)
            for d in self.details
            if isinstance(d, error_details_pb2.PreconditionFailure)
            for v in d.violations
        ]


class PermissionDenied(EngramError):
    """PERMISSION_DENIED: the key lacks a scope the call needs."""


class Unauthenticated(EngramError):
    """UNAUTHENTICATED: no key, or an unknown, revoked or expired one."""


class Aborted(EngramError):
    """ABORTED: a concurrency conflict, such as a stale etag."""


class ResourceExhausted(EngramError):
    """RESOURCE_EXHAUSTED: a tenant quota or rate limit is used up."""

    @property
    def quota_violations(self) -> list[QuotaViolation]:
        return [
            QuotaViolation(v.subject, v.description)
            for d in self.details
            if isinstance(d, error_details_pb2.QuotaFailure)
            for v in d.violations
        ]


class Unavailable(EngramError):
    """UNAVAILABLE: the server or one of its stores is unreachable; safe to retry."""


class DeadlineExceeded(EngramError):
    """DEADLINE_EXCEEDED: the call took longer than its timeout."""


class Unimplemented(EngramError):
    """UNIMPLEMENTED: the server does not (yet) implement the method."""


class Cancelled(EngramError):
    """CANCELLED: the call was cancelled, usually by the caller."""


class Internal(EngramError):
    """INTERNAL: a server bug."""


_BY_CODE: dict[grpc.StatusCode, type[EngramError]] = {
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgument,
    grpc.StatusCode.NOT_FOUND: NotFound,
    grpc.StatusCode.ALREADY_EXISTS: AlreadyExists,
    grpc.StatusCode.FAILED_PRECONDITION: FailedPrecondition,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDenied,
    grpc.StatusCode.UNAUTHENTICATED: Unauthenticated,
    grpc.StatusCode.ABORTED: Aborted,
    grpc.StatusCode.RESOURCE_EXHAUSTED: ResourceExhausted,
    grpc.StatusCode.UNAVAILABLE: Unavailable,
    grpc.StatusCode.DEADLINE_EXCEEDED: DeadlineExceeded,
    grpc.StatusCode.UNIMPLEMENTED: Unimplemented,
    grpc.StatusCode.CANCELLED: Cancelled,
    grpc.StatusCode.INTERNAL: Internal,
}


def error_class(code: grpc.StatusCode) -> type[EngramError]:
    return _BY_CODE.get(code, EngramError)


def unpack_details(status: status_pb2.Status) -> list[Message]:
    """The detail messages of a status; unknown types stay as `google.protobuf.Any`."""
    out: list[Message] = []
    for packed in status.details:
        cls = _DETAIL_TYPES.get(packed.TypeName())
        if cls is None:
            out.append(packed)
            continue
        item = cls()
        packed.Unpack(item)
        out.append(item)
    return out


def _status_from_trailers(
    code: grpc.StatusCode, trailers: Iterable[tuple[str, Any]] | None
) -> status_pb2.Status | None:
    for key, value in trailers or ():
        if key != STATUS_DETAILS_KEY:
            continue
        status = status_pb2.Status.FromString(value)
        # A status whose code disagrees with the call's is not this call's: ignore it
        # (the same check grpc_status.rpc_status makes).
        if status.code != code.value[0]:
            return None
        return status
    return None


def from_rpc_error(error: grpc.RpcError) -> EngramError:
    """The EngramError for a failed call (sync `grpc.RpcError` or `grpc.aio.AioRpcError`)."""
    code_fn = getattr(error, "code", None)
    code: grpc.StatusCode = code_fn() if callable(code_fn) else grpc.StatusCode.UNKNOWN
    details_fn = getattr(error, "details", None)
    text = details_fn() if callable(details_fn) else None
    trailers_fn = getattr(error, "trailing_metadata", None)
    trailers = trailers_fn() if callable(trailers_fn) else None
    status = _status_from_trailers(code, trailers)
    details = unpack_details(status) if status is not None else []
    message_text = text or (status.message if status is not None else "") or code.name
    oversize = _TRANSPORT_OVERSIZE.match(message_text) if status is None else None
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED and oversize is not None:
        return _transport_oversize(code, int(oversize["size"]), int(oversize["limit"]))
    return error_class(code)(code, message_text, details, status)


# The server's gRPC transport refusing a request far over the server's size limit
# (more than four times max_request_bytes): gRPC core answers before Engram sees
# the request, with only this text.
_TRANSPORT_OVERSIZE = re.compile(
    r"^SERVER: Received message larger than max \((?P<size>\d+) vs\. (?P<limit>\d+)\)"
)


def _transport_oversize(code: grpc.StatusCode, size: int, limit: int) -> EngramError:
    text = (
        f"the request is {size:,} bytes, far over the server's size limit: its transport"
        f" refuses anything over {limit:,} bytes, four times the server's limit per request"
        " (setting max_request_bytes, environment ENGRAM_MAX_REQUEST_BYTES): send less per"
        " call, e.g. split the batch, or have the operator raise it"
    )
    quota = error_details_pb2.QuotaFailure(
        violations=[
            error_details_pb2.QuotaFailure.Violation(
                subject="request", description=f"max_request_bytes: {text}"
            )
        ]
    )
    return ResourceExhausted(code, text, [quota], make_status(code, text, [quota]))


def make_status(
    code: grpc.StatusCode, message_text: str, details: Sequence[Message] = ()
) -> status_pb2.Status:
    """A `google.rpc.Status` with packed details (for servers and tests)."""
    packed = []
    for item in details:
        container = any_pb2.Any()
        container.Pack(item)
        packed.append(container)
    return status_pb2.Status(code=code.value[0], message=message_text, details=packed)


def invalid_argument(field: str, description: str) -> InvalidArgument:
    """The error for bad input the SDK catches before sending anything.

    It is the `InvalidArgument` the server would answer, with the same
    `google.rpc.BadRequest` detail naming `field` (the request field's dotted path,
    e.g. `proposal.structured_content.tags`), so callers handle both alike.
    """
    code = grpc.StatusCode.INVALID_ARGUMENT
    detail = error_details_pb2.BadRequest(
        field_violations=[
            error_details_pb2.BadRequest.FieldViolation(field=field, description=description)
        ]
    )
    text = f"{field}: {description}"
    return InvalidArgument(code, text, [detail], make_status(code, text, [detail]))
