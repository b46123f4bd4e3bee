"""Domain errors -> gRPC status codes with `google.rpc.Status` rich details.

The mapping is a pure function so it can be tested without a server; the
error-mapping interceptor applies it to whatever a handler raises.
"""

from __future__ import annotations

import secrets

import grpc
import psycopg
from google.protobuf import any_pb2, duration_pb2
from google.protobuf.message import Message
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from engram_server import errors
from engram_server.store.redis import is_unreachable

# ErrorInfo.domain for every error this server reports.
ERROR_DOMAIN = "engram"
INTERNAL_MESSAGE = "internal error"
UNAVAILABLE_MESSAGE = "a backing store is unavailable; retry later"
# What a caller of a failed call can do, after the error id (see `with_error_id`).
INTERNAL_ADVICE = (
    "the server failed to handle this request; retry it later, and if it keeps"
    " failing, give the operator this error id"
)


def new_error_id() -> str:
    """A short random id that ties a caller's error to the server's log line."""
    return secrets.token_hex(8)


def _pack(message: Message) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message)
    return packed


def _status(code: int, message: str, *details: Message) -> status_pb2.Status:
    return status_pb2.Status(code=code, message=message, details=[_pack(d) for d in details])


def _resource_info(resource_type: str, resource_name: str, description: str) -> Message:
    info: Message = error_details_pb2.ResourceInfo(
        resource_type=resource_type, resource_name=resource_name, description=description
    )
    return info


def _retry_info(seconds: int) -> Message:
    info: Message = error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=seconds))
    return info


def _reference(error_id: str, reason: str) -> list[Message]:
    """Details that let a caller quote the log line holding the failure's cause."""
    info: Message = error_details_pb2.ErrorInfo(
        reason=reason, domain=ERROR_DOMAIN, metadata={"error_id": error_id}
    )
    request: Message = error_details_pb2.RequestInfo(request_id=error_id)
    return [info, request]


def to_rich_status(exc: BaseException, error_id: str | None = None) -> status_pb2.Status:
    """The `google.rpc.Status` a caller receives for `exc`.

    Anything that is not a domain error becomes a generic INTERNAL status: its
    text could reveal internals (SQL, paths, addresses, other tenants' ids), so it
    is logged by the interceptor and never sent. With `error_id` (the id the
    interceptor's log line carries), an INTERNAL status says "internal error
    (error id ...)" with a retry hint, an `ErrorInfo` (metadata `error_id`) and a
    `RequestInfo` (`request_id`) holding the id; UNAVAILABLE (a store the server
    cannot reach) carries the same reference after its own message.
    """
    if isinstance(exc, errors.InvalidArgument):
        bad_request = error_details_pb2.BadRequest(
            field_violations=[
                error_details_pb2.BadRequest.FieldViolation(
                    field=v.field, description=v.description
                )
                for v in exc.violations
            ]
        )
        return _status(code_pb2.INVALID_ARGUMENT, exc.message, bad_request)
    if isinstance(exc, errors.NotFound):
        info = _resource_info(exc.resource_type, exc.resource_name, exc.message)
        return _status(code_pb2.NOT_FOUND, exc.message, info)
    if isinstance(exc, errors.AlreadyExists):
        info = _resource_info(exc.resource_type, exc.resource_name, exc.message)
        return _status(code_pb2.ALREADY_EXISTS, exc.message, info)
    if isinstance(exc, errors.FailedPrecondition):
        failure = error_details_pb2.PreconditionFailure(
            violations=[
                error_details_pb2.PreconditionFailure.Violation(
                    type=v.type, subject=v.subject, description=v.description
                )
                for v in exc.violations
            ]
        )
        return _status(code_pb2.FAILED_PRECONDITION, exc.message, failure)
    if isinstance(exc, errors.Aborted):
        return _status(code_pb2.ABORTED, exc.message)
    if isinstance(exc, errors.Unauthenticated):
        return _status(code_pb2.UNAUTHENTICATED, exc.message)
    if isinstance(exc, errors.PermissionDenied):
        metadata = {"scope": exc.required_scope} if exc.required_scope else {}
        info = error_details_pb2.ErrorInfo(
            reason="MISSING_SCOPE" if exc.required_scope else "PERMISSION_DENIED",
            domain=ERROR_DOMAIN,
            metadata=metadata,
        )
        return _status(code_pb2.PERMISSION_DENIED, exc.message, info)
    if isinstance(exc, errors.ResourceExhausted):
        quota = error_details_pb2.QuotaFailure(
            violations=[
                error_details_pb2.QuotaFailure.Violation(
                    subject=exc.subject,
                    description=f"{exc.quota}: {exc.message}" if exc.quota else exc.message,
                )
            ]
        )
        if not exc.retryable:
            return _status(code_pb2.RESOURCE_EXHAUSTED, exc.message, quota)
        return _status(code_pb2.RESOURCE_EXHAUSTED, exc.message, quota, _retry_info(1))
    if isinstance(exc, errors.Unavailable):
        if error_id is None:
            return _status(code_pb2.UNAVAILABLE, exc.message, _retry_info(1))
        return _status(
            code_pb2.UNAVAILABLE,
            f"{exc.message} (error id {error_id})",
            _retry_info(1),
            *_reference(error_id, "UNAVAILABLE"),
        )
    if isinstance(exc, psycopg.OperationalError | RedisConnectionError | RedisTimeoutError) or (
        isinstance(exc, RuntimeError) and is_unreachable(exc)
    ):
        # A store failure that escaped the store adapters: retryable, but its text
        # (hosts, SQL) stays in the log.
        if error_id is None:
            return _status(code_pb2.UNAVAILABLE, UNAVAILABLE_MESSAGE, _retry_info(1))
        return _status(
            code_pb2.UNAVAILABLE,
            f"{UNAVAILABLE_MESSAGE} (error id {error_id})",
            _retry_info(1),
            *_reference(error_id, "UNAVAILABLE"),
        )
    # Any other EngramError subclass is a server-side failure without a code of its
    # own: its message is the server's, but it is still not the caller's fault.
    if error_id is None:
        return _status(code_pb2.INTERNAL, INTERNAL_MESSAGE)
    return _status(
        code_pb2.INTERNAL,
        f"{INTERNAL_MESSAGE} (error id {error_id}): {INTERNAL_ADVICE}",
        _retry_info(1),
        *_reference(error_id, "INTERNAL"),
    )


def to_grpc_status(exc: BaseException, error_id: str | None = None) -> grpc.Status:
    """`to_rich_status` packed for `ServicerContext.abort_with_status`."""
    status: grpc.Status = rpc_status.to_status(to_rich_status(exc, error_id))
    return status


def is_expected(exc: BaseException) -> bool:
    """Whether `exc` is an ordinary API outcome (no traceback worth logging)."""
    return isinstance(exc, errors.EngramError) and exc.expected
