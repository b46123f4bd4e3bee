"""Protobuf <-> domain conversion for the lifecycle API.

Enum values outside the proto definition (proto3 enums are open) are refused
here with INVALID_ARGUMENT naming the field, so the domain only sees known values.
"""

from __future__ import annotations

import hashlib
import json
import math
import uuid
from datetime import UTC, datetime
from typing import Any

from engram.v1 import lifecycle_pb2, types_pb2
from google.protobuf import json_format
from google.protobuf.message import Message
from google.protobuf.struct_pb2 import Struct
from google.protobuf.timestamp_pb2 import Timestamp

from engram_server.api.privacy import findings_to_proto
from engram_server.api.timestamps import to_datetime
from engram_server.errors import InvalidArgument, Violations
from engram_server.lifecycle.model import (
    SLOT_MUST_BE_EMPTY,
    AuditEntry,
    EvidenceLevel,
    Kind,
    Memory,
    MemoryRevision,
    Origin,
    Outcome,
    Proposal,
    ProposalResult,
    Status,
    memory_name,
)
from engram_server.lifecycle.policy import Policy, WebhookSpec
from engram_server.lifecycle.validation import check_space
from engram_server.services.lifecycle import RequestKey, parse_memory_name

MAX_STRUCT_DEPTH = 32


def enum_name(enum: Any, value: int, prefix: str, field: str, v: Violations) -> str | None:
    """The domain name of an enum value ('ACTIVE'), or a violation if unknown."""
    try:
        name: str = enum.Name(value)
    except ValueError:
        v.add(field, f"unknown enum value {value}")
        return None
    return name.removeprefix(prefix)


def ts_to_dt(ts: Timestamp, field_path: str) -> datetime:
    """A request's Timestamp as a datetime (out of range: INVALID_ARGUMENT naming it)."""
    return to_datetime(ts, field_path)


def time_field(message: Message, name: str, field_path: str, v: Violations) -> datetime | None:
    if not message.HasField(name):
        return None
    try:
        return to_datetime(getattr(message, name), field_path)
    except InvalidArgument as exc:
        v.items.extend(exc.violations)
        return None


def dt_to_ts(dt: datetime | None) -> Timestamp | None:
    if dt is None:
        return None
    ts = Timestamp()
    set_time(ts, dt)
    return ts


def _depth(value: Any, level: int = 0) -> int:
    if isinstance(value, dict):
        return max((_depth(v, level + 1) for v in value.values()), default=level + 1)
    if isinstance(value, list):
        return max((_depth(v, level + 1) for v in value), default=level + 1)
    return level


def struct_to_dict(s: Struct, field: str, v: Violations) -> dict[str, Any] | None:
    try:
        data = json_format.MessageToDict(s)
        json.dumps(data, allow_nan=False)
    except ValueError:
        v.add(field, "is not valid JSON: NaN and Infinity are not allowed")
        return None
    if _depth(data) > MAX_STRUCT_DEPTH:
        v.add(field, f"nested deeper than {MAX_STRUCT_DEPTH} levels")
        return None
    return data


def dict_to_struct(d: dict[str, Any]) -> Struct:
    s = Struct()
    s.update(d)
    return s


