"""Protobuf <-> SDK type conversion, in one place so both clients agree."""

from __future__ import annotations

import dataclasses
import enum
import json
import math
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from google.protobuf import json_format, struct_pb2, timestamp_pb2
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from engram import decision_types as dt
from engram import errors
from engram import evidence_types as et
from engram import pool_types as pt
from engram import types as t
from engram.v1 import (
    admin_pb2,
    decisions_pb2,
    evidence_pb2,
    lifecycle_pb2,
    pool_pb2,
    recall_pb2,
    types_pb2,
)

_E = TypeVar("_E", bound=enum.StrEnum)


# Each SDK enum with its proto enum and the prefix its proto value names carry.
# (protobuf's enum wrappers are typed per enum, hence Any.)
_ENUMS: dict[type[enum.StrEnum], tuple[Any, str]] = {
    t.MemoryKind: (types_pb2.MemoryKind, "MEMORY_KIND_"),
    t.MemoryStatus: (types_pb2.MemoryStatus, "MEMORY_STATUS_"),
    t.EvidenceLevel: (types_pb2.EvidenceLevel, "EVIDENCE_LEVEL_"),
    t.MemoryOrigin: (types_pb2.MemoryOrigin, "MEMORY_ORIGIN_"),
    t.AuditAction: (types_pb2.AuditAction, "AUDIT_ACTION_"),
    t.ProposalOutcome: (lifecycle_pb2.ProposalOutcome, "PROPOSAL_OUTCOME_"),
    t.MemoryOrder: (lifecycle_pb2.MemoryOrder, "MEMORY_ORDER_"),
    t.ContextFormat: (recall_pb2.ContextFormat, "CONTEXT_FORMAT_"),
    t.SnapshotChangeType: (recall_pb2.SnapshotChangeType, "SNAPSHOT_CHANGE_TYPE_"),
    pt.PoolRole: (pool_pb2.PoolRole, "POOL_ROLE_"),
    pt.PublicationVisibility: (pool_pb2.PublicationVisibility, "PUBLICATION_VISIBILITY_"),
    pt.PublicationState: (pool_pb2.PublicationState, "PUBLICATION_STATE_"),
    pt.PublishOutcome: (pool_pb2.PublishOutcome, "PUBLISH_OUTCOME_"),
    pt.SlotDeltaOp: (pool_pb2.SlotDeltaOp, "SLOT_DELTA_OP_"),
    pt.TopicEventType: (pool_pb2.TopicEventType, "TOPIC_EVENT_TYPE_"),
    et.EdgeKind: (types_pb2.EdgeKind, "EDGE_KIND_"),
    et.EdgeDirection: (evidence_pb2.EdgeDirection, "EDGE_DIRECTION_"),
    et.ConflictState: (evidence_pb2.ConflictState, "CONFLICT_STATE_"),
    et.ConflictResolution: (evidence_pb2.ConflictResolution, "CONFLICT_RESOLUTION_"),
    et.SpaceClass: (evidence_pb2.SpaceClass, "SPACE_CLASS_"),
    dt.DecisionOutcome: (decisions_pb2.DecisionOutcome, "DECISION_OUTCOME_"),
    dt.CommitDisposition: (decisions_pb2.CommitDisposition, "COMMIT_DISPOSITION_"),
    dt.AnchorMatch: (decisions_pb2.AnchorMatch, "ANCHOR_MATCH_"),
    dt.FileChangeType: (decisions_pb2.FileChangeType, "FILE_CHANGE_TYPE_"),
}


def proto_enum_in(wrapper: Any, prefix: str, value: Any, field: str) -> int:
    """The number of a proto enum value without an SDK enum (`EdgeKind`): a short
    or full name in any case, or a known number."""
    names = [str(n).removeprefix(prefix).lower() for n in wrapper.keys()][1:]
    if isinstance(value, int) and not isinstance(value, bool):
        if value in wrapper.values():
            return value
    elif isinstance(value, str):
        text = value.strip().upper().replace("-", "_").replace(" ", "_")
        full = text if text.startswith(prefix) else prefix + text
        if full in wrapper.keys():
            return int(wrapper.Value(full))
    raise errors.invalid_argument(
        field, f"unknown value {value!r}; expected one of: {', '.join(names)}"
    )


def enum_out(cls: type[_E], number: int) -> _E:
    """The SDK enum member of a proto enum number.

    A number this SDK version does not know (a newer server) reads as UNSPECIFIED
    rather than failing the whole call.
    """
    wrapper, prefix = _ENUMS[cls]
    try:
        return cls(str(wrapper.Name(number)).removeprefix(prefix))
    except ValueError:
        return cls("UNSPECIFIED")


def enum_in(cls: type[enum.StrEnum], value: Any, field: str) -> int:
    """The proto enum number of `value`: a member, a short or full name (any case), or int.

    Anything else raises `engram.InvalidArgument` naming `field` and the accepted names.
    """
    wrapper, prefix = _ENUMS[cls]
    if isinstance(value, int) and not isinstance(value, bool):
        if value in wrapper.values():
            return value
        raise errors.invalid_argument(
            field, f"unknown value {value}; expected one of: {_choices(cls)}"
        )
    if not isinstance(value, str):
        raise errors.invalid_argument(
            field, f"expected a name ({_choices(cls)}), got {type(value).__name__}"
        )
    text = value.strip().upper().replace("-", "_").replace(" ", "_")
    full = text if text.startswith(prefix) else prefix + text
    try:
        return int(wrapper.Value(full))
    except ValueError:
        raise errors.invalid_argument(
            field, f"unknown value {value!r}; expected one of: {_choices(cls)}"
        ) from None


