"""AdminService operations: the rules of `policy` applied through the stores.

Each operation authorizes first, then runs in one transaction. A platform
administrator's work runs in a platform transaction; a tenant administrator's runs
in its own tenant's transaction, so row-level security backs up the check in code.
Key changes are announced on `engram_keys` inside the same transaction (every
replica's auth cache drops the key at commit) and dropped from this process's
cache right after commit.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from datetime import datetime

from engram_server.errors import FailedPrecondition, InvalidArgument, NotFound
from engram_server.platform import auth
from engram_server.platform.context import AppContext
from engram_server.platform.egress import EgressPolicy
from engram_server.platform.principal import Principal
from engram_server.services.policy_cache import POLICY_CHANNEL
from engram_server.store import api_keys, llm_config, tenants
from engram_server.store.postgres import Conn
from engram_server.tenancy import paging, policy
from engram_server.tenancy.model import (
    ApiKey,
    ApiKeySpec,
    MintedKey,
    Tenant,
    TenantDeletion,
    TenantSpec,
    Usage,
    key_name,
    tenant_name,
)
from engram_server.tenancy.updates import TenantUpdate, llm_view, merge_llm


class AdminOperations:
    def __init__(self, ctx: AppContext) -> None:
        self._ctx = ctx
        # A tenant's own LLM endpoint is a URL the tenant chose.
        self._egress = EgressPolicy.from_settings(ctx.settings)

    @asynccontextmanager
    async def _tx(self, principal: Principal, tenant_id: str) -> AsyncIterator[Conn]:
        if principal.is_platform_admin:
            async with self._ctx.db.platform_tx() as conn:
                yield conn
        else:
            async with self._ctx.db.tenant_tx(tenant_id) as conn:
                yield conn

    async def _require_tenant(self, conn: Conn, tenant_id: str) -> Tenant:
        found = await tenants.get_tenant(conn, tenant_id)
        if found is None:
            raise NotFound("tenant", tenant_name(tenant_id))
        return found

    # Tenants.

    async def create_tenant(self, principal: Principal, spec: TenantSpec) -> Tenant:
        policy.require_platform(principal)
        async with self._ctx.db.platform_tx() as conn:
            return await tenants.create_tenant(conn, spec)

    async def get_tenant(self, principal: Principal, tenant_id: str) -> Tenant:
        policy.authorize_tenant(principal, tenant_id)
        async with self._tx(principal, tenant_id) as conn:
            found = await self._require_tenant(conn, tenant_id)
            llm = await llm_config.read_config(conn, tenant_id)
        return replace(found, llm=llm_view(llm))

    async def update_tenant(self, principal: Principal, update: TenantUpdate) -> Tenant:
        """Applies the masked fields in one transaction; returns the tenant after it.

        The tenant's cached LLM choice is dropped here at once and on every other
        replica through the change notification sent in the transaction.
        """
        tenant_id = update.tenant_id
        policy.authorize_tenant_update(principal, tenant_id, update.paths)
        async with self._tx(principal, tenant_id) as conn:
            found = await self._require_tenant(conn, tenant_id)
            if update.touches_tenant_row:
                changed = await tenants.update_tenant(
                    conn, tenant_id, update.display_name, update.quota
                )
                found = changed if changed is not None else found
            llm = await llm_config.read_config(conn, tenant_id)
            if update.llm_fields:
                new_llm = merge_llm(llm, update, self._egress.refusal)
                if new_llm != llm:
                    await llm_config.write_config(conn, tenant_id, new_llm)
                llm = new_llm
        if update.llm_fields and self._ctx.llm is not None:
            self._ctx.llm.invalidate(tenant_id)
        return replace(found, llm=llm_view(llm))

    async def list_tenants(
        self, principal: Principal, page_size: int, page_token: str
    ) -> tuple[list[Tenant], str]:
        policy.require_platform(principal)
        limit = paging.page_size(page_size)
        after = paging.decode_token(page_token, "tenants")
        async with self._ctx.db.platform_tx() as conn:
            rows = await tenants.list_tenants(conn, after[0] if after else None, limit + 1)
            configs = await llm_config.read_configs(conn, [t.tenant_id for t in rows[:limit]])
        rows = [replace(t, llm=llm_view(configs.get(t.tenant_id))) for t in rows]
        page, more = rows[:limit], len(rows) > limit
        token = paging.encode_token("tenants", [page[-1].tenant_id]) if more else ""
        return page, token

    async def delete_tenant(self, principal: Principal, tenant_id: str) -> TenantDeletion:
        """Deletes every row of the tenant, then its index points and Redis keys.

        One tenant-wide notice `<tenant>/*` on `engram_keys` makes every replica
        drop all of the tenant's cached keys, including any minted while this ran.
        Postgres goes first because it is the source of truth: if the index or
        Redis then fails the call answers UNAVAILABLE, and what is left there
        belongs to no tenant any more.
        """
        policy.authorize_tenant_deletion(principal, tenant_id)
        async with self._ctx.db.platform_tx() as conn:
            await self._require_tenant(conn, tenant_id)
            removed_keys = await api_keys.key_ids(conn, tenant_id)
            rows = await tenants.delete_tenant(conn, tenant_id)
            await api_keys.notify_tenant_keys_gone(conn, tenant_id)
            # Its cached LLM choice (endpoint and key) and space policies must not
            # serve a tenant created later under the same id.
            await llm_config.notify_changed(conn, tenant_id)
            await conn.execute("SELECT pg_notify(%s, %s)", (POLICY_CHANNEL, tenant_id))
        _forget_keys(tenant_id, removed_keys)
        if self._ctx.llm is not None:
            self._ctx.llm.invalidate(tenant_id)
        if self._ctx.lifecycle is not None:
            self._ctx.lifecycle.policies.invalidate_tenant(tenant_id)
        # The points carry the tenant's vectors and payloads (derived from its
        # content); a tenant created later under the same id must not inherit them.
        if self._ctx.recall is not None:
            # Its query vectors too: a hit answers faster than the model (every
            # replica drops them on the `<tenant>/*` notice; this one at once).
            self._ctx.recall.embedder.forget_tenant(tenant_id)
            await self._ctx.recall.index.drop_tenant(tenant_id)
        cache_keys = await self._ctx.redis.purge_tenant(tenant_id)
        return TenantDeletion(deleted_rows=rows, deleted_cache_keys=cache_keys)

    async def usage(self, principal: Principal, tenant_id: str) -> Usage:
        policy.authorize_tenant(principal, tenant_id)
        # Memory tables are tenant-scoped even for platform administrators.
        async with self._ctx.db.tenant_tx(tenant_id) as conn:
            found = await tenants.read_usage(conn, tenant_id)
        if found is None:
            raise NotFound("tenant", tenant_name(tenant_id))
        return found

    # API keys.

    async def create_key(self, principal: Principal, spec: ApiKeySpec) -> MintedKey:
        """Mints a key. A retry with the request_id of an earlier call returns that
        call's key: its secret was shown once and never stored, so the retry issues
        a new secret for the same key and the earlier one stops working.
        """
        spec = policy.authorize_mint(principal, spec)
        async with self._tx(principal, spec.tenant_id) as conn:
            await self._require_tenant(conn, spec.tenant_id)
            minted, reissued = await _mint(conn, spec)
        if reissued:
            _forget_keys(spec.tenant_id, [minted.key.key_id])
        return minted

    async def list_keys(
        self,
        principal: Principal,
        tenant_id: str,
        *,
        page_size: int,
        page_token: str,
        show_revoked: bool,
    ) -> tuple[list[ApiKey], str]:
        policy.authorize_tenant(principal, tenant_id)
        limit = paging.page_size(page_size)
        query = f"apiKeys:{tenant_id}:{int(show_revoked)}"
        after = _key_cursor(paging.decode_token(page_token, query))
        async with self._tx(principal, tenant_id) as conn:
            await self._require_tenant(conn, tenant_id)
            rows = await api_keys.list_keys(
                conn, tenant_id, after=after, limit=limit + 1, show_revoked=show_revoked
            )
        page, more = rows[:limit], len(rows) > limit
        token = ""
        if more:
            last = page[-1]
            token = paging.encode_token(query, [last.create_time.isoformat(), last.key_id])
        return page, token

    async def revoke_key(self, principal: Principal, tenant_id: str, key_id: str) -> ApiKey:
        policy.authorize_key(principal, tenant_id, key_id)
        async with self._tx(principal, tenant_id) as conn:
            key = await api_keys.get_key(conn, tenant_id, key_id, for_update=True)
            if key is None:
                raise NotFound("api key", key_name(tenant_id, key_id))
            policy.authorize_key_change(principal, key)
            revoked = await api_keys.revoke_key(conn, tenant_id, key_id)
        if revoked is None:  # deleted between the lock and the update: cannot happen
            raise NotFound("api key", key_name(tenant_id, key_id))
        _forget_keys(tenant_id, [key_id])
        return revoked

    async def delete_key(self, principal: Principal, tenant_id: str, key_id: str) -> None:
        policy.authorize_key(principal, tenant_id, key_id)
        async with self._tx(principal, tenant_id) as conn:
            key = await api_keys.get_key(conn, tenant_id, key_id, for_update=True)
            if key is None:
                raise NotFound("api key", key_name(tenant_id, key_id))
            policy.authorize_key_change(principal, key)
            await api_keys.delete_key(conn, tenant_id, key_id)
        _forget_keys(tenant_id, [key_id])


async def _mint(conn: Conn, spec: ApiKeySpec) -> tuple[MintedKey, bool]:
    """A new key, or the key of an earlier call with this request_id (then True)."""
    if spec.request_id is not None:
        earlier = await _reissue(conn, spec, spec.request_id)
        if earlier is not None:
            return earlier, True
    key_id = api_keys.new_key_id()
    secret = api_keys.new_secret(key_id)
    stored = await api_keys.insert_key(conn, spec, key_id, secret)
    if stored is not None:
        return MintedKey(stored, secret), False
    # A concurrent call with the same request_id committed its key first; READ
    # COMMITTED lets this transaction see it now.
    if spec.request_id is not None:
        earlier = await _reissue(conn, spec, spec.request_id)
        if earlier is not None:
            return earlier, True
    raise FailedPrecondition("a concurrent call with this request_id is creating the key")


async def _reissue(conn: Conn, spec: ApiKeySpec, request_id: str) -> MintedKey | None:
    """The retried call's key with a fresh secret, or None if this is a first call."""
    earlier = await api_keys.find_by_request_id(conn, spec.tenant_id, request_id)
    if earlier is None:
        return None
    if not spec.same_key_as(earlier):
        raise InvalidArgument.field("request_id", "was already used to create a different key")
    if earlier.revoke_time is not None:
        raise FailedPrecondition(
            f"{key_name(earlier.tenant_id, earlier.key_id)}, created by this request_id, "
            "has since been revoked"
        )
    secret = api_keys.new_secret(earlier.key_id)
    updated = await api_keys.replace_secret(conn, earlier.tenant_id, earlier.key_id, secret)
    if updated is None:  # locked by find_by_request_id, so it cannot have vanished
        raise NotFound("api key", key_name(earlier.tenant_id, earlier.key_id))
    return MintedKey(updated, secret)


def _key_cursor(after: list[str] | None) -> tuple[datetime, str] | None:
    if after is None:
        return None
    try:
        create_time, key_id = after
        return datetime.fromisoformat(create_time), key_id
    except ValueError as exc:
        raise InvalidArgument.field(
            "page_token", "is not a token from a previous response"
        ) from exc


def _forget_keys(tenant_id: str, key_ids: list[str]) -> None:
    """Drops keys from this process's auth cache right away.

    Other replicas (and this one, a moment later) learn it from `engram_keys`.
    """
    for key_id in key_ids:
        auth.invalidate_key(tenant_id, key_id)
