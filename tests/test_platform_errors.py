"""The domain error -> google.rpc.Status mapping, one case per error type."""

from __future__ import annotations

import grpc
import psycopg
import pytest
from engram_server import errors
from engram_server.platform.errors_mapping import (
    INTERNAL_MESSAGE,
    is_expected,
    to_grpc_status,
    to_rich_status,
)
from google.protobuf.message import Message
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status
from redis.exceptions import ConnectionError as RedisConnectionError


def _unpack(status: status_pb2.Status, kind: type[Message]) -> Message:
    for detail in status.details:
        if detail.Is(kind.DESCRIPTOR):
            message = kind()
            detail.Unpack(message)
            return message
    raise AssertionError(f"no {kind.__name__} in {status}")


def test_invalid_argument_lists_every_field() -> None:
    status = to_rich_status(
        errors.InvalidArgument(
            [
                errors.FieldViolation("proposal.content", "must not be empty"),
                errors.FieldViolation("page_token", "malformed"),
            ]
        )
    )
    assert status.code == code_pb2.INVALID_ARGUMENT
    bad = _unpack(status, error_details_pb2.BadRequest)
    assert isinstance(bad, error_details_pb2.BadRequest)
    assert [(v.field, v.description) for v in bad.field_violations] == [
        ("proposal.content", "must not be empty"),
        ("page_token", "malformed"),
    ]


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (errors.NotFound("memory", "tenants/a/memories/1"), code_pb2.NOT_FOUND),
        (errors.AlreadyExists("tenant", "tenants/a"), code_pb2.ALREADY_EXISTS),
    ],
)
def test_resource_errors_carry_resource_info(error: errors.EngramError, code: int) -> None:
    status = to_rich_status(error)
    assert status.code == code
    info = _unpack(status, error_details_pb2.ResourceInfo)
    assert isinstance(info, error_details_pb2.ResourceInfo)
    assert info.resource_name.startswith("tenants/a")


def test_invalid_transition_is_a_precondition_failure() -> None:
    status = to_rich_status(errors.InvalidTransition("memories/1", "REJECTED", "ACTIVE"))
    assert status.code == code_pb2.FAILED_PRECONDITION
    failure = _unpack(status, error_details_pb2.PreconditionFailure)
    assert isinstance(failure, error_details_pb2.PreconditionFailure)
    assert failure.violations[0].type == "STATUS"
    assert failure.violations[0].subject == "memories/1"


def test_permission_denied_names_the_scope() -> None:
    status = to_rich_status(errors.PermissionDenied("no", "write"))
    assert status.code == code_pb2.PERMISSION_DENIED
    info = _unpack(status, error_details_pb2.ErrorInfo)
    assert isinstance(info, error_details_pb2.ErrorInfo)
    assert info.reason == "MISSING_SCOPE"
    assert info.metadata["scope"] == "write"


def test_quota_errors_carry_quota_failure_and_retry_info() -> None:
    status = to_rich_status(errors.ResourceExhausted("slow down", "rps", "tenants/a"))
    assert status.code == code_pb2.RESOURCE_EXHAUSTED
    quota = _unpack(status, error_details_pb2.QuotaFailure)
    assert isinstance(quota, error_details_pb2.QuotaFailure)
    assert quota.violations[0].subject == "tenants/a"
    _unpack(status, error_details_pb2.RetryInfo)


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (errors.Aborted("etag mismatch"), code_pb2.ABORTED),
        (errors.Unauthenticated("no key"), code_pb2.UNAUTHENTICATED),
        (errors.Unavailable("db down"), code_pb2.UNAVAILABLE),
        (errors.FailedPrecondition("tenant not empty"), code_pb2.FAILED_PRECONDITION),
    ],
)
def test_plain_codes(error: errors.EngramError, code: int) -> None:
    status = to_rich_status(error)
    assert status.code == code
    assert status.message == error.message


@pytest.mark.parametrize(
    "error",
    [
        psycopg.OperationalError("could not connect to server at 10.0.0.7"),
        RedisConnectionError("Error 111 connecting to redis-internal:6379"),
        # uvloop, when redis-py writes to a connection Redis has just closed.
        RuntimeError(
            "unable to perform operation on <TCPTransport closed=True reading=False"
            " 0x7f00 redis-internal>; the handler is closed"
        ),
    ],
)
def test_escaped_store_failures_are_unavailable_without_their_text(error: Exception) -> None:
    status = to_rich_status(error)
    assert status.code == code_pb2.UNAVAILABLE
    assert "10.0.0.7" not in status.message and "redis-internal" not in status.message


def test_anything_else_is_a_generic_internal() -> None:
    status = to_rich_status(KeyError("tenant other-corp row 42"))
    assert status.code == code_pb2.INTERNAL
    assert status.message == INTERNAL_MESSAGE
    assert list(status.details) == []
    # Other runtime errors are bugs, not outages.
    assert to_rich_status(RuntimeError("dictionary changed size")).code == code_pb2.INTERNAL


def test_grpc_status_round_trips() -> None:
    packed = to_grpc_status(errors.NotFound("memory", "tenants/a/memories/9"))
    assert packed.code == grpc.StatusCode.NOT_FOUND
    ((key, value),) = packed.trailing_metadata
    assert key == "grpc-status-details-bin"
    assert status_pb2.Status.FromString(value).code == code_pb2.NOT_FOUND
    assert rpc_status.to_status(status_pb2.Status.FromString(value)).details == packed.details


def test_only_domain_errors_count_as_expected() -> None:
    assert is_expected(errors.NotFound("memory", "x"))
    assert not is_expected(errors.Unavailable("down"))
    assert not is_expected(RuntimeError("bug"))


def test_an_error_id_makes_internal_a_stable_message_with_a_reference() -> None:
    status = to_rich_status(KeyError("tenant other-corp row 42"), "0123abcd0123abcd")
    assert status.code == code_pb2.INTERNAL
    assert status.message.startswith("internal error (error id 0123abcd0123abcd): ")
    assert "retry" in status.message and "other-corp" not in status.message
    kinds = {d.TypeName().rsplit(".", 1)[1] for d in status.details}
    assert kinds == {"RetryInfo", "ErrorInfo", "RequestInfo"}
    unavailable = to_rich_status(errors.Unavailable("Redis is unavailable"), "feed")
    assert unavailable.code == code_pb2.UNAVAILABLE
    assert unavailable.message == "Redis is unavailable (error id feed)"
