"""Domain errors.

Domain and store code raise these; the error-mapping interceptor turns each into a
gRPC status code with `google.rpc.Status` details. Nothing here knows about gRPC, so
the domain stays free of transport concerns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

_T = TypeVar("_T")


@dataclass(frozen=True)
class FieldViolation:
    """One bad request field: `field` is a dotted path such as `proposal.confidence`."""

    field: str
    description: str


@dataclass(frozen=True)
class PreconditionViolation:
    """One unmet precondition (google.rpc.PreconditionFailure.Violation)."""

    type: str
    subject: str
    description: str


class EngramError(Exception):
    """Base class of every error the API reports to callers."""

    # An ordinary API outcome, logged without a traceback.
    expected = True

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidArgument(EngramError):
    """Bad input; maps to INVALID_ARGUMENT with BadRequest field violations."""

    def __init__(self, violations: list[FieldViolation] | FieldViolation) -> None:
        if isinstance(violations, FieldViolation):
            violations = [violations]
        self.violations = violations
        summary = "; ".join(f"{v.field}: {v.description}" for v in violations)
        super().__init__(f"invalid argument: {summary}")

    @classmethod
    def field(cls, field_path: str, description: str) -> InvalidArgument:
        return cls(FieldViolation(field_path, description))


class NotFound(EngramError):
    """Missing or foreign resource; maps to NOT_FOUND with ResourceInfo."""

    def __init__(self, resource_type: str, resource_name: str) -> None:
        self.resource_type = resource_type
        self.resource_name = resource_name
        super().__init__(f"{resource_type} {resource_name!r} not found")


class AlreadyExists(EngramError):
    """Creating something that exists; maps to ALREADY_EXISTS with ResourceInfo."""

    def __init__(self, resource_type: str, resource_name: str) -> None:
        self.resource_type = resource_type
        self.resource_name = resource_name
        super().__init__(f"{resource_type} {resource_name!r} already exists")


class FailedPrecondition(EngramError):
    """A state that forbids the operation; maps to FAILED_PRECONDITION."""

    def __init__(self, message: str, violations: list[PreconditionViolation] | None = None) -> None:
        self.violations = violations or []
        super().__init__(message)


class InvalidTransition(FailedPrecondition):
    """A lifecycle transition the state machine does not allow."""

    def __init__(self, memory_name: str, from_status: str, to_status: str, hint: str = "") -> None:
        super().__init__(
            f"{memory_name} cannot move from {from_status} to {to_status}"
            + (f": {hint}" if hint else ""),
            [
                PreconditionViolation(
                    "STATUS", memory_name, f"{from_status} -> {to_status} is not allowed"
                )
            ],
        )
        self.from_status = from_status
        self.to_status = to_status


class Aborted(EngramError):
    """Optimistic-concurrency conflict (stale etag); maps to ABORTED."""


class Unauthenticated(EngramError):
    """No, unknown, revoked or expired credentials; maps to UNAUTHENTICATED."""


class PermissionDenied(EngramError):
    """Authenticated but missing a scope; maps to PERMISSION_DENIED."""

    def __init__(self, message: str, required_scope: str | None = None) -> None:
        self.required_scope = required_scope
        super().__init__(message)


class ResourceExhausted(EngramError):
    """A tenant quota is used up; maps to RESOURCE_EXHAUSTED with QuotaFailure."""

    def __init__(
        self, message: str, quota: str = "", subject: str = "", *, retryable: bool = True
    ) -> None:
        self.quota = quota
        self.subject = subject
        # False when the same request can never pass (a request over the size limit):
        # the status then carries no RetryInfo.
        self.retryable = retryable
        super().__init__(message)


class Unavailable(EngramError):
    """A backing store is unreachable; maps to UNAVAILABLE (callers may retry).

    The message is what the caller reads: it names what is unavailable, never a
    host, port or driver text (those stay in the log through the cause)."""

    expected = False


@dataclass
class Violations:
    """Collects field violations so validation reports every bad field at once."""

    items: list[FieldViolation] = field(default_factory=list)

    def add(self, field_path: str, description: str) -> None:
        self.items.append(FieldViolation(field_path, description))

    def raise_if_any(self) -> None:
        if self.items:
            raise InvalidArgument(list(self.items))

    def collect(self, parse: Callable[..., _T], *args: Any) -> _T | None:
        """`parse(*args)`, or None with its violations recorded here when it refuses
        the input, so one bad field does not hide the others."""
        try:
            return parse(*args)
        except InvalidArgument as exc:
            self.items.extend(exc.violations)
            return None
