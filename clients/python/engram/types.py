"""Typed results of the Engram SDK.

Every SDK call returns these frozen dataclasses instead of protobuf messages: times
are timezone-aware `datetime`s (UTC), enums are `StrEnum`s whose values are the short
names (`MemoryStatus.ACTIVE == "ACTIVE"`), structured content is a plain `dict`.
Each result keeps the message it came from in `raw` for callers that need a field
the SDK does not surface yet.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from engram.v1 import admin_pb2, lifecycle_pb2, recall_pb2, types_pb2


class MemoryKind(enum.StrEnum):
    """What kind of knowledge a memory holds (engram.v1.MemoryKind)."""

    UNSPECIFIED = "UNSPECIFIED"
    SEMANTIC = "SEMANTIC"
    PROCEDURAL = "PROCEDURAL"
    EPISODIC = "EPISODIC"
    SUMMARY = "SUMMARY"
    ENTITY = "ENTITY"
    DECISION = "DECISION"
    EVENT = "EVENT"
    ACTION = "ACTION"
    QUESTION = "QUESTION"
    PREFERENCE = "PREFERENCE"
    EXPERIENCE = "EXPERIENCE"
    PATTERN = "PATTERN"


class MemoryStatus(enum.StrEnum):
    """Where a memory stands in the lifecycle (engram.v1.MemoryStatus)."""

    UNSPECIFIED = "UNSPECIFIED"
    PROPOSED = "PROPOSED"
    ACTIVE = "ACTIVE"
    PENDING_CONFIRMATION = "PENDING_CONFIRMATION"
    REJECTED = "REJECTED"
    RETRACTED = "RETRACTED"
    EXPIRED = "EXPIRED"
    SUPERSEDED = "SUPERSEDED"

    @property
    def terminal(self) -> bool:
        return self in _TERMINAL_STATUSES


_TERMINAL_STATUSES = frozenset(
    {
        MemoryStatus.REJECTED,
        MemoryStatus.RETRACTED,
        MemoryStatus.EXPIRED,
        MemoryStatus.SUPERSEDED,
    }
)


class EvidenceLevel(enum.StrEnum):
    """How well evidence supports a memory, weakest first (engram.v1.EvidenceLevel)."""

    UNSPECIFIED = "UNSPECIFIED"
    UNVERIFIED = "UNVERIFIED"
    SINGLE_SOURCE = "SINGLE_SOURCE"
    CORROBORATED = "CORROBORATED"
    OFFICIAL = "OFFICIAL"


class MemoryOrigin(enum.StrEnum):
    """How a memory came to be known (engram.v1.MemoryOrigin). The assessor counts
    independent corroboration over distinct (source, origin) pairs."""

    UNSPECIFIED = "UNSPECIFIED"
    USER_STATED = "USER_STATED"
    AGENT_INFERRED = "AGENT_INFERRED"
    TOOL_OBSERVED = "TOOL_OBSERVED"
    DOCUMENT = "DOCUMENT"
    OPERATOR = "OPERATOR"


class AuditAction(enum.StrEnum):
    """What an audit entry records (engram.v1.AuditAction)."""

    UNSPECIFIED = "UNSPECIFIED"
    TRANSITION = "TRANSITION"
    REVISION = "REVISION"
    CONFIDENCE = "CONFIDENCE"
    PURGE = "PURGE"
    POLICY = "POLICY"
    EVIDENCE = "EVIDENCE"
    EDGE = "EDGE"
    CONFLICT = "CONFLICT"
    PUBLICATION = "PUBLICATION"
    MEMBERSHIP = "MEMBERSHIP"
    SNAPSHOT = "SNAPSHOT"
    REINFORCEMENT = "REINFORCEMENT"


class ProposalOutcome(enum.StrEnum):
    """How a proposal ended (engram.v1.ProposalOutcome)."""

    UNSPECIFIED = "UNSPECIFIED"
    ACCEPTED = "ACCEPTED"
    PENDING_CONFIRMATION = "PENDING_CONFIRMATION"
    REJECTED = "REJECTED"
    DUPLICATE = "DUPLICATE"
    REINFORCED = "REINFORCED"


class MemoryOrder(enum.StrEnum):
    """Ordering of `list` (engram.v1.MemoryOrder)."""

    UNSPECIFIED = "UNSPECIFIED"
    CREATE_TIME_DESC = "CREATE_TIME_DESC"
    CREATE_TIME_ASC = "CREATE_TIME_ASC"
    UPDATE_TIME_DESC = "UPDATE_TIME_DESC"


@dataclass(frozen=True, kw_only=True)
class Memory:
    """A unit of long-term memory (engram.v1.Memory)."""

    name: str
    space: str
    content: str
    kind: MemoryKind = MemoryKind.SEMANTIC
    status: MemoryStatus = MemoryStatus.UNSPECIFIED
    session: str = ""
    thread: str = ""
    structured_content: dict[str, Any] | None = None
    source: str = ""
    agent: str = ""
    confidence: float = 0.0
    importance: float = 0.0
    evidence_level: EvidenceLevel = EvidenceLevel.UNSPECIFIED
    tags: tuple[str, ...] = ()
    slot_key: str = ""
    topic: str = ""
    depends_on: tuple[str, ...] = ()
    create_time: datetime | None = None
    update_time: datetime | None = None
    expire_time: datetime | None = None
    retract_time: datetime | None = None
    retraction_reason: str = ""
    content_hash: str = ""
    etag: str = ""
    revision: int = 0
    superseded_by: str = ""
    validation_notes: tuple[str, ...] = ()
    attributes: dict[str, str] = field(default_factory=dict)
    access_count: int = 0
    last_access_time: datetime | None = None
    origin: MemoryOrigin = MemoryOrigin.UNSPECIFIED
    # When the fact held in the world (bi-temporal), apart from `create_time`, when
    # Engram learned it. None: unknown start / still holds.
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    raw: types_pb2.Memory | None = field(default=None, repr=False, compare=False)

    @property
    def id(self) -> str:
        """The server-assigned id: the last segment of `name`."""
        return self.name.rpartition("/")[2]


@dataclass(frozen=True, kw_only=True)
class MemoryProposal:
    """The fields of one proposal, for `batch_propose` (engram.v1.MemoryProposal).

    `confidence` defaults to 1.0: the caller asserts the memory. Lower it for
    inferred facts so a policy's confidence threshold can hold them for review.
    `expire_time` takes an absolute time or a `timedelta` from now; a naive
    `datetime` is read as UTC. `origin` says how the memory came to be known;
    `valid_from`/`valid_to` bound when the fact held in the world (e.g. when a
    conversation turn was said, or a document's date), naive meaning UTC.
    `expected_slot_memory` makes a slotted write a compare-and-set: it may only
    replace that memory (`""`: only fill an empty slot); anything else in the slot
    raises `Aborted` and stores nothing. None leaves the slot unchecked.
    """

    space: str
    content: str
    kind: MemoryKind | str | None = None
    confidence: float = 1.0
    importance: float | None = None
    session: str = ""
    thread: str = ""
    source: str = ""
    tags: Sequence[str] = ()
    slot_key: str = ""
    topic: str = ""
    depends_on: Sequence[str] = ()
    structured: Mapping[str, Any] | None = None
    expire_time: datetime | timedelta | None = None
    evidence_level: EvidenceLevel | str | None = None
    attributes: Mapping[str, str] | None = None
    origin: MemoryOrigin | str | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    expected_slot_memory: str | None = None


@dataclass(frozen=True, kw_only=True)
class PrivacyFinding:
    """What the privacy boundary did to one input (never the secret itself)."""

    category: str  # "credential" (dropped) or "personal_data" (redacted)
    type: str  # detector type: "aws_access_key", "email"...
    action: str  # "dropped" or "redacted"
    field: str  # the input concerned: "message.content", "captures[2].content"


@dataclass(frozen=True, kw_only=True)
class ValidationFailure:
    """One validator that did not pass."""

    validator: str
    critical: bool
    message: str
    field: str = ""


@dataclass(frozen=True, kw_only=True)
class ProposalResult:
    """The result of one proposal: outcome, the stored (or existing) memory, failures."""

    outcome: ProposalOutcome
    memory: Memory | None
    failures: tuple[ValidationFailure, ...] = ()
    # What the privacy boundary did: credentials dropped the proposal, personal data
    # was redacted before storage. Never the matched text.
    privacy_findings: tuple[PrivacyFinding, ...] = ()
    raw: lifecycle_pb2.ProposalResult | None = field(default=None, repr=False, compare=False)

    @property
    def accepted(self) -> bool:
        return self.outcome is ProposalOutcome.ACCEPTED

    @property
    def pending(self) -> bool:
        return self.outcome is ProposalOutcome.PENDING_CONFIRMATION

    @property
    def rejected(self) -> bool:
        return self.outcome is ProposalOutcome.REJECTED

    @property
    def duplicate(self) -> bool:
        return self.outcome is ProposalOutcome.DUPLICATE


@dataclass(frozen=True, kw_only=True)
class RetractResult:
    """The retracted memory and the dependants the cascade retracted with it."""

    memory: Memory
    cascaded: tuple[Memory, ...] = ()
    raw: lifecycle_pb2.RetractMemoryResponse | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, kw_only=True)
class ExpireResult:
    """What one `expire_due` call expired."""

    expired_count: int
    names: tuple[str, ...] = ()
    raw: lifecycle_pb2.ExpireDueMemoriesResponse | None = field(
        default=None, repr=False, compare=False
    )


@dataclass(frozen=True, kw_only=True)
class AuditEntry:
    """One row of the tenant's append-only audit log."""

    name: str
    sequence: int
    action: AuditAction
    memory: str = ""
    from_status: MemoryStatus = MemoryStatus.UNSPECIFIED
    to_status: MemoryStatus = MemoryStatus.UNSPECIFIED
    actor: str = ""
    reason: str = ""
    request_id: str = ""
    create_time: datetime | None = None
    space: str = ""
    details: dict[str, str] = field(default_factory=dict)
    raw: types_pb2.AuditEntry | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, kw_only=True)
