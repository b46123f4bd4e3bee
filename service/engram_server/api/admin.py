"""AdminService: tenants, API keys and usage, as protobuf.

Converts requests to domain values, calls `tenancy.operations`, converts results
back. Authorization lives in `tenancy.policy`; errors are domain errors that the
error-mapping interceptor turns into statuses.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import grpc
from engram.v1 import admin_pb2, admin_pb2_grpc
from google.protobuf import empty_pb2, timestamp_pb2

from engram_server.api.convert import request_key
from engram_server.api.timestamps import optional_time
from engram_server.platform.context import AppContext
from engram_server.platform.principal import current_principal
from engram_server.pools.model import parse_group_name
from engram_server.services.pool_groups import GroupOperations
from engram_server.tenancy.model import (
    ApiKey,
    Quota,
    Tenant,
    TenantLlmSettings,
    build_key_spec,
    build_tenant_spec,
    key_name,
    parse_key_name,
    parse_tenant_name,
    tenant_name,
)
from engram_server.tenancy.operations import AdminOperations
from engram_server.tenancy.updates import LlmInput, build_tenant_update, resolve_paths

Context = grpc.aio.ServicerContext[Any, Any]


def _timestamp(value: datetime) -> timestamp_pb2.Timestamp:
    stamp = timestamp_pb2.Timestamp()
    stamp.FromDatetime(value)
    return stamp


def _tenant_pb(tenant: Tenant) -> admin_pb2.Tenant:
    return admin_pb2.Tenant(
        name=tenant_name(tenant.tenant_id),
        display_name=tenant.display_name,
        quota=admin_pb2.TenantQuota(
            requests_per_second=tenant.quota.requests_per_second,
            max_memories=tenant.quota.max_memories,
            max_content_bytes=tenant.quota.max_content_bytes,
        ),
        create_time=_timestamp(tenant.create_time),
        llm=_llm_pb(tenant.llm),
    )


def _llm_pb(llm: TenantLlmSettings | None) -> admin_pb2.LlmSettings | None:
    """The tenant's LLM settings; `api_key` is input only and is never filled."""
    if llm is None:
        return None
    return admin_pb2.LlmSettings(
        provider=llm.provider,
        base_url=llm.base_url,
        model=llm.model,
        api_key_set=llm.api_key_set,
        timeout_seconds=llm.timeout_seconds,
    )


def _key_pb(key: ApiKey) -> admin_pb2.ApiKey:
    out = admin_pb2.ApiKey(
        name=key_name(key.tenant_id, key.key_id),
        display_name=key.display_name,
        scopes=sorted(key.scopes),
        agent=key.agent or "",
        create_time=_timestamp(key.create_time),
        secret_prefix=key.secret_prefix,
    )
    if key.expire_time is not None:
        out.expire_time.CopyFrom(_timestamp(key.expire_time))
    if key.revoke_time is not None:
        out.revoke_time.CopyFrom(_timestamp(key.revoke_time))
    return out


