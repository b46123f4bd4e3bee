"""PoolService messages -> `engram.pool_types` (and a gate back), for both clients."""

from __future__ import annotations

from typing import Any

from engram import _convert as c
from engram import errors
from engram import pool_types as pt
from engram import types as t
from engram.v1 import pool_pb2


def gate_out(pb: pool_pb2.PublishGate) -> pt.PublishGate:
    return pt.PublishGate(
        min_utility=pb.min_utility,
        allowed_kinds=tuple(c.enum_out(t.MemoryKind, k) for k in pb.allowed_kinds),
        review_below_evidence_level=c.enum_out(t.EvidenceLevel, pb.review_below_evidence_level),
        review_below_trust=pb.review_below_trust,
        require_review=pb.require_review,
        raw=pb,
    )


def gate_in(value: Any, field: str) -> pool_pb2.PublishGate | None:
    """A gate as sent: a `PublishGate` dataclass or message, or None (unset)."""
    if value is None or isinstance(value, pool_pb2.PublishGate):
        return value
    if not isinstance(value, pt.PublishGate):
        raise errors.invalid_argument(
            field, f"expected an engram.PublishGate, got {type(value).__name__}"
        )
    return c.fill(
        pool_pb2.PublishGate(),
        f"{field}.",
        min_utility=value.min_utility,
        allowed_kinds=[
            c.enum_in(t.MemoryKind, k, f"{field}.allowed_kinds[{i}]")
            for i, k in enumerate(value.allowed_kinds)
        ],
        review_below_evidence_level=c.enum_in(
            t.EvidenceLevel,
            value.review_below_evidence_level,
            f"{field}.review_below_evidence_level",
        ),
        review_below_trust=value.review_below_trust,
        require_review=value.require_review,
    )


def pool_out(pb: pool_pb2.Pool) -> pt.Pool:
    return pt.Pool(
        name=pb.name,
        display_name=pb.display_name,
        description=pb.description,
        gate=gate_out(pb.gate),
        default_visibility=c.enum_out(pt.PublicationVisibility, pb.default_visibility),
        initial_trust=pb.initial_trust,
        member_count=pb.member_count,
        publication_count=pb.publication_count,
        creator=pb.creator,
        create_time=c.time_out(pb, "create_time"),
        update_time=c.time_out(pb, "update_time"),
        etag=pb.etag,
        labels=dict(pb.labels),
        quick_invalidation_window=(
            pb.quick_invalidation_window.ToTimedelta()
            if pb.HasField("quick_invalidation_window")
            else None
        ),
        raw=pb,
    )


def member_out(pb: pool_pb2.PoolMember) -> pt.PoolMember:
    return pt.PoolMember(
        name=pb.name,
        principal=pb.principal,
        role=c.enum_out(pt.PoolRole, pb.role),
        added_by=pb.added_by,
        create_time=c.time_out(pb, "create_time"),
        update_time=c.time_out(pb, "update_time"),
        trust_score=pb.trust_score,
        raw=pb,
    )


def findings_out(pbs: Any) -> tuple[pt.GateFinding, ...]:
    return tuple(pt.GateFinding(rule=f.rule, refuses=f.refuses, message=f.message) for f in pbs)


def publication_out(pb: pool_pb2.Publication) -> pt.Publication:
    return pt.Publication(
        name=pb.name,
        memory=pb.memory,
        publisher=pb.publisher,
        state=c.enum_out(pt.PublicationState, pb.state),
        visibility=c.enum_out(pt.PublicationVisibility, pb.visibility),
        topic=pb.topic,
        slot_key=pb.slot_key,
        utility=pb.utility,
        findings=findings_out(pb.findings),
        reviewer=pb.reviewer,
        review_note=pb.review_note,
        withdraw_reason=pb.withdraw_reason,
        create_time=c.time_out(pb, "create_time"),
        update_time=c.time_out(pb, "update_time"),
        raw=pb,
    )


def _optional_publication(message: Any, field_name: str) -> pt.Publication | None:
    if not message.HasField(field_name):
        return None
    return publication_out(getattr(message, field_name))


def publish_out(pb: pool_pb2.PublishMemoryResponse) -> pt.PublishResult:
    return pt.PublishResult(
        outcome=c.enum_out(pt.PublishOutcome, pb.outcome),
        publication=_optional_publication(pb, "publication"),
        findings=findings_out(pb.findings),
        raw=pb,
    )


def trust_out(pb: pool_pb2.AgentTrust) -> pt.AgentTrust:
    return pt.AgentTrust(
        name=pb.name,
        principal=pb.principal,
        score=pb.score,
        published_count=pb.published_count,
        used_count=pb.used_count,
        confirmed_count=pb.confirmed_count,
        quickly_invalidated_count=pb.quickly_invalidated_count,
        contradicted_count=pb.contradicted_count,
        update_time=c.time_out(pb, "update_time"),
        raw=pb,
    )


def delta_out(pb: pool_pb2.SlotDelta) -> pt.SlotDelta:
    return pt.SlotDelta(
        slot_key=pb.slot_key,
        op=c.enum_out(pt.SlotDeltaOp, pb.op),
        old_memory=c.optional_memory_out(pb, "old_memory"),
        new_memory=c.optional_memory_out(pb, "new_memory"),
        publication=pb.publication,
        version=pb.version,
        topic=pb.topic,
        commit_time=c.time_out(pb, "commit_time"),
    )


def sync_out(pb: pool_pb2.SyncPoolResponse) -> pt.SyncEvent:
    return pt.SyncEvent(
        cursor=pb.cursor,
        delta=delta_out(pb.delta) if pb.HasField("delta") else None,
        caught_up=pb.caught_up,
        raw=pb,
    )


def topic_out(pb: pool_pb2.Topic) -> pt.Topic:
    return pt.Topic(
        name=pb.name,
        topic=pb.topic,
        publication_count=pb.publication_count,
        last_publish_time=c.time_out(pb, "last_publish_time"),
        raw=pb,
    )


def topic_event_out(pb: pool_pb2.SubscribeTopicResponse) -> pt.TopicEvent:
    return pt.TopicEvent(
        cursor=pb.cursor,
        event_type=c.enum_out(pt.TopicEventType, pb.event_type),
        publication=_optional_publication(pb, "publication"),
        memory=c.optional_memory_out(pb, "memory"),
        commit_time=c.time_out(pb, "commit_time"),
        raw=pb,
    )