class PurgeResult:
    """How many memories a purge deleted and the tombstone it left in the audit log."""

    purged_count: int
    tombstone: AuditEntry | None = None
    raw: lifecycle_pb2.PurgeMemoriesResponse | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, kw_only=True)
class TransitionEvent:
    """One committed change streamed by `watch`; pass `cursor` back to resume after it."""

    cursor: str
    entry: AuditEntry
    memory: Memory | None = None
    raw: lifecycle_pb2.WatchTransitionsResponse | None = field(
        default=None, repr=False, compare=False
    )

    @property
    def memory_name(self) -> str:
        return self.entry.memory

    @property
    def from_status(self) -> MemoryStatus:
        return self.entry.from_status

    @property
    def to_status(self) -> MemoryStatus:
        return self.entry.to_status


@dataclass(frozen=True, kw_only=True)
class MemoryRevision:
    """One kept revision of a memory."""

    name: str
    revision: int
    memory: Memory | None
    actor: str = ""
    create_time: datetime | None = None
    raw: types_pb2.MemoryRevision | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, kw_only=True)
class WebhookValidator:
    """An HTTP validator named by a policy."""

    url: str
    name: str = ""
    timeout_ms: int = 0
    critical: bool = False


@dataclass(frozen=True, kw_only=True)
class EvidenceWeights:
    """Evidence-weighted recall in a space: what each evidence grade adds to a hit's
    score. None keeps the server default (+0.15 official, +0.08 corroborated, 0
    single source, -0.10 unverified); `disabled` turns the adjustment off."""

    disabled: bool = False
    official: float | None = None
    corroborated: float | None = None
    single_source: float | None = None
    unverified: float | None = None


