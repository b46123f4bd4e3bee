"""Request builders shared by `Client` and `AsyncClient`.

Both clients expose the same methods; everything but the transport lives here so the
two cannot drift apart. Caller values reach protobuf only through `_convert.fill`
and the typed converters, so a bad value raises `engram.InvalidArgument` naming the
request field, before anything is sent.
"""

from __future__ import annotations

import enum
import uuid
from collections.abc import AsyncIterable, Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any

from google.protobuf import field_mask_pb2

from engram import _convert as c
from engram import errors
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


def request_id(given: Any) -> str:
    """The caller's idempotency key, or a fresh one.

    Generating the key once per SDK call (not per attempt) is what makes retrying a
    write after UNAVAILABLE safe: the server answers a repeat with the first outcome.
    """
    if given is None or given == "":
        return str(uuid.uuid4())
    return c.text_in(given, "request_id")


def messages(space: Any, session: Any, values: Any) -> Any:
    """The messages of `append_messages`, checked to be a (sync or async) iterable,
    and their target checked before the stream opens."""
    c.text_in(space, "space")
    c.text_in(session, "session")
    if isinstance(values, str | bytes | Mapping) or not isinstance(
        values, Iterable | AsyncIterable
    ):
        raise errors.invalid_argument(
            "messages", f"expected an iterable of messages, got {type(values).__name__}"
        )
    return values


def _list(values: Any, field: str) -> list[Any]:
    """An iterable argument as a list; a bare string or a non-iterable is refused."""
    if isinstance(values, str | bytes | Mapping) or not isinstance(values, Iterable):
        raise errors.invalid_argument(field, f"expected a list, got {type(values).__name__}")
    return list(values)


def one_or_many(values: Any, field: str) -> list[Any]:
    """A list argument that also takes a single string (`spaces="team-a"`)."""
    if values is None:
        return []
    if isinstance(values, str):
        return [values]
    return _list(values, field)


def enums(cls: type[enum.StrEnum], values: Any, field: str) -> list[Any]:
    return [c.enum_in(cls, v, f"{field}[{i}]") for i, v in enumerate(_list(values, field))]


def proposal(item: Any, field: str = "proposal") -> t.MemoryProposal:
    if isinstance(item, t.MemoryProposal):
        return item
    if isinstance(item, Mapping):
        return c.dataclass_in(t.MemoryProposal, item, field)
    raise errors.invalid_argument(
        field, f"expected a MemoryProposal or a mapping, got {type(item).__name__}"
    )


def propose(item: t.MemoryProposal, rid: Any) -> lifecycle_pb2.ProposeMemoryRequest:
    return lifecycle_pb2.ProposeMemoryRequest(
        proposal=c.proposal_in(item), request_id=request_id(rid)
    )


def batch_propose(items: Any, rid: Any) -> lifecycle_pb2.BatchProposeMemoriesRequest:
    return lifecycle_pb2.BatchProposeMemoriesRequest(
        proposals=[
            c.proposal_in(proposal(item, f"proposals[{i}]"), f"proposals[{i}].")
            for i, item in enumerate(_list(items, "proposals"))
        ],
        request_id=request_id(rid),
    )


def get(name: Any) -> lifecycle_pb2.GetMemoryRequest:
    return lifecycle_pb2.GetMemoryRequest(name=c.memory_name(name))


def list_memories(
    *,
    space: Any,
    statuses: Any,
    kinds: Any,
    tags: Any,
    session: Any,
    created_after: Any,
    created_before: Any,
    order: Any,
    page_size: Any,
    include_subspaces: Any,
) -> lifecycle_pb2.ListMemoriesRequest:
    request = c.fill(
        lifecycle_pb2.ListMemoriesRequest(),
        space=space,
        statuses=enums(t.MemoryStatus, statuses, "statuses"),
        kinds=enums(t.MemoryKind, kinds, "kinds"),
        tags=tags,
        session=session,
        page_size=page_size,
        include_subspaces=include_subspaces,
        create_time_start=created_after,
        create_time_end=created_before,
    )
    if order is not None:
        request.order_by = lifecycle_pb2.MemoryOrder.ValueType(
            c.enum_in(t.MemoryOrder, order, "order_by")
        )
    return request


def confirm(name: Any, reason: Any, rid: Any) -> lifecycle_pb2.ConfirmMemoryRequest:
    return c.fill(
        lifecycle_pb2.ConfirmMemoryRequest(),
        name=c.memory_name(name),
        reason=reason,
        request_id=request_id(rid),
    )


