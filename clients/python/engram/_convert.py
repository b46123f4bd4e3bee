"""Protobuf <-> SDK type conversion, in one place so both clients agree."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from google.protobuf import json_format, struct_pb2, timestamp_pb2

from engram import types as t
from engram.v1 import admin_pb2, lifecycle_pb2, recall_pb2, types_pb2

_E = TypeVar("_E", bound=enum.StrEnum)


# Each SDK enum with its proto enum and the prefix its proto value names carry.
# (protobuf's enum wrappers are typed per enum, hence Any.)
_ENUMS: dict[type[enum.StrEnum], tuple[Any, str]] = {
    t.MemoryKind: (types_pb2.MemoryKind, "MEMORY_KIND_"),
    t.MemoryStatus: (types_pb2.MemoryStatus, "MEMORY_STATUS_"),
    t.EvidenceLevel: (types_pb2.EvidenceLevel, "EVIDENCE_LEVEL_"),
    t.AuditAction: (types_pb2.AuditAction, "AUDIT_ACTION_"),
    t.ProposalOutcome: (lifecycle_pb2.ProposalOutcome, "PROPOSAL_OUTCOME_"),
    t.MemoryOrder: (lifecycle_pb2.MemoryOrder, "MEMORY_ORDER_"),
    t.ContextFormat: (recall_pb2.ContextFormat, "CONTEXT_FORMAT_"),
}


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


def enum_in(cls: type[enum.StrEnum], value: str | int, what: str) -> int:
    """The proto enum number of `value`: a member, a short or full name (any case), or int.

    Raises ValueError naming `what` and the accepted names for anything else.
    """
    wrapper, prefix = _ENUMS[cls]
    if isinstance(value, int) and not isinstance(value, bool):
        wrapper.Name(value)  # raises ValueError for an unknown number
        return value
    text = str(value).strip().upper().replace("-", "_").replace(" ", "_")
    full = text if text.startswith(prefix) else prefix + text
    try:
        return int(wrapper.Value(full))
    except ValueError:
        choices = ", ".join(m.value.lower() for m in cls if m.value != "UNSPECIFIED")
        raise ValueError(f"unknown {what} {value!r}; expected one of: {choices}") from None


def enum_key_in(cls: type[enum.StrEnum], key: str, what: str) -> str:
    """A map key naming an enum value, as the API's full enum name."""
    wrapper, _ = _ENUMS[cls]
    return str(wrapper.Name(enum_in(cls, key, what)))


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


def time_in(value: datetime | timedelta, now: datetime | None = None) -> timestamp_pb2.Timestamp:
    """A Timestamp from an absolute time (naive means UTC) or a delay from now."""
    if isinstance(value, timedelta):
        value = (now or datetime.now(UTC)) + value
    elif value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    stamp = timestamp_pb2.Timestamp()
    stamp.FromDatetime(value)
    return stamp


def struct_out(message: Any, field_name: str) -> dict[str, Any] | None:
    if not message.HasField(field_name):
        return None
    data: dict[str, Any] = json_format.MessageToDict(getattr(message, field_name))
    return data


def struct_in(value: Mapping[str, Any]) -> struct_pb2.Struct:
    """A Struct from a JSON-like mapping; non-JSON values raise TypeError or ValueError."""
    struct = struct_pb2.Struct()
    struct.update(dict(value))
    return struct


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
        raw=pb,
    )


def optional_memory_out(message: Any, field_name: str) -> t.Memory | None:
    if not message.HasField(field_name):
        return None
    return memory_out(getattr(message, field_name))


def proposal_in(proposal: t.MemoryProposal) -> lifecycle_pb2.MemoryProposal:
    pb = lifecycle_pb2.MemoryProposal(
        space=proposal.space,
        content=proposal.content,
        confidence=proposal.confidence,
        session=proposal.session,
        thread=proposal.thread,
        source=proposal.source,
        tags=list(proposal.tags),
        slot_key=proposal.slot_key,
        topic=proposal.topic,
        depends_on=[memory_name(d) for d in proposal.depends_on],
        attributes=dict(proposal.attributes or {}),
    )
    if proposal.kind is not None:
        pb.kind = types_pb2.MemoryKind.ValueType(enum_in(t.MemoryKind, proposal.kind, "kind"))
    if proposal.evidence_level is not None:
        pb.evidence_level = types_pb2.EvidenceLevel.ValueType(
            enum_in(t.EvidenceLevel, proposal.evidence_level, "evidence level")
        )
    if proposal.importance is not None:
        pb.importance = proposal.importance
    if proposal.structured is not None:
        pb.structured_content.CopyFrom(struct_in(proposal.structured))
    if proposal.expire_time is not None:
        pb.expire_time.CopyFrom(time_in(proposal.expire_time))
    return pb


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
        etag=pb.etag,
        update_time=time_out(pb, "update_time"),
        raw=pb,
    )