@dataclass(frozen=True, kw_only=True)
class Policy:
    """A validation policy of the tenant (`name="policy"`) or one space.

    `default_ttl_seconds` is keyed by kind (`{"EPISODIC": 86400}`); the SDK maps the
    keys to and from the API's full enum names.
    """

    name: str = "policy"
    json_schema: dict[str, Any] | None = None
    json_schema_critical: bool = False
    min_confidence: float = 0.0
    min_confidence_critical: bool = False
    max_content_bytes: int = 0
    required_fields: tuple[str, ...] = ()
    webhooks: tuple[WebhookValidator, ...] = ()
    default_ttl_seconds: dict[str, int] = field(default_factory=dict)
    validator_timeout_ms: int = 0
    near_duplicate_threshold: float = 0.0
    retention_stability_hours: float = 0.0
    # Decay exponent per kind, keyed like default_ttl_seconds ({"EPISODIC": 1.3}).
    decay_exponents: dict[str, float] = field(default_factory=dict)
    # Validators one at a time in declared order, stopping at the first critical
    # failure (later webhooks are not called).
    sequential_validators: bool = False
    # Where identical content is a duplicate: "SPACE" (default), "SESSION" or "OFF".
    dedup_scope: str = "SPACE"
    # Personal-data types stored as written in the space ("email", "phone",
    # "payment_card", "iban", "ip_address", "us_ssn", "uk_nino"); every other type
    # is replaced by its placeholder. Credentials are never allowed.
    allowed_personal_data: tuple[str, ...] = ()
    # Evidence-weighted recall's adjustment per grade (None: the server defaults).
    evidence_weights: EvidenceWeights | None = None
    # Distinct agreeing sources the corroboration assessor needs (0: the server's 2).
    min_corroboration: int = 0
    # Grade every accepted proposal with the corroboration assessor.
    assess_on_write: bool = False
    # Pins the space's class: "canonical", "working" or "correspondence" ("": observed).
    pinned_space_class: str = ""
    etag: str = ""
    update_time: datetime | None = None
    raw: lifecycle_pb2.Policy | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, kw_only=True)