def reject(name: Any, reason: Any, rid: Any) -> lifecycle_pb2.RejectMemoryRequest:
    return c.fill(
        lifecycle_pb2.RejectMemoryRequest(),
        name=c.memory_name(name),
        reason=reason,
        request_id=request_id(rid),
    )


def retract(name: Any, reason: Any, cascade: Any, rid: Any) -> lifecycle_pb2.RetractMemoryRequest:
    return c.fill(
        lifecycle_pb2.RetractMemoryRequest(),
        name=c.memory_name(name),
        reason=reason,
        cascade=cascade,
        request_id=request_id(rid),
    )


def revise(
    name: Any, etag: Any, changes: Mapping[str, Any], rid: Any, reason: Any = ""
) -> lifecycle_pb2.ReviseMemoryRequest:
    """A ReviseMemory request whose update_mask lists exactly the given fields.

    A field given as None is still in the mask, which clears it on the server.
    """
    normalised = {_REVISE_ALIASES.get(k, k): v for k, v in changes.items()}
    unknown = sorted(set(normalised) - REVISABLE_FIELDS)
    if unknown:
        allowed = ", ".join(sorted(REVISABLE_FIELDS))
        raise errors.invalid_argument(
            "update_mask", f"cannot revise {', '.join(unknown)}; revisable: {allowed}"
        )
    if not normalised:
        raise errors.invalid_argument("update_mask", "give at least one field to change")
    memory = c.fill(types_pb2.Memory(), "memory.", name=c.memory_name(name), etag=etag)
    kind = normalised.get("kind")
    c.fill(
        memory,
        "memory.",
        **{k: v for k, v in normalised.items() if k != "kind"},
    )
    if kind is not None:
        memory.kind = types_pb2.MemoryKind.ValueType(c.enum_in(t.MemoryKind, kind, "memory.kind"))
    return c.fill(
        lifecycle_pb2.ReviseMemoryRequest(
            memory=memory,
            update_mask=field_mask_pb2.FieldMask(paths=sorted(normalised)),
            request_id=request_id(rid),
        ),
        reason=reason,
    )


def update_confidence(
    name: Any, confidence: Any, reason: Any, rid: Any
) -> lifecycle_pb2.UpdateMemoryConfidenceRequest:
    return c.fill(
        lifecycle_pb2.UpdateMemoryConfidenceRequest(),
        name=c.memory_name(name),
        confidence=confidence,
        reason=reason,
        request_id=request_id(rid),
    )


def expire_due(as_of: Any, limit: Any, space: Any = "") -> lifecycle_pb2.ExpireDueMemoriesRequest:
    return c.fill(lifecycle_pb2.ExpireDueMemoriesRequest(), limit=limit, as_of=as_of, space=space)


def audit_entries(memory: Any, space: Any, page_size: Any) -> lifecycle_pb2.ListAuditEntriesRequest:
    return c.fill(
        lifecycle_pb2.ListAuditEntriesRequest(),
        memory=c.memory_name(memory, "memory") if memory else None,
        space=space,
        page_size=page_size,
    )


def revisions(name: Any, page_size: Any) -> lifecycle_pb2.ListMemoryRevisionsRequest:
    return c.fill(
        lifecycle_pb2.ListMemoryRevisionsRequest(), name=c.memory_name(name), page_size=page_size
    )


def watch(space: Any, statuses: Any, cursor: Any) -> lifecycle_pb2.WatchTransitionsRequest:
    return c.fill(
        lifecycle_pb2.WatchTransitionsRequest(),
        space=space,
        statuses=enums(t.MemoryStatus, statuses, "statuses"),
        cursor=cursor,
    )


def purge(space: Any, session: Any, reason: Any, rid: Any) -> lifecycle_pb2.PurgeMemoriesRequest:
    return c.fill(
        lifecycle_pb2.PurgeMemoriesRequest(),
        space=space,
        session=session,
        reason=reason,
        request_id=request_id(rid),
    )


def get_policy(space: Any) -> lifecycle_pb2.GetPolicyRequest:
    return lifecycle_pb2.GetPolicyRequest(name=c.policy_name(space))


def set_policy(policy: Any, space: Any, rid: Any) -> lifecycle_pb2.SetPolicyRequest:
    pb = c.policy_in(policy)
    if space is not None:
        pb.name = c.policy_name(space)
    return lifecycle_pb2.SetPolicyRequest(policy=pb, request_id=request_id(rid))