def _choices(cls: type[enum.StrEnum]) -> str:
    return ", ".join(m.value.lower() for m in cls if m.value != "UNSPECIFIED")


def enum_key_in(cls: type[enum.StrEnum], key: Any, field: str) -> str:
    """A map key naming an enum value, as the API's full enum name."""
    wrapper, _ = _ENUMS[cls]
    return str(wrapper.Name(enum_in(cls, key, f"{field}[{key!r}]")))


def enum_key_out(cls: type[enum.StrEnum], key: str) -> str:
    """A map key holding a full enum name, as the SDK's short name."""
    _, prefix = _ENUMS[cls]
    return key.removeprefix(prefix)


def time_out(message: Any, field_name: str) -> datetime | None:
    """A Timestamp field as an aware UTC datetime, or None when the field is unset."""
    if not message.HasField(field_name):
        return None
    stamp: timestamp_pb2.Timestamp = getattr(message, field_name)
    return stamp.ToDatetime(tzinfo=UTC)


def time_in(value: Any, field: str, now: datetime | None = None) -> timestamp_pb2.Timestamp:
    """A Timestamp from an absolute time (naive means UTC) or a delay from now."""
    if isinstance(value, timedelta):
        value = (now or datetime.now(UTC)) + value
    elif not isinstance(value, datetime):
        raise errors.invalid_argument(
            field, f"expected a datetime or a timedelta, got {type(value).__name__}"
        )
    elif value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    stamp = timestamp_pb2.Timestamp()
    try:
        stamp.FromDatetime(value)
    except (ValueError, OverflowError) as exc:
        raise errors.invalid_argument(field, f"not a representable time: {exc}") from None
    return stamp


def struct_out(message: Any, field_name: str) -> dict[str, Any] | None:
    if not message.HasField(field_name):
        return None
    data: dict[str, Any] = json_format.MessageToDict(getattr(message, field_name))
    return data


def struct_in(value: Any, field: str) -> struct_pb2.Struct:
    """A Struct from a JSON-like mapping, or from a string holding a JSON object.

    Anything JSON cannot hold (a set, bytes, a datetime, a non-string key...) raises
    `engram.InvalidArgument` naming the exact place, e.g.
    `proposal.structured_content.tags`.
    """
    if isinstance(value, str | bytes):
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise errors.invalid_argument(field, f"not valid JSON: {exc}") from None
    if not isinstance(value, Mapping):
        raise errors.invalid_argument(
            field, f"expected a JSON object (a mapping), got {type(value).__name__}"
        )
    _check_json(value, field)
    struct = struct_pb2.Struct()
    try:
        struct.update(dict(value))
    except (TypeError, ValueError) as exc:  # a case _check_json does not know
        raise errors.invalid_argument(field, f"not JSON-representable: {exc}") from None
    return struct


def _check_json(value: Any, path: str) -> None:
    """Raises InvalidArgument at the first value a `google.protobuf.Struct` cannot hold."""
    if value is None or isinstance(value, str | bool | int | float):
        if isinstance(value, float) and not math.isfinite(value):
            raise errors.invalid_argument(path, f"{value} is not a JSON number")
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise errors.invalid_argument(
                    path, f"JSON object keys are strings; got {type(key).__name__} {key!r}"
                )
            _check_json(item, f"{path}.{key}")
        return
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            _check_json(item, f"{path}[{index}]")
        return
    hint = "; use a list" if isinstance(value, set | frozenset) else ""
    raise errors.invalid_argument(path, f"a {type(value).__name__} is not a JSON value{hint}")


def _expected(fd: Any) -> str:
    kinds = {
        FieldDescriptor.CPPTYPE_STRING: "a string",
        FieldDescriptor.CPPTYPE_BOOL: "a bool",
        FieldDescriptor.CPPTYPE_DOUBLE: "a number",
        FieldDescriptor.CPPTYPE_FLOAT: "a number",
        FieldDescriptor.CPPTYPE_INT32: "an integer",
        FieldDescriptor.CPPTYPE_INT64: "an integer",
        FieldDescriptor.CPPTYPE_UINT32: "a non-negative integer",
        FieldDescriptor.CPPTYPE_UINT64: "a non-negative integer",
        FieldDescriptor.CPPTYPE_ENUM: "an enum value",
        FieldDescriptor.CPPTYPE_MESSAGE: "a message",
    }
    return kinds.get(fd.cpp_type, "a value")


_M = TypeVar("_M", bound=Message)