class TenantQuota:
    """Per-tenant limits; zero means unlimited."""

    requests_per_second: int = 0
    max_memories: int = 0
    max_content_bytes: int = 0


@dataclass(frozen=True, kw_only=True)
class LlmSettings:
    """A tenant's own LLM provider (`openai`-compatible or `anthropic`).

    `api_key` is write-only: set it in `update_tenant`; the server never returns
    it, and tenants it reads back carry only `api_key_set`.
    """

    provider: str = ""
    base_url: str = ""
    model: str = ""
    api_key: str = field(default="", repr=False)
    api_key_set: bool = False
    timeout_seconds: float = 0.0


@dataclass(frozen=True, kw_only=True)
class Tenant:
    """An organisation using Engram."""

    name: str
    display_name: str = ""
    quota: TenantQuota = field(default_factory=TenantQuota)
    create_time: datetime | None = None
    # The tenant's own LLM provider; None when it uses the server's (or none).
    llm: LlmSettings | None = None
    raw: admin_pb2.Tenant | None = field(default=None, repr=False, compare=False)

    @property
    def tenant_id(self) -> str:
        return self.name.removeprefix("tenants/")


@dataclass(frozen=True, kw_only=True)
class DeletedTenant:
    """What deleting a tenant removed."""

    deleted_rows: dict[str, int] = field(default_factory=dict)
    deleted_cache_keys: int = 0
    raw: admin_pb2.DeleteTenantResponse | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, kw_only=True)
class ApiKey:
    """An API key; its secret is only ever returned once, by `create_api_key`."""

    name: str
    display_name: str = ""
    scopes: tuple[str, ...] = ()
    agent: str = ""
    expire_time: datetime | None = None
    revoke_time: datetime | None = None
    create_time: datetime | None = None
    secret_prefix: str = ""
    raw: admin_pb2.ApiKey | None = field(default=None, repr=False, compare=False)

    @property
    def tenant(self) -> str:
        """The owning tenant's resource name (`tenants/{tenant}`)."""
        return self.name.split("/apiKeys/", 1)[0]

    @property
    def revoked(self) -> bool:
        return self.revoke_time is not None


@dataclass(frozen=True, kw_only=True)
class CreatedApiKey:
    """A freshly minted key: send `secret` as `authorization: Bearer <secret>`."""

    api_key: ApiKey
    secret: str
    raw: admin_pb2.CreateApiKeyResponse | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, kw_only=True)
class Usage:
    """A tenant's usage; `memories_by_status` is keyed by short status name."""

    name: str
    memories_by_status: dict[str, int] = field(default_factory=dict)
    live_memories: int = 0
    active_api_keys: int = 0
    audit_entries: int = 0
    llm_tokens: dict[str, int] = field(default_factory=dict)
    raw: admin_pb2.Usage | None = field(default=None, repr=False, compare=False)


