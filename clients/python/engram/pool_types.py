"""Typed results of the pool calls (`client.pools`, `create_pool` and the rest).

The same conventions as `engram.types`: frozen dataclasses, aware UTC datetimes,
`StrEnum`s whose values are the short names (`PublicationState.PUBLISHED ==
"PUBLISHED"`), and the message each result came from in `raw`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from engram.types import EvidenceLevel, Memory, MemoryKind
from engram.v1 import pool_pb2


class PoolRole(enum.StrEnum):
    """What a member may do in a pool (engram.v1.PoolRole)."""

    UNSPECIFIED = "UNSPECIFIED"
    READER = "READER"
    WRITER = "WRITER"
    OWNER = "OWNER"


class PublicationVisibility(enum.StrEnum):
    """Who reads a publication (engram.v1.PublicationVisibility)."""

    UNSPECIFIED = "UNSPECIFIED"
    POOL = "POOL"
    CONTRIBUTORS = "CONTRIBUTORS"
    TENANT = "TENANT"


class PublicationState(enum.StrEnum):
    """Where a publication stands (engram.v1.PublicationState)."""

    UNSPECIFIED = "UNSPECIFIED"
    PUBLISHED = "PUBLISHED"
    PENDING_REVIEW = "PENDING_REVIEW"
    REJECTED = "REJECTED"
    WITHDRAWN = "WITHDRAWN"


class PublishOutcome(enum.StrEnum):
    """How an offer to a pool ended (engram.v1.PublishOutcome)."""

    UNSPECIFIED = "UNSPECIFIED"
    PUBLISHED = "PUBLISHED"
    HELD_FOR_REVIEW = "HELD_FOR_REVIEW"
    REFUSED = "REFUSED"
    ALREADY_PUBLISHED = "ALREADY_PUBLISHED"


class SlotDeltaOp(enum.StrEnum):
    """What a sync delta does to its slot (engram.v1.SlotDeltaOp)."""

    UNSPECIFIED = "UNSPECIFIED"
    ADD = "ADD"
    REPLACE = "REPLACE"
    REMOVE = "REMOVE"


class TopicEventType(enum.StrEnum):
    """What happened on a topic channel (engram.v1.TopicEventType)."""

    UNSPECIFIED = "UNSPECIFIED"
    PUBLISHED = "PUBLISHED"
    WITHDRAWN = "WITHDRAWN"
    REPLACED = "REPLACED"


@dataclass(frozen=True, kw_only=True)
class PublishGate:
    """The checks a memory passes to enter a pool (engram.v1.PublishGate).

    Also an input: `create_pool(gate=...)` and `update_pool(gate=...)` take it;
    `engram.pool.gate(...)` builds one from names or numbers, checking them.
    """

    min_utility: float = 0.0
    allowed_kinds: tuple[MemoryKind, ...] = ()
    review_below_evidence_level: EvidenceLevel = EvidenceLevel.UNSPECIFIED
    review_below_trust: float = 0.0
    require_review: bool = False
    raw: pool_pb2.PublishGate | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, kw_only=True)
class Pool:
    """Memory shared across agents and teams (engram.v1.Pool)."""

    name: str
    display_name: str = ""
    description: str = ""
    gate: PublishGate = field(default_factory=PublishGate)
    default_visibility: PublicationVisibility = PublicationVisibility.UNSPECIFIED
    initial_trust: float = 0.0
    member_count: int = 0
    publication_count: int = 0
    creator: str = ""
    create_time: datetime | None = None
    update_time: datetime | None = None
    etag: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    # A retraction this soon after publishing counts against the publisher's trust.
    quick_invalidation_window: timedelta | None = None
    raw: pool_pb2.Pool | None = field(default=None, repr=False, compare=False)

    @property
    def id(self) -> str:
        """The pool id: the last segment of `name`."""
        return self.name.rpartition("/")[2]


@dataclass(frozen=True, kw_only=True)
class PoolMember:
    """An agent identity, API key or group with a role in a pool (engram.v1.PoolMember)."""

    name: str
    principal: str = ""
    role: PoolRole = PoolRole.UNSPECIFIED
    added_by: str = ""
    create_time: datetime | None = None
    update_time: datetime | None = None
    trust_score: float = 0.0
    raw: pool_pb2.PoolMember | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, kw_only=True)
class GateFinding:
    """One gate rule's verdict on an offered memory (engram.v1.GateFinding)."""

    rule: str
    refuses: bool = False
    message: str = ""