def fill(message: _M, prefix: str = "", /, **values: Any) -> _M:
    """Sets the fields of `message` from caller values; None leaves a field unset.

    The one place caller values meet protobuf: a value of the wrong type raises
    `engram.InvalidArgument` naming the field (`prefix` + name, `tags[2]` for an
    item) instead of protobuf's TypeError. Sub-messages are given as messages,
    timestamps as datetime/timedelta, Structs as mappings; repeated fields take
    any iterable but a bare string (which is almost always a forgotten list).
    """
    plan = _plan(message.DESCRIPTOR)
    for key, value in values.items():
        if value is None:
            continue
        entry = plan.get(key)
        if entry is None:
            raise errors.invalid_argument(
                f"{prefix}{key}", f"{message.DESCRIPTOR.name} has no field {key!r}"
            )
        kind, fd = entry
        if (kind == _REPEATED and type(value) in (list, tuple) and not value) or (
            # A default value of a field without presence sets nothing.
            type(value) in _DEFAULT_TYPES[kind] and value in _DEFAULTS and not fd.has_presence
        ):
            continue
        if kind == _STRING:
            if not isinstance(value, str):
                raise errors.invalid_argument(
                    f"{prefix}{key}", f"expected a string, got {type(value).__name__}"
                )
            setattr(message, key, value)
        elif kind == _SCALAR:
            try:
                setattr(message, key, value)
            except (TypeError, ValueError):
                raise errors.invalid_argument(
                    f"{prefix}{key}",
                    f"expected {_expected(fd)}, got {type(value).__name__} {value!r:.40}",
                ) from None
        elif kind == _MAP:
            _fill_map(getattr(message, key), f"{prefix}{key}", fd, value)
        elif kind == _REPEATED:
            _fill_repeated(getattr(message, key), f"{prefix}{key}", fd, value)
        elif kind == _TIMESTAMP and not isinstance(value, Message):
            getattr(message, key).CopyFrom(time_in(value, f"{prefix}{key}"))
        elif kind == _STRUCT and not isinstance(value, Message):
            getattr(message, key).CopyFrom(struct_in(value, f"{prefix}{key}"))
        elif isinstance(value, Message) and value.DESCRIPTOR is fd.message_type:
            getattr(message, key).CopyFrom(value)
        else:
            raise errors.invalid_argument(
                f"{prefix}{key}", f"expected {fd.message_type.name}, got {type(value).__name__}"
            )
    return message


_SCALAR, _STRING, _MAP, _REPEATED, _TIMESTAMP, _STRUCT, _MESSAGE = range(7)
_DEFAULTS = ("", 0)  # 0 == 0.0 == False
_DEFAULT_TYPES: dict[int, tuple[type, ...]] = {
    _STRING: (str,),
    _SCALAR: (bool, int, float),
}
for _kind in (_MAP, _REPEATED, _TIMESTAMP, _STRUCT, _MESSAGE):
    _DEFAULT_TYPES[_kind] = ()
_PLANS: dict[str, dict[str, tuple[int, Any]]] = {}


def _plan(descriptor: Any) -> dict[str, tuple[int, Any]]:
    """How `fill` sets each field of a message type, worked out once per type."""
    plan = _PLANS.get(descriptor.full_name)
    if plan is not None:
        return plan
    plan = {}
    for fd in descriptor.fields:
        mt = fd.message_type
        if mt is not None and mt.GetOptions().map_entry:
            kind = _MAP
        elif _is_repeated(fd):
            kind = _REPEATED
        elif mt is not None:
            kind = {"google.protobuf.Timestamp": _TIMESTAMP, "google.protobuf.Struct": _STRUCT}.get(
                mt.full_name, _MESSAGE
            )
        elif fd.cpp_type == FieldDescriptor.CPPTYPE_STRING:
            kind = _STRING
        else:
            kind = _SCALAR
        plan[fd.name] = (kind, fd)
    _PLANS[descriptor.full_name] = plan
    return plan


def _fill_map(target: Any, path: str, fd: Any, value: Any) -> None:
    if not isinstance(value, Mapping):
        raise errors.invalid_argument(path, f"expected a mapping, got {type(value).__name__}")
    try:
        target.update(value)
        return
    except (TypeError, ValueError):
        pass
    for k, v in value.items():  # find the entry at fault
        try:
            target[k] = v
        except (TypeError, ValueError):
            raise errors.invalid_argument(
                f"{path}[{k!r}]",
                f"expected {_expected(fd.message_type.fields_by_name['key'])} keys and "
                f"{_expected(fd.message_type.fields_by_name['value'])} values",
            ) from None


def _fill_repeated(target: Any, path: str, fd: Any, value: Any) -> None:
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Iterable):
        raise errors.invalid_argument(
            path, f"expected a list of {_expected(fd)[2:]}s, got {type(value).__name__}"
        )
    items = list(value)
    if fd.message_type is None:
        try:
            target.extend(items)
            return
        except (TypeError, ValueError):
            del target[:]
    for index, item in enumerate(items):
        try:
            if fd.message_type is not None:
                target.add().CopyFrom(item)
            else:
                target.append(item)
        except (TypeError, ValueError, AttributeError):
            raise errors.invalid_argument(
                f"{path}[{index}]", f"expected {_expected(fd)}, got {type(item).__name__}"
            ) from None


def _is_repeated(fd: Any) -> bool:
    # `is_repeated` arrived in protobuf 6; `label` is deprecated there.
    flag = getattr(fd, "is_repeated", None)
    if isinstance(flag, bool):
        return flag
    return bool(fd.label == FieldDescriptor.LABEL_REPEATED)