def policy_in(policy: t.Policy) -> lifecycle_pb2.Policy:
    pb = lifecycle_pb2.Policy(
        name=policy.name,
        json_schema_critical=policy.json_schema_critical,
        min_confidence=policy.min_confidence,
        min_confidence_critical=policy.min_confidence_critical,
        max_content_bytes=policy.max_content_bytes,
        required_fields=list(policy.required_fields),
        webhooks=[
            lifecycle_pb2.WebhookValidator(
                name=w.name, url=w.url, timeout_ms=w.timeout_ms, critical=w.critical
            )
            for w in policy.webhooks
        ],
        default_ttl_seconds={
            enum_key_in(t.MemoryKind, k, "kind"): v for k, v in policy.default_ttl_seconds.items()
        },
        validator_timeout_ms=policy.validator_timeout_ms,
        near_duplicate_threshold=policy.near_duplicate_threshold,
        retention_stability_hours=policy.retention_stability_hours,
        decay_exponents={
            enum_key_in(t.MemoryKind, k, "kind"): v for k, v in policy.decay_exponents.items()
        },
        sequential_validators=policy.sequential_validators,
        dedup_scope=lifecycle_pb2.DedupScope.Value(f"DEDUP_SCOPE_{policy.dedup_scope.upper()}"),
        etag=policy.etag,
    )
    if policy.json_schema is not None:
        pb.json_schema.CopyFrom(struct_in(policy.json_schema))
    return pb


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


def memory_name(value: str) -> str:
    """`memories/{id}` from a full name or a bare id."""
    return value if "/" in value else f"memories/{value}"


def tenant_name(value: str) -> str:
    """`tenants/{id}` from a full name or a bare id."""
    return value if value.startswith("tenants/") else f"tenants/{value}"


def api_key_name(value: str, tenant: str | None = None) -> str:
    """`tenants/{t}/apiKeys/{k}` from a full name, or a bare key id plus its tenant."""
    if value.startswith("tenants/"):
        return value
    if not tenant:
        raise ValueError(f"api key {value!r} is not a full name; pass its tenant too")
    return f"{tenant_name(tenant)}/apiKeys/{value}"


def policy_name(space: str | None) -> str:
    """`policy` for the tenant default, `spaces/{space}/policy` for one space."""
    return f"spaces/{space}/policy" if space else "policy"


# -- working memory, Engage, Reflect, Learn, Consolidate, Dream ----------------------


def findings_out(pbs: Any) -> tuple[t.PrivacyFinding, ...]:
    return tuple(
        t.PrivacyFinding(category=f.category, type=f.type, action=f.action, field=f.field)
        for f in pbs
    )


def session_message_in(
    role: str,
    content: str,
    time: datetime | None,
    metadata: Mapping[str, str] | None,
) -> lifecycle_pb2.SessionMessage:
    pb = lifecycle_pb2.SessionMessage(role=role, content=content, metadata=dict(metadata or {}))
    if time is not None:
        pb.time.CopyFrom(time_in(time))
    return pb


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
        hits=tuple(
            t.RecallHit(memory=memory_out(h.memory), score=h.score, evidence_badge=h.evidence_badge)
            for h in pb.hits
        ),
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


def turn_in(
    turn: t.ConversationTurn | tuple[str, str] | Mapping[str, Any],
) -> lifecycle_pb2.ConversationTurn:
    if isinstance(turn, tuple):
        turn = t.ConversationTurn(role=turn[0], content=turn[1])
    elif not isinstance(turn, t.ConversationTurn):
        turn = t.ConversationTurn(**dict(turn))
    pb = lifecycle_pb2.ConversationTurn(role=turn.role, content=turn.content)
    if turn.time is not None:
        pb.time.CopyFrom(time_in(turn.time))
    return pb


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