def to_dict(value: Any) -> Any:
    """A JSON-ready copy of an SDK result: datetimes as RFC 3339, enums as names.

    The `raw` messages are left out; everything else is kept, recursively.
    """
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: to_dict(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if f.name != "raw"
        }
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, timedelta):
        return value.total_seconds()
    if isinstance(value, Mapping):
        return {str(k): to_dict(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_dict(v) for v in value]
    return value


class ContextFormat(enum.StrEnum):
    """Layout of a context block (engram.v1.ContextFormat)."""

    UNSPECIFIED = "UNSPECIFIED"
    MARKDOWN = "MARKDOWN"
    PLAIN = "PLAIN"
    XML = "XML"
    JSON = "JSON"


@dataclass(frozen=True, kw_only=True)
class SessionMessage:
    """A message in a session's working-memory buffer."""

    role: str
    content: str
    time: datetime | None = None
    metadata: Mapping[str, str] = field(default_factory=dict)
    token_count: int = 0
    # Position in the buffer (grows by one per append, never reused).
    index: int = 0


@dataclass(frozen=True, kw_only=True)
class AppendResult:
    """What AppendMessage did. `message` is None when the privacy boundary dropped
    the whole message (it carried a credential): nothing was buffered."""

    message: SessionMessage | None
    buffered_messages: int
    buffered_tokens: int
    privacy_findings: tuple[PrivacyFinding, ...] = ()
    raw: lifecycle_pb2.AppendMessageResponse | None = field(default=None, repr=False, compare=False)

    @property
    def buffered(self) -> bool:
        return self.message is not None


@dataclass(frozen=True, kw_only=True)
class SessionWindow:
    """Buffered messages of a session, oldest first."""

    messages: tuple[SessionMessage, ...]
    token_count: int
    consolidated: bool = False
    raw: lifecycle_pb2.GetSessionWindowResponse | None = field(
        default=None, repr=False, compare=False
    )


@dataclass(frozen=True, kw_only=True)
class SessionInfo:
    """A session with a live buffer."""

    session: str
    message_count: int
    token_count: int
    last_activity: datetime | None = None


@dataclass(frozen=True, kw_only=True)
class ScoreBreakdown:
    """Why a hit scored what it did: `score = base_score + evidence_delta + graph_boost`."""

    dense: float = 0.0
    lexical: float = 0.0
    dense_rank: int = 0
    lexical_rank: int = 0
    fusion: float = 0.0
    slot_match: float = 0.0
    importance: float = 0.0
    retention: float = 0.0
    recency: float = 0.0
    base_score: float = 0.0
    evidence_delta: float = 0.0
    graph_boost: float = 0.0
    trust: float = 1.0


@dataclass(frozen=True, kw_only=True)
class RecallHit:
    """One recalled memory with its score (and, from `recall`, its breakdown)."""

    memory: Memory
    score: float
    evidence_badge: str = ""
    breakdown: ScoreBreakdown | None = None
    # The pool the memory was read from (`pools/{pool}`); "" for the requested spaces.
    pool: str = ""
    # For a hit added by graph expansion: the hit it was reached from and the edge kind
    # followed (`SUPPORTS`, `ABOUT`...).
    reached_from: str = ""
    reached_via: str = ""


@dataclass(frozen=True, kw_only=True)
class EngageResult:
    """The buffered turn and the long-term context it calls for."""

    message: SessionMessage | None
    buffered_messages: int
    buffered_tokens: int
    # Prompt-ready context; "" when nothing new qualified.
    context: str
    hits: tuple[RecallHit, ...] = ()
    cited_memories: tuple[str, ...] = ()
    token_count: int = 0
    # Hits left out because this session was already sent them.
    suppressed_count: int = 0
    privacy_findings: tuple[PrivacyFinding, ...] = ()
    raw: recall_pb2.EngageResponse | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, kw_only=True)
class ReflectResult:
    """One result per capture, plus what the privacy boundary did."""

    results: tuple[ProposalResult, ...] = ()
    privacy_findings: tuple[PrivacyFinding, ...] = ()
    raw: lifecycle_pb2.ReflectResponse | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, kw_only=True)
class ConversationTurn:
    """One turn given to `learn`."""

    role: str
    content: str
    time: datetime | None = None


@dataclass(frozen=True, kw_only=True)
class LearnResult:
    """One result per extracted fact."""

    results: tuple[ProposalResult, ...] = ()
    privacy_findings: tuple[PrivacyFinding, ...] = ()
    unverified_count: int = 0
    raw: lifecycle_pb2.LearnResponse | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, kw_only=True)
class ConsolidateResult:
    """The summary memory and the typed records of a consolidated session."""

    summary: Memory | None
    records: tuple[Memory, ...] = ()
    already_consolidated: bool = False
    privacy_findings: tuple[PrivacyFinding, ...] = ()
    raw: lifecycle_pb2.ConsolidateResponse | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, kw_only=True)
class DreamAction:
    """One change the Dream State pass proposed or made."""

    action: str  # "deprecate", "merge", "tag", "relate"
    memories: tuple[str, ...] = ()
    reason: str = ""
    detail: dict[str, Any] | None = None


@dataclass(frozen=True, kw_only=True)
class DreamResult:
    actions: tuple[DreamAction, ...] = ()
    applied: bool = False
    raw: lifecycle_pb2.DreamResponse | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, kw_only=True)