def proposal_from_proto(p: lifecycle_pb2.MemoryProposal, path: str, v: Violations) -> Proposal:
    kind_name = enum_name(types_pb2.MemoryKind, p.kind, "MEMORY_KIND_", f"{path}.kind", v)
    evidence = enum_name(
        types_pb2.EvidenceLevel, p.evidence_level, "EVIDENCE_LEVEL_", f"{path}.evidence_level", v
    )
    structured = (
        struct_to_dict(p.structured_content, f"{path}.structured_content", v)
        if p.HasField("structured_content")
        else None
    )
    depends: list[uuid.UUID] = []
    for i, name in enumerate(p.depends_on):
        try:
            depends.append(parse_memory_name(name, f"{path}.depends_on[{i}]"))
        except InvalidArgument as exc:
            v.items.extend(exc.violations)
    importance = p.importance if p.HasField("importance") else 0.5
    expected_slot: uuid.UUID | str | None = None
    if p.HasField("expected_slot_memory"):
        if not p.expected_slot_memory:
            expected_slot = SLOT_MUST_BE_EMPTY
        else:
            try:
                expected_slot = parse_memory_name(
                    p.expected_slot_memory, f"{path}.expected_slot_memory"
                )
            except InvalidArgument as exc:
                v.items.extend(exc.violations)
        if not p.slot_key:
            v.add(f"{path}.expected_slot_memory", "needs a slot_key")
    if math.isnan(p.confidence):
        v.add(f"{path}.confidence", "must be in [0, 1]")
    origin_name = enum_name(types_pb2.MemoryOrigin, p.origin, "MEMORY_ORIGIN_", f"{path}.origin", v)
    valid_from = time_field(p, "valid_from", f"{path}.valid_from", v)
    valid_to = time_field(p, "valid_to", f"{path}.valid_to", v)
    if valid_from is not None and valid_to is not None and valid_to < valid_from:
        v.add(f"{path}.valid_to", "must not be before valid_from")
    return Proposal(
        space=p.space,
        content=p.content,
        kind=Kind.SEMANTIC if kind_name in (None, "UNSPECIFIED") else Kind(kind_name),
        session=p.session,
        thread=p.thread,
        structured_content=structured,
        source=p.source,
        confidence=p.confidence,
        importance=importance,
        evidence_level=EvidenceLevel(evidence) if evidence else EvidenceLevel.UNSPECIFIED,
        tags=tuple(p.tags),
        slot_key=p.slot_key,
        topic=p.topic,
        depends_on=tuple(depends),
        expire_time=time_field(p, "expire_time", f"{path}.expire_time", v),
        attributes=dict(p.attributes),
        expected_slot_holder=expected_slot,
        origin=Origin(origin_name)
        if origin_name and origin_name != "UNSPECIFIED"
        else Origin.UNSPECIFIED,
        valid_from=valid_from,
        valid_to=valid_to,
    )


# Domain enum -> proto number, looked up once: `Enum.Value(name)` per field and per
# memory is a measurable share of converting a batch's results.
_KIND_NUMBERS = {k: types_pb2.MemoryKind.Value(f"MEMORY_KIND_{k.value}") for k in Kind}
_EVIDENCE_NUMBERS = {
    e: types_pb2.EvidenceLevel.Value(f"EVIDENCE_LEVEL_{e.value}") for e in EvidenceLevel
}
_STATUS_NUMBERS = {s: types_pb2.MemoryStatus.Value(f"MEMORY_STATUS_{s.value}") for s in Status}
_ORIGIN_NUMBERS = {
    o: types_pb2.MemoryOrigin.Value(f"MEMORY_ORIGIN_{o.value or 'UNSPECIFIED'}") for o in Origin
}
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def set_time(ts: Timestamp, dt: datetime) -> None:
    """`ts.FromDatetime(dt)` for an aware datetime, without its time-tuple round trip."""
    if dt.tzinfo is None:  # naive times are UTC, as FromDatetime takes them
        dt = dt.replace(tzinfo=UTC)
    delta = dt - _EPOCH
    ts.seconds = delta.days * 86400 + delta.seconds
    ts.nanos = delta.microseconds * 1000


def memory_to_proto(m: Memory) -> types_pb2.Memory:
    out = types_pb2.Memory(
        name=m.name,
        space=m.space,
        session=m.session,
        thread=m.thread,
        kind=_KIND_NUMBERS[m.kind],
        content=m.content,
        source=m.source,
        agent=m.agent,
        confidence=m.confidence,
        importance=m.importance,
        evidence_level=_EVIDENCE_NUMBERS[m.evidence_level],
        tags=m.tags,
        slot_key=m.slot_key,
        topic=m.topic,
        status=_STATUS_NUMBERS[m.status],
        retraction_reason=m.retraction_reason,
        content_hash=m.content_hash,
        etag=m.etag,
        revision=m.revision,
        validation_notes=m.validation_notes,
        attributes=m.attributes,
        access_count=m.access_count,
    )
    if m.depends_on:
        out.depends_on.extend(memory_name(d) for d in m.depends_on)
    if m.superseded_by:
        out.superseded_by = memory_name(m.superseded_by)
    set_time(out.create_time, m.create_time)
    set_time(out.update_time, m.update_time)
    if m.expire_time is not None:
        set_time(out.expire_time, m.expire_time)
    if m.retract_time is not None:
        set_time(out.retract_time, m.retract_time)
    if m.last_access_time is not None:
        set_time(out.last_access_time, m.last_access_time)
    if m.structured_content is not None:
        out.structured_content.CopyFrom(dict_to_struct(m.structured_content))
    if m.origin:
        out.origin = _ORIGIN_NUMBERS[m.origin]
    if m.valid_from is not None:
        set_time(out.valid_from, m.valid_from)
    if m.valid_to is not None:
        set_time(out.valid_to, m.valid_to)
    return out