def flag(value: Any, field: str) -> bool:
    """A bool argument the SDK acts on itself (protobuf checks the ones it sends)."""
    if not isinstance(value, bool):
        raise errors.invalid_argument(field, f"expected a bool, got {type(value).__name__}")
    return value


def text_in(value: Any, field: str) -> str:
    """A required string argument, checked before it is used as one."""
    if not isinstance(value, str):
        raise errors.invalid_argument(field, f"expected a string, got {type(value).__name__}")
    return value


def memory_out(pb: types_pb2.Memory) -> t.Memory:
    return t.Memory(
        name=pb.name,
        space=pb.space,
        content=pb.content,
        kind=enum_out(t.MemoryKind, pb.kind),
        status=enum_out(t.MemoryStatus, pb.status),
        session=pb.session,
        thread=pb.thread,
        structured_content=struct_out(pb, "structured_content"),
        source=pb.source,
        agent=pb.agent,
        confidence=pb.confidence,
        importance=pb.importance,
        evidence_level=enum_out(t.EvidenceLevel, pb.evidence_level),
        tags=tuple(pb.tags),
        slot_key=pb.slot_key,
        topic=pb.topic,
        depends_on=tuple(pb.depends_on),
        create_time=time_out(pb, "create_time"),
        update_time=time_out(pb, "update_time"),
        expire_time=time_out(pb, "expire_time"),
        retract_time=time_out(pb, "retract_time"),
        retraction_reason=pb.retraction_reason,
        content_hash=pb.content_hash,
        etag=pb.etag,
        revision=pb.revision,
        superseded_by=pb.superseded_by,
        validation_notes=tuple(pb.validation_notes),
        attributes=dict(pb.attributes),
        access_count=pb.access_count,
        last_access_time=time_out(pb, "last_access_time"),
        origin=enum_out(t.MemoryOrigin, pb.origin),
        valid_from=time_out(pb, "valid_from"),
        valid_to=time_out(pb, "valid_to"),
        raw=pb,
    )


def optional_memory_out(message: Any, field_name: str) -> t.Memory | None:
    if not message.HasField(field_name):
        return None
    return memory_out(getattr(message, field_name))


def proposal_in(
    proposal: t.MemoryProposal, prefix: str = "proposal."
) -> lifecycle_pb2.MemoryProposal:
    if not isinstance(proposal, t.MemoryProposal):
        raise errors.invalid_argument(
            prefix.rstrip("."), f"expected a MemoryProposal, got {type(proposal).__name__}"
        )
    pb = fill(
        lifecycle_pb2.MemoryProposal(),
        prefix,
        space=proposal.space,
        content=proposal.content,
        confidence=proposal.confidence,
        importance=proposal.importance,
        session=proposal.session,
        thread=proposal.thread,
        source=proposal.source,
        tags=proposal.tags,
        slot_key=proposal.slot_key,
        topic=proposal.topic,
        depends_on=_names(proposal.depends_on, f"{prefix}depends_on"),
        attributes=proposal.attributes,
        structured_content=proposal.structured,
        expire_time=proposal.expire_time,
        valid_from=instant_in(proposal.valid_from, f"{prefix}valid_from"),
        valid_to=instant_in(proposal.valid_to, f"{prefix}valid_to"),
    )
    if proposal.expected_slot_memory is not None:
        # Present but empty is meaningful: the slot must be empty.
        expected = proposal.expected_slot_memory
        pb.expected_slot_memory = (
            memory_name(expected, f"{prefix}expected_slot_memory") if expected else ""
        )
    if proposal.origin is not None:
        pb.origin = types_pb2.MemoryOrigin.ValueType(
            enum_in(t.MemoryOrigin, proposal.origin, f"{prefix}origin")
        )
    if proposal.kind is not None:
        pb.kind = types_pb2.MemoryKind.ValueType(
            enum_in(t.MemoryKind, proposal.kind, f"{prefix}kind")
        )
    if proposal.evidence_level is not None:
        pb.evidence_level = types_pb2.EvidenceLevel.ValueType(
            enum_in(t.EvidenceLevel, proposal.evidence_level, f"{prefix}evidence_level")
        )
    return pb


def instant_in(value: Any, field: str) -> Any:
    """A point in time as given: a `timedelta` (a delay from now) is refused, since
    when a fact held in the world is never relative to when the call is made."""
    if isinstance(value, timedelta):
        raise errors.invalid_argument(field, "expected a datetime, got timedelta")
    return value


def _names(values: Any, field: str) -> list[str] | Any:
    """Memory names from full names or bare ids; a non-list is left for `fill` to refuse."""
    if isinstance(values, str | bytes) or not isinstance(values, Iterable):
        return values
    return [memory_name(v, f"{field}[{i}]") for i, v in enumerate(values)]


def failure_out(pb: lifecycle_pb2.ValidationFailure) -> t.ValidationFailure:
    return t.ValidationFailure(
        validator=pb.validator, critical=pb.critical, message=pb.message, field=pb.field
    )


def proposal_result_out(pb: lifecycle_pb2.ProposalResult) -> t.ProposalResult:
    return t.ProposalResult(
        outcome=enum_out(t.ProposalOutcome, pb.outcome),
        memory=optional_memory_out(pb, "memory"),
        failures=tuple(failure_out(f) for f in pb.failures),
        privacy_findings=findings_out(pb.privacy_findings),
        raw=pb,
    )