# -- AdminService -------------------------------------------------------------------


def _quota(quota: Any, field: str) -> admin_pb2.TenantQuota:
    if not isinstance(quota, t.TenantQuota):
        raise errors.invalid_argument(
            field, f"expected an engram.TenantQuota, got {type(quota).__name__}"
        )
    return c.fill(
        admin_pb2.TenantQuota(),
        f"{field}.",
        requests_per_second=quota.requests_per_second,
        max_memories=quota.max_memories,
        max_content_bytes=quota.max_content_bytes,
    )


def create_tenant(
    tenant_id: Any, display_name: Any, quota: Any, rid: Any
) -> admin_pb2.CreateTenantRequest:
    tenant = c.fill(admin_pb2.Tenant(), "tenant.", display_name=display_name)
    tenant.quota.CopyFrom(_quota(quota or t.TenantQuota(), "tenant.quota"))
    return c.fill(
        admin_pb2.CreateTenantRequest(),
        tenant_id=tenant_id,
        tenant=tenant,
        request_id=request_id(rid),
    )


def get_tenant(tenant: Any) -> admin_pb2.GetTenantRequest:
    return admin_pb2.GetTenantRequest(name=c.tenant_name(tenant))


def list_tenants(page_size: Any) -> admin_pb2.ListTenantsRequest:
    return c.fill(admin_pb2.ListTenantsRequest(), page_size=page_size)


def delete_tenant(tenant: Any) -> admin_pb2.DeleteTenantRequest:
    return admin_pb2.DeleteTenantRequest(name=c.tenant_name(tenant))


def get_usage(tenant: Any) -> admin_pb2.GetUsageRequest:
    return admin_pb2.GetUsageRequest(name=c.tenant_name(tenant))


def update_tenant(
    tenant: Any,
    display_name: Any,
    quota: Any,
    llm: Any,
    clear_llm: Any,
    rid: Any,
) -> admin_pb2.UpdateTenantRequest:
    """Only the arguments given are updated (their mask paths are sent)."""
    if c.flag(clear_llm, "tenant.llm") and llm is not None:
        raise errors.invalid_argument("tenant.llm", "pass llm= or clear_llm=True, not both")
    pb = admin_pb2.Tenant(name=c.tenant_name(tenant))
    paths: list[str] = []
    if display_name is not None:
        c.fill(pb, "tenant.", display_name=display_name)
        paths.append("display_name")
    if quota is not None:
        pb.quota.CopyFrom(_quota(quota, "tenant.quota"))
        paths.append("quota")
    if llm is not None:
        if not isinstance(llm, t.LlmSettings):
            raise errors.invalid_argument(
                "tenant.llm", f"expected an engram.LlmSettings, got {type(llm).__name__}"
            )
        c.fill(
            pb.llm,
            "tenant.llm.",
            provider=llm.provider,
            base_url=llm.base_url,
            model=llm.model,
            api_key=llm.api_key,
            timeout_seconds=llm.timeout_seconds,
        )
        paths.append("llm")
    elif clear_llm:
        paths.append("llm")  # an empty provider removes the settings
    if not paths:
        raise errors.invalid_argument(
            "update_mask", "nothing to update: pass display_name, quota, llm or clear_llm"
        )
    return admin_pb2.UpdateTenantRequest(
        tenant=pb,
        update_mask=field_mask_pb2.FieldMask(paths=paths),
        request_id=request_id(rid),
    )


def create_api_key(
    tenant: Any,
    scopes: Any,
    display_name: Any,
    agent: Any,
    expire_time: datetime | timedelta | None,
    rid: Any,
) -> admin_pb2.CreateApiKeyRequest:
    key = c.fill(
        admin_pb2.ApiKey(),
        "api_key.",
        display_name=display_name,
        scopes=scopes,
        agent=agent,
        expire_time=expire_time,
    )
    return admin_pb2.CreateApiKeyRequest(
        parent=c.tenant_name(tenant, "parent"), api_key=key, request_id=request_id(rid)
    )


def list_api_keys(tenant: Any, show_revoked: Any, page_size: Any) -> admin_pb2.ListApiKeysRequest:
    return c.fill(
        admin_pb2.ListApiKeysRequest(),
        parent=c.tenant_name(tenant, "parent"),
        show_revoked=show_revoked,
        page_size=page_size,
    )