class GraphExpansion:
    """Graph-augmented recall: follow edges from the top hits to related memories.

    `edge_kinds` are edge kind names (`"supports"`, `"ABOUT"`...); empty means the
    server's default set. Zero `max_hops` / `seed_count` mean the server defaults.
    """

    edge_kinds: Sequence[str] = ()
    max_hops: int = 0
    seed_count: int = 0


@dataclass(frozen=True, kw_only=True)
class RecallResult:
    """What `recall` found, best first. Iterating over it iterates over `hits`."""

    hits: tuple[RecallHit, ...] = ()
    # Index work of this tenant still pending when the answer was computed.
    pending_index_items: int = 0
    embedding_model: str = ""
    raw: recall_pb2.RecallResponse | None = field(default=None, repr=False, compare=False)

    def __iter__(self) -> Iterator[RecallHit]:
        return iter(self.hits)

    def __len__(self) -> int:
        return len(self.hits)

    @property
    def memories(self) -> tuple[Memory, ...]:
        return tuple(hit.memory for hit in self.hits)


@dataclass(frozen=True, kw_only=True)
class ContextBlock:
    """A prompt-ready context block (`build_context`); `str(block)` is its text.

    Citation marker `[n]` refers to `cited_memories[n-1]`.
    """

    text: str
    cited_memories: tuple[str, ...] = ()
    token_count: int = 0
    # Memories that qualified but did not fit the budget.
    omitted_count: int = 0
    # Named memories skipped because they are not live.
    skipped_memories: tuple[str, ...] = ()
    tokenizer: str = ""
    raw: recall_pb2.BuildContextResponse | None = field(default=None, repr=False, compare=False)

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, kw_only=True)
class Snapshot:
    """A point-in-time copy of the live memories of a space."""

    name: str
    space: str
    include_subspaces: bool = False
    description: str = ""
    memory_count: int = 0
    # The tenant's audit sequence when it was taken: every change up to it is in.
    audit_sequence: int = 0
    creator: str = ""
    create_time: datetime | None = None
    labels: dict[str, str] = field(default_factory=dict)
    raw: recall_pb2.Snapshot | None = field(default=None, repr=False, compare=False)

    @property
    def id(self) -> str:
        return self.name.rpartition("/")[2]


@dataclass(frozen=True, kw_only=True)
class RestoreResult:
    """What restoring a snapshot changed (or, with `validate_only`, would change)."""

    retracted_count: int = 0
    recreated_count: int = 0
    revised_count: int = 0
    unchanged_count: int = 0
    validate_only: bool = False
    # The audit sequence of the restore's last transition: resume `watch` from here.
    audit_sequence: int = 0
    raw: recall_pb2.RestoreSnapshotResponse | None = field(default=None, repr=False, compare=False)


class SnapshotChangeType(enum.StrEnum):
    """What happened to one memory between two states of a space."""

    UNSPECIFIED = "UNSPECIFIED"
    ADDED = "ADDED"
    REMOVED = "REMOVED"
    CHANGED = "CHANGED"


@dataclass(frozen=True, kw_only=True)
class SnapshotChange:
    """One difference: `before` is unset for ADDED, `after` for REMOVED."""

    change_type: SnapshotChangeType
    before: Memory | None = None
    after: Memory | None = None
    changed_fields: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class SnapshotDiff:
    """Every change between two states of a space, ordered by memory name."""

    changes: tuple[SnapshotChange, ...] = ()
    added_count: int = 0
    removed_count: int = 0
    changed_count: int = 0


@dataclass(frozen=True, kw_only=True)
class IndexStatus:
    """The calling tenant's search-index backlog and embedding model."""

    pending_dense_items: int = 0
    pending_lexical_items: int = 0
    retrying_items: int = 0
    oldest_pending_time: datetime | None = None
    indexed_memories: int = 0
    embedding_model: str = ""
    embedding_dimension: int = 0
    vector_backend: str = ""
    reindex_required: bool = False
    reindexing: bool = False
    last_indexed_time: datetime | None = None
    raw: recall_pb2.IndexStatus | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, kw_only=True)
class Group:
    """A named set of agent identities of one tenant; a group can be a pool member."""

    name: str
    display_name: str = ""
    description: str = ""
    members: tuple[str, ...] = ()
    create_time: datetime | None = None
    update_time: datetime | None = None
    raw: admin_pb2.Group | None = field(default=None, repr=False, compare=False)

    @property
    def id(self) -> str:
        return self.name.rpartition("/")[2]