def retract_out(pb: lifecycle_pb2.RetractMemoryResponse) -> t.RetractResult:
    return t.RetractResult(
        memory=memory_out(pb.memory),
        cascaded=tuple(memory_out(m) for m in pb.cascaded),
        raw=pb,
    )


def expire_out(pb: lifecycle_pb2.ExpireDueMemoriesResponse) -> t.ExpireResult:
    return t.ExpireResult(expired_count=pb.expired_count, names=tuple(pb.names), raw=pb)


def audit_entry_out(pb: types_pb2.AuditEntry) -> t.AuditEntry:
    return t.AuditEntry(
        name=pb.name,
        sequence=pb.sequence,
        action=enum_out(t.AuditAction, pb.action),
        memory=pb.memory,
        from_status=enum_out(t.MemoryStatus, pb.from_status),
        to_status=enum_out(t.MemoryStatus, pb.to_status),
        actor=pb.actor,
        reason=pb.reason,
        request_id=pb.request_id,
        create_time=time_out(pb, "create_time"),
        space=pb.space,
        details=dict(pb.details),
        raw=pb,
    )


def purge_out(pb: lifecycle_pb2.PurgeMemoriesResponse) -> t.PurgeResult:
    tombstone = audit_entry_out(pb.tombstone) if pb.HasField("tombstone") else None
    return t.PurgeResult(purged_count=pb.purged_count, tombstone=tombstone, raw=pb)


def event_out(pb: lifecycle_pb2.WatchTransitionsResponse) -> t.TransitionEvent:
    return t.TransitionEvent(
        cursor=pb.cursor,
        entry=audit_entry_out(pb.entry),
        memory=optional_memory_out(pb, "memory"),
        raw=pb,
    )


def revision_out(pb: types_pb2.MemoryRevision) -> t.MemoryRevision:
    return t.MemoryRevision(
        name=pb.name,
        revision=pb.revision,
        memory=optional_memory_out(pb, "memory"),
        actor=pb.actor,
        create_time=time_out(pb, "create_time"),
        raw=pb,
    )


def policy_out(pb: lifecycle_pb2.Policy) -> t.Policy:
    return t.Policy(
        name=pb.name,
        json_schema=struct_out(pb, "json_schema"),
        json_schema_critical=pb.json_schema_critical,
        min_confidence=pb.min_confidence,
        min_confidence_critical=pb.min_confidence_critical,
        max_content_bytes=pb.max_content_bytes,
        required_fields=tuple(pb.required_fields),
        webhooks=tuple(
            t.WebhookValidator(name=w.name, url=w.url, timeout_ms=w.timeout_ms, critical=w.critical)
            for w in pb.webhooks
        ),
        default_ttl_seconds={
            enum_key_out(t.MemoryKind, k): v for k, v in pb.default_ttl_seconds.items()
        },
        validator_timeout_ms=pb.validator_timeout_ms,
        near_duplicate_threshold=pb.near_duplicate_threshold,
        retention_stability_hours=pb.retention_stability_hours,
        decay_exponents={enum_key_out(t.MemoryKind, k): v for k, v in pb.decay_exponents.items()},
        sequential_validators=pb.sequential_validators,
        dedup_scope=(
            lifecycle_pb2.DedupScope.Name(pb.dedup_scope).removeprefix("DEDUP_SCOPE_")
            if pb.dedup_scope
            else "SPACE"
        ),
        allowed_personal_data=tuple(pb.allowed_personal_data),
        evidence_weights=(
            _evidence_weights_out(pb.evidence_weights) if pb.HasField("evidence_weights") else None
        ),
        min_corroboration=pb.min_corroboration,
        assess_on_write=pb.assess_on_write,
        pinned_space_class=pb.pinned_space_class,
        etag=pb.etag,
        update_time=time_out(pb, "update_time"),
        raw=pb,
    )


def _evidence_weights_out(pb: lifecycle_pb2.EvidenceWeights) -> t.EvidenceWeights:
    return t.EvidenceWeights(
        disabled=pb.disabled,
        official=pb.official if pb.HasField("official") else None,
        corroborated=pb.corroborated if pb.HasField("corroborated") else None,
        single_source=pb.single_source if pb.HasField("single_source") else None,
        unverified=pb.unverified if pb.HasField("unverified") else None,
    )


def _evidence_weights_in(weights: Any) -> lifecycle_pb2.EvidenceWeights | None:
    if weights is None:
        return None
    if not isinstance(weights, t.EvidenceWeights):
        raise errors.invalid_argument(
            "policy.evidence_weights",
            f"expected an engram.EvidenceWeights, got {type(weights).__name__}",
        )
    return fill(
        lifecycle_pb2.EvidenceWeights(),
        "policy.evidence_weights.",
        disabled=weights.disabled,
        official=weights.official,
        corroborated=weights.corroborated,
        single_source=weights.single_source,
        unverified=weights.unverified,
    )