def status_to_proto(s: Status | None) -> types_pb2.MemoryStatus.ValueType:
    if s is None:
        return types_pb2.MEMORY_STATUS_UNSPECIFIED
    return types_pb2.MemoryStatus.Value(f"MEMORY_STATUS_{s.value}")


_OUTCOMES = {
    Outcome.ACCEPTED: lifecycle_pb2.PROPOSAL_OUTCOME_ACCEPTED,
    Outcome.PENDING_CONFIRMATION: lifecycle_pb2.PROPOSAL_OUTCOME_PENDING_CONFIRMATION,
    Outcome.REJECTED: lifecycle_pb2.PROPOSAL_OUTCOME_REJECTED,
    Outcome.DUPLICATE: lifecycle_pb2.PROPOSAL_OUTCOME_DUPLICATE,
    Outcome.REINFORCED: lifecycle_pb2.PROPOSAL_OUTCOME_REINFORCED,
}


def result_to_proto(r: ProposalResult) -> lifecycle_pb2.ProposalResult:
    return lifecycle_pb2.ProposalResult(
        outcome=_OUTCOMES[r.outcome],
        memory=memory_to_proto(r.memory) if r.memory is not None else None,
        failures=[
            lifecycle_pb2.ValidationFailure(
                validator=f.validator, critical=f.critical, message=f.message, field=f.field
            )
            for f in r.failures
        ],
        privacy_findings=findings_to_proto(r.privacy_findings),
    )


def audit_to_proto(e: AuditEntry) -> types_pb2.AuditEntry:
    return types_pb2.AuditEntry(
        name=f"auditEntries/{e.sequence}",
        sequence=e.sequence,
        action=types_pb2.AuditAction.Value(f"AUDIT_ACTION_{e.action.value}"),
        memory=memory_name(e.memory_id) if e.memory_id else "",
        from_status=status_to_proto(e.from_status),
        to_status=status_to_proto(e.to_status),
        actor=e.actor,
        reason=e.reason,
        request_id=e.request_id,
        create_time=dt_to_ts(e.create_time),
        space=e.space,
        details=e.details,
    )


def revision_to_proto(r: MemoryRevision) -> types_pb2.MemoryRevision:
    return types_pb2.MemoryRevision(
        name=f"{memory_name(r.memory_id)}/revisions/{r.revision}",
        revision=r.revision,
        memory=memory_to_proto(r.memory),
        actor=r.actor,
        create_time=dt_to_ts(r.create_time),
    )


def request_key(method: str, request: Message) -> RequestKey | None:
    """The idempotency key of a write: its request_id plus a body fingerprint."""
    request_id: str = getattr(request, "request_id", "")
    if not request_id:
        return None
    # The body without its request id: cleared and put back rather than copying
    # the whole request (nothing else runs on the request in between).
    request.ClearField("request_id")
    try:
        body = request.SerializeToString(deterministic=True)
    finally:
        request.request_id = request_id  # type: ignore[attr-defined]
    return RequestKey(request_id, method, hashlib.sha256(body).hexdigest())


def parse_policy_name(name: str, field_path: str = "name") -> str:
    """'policy' -> '' (tenant default); 'spaces/{space}/policy' -> space, where the
    space part follows the same rule as a proposal's space."""
    if name == "policy":
        return ""
    if (
        name.startswith("spaces/")
        and name.endswith("/policy")
        and len(name) > len("spaces//policy")
    ):
        space = name[len("spaces/") : -len("/policy")]
        v = Violations()
        check_space(v, field_path, space)
        if not v.items:
            return space
    raise InvalidArgument.field(
        field_path, "must be 'policy' or 'spaces/{space}/policy' with a valid space"
    )


