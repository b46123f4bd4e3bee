"""EvidenceService messages -> `engram.evidence_types`, for both clients."""

from __future__ import annotations

from typing import Any

from engram import _convert as c
from engram import evidence_types as et
from engram import types as t
from engram.v1 import evidence_pb2, types_pb2


def edge_out(pb: types_pb2.Edge) -> et.Edge:
    return et.Edge(
        name=pb.name,
        source_memory=pb.source_memory,
        target_memory=pb.target_memory,
        kind=c.enum_out(et.EdgeKind, pb.kind),
        weight=pb.weight,
        reason=pb.reason,
        creator=pb.creator,
        create_time=c.time_out(pb, "create_time"),
        attributes=dict(pb.attributes),
        raw=pb,
    )


def conflict_out(pb: evidence_pb2.Conflict) -> et.Conflict:
    return et.Conflict(
        name=pb.name,
        space=pb.space,
        memories=tuple(pb.memories),
        detector=pb.detector,
        reason=pb.reason,
        state=c.enum_out(et.ConflictState, pb.state),
        resolution=c.enum_out(et.ConflictResolution, pb.resolution),
        winner=pb.winner,
        resolution_note=pb.resolution_note,
        resolver=pb.resolver,
        create_time=c.time_out(pb, "create_time"),
        resolve_time=c.time_out(pb, "resolve_time"),
        etag=pb.etag,
        raw=pb,
    )


def _links(pbs: Any) -> tuple[et.EvidenceLink, ...]:
    return tuple(
        et.EvidenceLink(
            memory=c.memory_out(link.memory),
            similarity=link.similarity,
            explanation=link.explanation,
        )
        for link in pbs
    )


def assess_out(pb: evidence_pb2.AssessMemoryResponse) -> et.AssessResult:
    return et.AssessResult(
        memory=c.optional_memory_out(pb, "memory"),
        suggested_level=c.enum_out(t.EvidenceLevel, pb.suggested_level),
        supporting=_links(pb.supporting),
        contradicting=_links(pb.contradicting),
        reasoning=pb.reasoning,
        applied=pb.applied,
        created_edges=tuple(edge_out(e) for e in pb.created_edges),
        conflict=conflict_out(pb.conflict) if pb.HasField("conflict") else None,
        distinct_supporting_sources=pb.distinct_supporting_sources,
        raw=pb,
    )


def resolve_out(pb: evidence_pb2.ResolveConflictResponse) -> et.ResolveResult:
    return et.ResolveResult(
        conflict=conflict_out(pb.conflict),
        changed_memories=tuple(c.memory_out(m) for m in pb.changed_memories),
        merged_result=(
            c.proposal_result_out(pb.merged_result) if pb.HasField("merged_result") else None
        ),
        raw=pb,
    )


def _counts(cls: Any, values: Any) -> dict[str, int]:
    return {c.enum_key_out(cls, key): int(count) for key, count in values.items()}


def profile_out(pb: evidence_pb2.SpaceProfile) -> et.SpaceProfile:
    return et.SpaceProfile(
        name=pb.name,
        space=pb.space,
        space_class=c.enum_out(et.SpaceClass, pb.space_class),
        churn=pb.churn,
        stability=pb.stability,
        evidence_score=pb.evidence_score,
        deprecation_ratio=pb.deprecation_ratio,
        live_memory_count=pb.live_memory_count,
        total_memory_count=pb.total_memory_count,
        memories_by_kind=_counts(t.MemoryKind, pb.memories_by_kind),
        memories_by_status=_counts(t.MemoryStatus, pb.memories_by_status),
        live_memories_by_evidence=_counts(t.EvidenceLevel, pb.live_memories_by_evidence),
        revisions_per_memory=pb.revisions_per_memory,
        max_supersession_depth=pb.max_supersession_depth,
        median_live_age=(
            pb.median_live_age.ToTimedelta() if pb.HasField("median_live_age") else None
        ),
        window_start_time=c.time_out(pb, "window_start_time"),
        window_end_time=c.time_out(pb, "window_end_time"),
        pinned_class=c.enum_out(et.SpaceClass, pb.pinned_class),
        observed_class=c.enum_out(et.SpaceClass, pb.observed_class),
        drift=pb.drift,
        compute_time=c.time_out(pb, "compute_time"),
        raw=pb,
    )
