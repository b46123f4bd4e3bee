"""The memory as the domain sees it, and the proposals that create one."""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
import unicodedata
import uuid
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum
from typing import Any

from engram_server.privacy.model import PrivacyFinding


class Status(StrEnum):
    PROPOSED = "PROPOSED"
    ACTIVE = "ACTIVE"
    PENDING_CONFIRMATION = "PENDING_CONFIRMATION"
    REJECTED = "REJECTED"
    RETRACTED = "RETRACTED"
    EXPIRED = "EXPIRED"
    SUPERSEDED = "SUPERSEDED"


LIVE_STATUSES = frozenset({Status.PROPOSED, Status.ACTIVE, Status.PENDING_CONFIRMATION})


class Kind(StrEnum):
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


class EvidenceLevel(StrEnum):
    UNSPECIFIED = "UNSPECIFIED"
    UNVERIFIED = "UNVERIFIED"
    SINGLE_SOURCE = "SINGLE_SOURCE"
    CORROBORATED = "CORROBORATED"
    OFFICIAL = "OFFICIAL"


class Origin(StrEnum):
    """How a memory came to be known; "" when not recorded."""

    UNSPECIFIED = ""
    USER_STATED = "USER_STATED"
    AGENT_INFERRED = "AGENT_INFERRED"
    TOOL_OBSERVED = "TOOL_OBSERVED"
    DOCUMENT = "DOCUMENT"
    OPERATOR = "OPERATOR"


# Evidence grades, weakest first (UNSPECIFIED counts as UNVERIFIED where ranked).
EVIDENCE_ORDER = {
    EvidenceLevel.UNSPECIFIED: 0,
    EvidenceLevel.UNVERIFIED: 1,
    EvidenceLevel.SINGLE_SOURCE: 2,
    EvidenceLevel.CORROBORATED: 3,
    EvidenceLevel.OFFICIAL: 4,
}


class Outcome(StrEnum):
    ACCEPTED = "ACCEPTED"
    PENDING_CONFIRMATION = "PENDING_CONFIRMATION"
    REJECTED = "REJECTED"
    DUPLICATE = "DUPLICATE"
    REINFORCED = "REINFORCED"


class AuditAction(StrEnum):
    TRANSITION = "TRANSITION"
    REVISION = "REVISION"
    CONFIDENCE = "CONFIDENCE"
    PURGE = "PURGE"
    POLICY = "POLICY"
    SNAPSHOT = "SNAPSHOT"
    REINFORCEMENT = "REINFORCEMENT"
    EVIDENCE = "EVIDENCE"  # a memory's evidence grade changed
    EDGE = "EDGE"  # an edge between memories created or deleted (details name it)
    CONFLICT = "CONFLICT"  # a conflict opened or resolved
    PUBLICATION = "PUBLICATION"  # published to, held in or withdrawn from a pool
    MEMBERSHIP = "MEMBERSHIP"  # a pool's or a group's membership changed


# The fields ReviseMemory may change (and a snapshot restore sets back).
REVISABLE_FIELDS = (
    "content",
    "structured_content",
    "source",
    "importance",
    "tags",
    "slot_key",
    "topic",
    "expire_time",
    "attributes",
    "kind",
    "session",
    "thread",
)

MEMORY_NAME_PREFIX = "memories/"
SLOT_MUST_BE_EMPTY = "EMPTY"


def memory_name(memory_id: uuid.UUID) -> str:
    return f"{MEMORY_NAME_PREFIX}{memory_id}"


_MILLIS_MASK = (1 << 48) - 1
_RAND_B_MASK = (1 << 62) - 1


def new_memory_id() -> uuid.UUID:
    """A new memory id: a UUID version 7 (RFC 9562), a millisecond timestamp
    followed by 74 random bits.

    Time-ordered ids keep the inserts of every index that leads with a memory id
    (the primary key, revisions, the audit log by memory) on the right-hand pages
    of the B-tree instead of scattered over all of them, so a write dirties, and
    after a checkpoint logs in full, a few pages rather than one per row. The
    random part keeps ids unguessable. (Python 3.14 has `uuid.uuid7`; the server
    supports 3.11.)

    Ids made by one process are strictly increasing (RFC 9562's monotonic random
    method, 6.2 method 2: within one millisecond the next id is the last one plus
    a random step), so the memories of one batch keep the order they were
    proposed in: indexing finds a conversation turn's previous turn by id.
    """
    global _last_id
    millis = time.time_ns() // 1_000_000
    rand = int.from_bytes(secrets.token_bytes(10), "big")
    value = (
        (millis & _MILLIS_MASK) << 80
        | 0x7 << 76  # version
        | ((rand >> 62) & 0xFFF) << 64  # rand_a: 12 bits
        | 0b10 << 62  # variant
        | (rand & _RAND_B_MASK)  # rand_b: 62 bits
    )
    with _id_lock:
        if value <= _last_id:
            # Same millisecond (or the clock stepped back): step past the last id
            # by up to 2^32 in rand_b, carrying into rand_a; the version and
            # variant bits are left alone.
            step = 1 + (rand & 0xFFFFFFFF)
            rand_b = (_last_id & _RAND_B_MASK) + step
            rand_a = (_last_id >> 64) & 0xFFF
            timestamp = _last_id >> 80
            if rand_b > _RAND_B_MASK:
                rand_b &= _RAND_B_MASK
                rand_a += 1
                if rand_a > 0xFFF:  # 2^74 ids in one millisecond: borrow the next one
                    rand_a, timestamp = 0, timestamp + 1
            value = timestamp << 80 | 0x7 << 76 | rand_a << 64 | 0b10 << 62 | rand_b
        _last_id = value
    return uuid.UUID(int=value)