def policy_in(policy: t.Policy) -> lifecycle_pb2.Policy:
    if not isinstance(policy, t.Policy):
        raise errors.invalid_argument(
            "policy", f"expected an engram.Policy, got {type(policy).__name__}"
        )
    webhooks = []
    for index, w in enumerate(policy.webhooks):
        if not isinstance(w, t.WebhookValidator):
            raise errors.invalid_argument(
                f"policy.webhooks[{index}]",
                f"expected an engram.WebhookValidator, got {type(w).__name__}",
            )
        webhooks.append(
            fill(
                lifecycle_pb2.WebhookValidator(),
                f"policy.webhooks[{index}].",
                name=w.name,
                url=w.url,
                timeout_ms=w.timeout_ms,
                critical=w.critical,
            )
        )
    return fill(
        lifecycle_pb2.Policy(),
        "policy.",
        name=policy.name,
        json_schema=policy.json_schema,
        json_schema_critical=policy.json_schema_critical,
        min_confidence=policy.min_confidence,
        min_confidence_critical=policy.min_confidence_critical,
        max_content_bytes=policy.max_content_bytes,
        required_fields=policy.required_fields,
        webhooks=webhooks,
        default_ttl_seconds=_kind_keys(policy.default_ttl_seconds, "policy.default_ttl_seconds"),
        validator_timeout_ms=policy.validator_timeout_ms,
        near_duplicate_threshold=policy.near_duplicate_threshold,
        retention_stability_hours=policy.retention_stability_hours,
        decay_exponents=_kind_keys(policy.decay_exponents, "policy.decay_exponents"),
        sequential_validators=policy.sequential_validators,
        dedup_scope=lifecycle_pb2.DedupScope.Value(f"DEDUP_SCOPE_{policy.dedup_scope.upper()}"),
        allowed_personal_data=policy.allowed_personal_data,
        evidence_weights=_evidence_weights_in(policy.evidence_weights),
        min_corroboration=policy.min_corroboration,
        assess_on_write=policy.assess_on_write,
        pinned_space_class=policy.pinned_space_class,
        etag=policy.etag,
    )


def _kind_keys(values: Any, field: str) -> dict[str, Any]:
    if not isinstance(values, Mapping):
        raise errors.invalid_argument(
            field, f"expected a mapping keyed by kind, got {type(values).__name__}"
        )
    return {enum_key_in(t.MemoryKind, k, field): v for k, v in values.items()}


def tenant_out(pb: admin_pb2.Tenant) -> t.Tenant:
    return t.Tenant(
        name=pb.name,
        display_name=pb.display_name,
        quota=t.TenantQuota(
            requests_per_second=pb.quota.requests_per_second,
            max_memories=pb.quota.max_memories,
            max_content_bytes=pb.quota.max_content_bytes,
        ),
        create_time=time_out(pb, "create_time"),
        llm=llm_settings_out(pb.llm) if pb.HasField("llm") else None,
        raw=pb,
    )


def llm_settings_out(pb: admin_pb2.LlmSettings) -> t.LlmSettings:
    return t.LlmSettings(
        provider=pb.provider,
        base_url=pb.base_url,
        model=pb.model,
        api_key_set=pb.api_key_set,
        timeout_seconds=pb.timeout_seconds,
    )


def deleted_tenant_out(pb: admin_pb2.DeleteTenantResponse) -> t.DeletedTenant:
    return t.DeletedTenant(
        deleted_rows=dict(pb.deleted_rows), deleted_cache_keys=pb.deleted_cache_keys, raw=pb
    )


def api_key_out(pb: admin_pb2.ApiKey) -> t.ApiKey:
    return t.ApiKey(
        name=pb.name,
        display_name=pb.display_name,
        scopes=tuple(pb.scopes),
        agent=pb.agent,
        expire_time=time_out(pb, "expire_time"),
        revoke_time=time_out(pb, "revoke_time"),
        create_time=time_out(pb, "create_time"),
        secret_prefix=pb.secret_prefix,
        raw=pb,
    )


def created_api_key_out(pb: admin_pb2.CreateApiKeyResponse) -> t.CreatedApiKey:
    return t.CreatedApiKey(api_key=api_key_out(pb.api_key), secret=pb.secret, raw=pb)


def usage_out(pb: admin_pb2.Usage) -> t.Usage:
    return t.Usage(
        name=pb.name,
        memories_by_status={
            enum_key_out(t.MemoryStatus, k): v for k, v in pb.memories_by_status.items()
        },
        live_memories=pb.live_memories,
        active_api_keys=pb.active_api_keys,
        audit_entries=pb.audit_entries,
        llm_tokens=dict(pb.llm_tokens),
        raw=pb,
    )


def memory_name(value: Any, field: str = "name") -> str:
    """`memories/{id}` from a full name or a bare id."""
    text = text_in(value, field)
    return text if "/" in text else f"memories/{text}"


def tenant_name(value: Any, field: str = "name") -> str:
    """`tenants/{id}` from a full name or a bare id."""
    text = text_in(value, field)
    return text if text.startswith("tenants/") else f"tenants/{text}"


def api_key_name(value: Any, tenant: str | None = None) -> str:
    """`tenants/{t}/apiKeys/{k}` from a full name, or a bare key id plus its tenant."""
    text = text_in(value, "name")
    if text.startswith("tenants/"):
        return text
    if not tenant:
        raise errors.invalid_argument(
            "name", f"api key {text!r} is not a full name; pass its tenant too"
        )
    return f"{tenant_name(tenant, 'tenant')}/apiKeys/{text}"


