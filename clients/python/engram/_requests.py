"""Request builders shared by `Client` and `AsyncClient`.

Both clients expose the same methods; everything but the transport lives here so the
two cannot drift apart.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any

from google.protobuf import field_mask_pb2

from engram import _convert as c
from engram import types as t
from engram.v1 import admin_pb2, lifecycle_pb2, recall_pb2, types_pb2

# ReviseMemory's updatable fields; `structured` is accepted as the name `propose` uses.
REVISABLE_FIELDS = frozenset(
    {
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
    }
)
_REVISE_ALIASES = {"structured": "structured_content"}


def request_id(given: str | None) -> str:
    """The caller's idempotency key, or a fresh one.

    Generating the key once per SDK call (not per attempt) is what makes retrying a
    write after UNAVAILABLE safe: the server answers a repeat with the first outcome.
    """
    return given or str(uuid.uuid4())


def proposal(item: t.MemoryProposal | Mapping[str, Any]) -> t.MemoryProposal:
    if isinstance(item, t.MemoryProposal):
        return item
    return t.MemoryProposal(**dict(item))


def propose(item: t.MemoryProposal, rid: str | None) -> lifecycle_pb2.ProposeMemoryRequest:
    return lifecycle_pb2.ProposeMemoryRequest(
        proposal=c.proposal_in(item), request_id=request_id(rid)
    )


def batch_propose(
    items: Iterable[t.MemoryProposal | Mapping[str, Any]], rid: str | None
) -> lifecycle_pb2.BatchProposeMemoriesRequest:
    return lifecycle_pb2.BatchProposeMemoriesRequest(
        proposals=[c.proposal_in(proposal(item)) for item in items],
        request_id=request_id(rid),
    )


def get(name: str) -> lifecycle_pb2.GetMemoryRequest:
    return lifecycle_pb2.GetMemoryRequest(name=c.memory_name(name))


def list_memories(
    *,
    space: str | None,
    statuses: Iterable[t.MemoryStatus | str],
    kinds: Iterable[t.MemoryKind | str],
    tags: Iterable[str],
    session: str | None,
    created_after: datetime | None,
    created_before: datetime | None,
    order: t.MemoryOrder | str | None,
    page_size: int,
    include_subspaces: bool,
) -> lifecycle_pb2.ListMemoriesRequest:
    request = lifecycle_pb2.ListMemoriesRequest(
        space=space or "",
        statuses=[
            types_pb2.MemoryStatus.ValueType(c.enum_in(t.MemoryStatus, s, "status"))
            for s in statuses
        ],
        kinds=[types_pb2.MemoryKind.ValueType(c.enum_in(t.MemoryKind, k, "kind")) for k in kinds],
        tags=list(tags),
        session=session or "",
        page_size=page_size,
        include_subspaces=include_subspaces,
    )
    if created_after is not None:
        request.create_time_start.CopyFrom(c.time_in(created_after))
    if created_before is not None:
        request.create_time_end.CopyFrom(c.time_in(created_before))
    if order is not None:
        request.order_by = lifecycle_pb2.MemoryOrder.ValueType(
            c.enum_in(t.MemoryOrder, order, "order")
        )
    return request


def confirm(name: str, reason: str, rid: str | None) -> lifecycle_pb2.ConfirmMemoryRequest:
    return lifecycle_pb2.ConfirmMemoryRequest(
        name=c.memory_name(name), reason=reason, request_id=request_id(rid)
    )


def reject(name: str, reason: str, rid: str | None) -> lifecycle_pb2.RejectMemoryRequest:
    return lifecycle_pb2.RejectMemoryRequest(
        name=c.memory_name(name), reason=reason, request_id=request_id(rid)
    )


def retract(
    name: str, reason: str, cascade: bool, rid: str | None
) -> lifecycle_pb2.RetractMemoryRequest:
    return lifecycle_pb2.RetractMemoryRequest(
        name=c.memory_name(name), reason=reason, cascade=cascade, request_id=request_id(rid)
    )


def revise(
    name: str, etag: str, changes: Mapping[str, Any], rid: str | None, reason: str = ""
) -> lifecycle_pb2.ReviseMemoryRequest:
    """A ReviseMemory request whose update_mask lists exactly the given fields.

    A field given as None is still in the mask, which clears it on the server.
    """
    normalised = {_REVISE_ALIASES.get(k, k): v for k, v in changes.items()}
    unknown = sorted(set(normalised) - REVISABLE_FIELDS)
    if unknown:
        allowed = ", ".join(sorted(REVISABLE_FIELDS))
        raise TypeError(f"revise() cannot change {', '.join(unknown)}; revisable: {allowed}")
    if not normalised:
        raise TypeError("revise() needs at least one field to change")
    memory = types_pb2.Memory(name=c.memory_name(name), etag=etag)
    for key, value in normalised.items():
        if value is None:
            continue
        if key == "structured_content":
            memory.structured_content.CopyFrom(c.struct_in(value))
        elif key == "expire_time":
            memory.expire_time.CopyFrom(c.time_in(value))
        elif key == "kind":
            memory.kind = types_pb2.MemoryKind.ValueType(c.enum_in(t.MemoryKind, value, "kind"))
        elif key == "tags":
            memory.tags.extend(value)
        elif key == "attributes":
            memory.attributes.update(value)
        else:
            setattr(memory, key, value)
    return lifecycle_pb2.ReviseMemoryRequest(
        memory=memory,
        update_mask=field_mask_pb2.FieldMask(paths=sorted(normalised)),
        request_id=request_id(rid),
        reason=reason,
    )


def update_confidence(
    name: str, confidence: float, reason: str, rid: str | None
) -> lifecycle_pb2.UpdateMemoryConfidenceRequest:
    return lifecycle_pb2.UpdateMemoryConfidenceRequest(
        name=c.memory_name(name), confidence=confidence, reason=reason, request_id=request_id(rid)
    )


def expire_due(
    as_of: datetime | None, limit: int, space: str = ""
) -> lifecycle_pb2.ExpireDueMemoriesRequest:
    request = lifecycle_pb2.ExpireDueMemoriesRequest(limit=limit, space=space)
    if as_of is not None:
        request.as_of.CopyFrom(c.time_in(as_of))
    return request


def audit_entries(
    memory: str | None, space: str | None, page_size: int
) -> lifecycle_pb2.ListAuditEntriesRequest:
    return lifecycle_pb2.ListAuditEntriesRequest(
        memory=c.memory_name(memory) if memory else "", space=space or "", page_size=page_size
    )


def revisions(name: str, page_size: int) -> lifecycle_pb2.ListMemoryRevisionsRequest:
    return lifecycle_pb2.ListMemoryRevisionsRequest(name=c.memory_name(name), page_size=page_size)


def watch(
    space: str | None, statuses: Iterable[t.MemoryStatus | str], cursor: str | None
) -> lifecycle_pb2.WatchTransitionsRequest:
    return lifecycle_pb2.WatchTransitionsRequest(
        space=space or "",
        statuses=[
            types_pb2.MemoryStatus.ValueType(c.enum_in(t.MemoryStatus, s, "status"))
            for s in statuses
        ],
        cursor=cursor or "",
    )


def purge(
    space: str, session: str, reason: str, rid: str | None
) -> lifecycle_pb2.PurgeMemoriesRequest:
    return lifecycle_pb2.PurgeMemoriesRequest(
        space=space, session=session, reason=reason, request_id=request_id(rid)
    )


def get_policy(space: str | None) -> lifecycle_pb2.GetPolicyRequest:
    return lifecycle_pb2.GetPolicyRequest(name=c.policy_name(space))


def set_policy(
    policy: t.Policy, space: str | None, rid: str | None
) -> lifecycle_pb2.SetPolicyRequest:
    pb = c.policy_in(policy)
    if space is not None:
        pb.name = c.policy_name(space)
    return lifecycle_pb2.SetPolicyRequest(policy=pb, request_id=request_id(rid))


def create_tenant(
    tenant_id: str, display_name: str, quota: t.TenantQuota | None, rid: str | None
) -> admin_pb2.CreateTenantRequest:
    quota = quota or t.TenantQuota()
    return admin_pb2.CreateTenantRequest(
        tenant_id=tenant_id,
        tenant=admin_pb2.Tenant(
            display_name=display_name,
            quota=admin_pb2.TenantQuota(
                requests_per_second=quota.requests_per_second,
                max_memories=quota.max_memories,
                max_content_bytes=quota.max_content_bytes,
            ),
        ),
        request_id=request_id(rid),
    )


def update_tenant(
    tenant: str,
    display_name: str | None,
    quota: t.TenantQuota | None,
    llm: t.LlmSettings | None,
    clear_llm: bool,
    rid: str | None,
) -> admin_pb2.UpdateTenantRequest:
    """Only the arguments given are updated (their mask paths are sent)."""
    if llm is not None and clear_llm:
        raise ValueError("pass llm= or clear_llm=True, not both")
    pb = admin_pb2.Tenant(name=c.tenant_name(tenant))
    paths: list[str] = []
    if display_name is not None:
        pb.display_name = display_name
        paths.append("display_name")
    if quota is not None:
        pb.quota.CopyFrom(
            admin_pb2.TenantQuota(
                requests_per_second=quota.requests_per_second,
                max_memories=quota.max_memories,
                max_content_bytes=quota.max_content_bytes,
            )
        )
        paths.append("quota")
    if llm is not None:
        pb.llm.CopyFrom(
            admin_pb2.LlmSettings(
                provider=llm.provider,
                base_url=llm.base_url,
                model=llm.model,
                api_key=llm.api_key,
                timeout_seconds=llm.timeout_seconds,
            )
        )
        paths.append("llm")
    elif clear_llm:
        paths.append("llm")  # an empty provider removes the settings
    if not paths:
        raise ValueError("nothing to update: pass display_name, quota, llm or clear_llm")
    return admin_pb2.UpdateTenantRequest(
        tenant=pb,
        update_mask=field_mask_pb2.FieldMask(paths=paths),
        request_id=request_id(rid),
    )


def create_api_key(
    tenant: str,
    scopes: Iterable[str],
    display_name: str,
    agent: str,
    expire_time: datetime | timedelta | None,
    rid: str | None,
) -> admin_pb2.CreateApiKeyRequest:
    key = admin_pb2.ApiKey(display_name=display_name, scopes=list(scopes), agent=agent)
    if expire_time is not None:
        key.expire_time.CopyFrom(c.time_in(expire_time))
    return admin_pb2.CreateApiKeyRequest(
        parent=c.tenant_name(tenant), api_key=key, request_id=request_id(rid)
    )


def list_api_keys(tenant: str, show_revoked: bool, page_size: int) -> admin_pb2.ListApiKeysRequest:
    return admin_pb2.ListApiKeysRequest(
        parent=c.tenant_name(tenant), show_revoked=show_revoked, page_size=page_size
    )


# -- working memory, Engage, Reflect, Learn, Consolidate, Dream ----------------------


def append_message(
    space: str,
    session: str,
    content: str,
    role: str,
    time: datetime | None,
    metadata: Mapping[str, str] | None,
    rid: str | None,
) -> lifecycle_pb2.AppendMessageRequest:
    return lifecycle_pb2.AppendMessageRequest(
        space=space,
        session=session,
        message=c.session_message_in(role, content, time, metadata),
        request_id=request_id(rid),
    )


def engage(
    space: str,
    session: str,
    content: str,
    *,
    role: str,
    time: datetime | None,
    metadata: Mapping[str, str] | None,
    recall_spaces: Iterable[str],
    include_subspaces: bool,
    kinds: Iterable[t.MemoryKind | str],
    tags: Iterable[str],
    k: int,
    min_score: float,
    token_budget: int,
    format: t.ContextFormat | str | None,
    group_by_kind: bool,
    include_citations: bool,
    include_evidence_badges: bool,
    resend: bool,
    read_your_writes: bool,
    rid: str | None,
) -> recall_pb2.EngageRequest:
    options = recall_pb2.ContextOptions(
        token_budget=token_budget,
        group_by_kind=group_by_kind,
        include_citations=include_citations,
        include_evidence_badges=include_evidence_badges,
    )
    if format is not None:
        options.format = recall_pb2.ContextFormat.ValueType(
            c.enum_in(t.ContextFormat, format, "context format")
        )
    return recall_pb2.EngageRequest(
        space=space,
        session=session,
        message=c.session_message_in(role, content, time, metadata),
        recall_spaces=list(recall_spaces),
        include_subspaces=include_subspaces,
        filter=recall_pb2.RecallFilter(
            kinds=[
                types_pb2.MemoryKind.ValueType(c.enum_in(t.MemoryKind, x, "kind")) for x in kinds
            ],
            tags=list(tags),
        ),
        k=k,
        min_score=min_score,
        options=options,
        resend=resend,
        consistency=recall_pb2.READ_CONSISTENCY_READ_YOUR_WRITES
        if read_your_writes
        else recall_pb2.READ_CONSISTENCY_UNSPECIFIED,
        request_id=request_id(rid),
    )


def reflect(
    space: str,
    session: str,
    response: str,
    captures: Iterable[t.MemoryProposal | Mapping[str, Any]],
    rid: str | None,
) -> lifecycle_pb2.ReflectRequest:
    return lifecycle_pb2.ReflectRequest(
        space=space,
        session=session,
        response=response,
        captures=[c.proposal_in(proposal(p)) for p in captures],
        request_id=request_id(rid),
    )


def learn(
    space: str,
    turns: Iterable[t.ConversationTurn | tuple[str, str] | Mapping[str, Any]],
    session: str,
    use_llm: bool,
    rid: str | None,
) -> lifecycle_pb2.LearnRequest:
    return lifecycle_pb2.LearnRequest(
        space=space,
        session=session,
        turns=[c.turn_in(x) for x in turns],
        use_llm=use_llm,
        request_id=request_id(rid),
    )


def consolidate(
    space: str, session: str, use_llm: bool, rid: str | None
) -> lifecycle_pb2.ConsolidateRequest:
    return lifecycle_pb2.ConsolidateRequest(
        space=space, session=session, use_llm=use_llm, request_id=request_id(rid)
    )


def dream(
    space: str, dry_run: bool, max_deprecation_ratio: float, policy_text: str, use_llm: bool
) -> lifecycle_pb2.DreamRequest:
    return lifecycle_pb2.DreamRequest(
        space=space,
        dry_run=dry_run,
        max_deprecation_ratio=max_deprecation_ratio,
        policy_text=policy_text,
        use_llm=use_llm,
    )