def revoke_api_key(name: Any, tenant: Any) -> admin_pb2.RevokeApiKeyRequest:
    return admin_pb2.RevokeApiKeyRequest(name=c.api_key_name(name, tenant))


def delete_api_key(name: Any, tenant: Any) -> admin_pb2.DeleteApiKeyRequest:
    return admin_pb2.DeleteApiKeyRequest(name=c.api_key_name(name, tenant))


def group_name(value: Any, field: str = "name") -> str:
    """`groups/{id}` from a full name or a bare id."""
    text = c.text_in(value, field)
    return text if text.startswith("groups/") else f"groups/{text}"


def create_group(
    group_id: Any, display_name: Any, description: Any, rid: Any
) -> admin_pb2.CreateGroupRequest:
    return c.fill(
        admin_pb2.CreateGroupRequest(),
        group_id=group_id,
        group=c.fill(
            admin_pb2.Group(), "group.", display_name=display_name, description=description
        ),
        request_id=request_id(rid),
    )


def group_member(
    cls: type[admin_pb2.AddGroupMemberRequest] | type[admin_pb2.RemoveGroupMemberRequest],
    group: Any,
    principal: Any,
    rid: Any,
) -> Any:
    return c.fill(
        cls(), group=group_name(group, "group"), principal=principal, request_id=request_id(rid)
    )


# -- working memory, Engage, Reflect, Learn, Consolidate, Dream ----------------------


def append_message(
    space: Any,
    session: Any,
    content: Any,
    role: Any,
    time: Any,
    metadata: Any,
    rid: Any,
) -> lifecycle_pb2.AppendMessageRequest:
    return c.fill(
        lifecycle_pb2.AppendMessageRequest(),
        space=space,
        session=session,
        message=c.session_message_in(role, content, time, metadata),
        request_id=request_id(rid),
    )


def session_window(space: Any, session: Any, last_n: Any) -> lifecycle_pb2.GetSessionWindowRequest:
    return c.fill(
        lifecycle_pb2.GetSessionWindowRequest(), space=space, session=session, last_n=last_n
    )


def list_sessions(space: Any) -> lifecycle_pb2.ListSessionsRequest:
    return c.fill(lifecycle_pb2.ListSessionsRequest(), space=space)


def clear_session(space: Any, session: Any) -> lifecycle_pb2.ClearSessionRequest:
    return c.fill(lifecycle_pb2.ClearSessionRequest(), space=space, session=session)


def context_options(
    token_budget: Any,
    format: Any,
    group_by_kind: Any,
    include_citations: Any,
    include_evidence_badges: Any,
) -> recall_pb2.ContextOptions:
    options = c.fill(
        recall_pb2.ContextOptions(),
        "options.",
        token_budget=token_budget,
        group_by_kind=group_by_kind,
        include_citations=include_citations,
        include_evidence_badges=include_evidence_badges,
    )
    if format is not None:
        options.format = recall_pb2.ContextFormat.ValueType(
            c.enum_in(t.ContextFormat, format, "options.format")
        )
    return options


def consistency(read_your_writes: Any) -> recall_pb2.ReadConsistency.ValueType:
    return (
        recall_pb2.READ_CONSISTENCY_READ_YOUR_WRITES
        if c.flag(read_your_writes, "consistency")
        else recall_pb2.READ_CONSISTENCY_UNSPECIFIED
    )


def engage(
    space: Any,
    session: Any,
    content: Any,
    *,
    role: Any,
    time: Any,
    metadata: Any,
    recall_spaces: Any,
    include_subspaces: Any,
    pools: Any = (),
    kinds: Any,
    tags: Any,
    k: Any,
    min_score: Any,
    token_budget: Any,
    format: Any,
    group_by_kind: Any,
    include_citations: Any,
    include_evidence_badges: Any,
    resend: Any,
    read_your_writes: Any,
    rid: Any,
    valid_at: Any = None,
    known_at: Any = None,
) -> recall_pb2.EngageRequest:
    return c.fill(
        recall_pb2.EngageRequest(),
        space=space,
        session=session,
        message=c.session_message_in(role, content, time, metadata),
        recall_spaces=one_or_many(recall_spaces, "recall_spaces"),
        include_subspaces=include_subspaces,
        pools=one_or_many(pools, "pools"),
        filter=recall_filter(kinds=kinds, tags=tags),
        k=k,
        min_score=min_score,
        options=context_options(
            token_budget, format, group_by_kind, include_citations, include_evidence_badges
        ),
        resend=resend,
        consistency=consistency(read_your_writes),
        request_id=request_id(rid),
        valid_at=c.instant_in(valid_at, "valid_at"),
        known_at=c.instant_in(known_at, "known_at"),
    )


