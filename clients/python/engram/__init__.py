"""Python SDK for Engram, long-term memory for fleets of AI agents.

    import engram

    with engram.Client("127.0.0.1:50051", api_key="...") as client:
        result = client.propose("team-a/agent-7", "Alice prefers Go", kind="semantic")
        for memory in client.list(space="team-a/agent-7", statuses=["active"]):
            print(memory.name, memory.content)

`engram.AsyncClient` has the same surface for asyncio. Both read `ENGRAM_ADDRESS` and
`ENGRAM_API_KEY` when the address or key is not given. Results are the frozen
dataclasses of `engram.types`; failures raise the `engram.EngramError` subclasses of
`engram.errors`. The generated protobuf and gRPC stubs live in `engram.v1`.
"""

from engram._version import __version__
from engram.aio import AsyncAdminClient, AsyncClient
from engram.client import AdminClient, Client
from engram.errors import (
    Aborted,
    AlreadyExists,
    Cancelled,
    DeadlineExceeded,
    EngramError,
    FailedPrecondition,
    FieldViolation,
    Internal,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    PreconditionViolation,
    QuotaViolation,
    ResourceExhausted,
    Unauthenticated,
    Unavailable,
    Unimplemented,
)
from engram.types import (
    ApiKey,
    AuditAction,
    AuditEntry,
    CreatedApiKey,
    DeletedTenant,
    EvidenceLevel,
    ExpireResult,
    Memory,
    MemoryKind,
    MemoryOrder,
    MemoryProposal,
    MemoryRevision,
    MemoryStatus,
    Policy,
    ProposalOutcome,
    ProposalResult,
    PurgeResult,
    RetractResult,
    Tenant,
    TenantQuota,
    TransitionEvent,
    Usage,
    ValidationFailure,
    WebhookValidator,
    to_dict,
)

__all__ = [
    "Aborted",
    "AdminClient",
    "AlreadyExists",
    "ApiKey",
    "AsyncAdminClient",
    "AsyncClient",
    "AuditAction",
    "AuditEntry",
    "Cancelled",
    "Client",
    "CreatedApiKey",
    "DeadlineExceeded",
    "DeletedTenant",
    "EngramError",
    "EvidenceLevel",
    "ExpireResult",
    "FailedPrecondition",
    "FieldViolation",
    "Internal",
    "InvalidArgument",
    "Memory",
    "MemoryKind",
    "MemoryOrder",
    "MemoryProposal",
    "MemoryRevision",
    "MemoryStatus",
    "NotFound",
    "PermissionDenied",
    "Policy",
    "PreconditionViolation",
    "ProposalOutcome",
    "ProposalResult",
    "PurgeResult",
    "QuotaViolation",
    "ResourceExhausted",
    "RetractResult",
    "Tenant",
    "TenantQuota",
    "TransitionEvent",
    "Unauthenticated",
    "Unavailable",
    "Unimplemented",
    "Usage",
    "ValidationFailure",
    "WebhookValidator",
    "__version__",
    "to_dict",
]