_id_lock = threading.Lock()
_last_id = 0


def content_hash(content: str) -> str:
    """Hash of the content after normalisation that does not change meaning.

    NFC normalisation, trimmed ends and collapsed inner whitespace, so a retry that
    differs only in spacing or Unicode composition is still a duplicate; case is
    kept because it can carry meaning (names, code).
    """
    normalised = " ".join(unicodedata.normalize("NFC", content).split())
    return hashlib.sha256(normalised.encode()).hexdigest()


@dataclass(frozen=True)
class Proposal:
    """What a caller asks to store; already validated for shape."""

    space: str
    content: str
    kind: Kind = Kind.SEMANTIC
    session: str = ""
    thread: str = ""
    structured_content: dict[str, Any] | None = None
    source: str = ""
    confidence: float = 0.0
    importance: float = 0.5
    evidence_level: EvidenceLevel = EvidenceLevel.UNSPECIFIED
    tags: tuple[str, ...] = ()
    slot_key: str = ""
    topic: str = ""
    depends_on: tuple[uuid.UUID, ...] = ()
    expire_time: datetime | None = None
    attributes: dict[str, str] = field(default_factory=dict)
    # Slot compare-and-set: None = no check; SLOT_MUST_BE_EMPTY; or the memory id
    # the writer expects to replace.
    expected_slot_holder: uuid.UUID | str | None = None
    origin: Origin = Origin.UNSPECIFIED
    # When the fact held in the world (bi-temporal); None = unknown / open.
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    # Internal writers only (never set from the API): non-empty holds the memory
    # for review (PENDING_CONFIRMATION, this note among its validation notes)
    # even when every validator passed; a person confirms or retracts it.
    review_note: str = ""

    @property
    def content_hash(self) -> str:
        return content_hash(self.content)


@dataclass(frozen=True)
class Memory:
    """A stored memory."""

    id: uuid.UUID
    space: str
    session: str
    thread: str
    kind: Kind
    content: str
    structured_content: dict[str, Any] | None
    source: str
    agent: str
    confidence: float
    importance: float
    evidence_level: EvidenceLevel
    tags: tuple[str, ...]
    slot_key: str
    topic: str
    depends_on: tuple[uuid.UUID, ...]
    status: Status
    create_time: datetime
    update_time: datetime
    expire_time: datetime | None
    retract_time: datetime | None
    retraction_reason: str
    content_hash: str
    revision: int
    superseded_by: uuid.UUID | None
    validation_notes: tuple[str, ...]
    attributes: dict[str, str]
    access_count: int = 0
    last_access_time: datetime | None = None
    origin: Origin = Origin.UNSPECIFIED
    valid_from: datetime | None = None
    valid_to: datetime | None = None

    @property
    def name(self) -> str:
        return memory_name(self.id)

    def to_proposal(self, **overrides: Any) -> Proposal:
        """The proposal that would store this memory as it is, with `overrides`."""
        base = Proposal(
            space=self.space,
            content=self.content,
            kind=self.kind,
            session=self.session,
            thread=self.thread,
            structured_content=self.structured_content,
            source=self.source,
            confidence=self.confidence,
            importance=self.importance,
            evidence_level=self.evidence_level,
            tags=tuple(self.tags),
            slot_key=self.slot_key,
            topic=self.topic,
            depends_on=tuple(self.depends_on),
            expire_time=self.expire_time,
            attributes=dict(self.attributes),
            origin=self.origin,
            valid_from=self.valid_from,
            valid_to=self.valid_to,
        )
        return replace(base, **overrides) if overrides else base

    @property
    def etag(self) -> str:
        """Changes whenever anything a caller can see changes."""
        basis = (
            f"{self.id}:{self.revision}:{self.status}:{self.confidence!r}"
            f":{self.update_time.isoformat()}"
        )
        return hashlib.sha256(basis.encode()).hexdigest()[:20]


@dataclass(frozen=True)
class ValidationFailure:
    validator: str
    critical: bool
    message: str
    field: str = ""


@dataclass(frozen=True)
class ProposalResult:
    outcome: Outcome
    # None only when the privacy boundary dropped the proposal: nothing was stored.
    memory: Memory | None
    failures: tuple[ValidationFailure, ...] = ()
    privacy_findings: tuple[PrivacyFinding, ...] = ()


@dataclass(frozen=True)
class AuditEntry:
    sequence: int
    action: AuditAction
    memory_id: uuid.UUID | None
    space: str
    from_status: Status | None
    to_status: Status | None
    actor: str
    reason: str
    request_id: str
    create_time: datetime
    details: dict[str, str]


@dataclass(frozen=True)
class MemoryRevision:
    memory_id: uuid.UUID
    revision: int
    memory: Memory
    actor: str
    create_time: datetime
