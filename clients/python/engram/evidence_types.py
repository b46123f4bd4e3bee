"""Typed results of the evidence calls (`client.evidence`, `assess_memory`...).

The same conventions as `engram.types`: frozen dataclasses, aware UTC datetimes,
`StrEnum`s whose values are the short names (`EdgeKind.SUPPORTS == "SUPPORTS"`),
and the message each result came from in `raw`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from engram.types import EvidenceLevel, Memory, ProposalResult
from engram.v1 import evidence_pb2, types_pb2


class EdgeKind(enum.StrEnum):
    """How one memory relates to another (engram.v1.EdgeKind)."""

    UNSPECIFIED = "UNSPECIFIED"
    SUPPORTS = "SUPPORTS"
    CONTRADICTS = "CONTRADICTS"
    SUPERSEDES = "SUPERSEDES"
    ABOUT = "ABOUT"
    DERIVED_FROM = "DERIVED_FROM"
    RELATED = "RELATED"


class EdgeDirection(enum.StrEnum):
    """Which edges of a memory `edges` lists (engram.v1.EdgeDirection)."""

    UNSPECIFIED = "UNSPECIFIED"
    OUTGOING = "OUTGOING"
    INCOMING = "INCOMING"
    BOTH = "BOTH"


class ConflictState(enum.StrEnum):
    """Whether a conflict still needs a decision (engram.v1.ConflictState)."""

    UNSPECIFIED = "UNSPECIFIED"
    OPEN = "OPEN"
    RESOLVED = "RESOLVED"


class ConflictResolution(enum.StrEnum):
    """How a conflict was settled (engram.v1.ConflictResolution)."""

    UNSPECIFIED = "UNSPECIFIED"
    KEEP_WINNER = "KEEP_WINNER"
    SUPERSEDE = "SUPERSEDE"
    MERGE = "MERGE"
    KEEP_ALL = "KEEP_ALL"
    OVERTAKEN = "OVERTAKEN"
    DISMISS = "DISMISS"


class SpaceClass(enum.StrEnum):
    """What kind of knowledge a space holds (engram.v1.SpaceClass)."""

    UNSPECIFIED = "UNSPECIFIED"
    CANONICAL = "CANONICAL"
    WORKING = "WORKING"
    CORRESPONDENCE = "CORRESPONDENCE"


@dataclass(frozen=True, kw_only=True)
class Edge:
    """A typed relation from one memory to another (engram.v1.Edge)."""

    name: str
    source_memory: str = ""
    target_memory: str = ""
    kind: EdgeKind = EdgeKind.UNSPECIFIED
    weight: float = 0.0
    reason: str = ""
    creator: str = ""
    create_time: datetime | None = None
    attributes: dict[str, str] = field(default_factory=dict)
    raw: types_pb2.Edge | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, kw_only=True)
class Conflict:
    """Memories that cannot all be true (engram.v1.Conflict)."""

    name: str
    space: str = ""
    memories: tuple[str, ...] = ()
    detector: str = ""
    reason: str = ""
    state: ConflictState = ConflictState.UNSPECIFIED
    resolution: ConflictResolution = ConflictResolution.UNSPECIFIED
    winner: str = ""
    resolution_note: str = ""
    resolver: str = ""
    create_time: datetime | None = None
    resolve_time: datetime | None = None
    etag: str = ""
    raw: evidence_pb2.Conflict | None = field(default=None, repr=False, compare=False)

    @property
    def open(self) -> bool:
        return self.state is ConflictState.OPEN


@dataclass(frozen=True, kw_only=True)
class EvidenceLink:
    """A memory the assessor found for or against another (engram.v1.EvidenceLink)."""

    memory: Memory
    similarity: float = 0.0
    explanation: str = ""


@dataclass(frozen=True, kw_only=True)
class AssessResult:
    """What the corroboration assessor found (engram.v1.AssessMemoryResponse);
    with `apply`, the grade, edges and conflict it wrote."""

    memory: Memory | None = None
    suggested_level: EvidenceLevel = EvidenceLevel.UNSPECIFIED
    supporting: tuple[EvidenceLink, ...] = ()
    contradicting: tuple[EvidenceLink, ...] = ()
    reasoning: str = ""
    applied: bool = False
    created_edges: tuple[Edge, ...] = ()
    conflict: Conflict | None = None
    distinct_supporting_sources: int = 0
    raw: evidence_pb2.AssessMemoryResponse | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, kw_only=True)
class ResolveResult:
    """A resolved conflict and what resolving it changed
    (engram.v1.ResolveConflictResponse)."""

    conflict: Conflict
    changed_memories: tuple[Memory, ...] = ()
    # For a MERGE: how the merged memory's proposal ended.
    merged_result: ProposalResult | None = None
    raw: evidence_pb2.ResolveConflictResponse | None = field(
        default=None, repr=False, compare=False
    )


@dataclass(frozen=True, kw_only=True)
class SpaceProfile:
    """How a space's knowledge behaves over a window (engram.v1.SpaceProfile).
    The count maps are keyed by the short enum names (`SEMANTIC`, `ACTIVE`...)."""

    name: str
    space: str = ""
    space_class: SpaceClass = SpaceClass.UNSPECIFIED
    churn: float = 0.0
    stability: float = 0.0
    evidence_score: float = 0.0
    deprecation_ratio: float = 0.0
    live_memory_count: int = 0
    total_memory_count: int = 0
    memories_by_kind: dict[str, int] = field(default_factory=dict)
    memories_by_status: dict[str, int] = field(default_factory=dict)
    live_memories_by_evidence: dict[str, int] = field(default_factory=dict)
    revisions_per_memory: float = 0.0
    max_supersession_depth: int = 0
    median_live_age: timedelta | None = None
    window_start_time: datetime | None = None
    window_end_time: datetime | None = None
    pinned_class: SpaceClass = SpaceClass.UNSPECIFIED
    observed_class: SpaceClass = SpaceClass.UNSPECIFIED
    drift: bool = False
    compute_time: datetime | None = None
    raw: evidence_pb2.SpaceProfile | None = field(default=None, repr=False, compare=False)


__all__ = [
    "AssessResult",
    "Conflict",
    "ConflictResolution",
    "ConflictState",
    "Edge",
    "EdgeDirection",
    "EdgeKind",
    "EvidenceLink",
    "ResolveResult",
    "SpaceClass",
    "SpaceProfile",
]