@dataclass(frozen=True, kw_only=True)
class Publication:
    """A memory shared into a pool (engram.v1.Publication); never a copy."""

    name: str
    memory: str = ""
    publisher: str = ""
    state: PublicationState = PublicationState.UNSPECIFIED
    visibility: PublicationVisibility = PublicationVisibility.UNSPECIFIED
    topic: str = ""
    slot_key: str = ""
    utility: float = 0.0
    findings: tuple[GateFinding, ...] = ()
    reviewer: str = ""
    review_note: str = ""
    withdraw_reason: str = ""
    create_time: datetime | None = None
    update_time: datetime | None = None
    raw: pool_pb2.Publication | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, kw_only=True)
class PublishResult:
    """What offering a memory to a pool did (engram.v1.PublishMemoryResponse)."""

    outcome: PublishOutcome
    # None when the gate refused the memory.
    publication: Publication | None = None
    findings: tuple[GateFinding, ...] = ()
    raw: pool_pb2.PublishMemoryResponse | None = field(default=None, repr=False, compare=False)

    @property
    def published(self) -> bool:
        return self.outcome in (PublishOutcome.PUBLISHED, PublishOutcome.ALREADY_PUBLISHED)

    @property
    def held(self) -> bool:
        return self.outcome is PublishOutcome.HELD_FOR_REVIEW

    @property
    def refused(self) -> bool:
        return self.outcome is PublishOutcome.REFUSED


@dataclass(frozen=True, kw_only=True)
class AgentTrust:
    """A publisher's trust in one pool, derived from how its memories fared
    (engram.v1.AgentTrust)."""

    name: str
    principal: str = ""
    score: float = 0.0
    published_count: int = 0
    used_count: int = 0
    confirmed_count: int = 0
    quickly_invalidated_count: int = 0
    contradicted_count: int = 0
    update_time: datetime | None = None
    raw: pool_pb2.AgentTrust | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, kw_only=True)
class SlotDelta:
    """One change to a pool slot (engram.v1.SlotDelta). With `omit_old_content`,
    `old_memory` carries its identity only."""

    slot_key: str
    op: SlotDeltaOp = SlotDeltaOp.UNSPECIFIED
    old_memory: Memory | None = None
    new_memory: Memory | None = None
    publication: str = ""
    version: int = 0
    topic: str = ""
    commit_time: datetime | None = None


@dataclass(frozen=True, kw_only=True)
class SyncEvent:
    """One message of `sync_pool`: a delta, or the caught-up marker
    (engram.v1.SyncPoolResponse). Keep `cursor` to resume after it."""

    cursor: str = ""
    delta: SlotDelta | None = None
    caught_up: bool = False
    raw: pool_pb2.SyncPoolResponse | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, kw_only=True)
class Topic:
    """A topic channel of a pool (engram.v1.Topic)."""

    name: str
    topic: str = ""
    publication_count: int = 0
    last_publish_time: datetime | None = None
    raw: pool_pb2.Topic | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, kw_only=True)
class TopicEvent:
    """One event of `subscribe_topic` (engram.v1.SubscribeTopicResponse). Keep
    `cursor` to resume after it."""

    cursor: str = ""
    event_type: TopicEventType = TopicEventType.UNSPECIFIED
    publication: Publication | None = None
    memory: Memory | None = None
    commit_time: datetime | None = None
    raw: pool_pb2.SubscribeTopicResponse | None = field(default=None, repr=False, compare=False)


__all__ = [
    "AgentTrust",
    "GateFinding",
    "Pool",
    "PoolMember",
    "PoolRole",
    "Publication",
    "PublicationState",
    "PublicationVisibility",
    "PublishGate",
    "PublishOutcome",
    "PublishResult",
    "SlotDelta",
    "SlotDeltaOp",
    "SyncEvent",
    "Topic",
    "TopicEvent",
    "TopicEventType",
]