def _dedup_scope(value: int, v: Violations) -> str:
    name = enum_name(lifecycle_pb2.DedupScope, value, "DEDUP_SCOPE_", "policy.dedup_scope", v)
    return "SPACE" if name in (None, "UNSPECIFIED") else name


def policy_from_proto(p: lifecycle_pb2.Policy, v: Violations) -> Policy:
    space = ""
    try:
        space = parse_policy_name(p.name, "policy.name")
    except InvalidArgument as exc:
        v.items.extend(exc.violations)
    schema = (
        struct_to_dict(p.json_schema, "policy.json_schema", v)
        if p.HasField("json_schema")
        else None
    )
    return Policy(
        space=space,
        json_schema=schema,
        json_schema_critical=p.json_schema_critical,
        min_confidence=p.min_confidence,
        min_confidence_critical=p.min_confidence_critical,
        max_content_bytes=p.max_content_bytes,
        required_fields=tuple(p.required_fields),
        webhooks=tuple(
            WebhookSpec(
                name=w.name or f"webhook-{i}",
                url=w.url,
                timeout_ms=w.timeout_ms or 2000,
                critical=w.critical,
            )
            for i, w in enumerate(p.webhooks)
        ),
        default_ttl_seconds={
            k.removeprefix("MEMORY_KIND_"): v for k, v in p.default_ttl_seconds.items()
        },
        validator_timeout_ms=p.validator_timeout_ms,
        near_duplicate_threshold=p.near_duplicate_threshold,
        retention_stability_hours=p.retention_stability_hours,
        decay_exponents={k.removeprefix("MEMORY_KIND_"): x for k, x in p.decay_exponents.items()},
        allowed_personal_data=tuple(p.allowed_personal_data),
        sequential_validators=p.sequential_validators,
        dedup_scope=_dedup_scope(p.dedup_scope, v),
        evidence_weights={
            grade: getattr(p.evidence_weights, grade.lower())
            for grade in ("OFFICIAL", "CORROBORATED", "SINGLE_SOURCE", "UNVERIFIED")
            if p.evidence_weights.HasField(grade.lower())  # type: ignore[arg-type]
        },
        evidence_weights_disabled=p.evidence_weights.disabled,
        min_corroboration=p.min_corroboration,
        assess_on_write=p.assess_on_write,
        pinned_space_class=p.pinned_space_class,
        etag=p.etag,
    )


def policy_to_proto(p: Policy) -> lifecycle_pb2.Policy:
    out = lifecycle_pb2.Policy(
        name=p.name,
        json_schema_critical=p.json_schema_critical,
        min_confidence=p.min_confidence,
        min_confidence_critical=p.min_confidence_critical,
        max_content_bytes=p.max_content_bytes,
        required_fields=list(p.required_fields),
        webhooks=[
            lifecycle_pb2.WebhookValidator(
                name=w.name, url=w.url, timeout_ms=w.timeout_ms, critical=w.critical
            )
            for w in p.webhooks
        ],
        default_ttl_seconds={f"MEMORY_KIND_{k}": s for k, s in p.default_ttl_seconds.items()},
        etag=p.etag,
        update_time=dt_to_ts(p.update_time),
        validator_timeout_ms=p.validator_timeout_ms,
        near_duplicate_threshold=p.near_duplicate_threshold,
        retention_stability_hours=p.retention_stability_hours,
        decay_exponents={f"MEMORY_KIND_{k}": x for k, x in p.decay_exponents.items()},
        allowed_personal_data=list(p.allowed_personal_data),
        sequential_validators=p.sequential_validators,
        dedup_scope=lifecycle_pb2.DedupScope.Value(f"DEDUP_SCOPE_{p.dedup_scope}"),
        min_corroboration=p.min_corroboration,
        assess_on_write=p.assess_on_write,
        pinned_space_class=p.pinned_space_class,
    )
    if p.evidence_weights or p.evidence_weights_disabled:
        out.evidence_weights.disabled = p.evidence_weights_disabled
        for grade, delta in p.evidence_weights.items():
            setattr(out.evidence_weights, grade.lower(), delta)
    if p.json_schema is not None:
        out.json_schema.CopyFrom(dict_to_struct(p.json_schema))
    return out