def policy_name(space: Any) -> str:
    """`policy` for the tenant default, `spaces/{space}/policy` for one space."""
    return f"spaces/{text_in(space, 'space')}/policy" if space else "policy"


# -- working memory, Engage, Reflect, Learn, Consolidate, Dream ----------------------


def findings_out(pbs: Any) -> tuple[t.PrivacyFinding, ...]:
    return tuple(
        t.PrivacyFinding(category=f.category, type=f.type, action=f.action, field=f.field)
        for f in pbs
    )


def session_message_in(
    role: Any,
    content: Any,
    time: Any,
    metadata: Any,
    prefix: str = "message.",
) -> lifecycle_pb2.SessionMessage:
    return fill(
        lifecycle_pb2.SessionMessage(),
        prefix,
        role=role,
        content=content,
        metadata=metadata,
        time=time,
    )


def session_message_out(pb: lifecycle_pb2.SessionMessage) -> t.SessionMessage:
    return t.SessionMessage(
        role=pb.role,
        content=pb.content,
        time=time_out(pb, "time"),
        metadata=dict(pb.metadata),
        token_count=pb.token_count,
        index=pb.index,
    )


def _optional_message(message: Any) -> t.SessionMessage | None:
    return session_message_out(message.message) if message.HasField("message") else None


def append_out(pb: lifecycle_pb2.AppendMessageResponse) -> t.AppendResult:
    return t.AppendResult(
        message=_optional_message(pb),
        buffered_messages=pb.buffered_messages,
        buffered_tokens=pb.buffered_tokens,
        privacy_findings=findings_out(pb.privacy_findings),
        raw=pb,
    )


def window_out(pb: lifecycle_pb2.GetSessionWindowResponse) -> t.SessionWindow:
    return t.SessionWindow(
        messages=tuple(session_message_out(m) for m in pb.messages),
        token_count=pb.token_count,
        consolidated=pb.consolidated,
        raw=pb,
    )


def session_info_out(pb: lifecycle_pb2.SessionInfo) -> t.SessionInfo:
    return t.SessionInfo(
        session=pb.session,
        message_count=pb.message_count,
        token_count=pb.token_count,
        last_activity=time_out(pb, "last_activity_time"),
    )


def engage_out(pb: recall_pb2.EngageResponse) -> t.EngageResult:
    return t.EngageResult(
        message=_optional_message(pb),
        buffered_messages=pb.buffered_messages,
        buffered_tokens=pb.buffered_tokens,
        context=pb.context,
        hits=tuple(hit_out(h) for h in pb.hits),
        cited_memories=tuple(pb.cited_memories),
        token_count=pb.token_count,
        suppressed_count=pb.suppressed_count,
        privacy_findings=findings_out(pb.privacy_findings),
        raw=pb,
    )


def reflect_out(pb: lifecycle_pb2.ReflectResponse) -> t.ReflectResult:
    return t.ReflectResult(
        results=tuple(proposal_result_out(r) for r in pb.results),
        privacy_findings=findings_out(pb.privacy_findings),
        raw=pb,
    )


def turn_in(turn: Any, field: str = "turns") -> lifecycle_pb2.ConversationTurn:
    if isinstance(turn, tuple) and len(turn) == 2:
        turn = t.ConversationTurn(role=turn[0], content=turn[1])
    elif isinstance(turn, Mapping):
        turn = dataclass_in(t.ConversationTurn, turn, field)
    elif not isinstance(turn, t.ConversationTurn):
        raise errors.invalid_argument(
            field,
            "expected a ConversationTurn, a (role, content) tuple or a mapping, "
            f"got {type(turn).__name__}",
        )
    return fill(
        lifecycle_pb2.ConversationTurn(),
        f"{field}.",
        role=turn.role,
        content=turn.content,
        time=turn.time,
    )


_D = TypeVar("_D")


def dataclass_in(cls: type[_D], values: Mapping[Any, Any], field: str) -> _D:
    """An SDK input dataclass from a mapping of its fields; an unknown or missing
    key raises `engram.InvalidArgument` naming it."""
    known = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    for key in values:
        if key not in known:
            raise errors.invalid_argument(
                f"{field}.{key}",
                f"{cls.__name__} has no field {key!r}; fields: {', '.join(sorted(known))}",
            )
    missing = [
        f.name
        for f in dataclasses.fields(cls)  # type: ignore[arg-type]
        if f.default is dataclasses.MISSING
        and f.default_factory is dataclasses.MISSING
        and f.name not in values
    ]
    if missing:
        raise errors.invalid_argument(f"{field}.{missing[0]}", "required")
    return cls(**values)


def learn_out(pb: lifecycle_pb2.LearnResponse) -> t.LearnResult:
    return t.LearnResult(
        results=tuple(proposal_result_out(r) for r in pb.results),
        privacy_findings=findings_out(pb.privacy_findings),
        unverified_count=pb.unverified_count,
        raw=pb,
    )