class AdminServicer(admin_pb2_grpc.AdminServiceServicer):
    def __init__(self, ctx: AppContext) -> None:
        self._ops = AdminOperations(ctx)
        self._groups = GroupOperations(ctx.db)

    async def CreateTenant(
        self, request: admin_pb2.CreateTenantRequest, context: Context
    ) -> admin_pb2.Tenant:
        quota = request.tenant.quota
        spec = build_tenant_spec(
            request.tenant_id,
            request.tenant.display_name,
            Quota(quota.requests_per_second, quota.max_memories, quota.max_content_bytes),
            request.request_id,
        )
        return _tenant_pb(await self._ops.create_tenant(current_principal(), spec))

    async def GetTenant(
        self, request: admin_pb2.GetTenantRequest, context: Context
    ) -> admin_pb2.Tenant:
        tenant_id = parse_tenant_name(request.name)
        return _tenant_pb(await self._ops.get_tenant(current_principal(), tenant_id))

    async def UpdateTenant(
        self, request: admin_pb2.UpdateTenantRequest, context: Context
    ) -> admin_pb2.Tenant:
        tenant = request.tenant
        tenant_id = parse_tenant_name(tenant.name, "tenant.name")
        paths = resolve_paths(
            request.update_mask.paths,
            has_display_name=bool(tenant.display_name),
            has_quota=tenant.HasField("quota"),
            has_llm=tenant.HasField("llm"),
        )
        quota = tenant.quota
        update = build_tenant_update(
            tenant_id,
            paths,
            display_name=tenant.display_name,
            quota=Quota(quota.requests_per_second, quota.max_memories, quota.max_content_bytes),
            llm=LlmInput(
                provider=tenant.llm.provider,
                base_url=tenant.llm.base_url,
                model=tenant.llm.model,
                api_key=tenant.llm.api_key,
                timeout_seconds=tenant.llm.timeout_seconds,
            ),
            request_id=request.request_id,
        )
        return _tenant_pb(await self._ops.update_tenant(current_principal(), update))

    async def ListTenants(
        self, request: admin_pb2.ListTenantsRequest, context: Context
    ) -> admin_pb2.ListTenantsResponse:
        page, token = await self._ops.list_tenants(
            current_principal(), request.page_size, request.page_token
        )
        return admin_pb2.ListTenantsResponse(
            tenants=[_tenant_pb(t) for t in page], next_page_token=token
        )

    async def DeleteTenant(
        self, request: admin_pb2.DeleteTenantRequest, context: Context
    ) -> admin_pb2.DeleteTenantResponse:
        tenant_id = parse_tenant_name(request.name)
        deletion = await self._ops.delete_tenant(current_principal(), tenant_id)
        return admin_pb2.DeleteTenantResponse(
            deleted_rows=deletion.deleted_rows,
            deleted_cache_keys=deletion.deleted_cache_keys,
        )

    async def CreateApiKey(
        self, request: admin_pb2.CreateApiKeyRequest, context: Context
    ) -> admin_pb2.CreateApiKeyResponse:
        tenant_id = parse_tenant_name(request.parent, "parent")
        key = request.api_key
        spec = build_key_spec(
            tenant_id,
            display_name=key.display_name,
            scopes=key.scopes,
            agent=key.agent,
            expire_time=optional_time(key, "expire_time", "api_key.expire_time"),
            now=datetime.now(UTC),
            request_id=request.request_id,
        )
        minted = await self._ops.create_key(current_principal(), spec)
        return admin_pb2.CreateApiKeyResponse(api_key=_key_pb(minted.key), secret=minted.secret)

    async def ListApiKeys(
        self, request: admin_pb2.ListApiKeysRequest, context: Context
    ) -> admin_pb2.ListApiKeysResponse:
        tenant_id = parse_tenant_name(request.parent, "parent")
        page, token = await self._ops.list_keys(
            current_principal(),
            tenant_id,
            page_size=request.page_size,
            page_token=request.page_token,
            show_revoked=request.show_revoked,
        )
        return admin_pb2.ListApiKeysResponse(
            api_keys=[_key_pb(k) for k in page], next_page_token=token
        )

    async def RevokeApiKey(
        self, request: admin_pb2.RevokeApiKeyRequest, context: Context
    ) -> admin_pb2.ApiKey:
        tenant_id, key_id = parse_key_name(request.name)
        return _key_pb(await self._ops.revoke_key(current_principal(), tenant_id, key_id))

    async def DeleteApiKey(
        self, request: admin_pb2.DeleteApiKeyRequest, context: Context
    ) -> empty_pb2.Empty:
        tenant_id, key_id = parse_key_name(request.name)
        await self._ops.delete_key(current_principal(), tenant_id, key_id)
        return empty_pb2.Empty()

    async def GetUsage(
        self, request: admin_pb2.GetUsageRequest, context: Context
    ) -> admin_pb2.Usage:
        tenant_id = parse_tenant_name(request.name)
        usage = await self._ops.usage(current_principal(), tenant_id)
        return admin_pb2.Usage(
            name=f"{tenant_name(tenant_id)}/usage",
            memories_by_status={
                f"MEMORY_STATUS_{status}": n for status, n in usage.memories_by_status.items()
            },
            live_memories=usage.live_memories,
            active_api_keys=usage.active_api_keys,
            audit_entries=usage.audit_entries,
            llm_tokens=usage.llm_tokens,
        )

    # --- groups of agent identities ---------------------------------------------------

    async def CreateGroup(
        self, request: admin_pb2.CreateGroupRequest, context: Context
    ) -> admin_pb2.Group:
        return await self._groups.create(
            current_principal(),
            request.group_id,
            request.group,
            request_key("CreateGroup", request),
        )

    async def GetGroup(
        self, request: admin_pb2.GetGroupRequest, context: Context
    ) -> admin_pb2.Group:
        return await self._groups.get(current_principal(), parse_group_name(request.name))

    async def ListGroups(
        self, request: admin_pb2.ListGroupsRequest, context: Context
    ) -> admin_pb2.ListGroupsResponse:
        return await self._groups.list(current_principal(), request.page_size, request.page_token)

    async def AddGroupMember(
        self, request: admin_pb2.AddGroupMemberRequest, context: Context
    ) -> admin_pb2.Group:
        return await self._groups.add_member(
            current_principal(),
            parse_group_name(request.group, "group"),
            request.principal,
            request_key("AddGroupMember", request),
        )

    async def RemoveGroupMember(
        self, request: admin_pb2.RemoveGroupMemberRequest, context: Context
    ) -> admin_pb2.Group:
        return await self._groups.remove_member(
            current_principal(),
            parse_group_name(request.group, "group"),
            request.principal,
            request_key("RemoveGroupMember", request),
        )

    async def DeleteGroup(
        self, request: admin_pb2.DeleteGroupRequest, context: Context
    ) -> empty_pb2.Empty:
        await self._groups.delete(
            current_principal(),
            parse_group_name(request.name),
            request_key("DeleteGroup", request),
        )
        return empty_pb2.Empty()
