"""AdminService methods: tenants, API keys and usage. Needs an admin or platform key.

They are methods of `engram.Client` / `engram.AsyncClient` themselves
(`client.create_tenant(...)`), and of `client.admin` as before, which shares the
client's connection. `AdminClient` / `AsyncAdminClient` also work on their own.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator
from datetime import datetime, timedelta

from engram import _convert as c
from engram import _requests
from engram import types as t
from engram._base import AsyncClientBase, ClientBase, rpc
from engram.v1 import admin_pb2, admin_pb2_grpc


class AdminMethods(ClientBase):
    """AdminService: tenants, API keys, usage."""

    @property
    def _admin(self) -> admin_pb2_grpc.AdminServiceStub:
        return self._stub_of(admin_pb2_grpc.AdminServiceStub)

    @rpc("engram.v1.AdminService.CreateTenant")
    def create_tenant(
        self,
        tenant_id: str,
        display_name: str = "",
        *,
        quota: t.TenantQuota | None = None,
        request_id: str | None = None,
    ) -> t.Tenant:
        """Creates a tenant (platform key)."""
        request = _requests.create_tenant(tenant_id, display_name, quota, request_id)
        return c.tenant_out(self._unary(self._admin.CreateTenant, request, retryable=True))

    @rpc("engram.v1.AdminService.GetTenant")
    def get_tenant(self, tenant: str) -> t.Tenant:
        request = _requests.get_tenant(tenant)
        return c.tenant_out(self._unary(self._admin.GetTenant, request, retryable=True))

    @rpc("engram.v1.AdminService.UpdateTenant")
    def update_tenant(
        self,
        tenant: str,
        *,
        display_name: str | None = None,
        quota: t.TenantQuota | None = None,
        llm: t.LlmSettings | None = None,
        clear_llm: bool = False,
        request_id: str | None = None,
    ) -> t.Tenant:
        """Updates the given fields. A tenant admin may set only its own `llm`.

        `llm` replaces the tenant's LLM settings (an empty `api_key` keeps the
        stored one while provider and base URL stay the same); `clear_llm=True`
        removes them, so the server-wide LLM (if any) applies again.
        """
        request = _requests.update_tenant(tenant, display_name, quota, llm, clear_llm, request_id)
        return c.tenant_out(self._unary(self._admin.UpdateTenant, request, retryable=True))

    @rpc("engram.v1.AdminService.ListTenants")
    def list_tenants(self, *, page_size: int = 0) -> Iterator[t.Tenant]:
        request = _requests.list_tenants(page_size)
        return self._pages(self._admin.ListTenants, request, lambda r: map(c.tenant_out, r.tenants))

    @rpc("engram.v1.AdminService.DeleteTenant")
    def delete_tenant(self, tenant: str) -> t.DeletedTenant:
        """Deletes a tenant and everything it owns; reports what was removed."""
        request = _requests.delete_tenant(tenant)
        return c.deleted_tenant_out(self._unary(self._admin.DeleteTenant, request, retryable=False))

    @rpc("engram.v1.AdminService.CreateApiKey")
    def create_api_key(
        self,
        tenant: str,
        scopes: Iterable[str],
        *,
        display_name: str = "",
        agent: str = "",
        expire_time: datetime | timedelta | None = None,
        request_id: str | None = None,
    ) -> t.CreatedApiKey:
        """Mints a key; its secret is in the result and is never shown again."""
        request = _requests.create_api_key(
            tenant, scopes, display_name, agent, expire_time, request_id
        )
        return c.created_api_key_out(self._unary(self._admin.CreateApiKey, request, retryable=True))

    @rpc("engram.v1.AdminService.ListApiKeys")
    def list_api_keys(
        self, tenant: str, *, show_revoked: bool = False, page_size: int = 0
    ) -> Iterator[t.ApiKey]:
        request = _requests.list_api_keys(tenant, show_revoked, page_size)
        return self._pages(
            self._admin.ListApiKeys, request, lambda r: map(c.api_key_out, r.api_keys)
        )

    @rpc("engram.v1.AdminService.RevokeApiKey")
    def revoke_api_key(self, name: str, *, tenant: str | None = None) -> t.ApiKey:
        """Revokes a key by full name, or by key id with `tenant=`."""
        request = _requests.revoke_api_key(name, tenant)
        return c.api_key_out(self._unary(self._admin.RevokeApiKey, request, retryable=False))

    @rpc("engram.v1.AdminService.DeleteApiKey")
    def delete_api_key(self, name: str, *, tenant: str | None = None) -> None:
        request = _requests.delete_api_key(name, tenant)
        self._unary(self._admin.DeleteApiKey, request, retryable=False)

    @rpc("engram.v1.AdminService.GetUsage")
    def get_usage(self, tenant: str) -> t.Usage:
        request = _requests.get_usage(tenant)
        return c.usage_out(self._unary(self._admin.GetUsage, request, retryable=True))

    @rpc("engram.v1.AdminService.CreateGroup")
    def create_group(
        self,
        group_id: str,
        display_name: str = "",
        *,
        description: str = "",
        members: Iterable[str] = (),
        request_id: str | None = None,
    ) -> t.Group:
        """Creates a group of agent identities (`groups/{group_id}`), then adds
        `members` one by one."""
        request = _requests.create_group(group_id, display_name, description, request_id)
        member_list = _requests.one_or_many(members, "members")
        group = c.group_out(self._unary(self._admin.CreateGroup, request, retryable=True))
        for member in member_list:
            group = self.add_group_member(group.name, member)
        return group

    @rpc("engram.v1.AdminService.GetGroup")
    def get_group(self, group: str) -> t.Group:
        request = admin_pb2.GetGroupRequest(name=_requests.group_name(group))
        return c.group_out(self._unary(self._admin.GetGroup, request, retryable=True))

    @rpc("engram.v1.AdminService.ListGroups")
    def list_groups(self, *, page_size: int = 0) -> Iterator[t.Group]:
        request = c.fill(admin_pb2.ListGroupsRequest(), page_size=page_size)
        return self._pages(self._admin.ListGroups, request, lambda r: map(c.group_out, r.groups))

    @rpc("engram.v1.AdminService.AddGroupMember")
    def add_group_member(
        self, group: str, principal: str, *, request_id: str | None = None
    ) -> t.Group:
        """Adds an agent identity (or API key name) to a group."""
        request = _requests.group_member(
            admin_pb2.AddGroupMemberRequest, group, principal, request_id
        )
        return c.group_out(self._unary(self._admin.AddGroupMember, request, retryable=True))

    @rpc("engram.v1.AdminService.RemoveGroupMember")
    def remove_group_member(
        self, group: str, principal: str, *, request_id: str | None = None
    ) -> t.Group:
        request = _requests.group_member(
            admin_pb2.RemoveGroupMemberRequest, group, principal, request_id
        )
        return c.group_out(self._unary(self._admin.RemoveGroupMember, request, retryable=True))

    @rpc("engram.v1.AdminService.DeleteGroup")
    def delete_group(self, group: str, *, request_id: str | None = None) -> None:
        request = admin_pb2.DeleteGroupRequest(
            name=_requests.group_name(group), request_id=_requests.request_id(request_id)
        )
        self._unary(self._admin.DeleteGroup, request, retryable=True)


class AsyncAdminMethods(AsyncClientBase):
    """AdminService for `AsyncClient`; listings are async iterators."""

    @property
    def _admin(self) -> admin_pb2_grpc.AdminServiceAsyncStub:
        stub: admin_pb2_grpc.AdminServiceAsyncStub = self._stub_of(admin_pb2_grpc.AdminServiceStub)
        return stub

    @rpc("engram.v1.AdminService.CreateTenant")
    async def create_tenant(
        self,
        tenant_id: str,
        display_name: str = "",
        *,
        quota: t.TenantQuota | None = None,
        request_id: str | None = None,
    ) -> t.Tenant:
        """Creates a tenant (platform key)."""
        request = _requests.create_tenant(tenant_id, display_name, quota, request_id)
        return c.tenant_out(await self._unary(self._admin.CreateTenant, request, retryable=True))

    @rpc("engram.v1.AdminService.GetTenant")
    async def get_tenant(self, tenant: str) -> t.Tenant:
        request = _requests.get_tenant(tenant)
        return c.tenant_out(await self._unary(self._admin.GetTenant, request, retryable=True))

    @rpc("engram.v1.AdminService.UpdateTenant")
    async def update_tenant(
        self,
        tenant: str,
        *,
        display_name: str | None = None,
        quota: t.TenantQuota | None = None,
        llm: t.LlmSettings | None = None,
        clear_llm: bool = False,
        request_id: str | None = None,
    ) -> t.Tenant:
        """Updates the given fields. A tenant admin may set only its own `llm`.

        `llm` replaces the tenant's LLM settings (an empty `api_key` keeps the
        stored one while provider and base URL stay the same); `clear_llm=True`
        removes them, so the server-wide LLM (if any) applies again.
        """
        request = _requests.update_tenant(tenant, display_name, quota, llm, clear_llm, request_id)
        return c.tenant_out(await self._unary(self._admin.UpdateTenant, request, retryable=True))

    @rpc("engram.v1.AdminService.ListTenants")
    def list_tenants(self, *, page_size: int = 0) -> AsyncIterator[t.Tenant]:
        request = _requests.list_tenants(page_size)
        return self._pages(self._admin.ListTenants, request, lambda r: map(c.tenant_out, r.tenants))

    @rpc("engram.v1.AdminService.DeleteTenant")
    async def delete_tenant(self, tenant: str) -> t.DeletedTenant:
        """Deletes a tenant and everything it owns; reports what was removed."""
        request = _requests.delete_tenant(tenant)
        return c.deleted_tenant_out(
            await self._unary(self._admin.DeleteTenant, request, retryable=False)
        )

    @rpc("engram.v1.AdminService.CreateApiKey")
    async def create_api_key(
        self,
        tenant: str,
        scopes: Iterable[str],
        *,
        display_name: str = "",
        agent: str = "",
        expire_time: datetime | timedelta | None = None,
        request_id: str | None = None,
    ) -> t.CreatedApiKey:
        """Mints a key; its secret is in the result and is never shown again."""
        request = _requests.create_api_key(
            tenant, scopes, display_name, agent, expire_time, request_id
        )
        return c.created_api_key_out(
            await self._unary(self._admin.CreateApiKey, request, retryable=True)
        )

    @rpc("engram.v1.AdminService.ListApiKeys")
    def list_api_keys(
        self, tenant: str, *, show_revoked: bool = False, page_size: int = 0
    ) -> AsyncIterator[t.ApiKey]:
        request = _requests.list_api_keys(tenant, show_revoked, page_size)
        return self._pages(
            self._admin.ListApiKeys, request, lambda r: map(c.api_key_out, r.api_keys)
        )

    @rpc("engram.v1.AdminService.RevokeApiKey")
    async def revoke_api_key(self, name: str, *, tenant: str | None = None) -> t.ApiKey:
        """Revokes a key by full name, or by key id with `tenant=`."""
        request = _requests.revoke_api_key(name, tenant)
        return c.api_key_out(await self._unary(self._admin.RevokeApiKey, request, retryable=False))

    @rpc("engram.v1.AdminService.DeleteApiKey")
    async def delete_api_key(self, name: str, *, tenant: str | None = None) -> None:
        request = _requests.delete_api_key(name, tenant)
        await self._unary(self._admin.DeleteApiKey, request, retryable=False)

    @rpc("engram.v1.AdminService.GetUsage")
    async def get_usage(self, tenant: str) -> t.Usage:
        request = _requests.get_usage(tenant)
        return c.usage_out(await self._unary(self._admin.GetUsage, request, retryable=True))

    @rpc("engram.v1.AdminService.CreateGroup")
    async def create_group(
        self,
        group_id: str,
        display_name: str = "",
        *,
        description: str = "",
        members: Iterable[str] = (),
        request_id: str | None = None,
    ) -> t.Group:
        """Creates a group of agent identities (`groups/{group_id}`), then adds
        `members` one by one."""
        request = _requests.create_group(group_id, display_name, description, request_id)
        member_list = _requests.one_or_many(members, "members")
        group = c.group_out(await self._unary(self._admin.CreateGroup, request, retryable=True))
        for member in member_list:
            group = await self.add_group_member(group.name, member)
        return group

    @rpc("engram.v1.AdminService.GetGroup")
    async def get_group(self, group: str) -> t.Group:
        request = admin_pb2.GetGroupRequest(name=_requests.group_name(group))
        return c.group_out(await self._unary(self._admin.GetGroup, request, retryable=True))

    @rpc("engram.v1.AdminService.ListGroups")
    def list_groups(self, *, page_size: int = 0) -> AsyncIterator[t.Group]:
        request = c.fill(admin_pb2.ListGroupsRequest(), page_size=page_size)
        return self._pages(self._admin.ListGroups, request, lambda r: map(c.group_out, r.groups))

    @rpc("engram.v1.AdminService.AddGroupMember")
    async def add_group_member(
        self, group: str, principal: str, *, request_id: str | None = None
    ) -> t.Group:
        """Adds an agent identity (or API key name) to a group."""
        request = _requests.group_member(
            admin_pb2.AddGroupMemberRequest, group, principal, request_id
        )
        return c.group_out(await self._unary(self._admin.AddGroupMember, request, retryable=True))

    @rpc("engram.v1.AdminService.RemoveGroupMember")
    async def remove_group_member(
        self, group: str, principal: str, *, request_id: str | None = None
    ) -> t.Group:
        request = _requests.group_member(
            admin_pb2.RemoveGroupMemberRequest, group, principal, request_id
        )
        return c.group_out(
            await self._unary(self._admin.RemoveGroupMember, request, retryable=True)
        )

    @rpc("engram.v1.AdminService.DeleteGroup")
    async def delete_group(self, group: str, *, request_id: str | None = None) -> None:
        request = admin_pb2.DeleteGroupRequest(
            name=_requests.group_name(group), request_id=_requests.request_id(request_id)
        )
        await self._unary(self._admin.DeleteGroup, request, retryable=True)


class AdminClient(AdminMethods):
    """Tenants, API keys and usage (`client.admin`, or on its own with an admin key)."""


class AsyncAdminClient(AsyncAdminMethods):
    """Tenants, API keys and usage for asyncio (`client.admin`, or on its own)."""