def consolidate_out(pb: lifecycle_pb2.ConsolidateResponse) -> t.ConsolidateResult:
    return t.ConsolidateResult(
        summary=optional_memory_out(pb, "summary"),
        records=tuple(memory_out(m) for m in pb.records),
        already_consolidated=pb.already_consolidated,
        privacy_findings=findings_out(pb.privacy_findings),
        raw=pb,
    )


def dream_out(pb: lifecycle_pb2.DreamResponse) -> t.DreamResult:
    return t.DreamResult(
        actions=tuple(
            t.DreamAction(
                action=a.action,
                memories=tuple(a.memories),
                reason=a.reason,
                detail=struct_out(a, "detail"),
            )
            for a in pb.actions
        ),
        applied=pb.applied,
        raw=pb,
    )


# -- RecallService ------------------------------------------------------------------


def breakdown_out(pb: recall_pb2.ScoreBreakdown) -> t.ScoreBreakdown:
    return t.ScoreBreakdown(
        dense=pb.dense,
        lexical=pb.lexical,
        dense_rank=pb.dense_rank,
        lexical_rank=pb.lexical_rank,
        fusion=pb.fusion,
        slot_match=pb.slot_match,
        importance=pb.importance,
        retention=pb.retention,
        recency=pb.recency,
        base_score=pb.base_score,
        evidence_delta=pb.evidence_delta,
        graph_boost=pb.graph_boost,
        trust=pb.trust,
    )


def hit_out(pb: recall_pb2.RecallHit) -> t.RecallHit:
    via = types_pb2.EdgeKind.Name(pb.reached_via) if pb.reached_via else ""
    return t.RecallHit(
        memory=memory_out(pb.memory),
        score=pb.score,
        evidence_badge=pb.evidence_badge,
        breakdown=breakdown_out(pb.breakdown) if pb.HasField("breakdown") else None,
        pool=pb.pool,
        reached_from=pb.reached_from,
        reached_via=str(via).removeprefix("EDGE_KIND_"),
    )


def recall_out(pb: recall_pb2.RecallResponse) -> t.RecallResult:
    return t.RecallResult(
        hits=tuple(hit_out(h) for h in pb.hits),
        pending_index_items=pb.pending_index_items,
        embedding_model=pb.embedding_model,
        raw=pb,
    )


def context_out(pb: recall_pb2.BuildContextResponse) -> t.ContextBlock:
    return t.ContextBlock(
        text=pb.text,
        cited_memories=tuple(pb.cited_memories),
        token_count=pb.token_count,
        omitted_count=pb.omitted_count,
        skipped_memories=tuple(pb.skipped_memories),
        tokenizer=pb.tokenizer,
        raw=pb,
    )


def snapshot_out(pb: recall_pb2.Snapshot) -> t.Snapshot:
    return t.Snapshot(
        name=pb.name,
        space=pb.space,
        include_subspaces=pb.include_subspaces,
        description=pb.description,
        memory_count=pb.memory_count,
        audit_sequence=pb.audit_sequence,
        creator=pb.creator,
        create_time=time_out(pb, "create_time"),
        labels=dict(pb.labels),
        raw=pb,
    )


def restore_out(pb: recall_pb2.RestoreSnapshotResponse) -> t.RestoreResult:
    return t.RestoreResult(
        retracted_count=pb.retracted_count,
        recreated_count=pb.recreated_count,
        revised_count=pb.revised_count,
        unchanged_count=pb.unchanged_count,
        validate_only=pb.validate_only,
        audit_sequence=pb.audit_sequence,
        raw=pb,
    )


def change_out(pb: recall_pb2.SnapshotChange) -> t.SnapshotChange:
    return t.SnapshotChange(
        change_type=enum_out(t.SnapshotChangeType, pb.change_type),
        before=optional_memory_out(pb, "before"),
        after=optional_memory_out(pb, "after"),
        changed_fields=tuple(pb.changed_fields),
    )


def diff_out(
    pages: list[recall_pb2.DiffSnapshotsResponse],
) -> t.SnapshotDiff:
    first = pages[0] if pages else recall_pb2.DiffSnapshotsResponse()
    return t.SnapshotDiff(
        changes=tuple(change_out(ch) for page in pages for ch in page.changes),
        added_count=first.added_count,
        removed_count=first.removed_count,
        changed_count=first.changed_count,
    )


def index_status_out(pb: recall_pb2.IndexStatus) -> t.IndexStatus:
    return t.IndexStatus(
        pending_dense_items=pb.pending_dense_items,
        pending_lexical_items=pb.pending_lexical_items,
        retrying_items=pb.retrying_items,
        oldest_pending_time=time_out(pb, "oldest_pending_time"),
        indexed_memories=pb.indexed_memories,
        embedding_model=pb.embedding_model,
        embedding_dimension=pb.embedding_dimension,
        vector_backend=pb.vector_backend,
        reindex_required=pb.reindex_required,
        reindexing=pb.reindexing,
        last_indexed_time=time_out(pb, "last_indexed_time"),
        raw=pb,
    )


def group_out(pb: admin_pb2.Group) -> t.Group:
    return t.Group(
        name=pb.name,
        display_name=pb.display_name,
        description=pb.description,
        members=tuple(pb.members),
        create_time=time_out(pb, "create_time"),
        update_time=time_out(pb, "update_time"),
        raw=pb,
    )