def reflect(
    space: Any, session: Any, response: Any, captures: Any, rid: Any
) -> lifecycle_pb2.ReflectRequest:
    return c.fill(
        lifecycle_pb2.ReflectRequest(),
        space=space,
        session=session,
        response=response,
        captures=[
            c.proposal_in(proposal(_capture(p), f"captures[{i}]"), f"captures[{i}].")
            for i, p in enumerate(_list(captures, "captures"))
        ],
        request_id=request_id(rid),
    )


def _capture(item: Any) -> Any:
    """A capture given as a mapping may leave out `space`: the server fills in the
    session's space."""
    if isinstance(item, Mapping) and "space" not in item:
        return {"space": "", **item}
    return item


def learn(
    space: Any, turns: Any, session: Any, use_llm: Any, rid: Any
) -> lifecycle_pb2.LearnRequest:
    return c.fill(
        lifecycle_pb2.LearnRequest(),
        space=space,
        session=session,
        turns=[c.turn_in(x, f"turns[{i}]") for i, x in enumerate(_list(turns, "turns"))],
        use_llm=use_llm,
        request_id=request_id(rid),
    )


def consolidate(
    space: Any, session: Any, use_llm: Any, rid: Any
) -> lifecycle_pb2.ConsolidateRequest:
    return c.fill(
        lifecycle_pb2.ConsolidateRequest(),
        space=space,
        session=session,
        use_llm=use_llm,
        request_id=request_id(rid),
    )


def dream(
    space: Any, dry_run: Any, max_deprecation_ratio: Any, policy_text: Any, use_llm: Any
) -> lifecycle_pb2.DreamRequest:
    return c.fill(
        lifecycle_pb2.DreamRequest(),
        space=space,
        dry_run=dry_run,
        max_deprecation_ratio=max_deprecation_ratio,
        policy_text=policy_text,
        use_llm=use_llm,
    )


# -- RecallService: Recall, BuildContext, snapshots, index status ---------------------


def recall_filter(
    *,
    kinds: Any = (),
    tags: Any = (),
    topic: Any = None,
    session: Any = None,
    slot_key: Any = None,
    created_after: Any = None,
    created_before: Any = None,
    min_evidence_level: Any = None,
    include_superseded: Any = None,
    include_expired: Any = None,
) -> recall_pb2.RecallFilter:
    pb = c.fill(
        recall_pb2.RecallFilter(),
        "filter.",
        kinds=enums(t.MemoryKind, kinds, "filter.kinds"),
        tags=tags,
        topic=topic,
        session=session,
        slot_key=slot_key,
        create_time_start=created_after,
        create_time_end=created_before,
        include_superseded=include_superseded,
        include_expired=include_expired,
    )
    if min_evidence_level is not None:
        pb.min_evidence_level = types_pb2.EvidenceLevel.ValueType(
            c.enum_in(t.EvidenceLevel, min_evidence_level, "filter.min_evidence_level")
        )
    return pb


def graph_expansion(graph: Any) -> recall_pb2.GraphExpansion | None:
    """`graph=True`, or a `GraphExpansion`, or a mapping of its fields."""
    if graph is None or graph is False:
        return None
    if graph is True:
        graph = t.GraphExpansion()
    elif isinstance(graph, Mapping):
        graph = c.dataclass_in(t.GraphExpansion, graph, "graph")
    elif not isinstance(graph, t.GraphExpansion):
        raise errors.invalid_argument(
            "graph", f"expected True, a GraphExpansion or a mapping, got {type(graph).__name__}"
        )
    return c.fill(
        recall_pb2.GraphExpansion(enabled=True),
        "graph.",
        edge_kinds=[
            c.proto_enum_in(types_pb2.EdgeKind, "EDGE_KIND_", kind, f"graph.edge_kinds[{i}]")
            for i, kind in enumerate(_list(graph.edge_kinds, "graph.edge_kinds"))
        ],
        max_hops=graph.max_hops,
        seed_count=graph.seed_count,
    )


def recall(query: Any, spaces: Any, options: Mapping[str, Any]) -> recall_pb2.RecallRequest:
    o = dict(options)
    return c.fill(
        recall_pb2.RecallRequest(),
        query=query,
        spaces=one_or_many(spaces, "spaces"),
        include_subspaces=o.pop("include_subspaces"),
        pools=one_or_many(o.pop("pools"), "pools"),
        k=o.pop("k"),
        min_score=o.pop("min_score"),
        now=o.pop("now"),
        consistency=consistency(o.pop("read_your_writes")),
        graph=graph_expansion(o.pop("graph")),
        skip_access_tracking=o.pop("skip_access_tracking"),
        valid_at=c.instant_in(o.pop("valid_at"), "valid_at"),
        known_at=c.instant_in(o.pop("known_at"), "known_at"),
        depth=recall_pb2.RECALL_DEPTH_DEEP if c.flag(o.pop("depth", False), "depth") else None,
        filter=recall_filter(**o),
    )


def build_context(
    query: Any, memories: Any, spaces: Any, options: Mapping[str, Any]
) -> recall_pb2.BuildContextRequest:
    o = dict(options)
    if (query is None or query == "") == (not memories):
        raise errors.invalid_argument(
            "query", "give either a query or memories (explicit memory names), not both"
        )
    return c.fill(
        recall_pb2.BuildContextRequest(),
        query=query,
        memories=[
            c.memory_name(m, f"memories[{i}]")
            for i, m in enumerate(_list(memories or (), "memories"))
        ],
        spaces=one_or_many(spaces, "spaces"),
        include_subspaces=o.pop("include_subspaces"),
        pools=one_or_many(o.pop("pools"), "pools"),
        k=o.pop("k"),
        min_score=o.pop("min_score"),
        now=o.pop("now"),
        valid_at=c.instant_in(o.pop("valid_at", None), "valid_at"),
        known_at=c.instant_in(o.pop("known_at", None), "known_at"),
        consistency=consistency(o.pop("read_your_writes")),
        depth=recall_pb2.RECALL_DEPTH_DEEP if c.flag(o.pop("depth", False), "depth") else None,
        options=context_options(
            o.pop("token_budget"),
            o.pop("format"),
            o.pop("group_by_kind"),
            o.pop("include_citations"),
            o.pop("include_evidence_badges"),
        ),
        filter=recall_filter(**o),
    )


def snapshot_name(value: Any, field: str = "name") -> str:
    """`snapshots/{id}` from a full name or a bare id."""
    value = c.text_in(value, field)
    return value if value.startswith("snapshots/") else f"snapshots/{value}"


def create_snapshot(
    space: Any,
    snapshot_id: Any,
    description: Any,
    include_subspaces: Any,
    labels: Any,
    rid: Any,
) -> recall_pb2.CreateSnapshotRequest:
    snapshot = c.fill(
        recall_pb2.Snapshot(),
        "snapshot.",
        space=space,
        description=description,
        include_subspaces=include_subspaces,
        labels=labels,
    )
    return c.fill(
        recall_pb2.CreateSnapshotRequest(),
        snapshot=snapshot,
        snapshot_id=snapshot_id,
        request_id=request_id(rid),
    )


def get_snapshot(name: Any) -> recall_pb2.GetSnapshotRequest:
    return recall_pb2.GetSnapshotRequest(name=snapshot_name(name))


def list_snapshots(space: Any, page_size: Any) -> recall_pb2.ListSnapshotsRequest:
    return c.fill(recall_pb2.ListSnapshotsRequest(), space=space, page_size=page_size)


def restore_snapshot(
    name: Any, reason: Any, validate_only: Any, rid: Any
) -> recall_pb2.RestoreSnapshotRequest:
    return c.fill(
        recall_pb2.RestoreSnapshotRequest(),
        name=snapshot_name(name),
        reason=reason,
        validate_only=validate_only,
        request_id=request_id(rid),
    )


def delete_snapshot(name: Any, rid: Any) -> recall_pb2.DeleteSnapshotRequest:
    return recall_pb2.DeleteSnapshotRequest(name=snapshot_name(name), request_id=request_id(rid))


def diff_snapshots(base: Any, target: Any, page_size: Any) -> recall_pb2.DiffSnapshotsRequest:
    return c.fill(
        recall_pb2.DiffSnapshotsRequest(),
        base=snapshot_name(base, "base"),
        target=snapshot_name(target, "target") if target else None,
        page_size=page_size,
    )
