"""AdminService over real gRPC: tenants, keys, usage, deletion, bootstrap keys."""

from __future__ import annotations

import asyncio
import secrets
import uuid
from collections.abc import AsyncIterator, Awaitable
from datetime import UTC, datetime, timedelta
from typing import Any

import grpc
import grpc.aio
import psycopg
import pytest
from engram.v1 import (
    admin_pb2,
    admin_pb2_grpc,
    lifecycle_pb2,
    lifecycle_pb2_grpc,
    pool_pb2,
    pool_pb2_grpc,
)
from engram_server.store.redis import tenant_key
from engram_server.tenancy.bootstrap import (
    BOOTSTRAP_KEY_ID,
    BOOTSTRAP_TENANT,
    DEV_TENANT,
    ensure_bootstrap_token,
    ensure_dev_key,
)
from google.protobuf import timestamp_pb2
from google.rpc import error_details_pb2, status_pb2

from tests.conftest import RunningServer, open_channel

Code = grpc.StatusCode


# -- helpers -----------------------------------------------------------------------------


async def rpc_error(call: Awaitable[Any]) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    return caught.value


async def expect(call: Awaitable[Any], code: grpc.StatusCode) -> grpc.aio.AioRpcError:
    err = await rpc_error(call)
    assert err.code() == code, f"{err.code()}: {err.details()}"
    return err


def bad_fields(err: grpc.aio.AioRpcError) -> list[str]:
    """Fields named by the BadRequest detail of an INVALID_ARGUMENT status."""
    status = status_pb2.Status()
    for key, value in err.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            status.ParseFromString(value)
    fields: list[str] = []
    for detail in status.details:
        bad = error_details_pb2.BadRequest()
        if detail.Unpack(bad):
            fields.extend(v.field for v in bad.field_violations)
    return fields


async def expect_invalid(call: Awaitable[Any], field: str) -> None:
    err = await expect(call, Code.INVALID_ARGUMENT)
    assert field in bad_fields(err), (bad_fields(err), err.details())


def ts(value: datetime) -> timestamp_pb2.Timestamp:
    stamp = timestamp_pb2.Timestamp()
    stamp.FromDatetime(value)
    return stamp


def new_tenant_id() -> str:
    return f"a-{secrets.token_hex(5)}"


def key_request(parent: str, *scopes: str, **fields: Any) -> admin_pb2.CreateApiKeyRequest:
    return admin_pb2.CreateApiKeyRequest(
        parent=parent, api_key=admin_pb2.ApiKey(scopes=list(scopes), **fields)
    )


@pytest.fixture
async def root(server: RunningServer, platform_key: str) -> AsyncIterator[Any]:
    """AdminService stub authenticated as the platform administrator."""
    channel = open_channel(server.address, platform_key)
    try:
        yield admin_pb2_grpc.AdminServiceStub(channel)
    finally:
        await channel.close()


# -- tenants -----------------------------------------------------------------------------


async def test_platform_admin_creates_gets_lists_and_deletes_tenants(root: Any) -> None:
    tenant_id = new_tenant_id()
    quota = admin_pb2.TenantQuota(requests_per_second=50, max_memories=1000, max_content_bytes=4096)
    created = await root.CreateTenant(
        admin_pb2.CreateTenantRequest(
            tenant_id=tenant_id, tenant=admin_pb2.Tenant(display_name="Acme", quota=quota)
        )
    )
    assert created.name == f"tenants/{tenant_id}"
    assert created.display_name == "Acme"
    assert created.quota == quota
    assert created.create_time.seconds > 0

    got = await root.GetTenant(admin_pb2.GetTenantRequest(name=created.name))
    assert got == created

    listed = await root.ListTenants(admin_pb2.ListTenantsRequest(page_size=1000))
    assert created.name in [t.name for t in listed.tenants]
    assert "tenants/default" in [t.name for t in listed.tenants]

    await expect(
        root.CreateTenant(admin_pb2.CreateTenantRequest(tenant_id=tenant_id)), Code.ALREADY_EXISTS
    )

    deleted = await root.DeleteTenant(admin_pb2.DeleteTenantRequest(name=created.name))
    assert deleted.deleted_rows["tenants"] == 1
    assert deleted.deleted_rows["tenant_state"] == 1
    await expect(root.GetTenant(admin_pb2.GetTenantRequest(name=created.name)), Code.NOT_FOUND)
    await expect(
        root.DeleteTenant(admin_pb2.DeleteTenantRequest(name=created.name)), Code.NOT_FOUND
    )


async def test_create_tenant_retry_with_request_id_returns_the_first_result(root: Any) -> None:
    tenant_id = new_tenant_id()
    request = admin_pb2.CreateTenantRequest(
        tenant_id=tenant_id, tenant=admin_pb2.Tenant(display_name="Once"), request_id="req-1"
    )
    first = await root.CreateTenant(request)
    again = await root.CreateTenant(request)
    assert again == first
    # The same request id for another tenant is a client bug, not a retry.
    other = admin_pb2.CreateTenantRequest(tenant_id=new_tenant_id(), request_id="req-1")
    await expect_invalid(root.CreateTenant(other), "request_id")


@pytest.mark.parametrize(
    ("tenant_id", "field"),
    [
        ("", "tenant_id"),
        ("ab", "tenant_id"),
        ("Upper-case", "tenant_id"),
        ("1starts-with-digit", "tenant_id"),
        ("has_underscore", "tenant_id"),
        ("x" * 64, "tenant_id"),
    ],
)
async def test_create_tenant_rejects_bad_ids(root: Any, tenant_id: str, field: str) -> None:
    await expect_invalid(
        root.CreateTenant(admin_pb2.CreateTenantRequest(tenant_id=tenant_id)), field
    )


async def test_create_tenant_rejects_negative_quota(root: Any) -> None:
    request = admin_pb2.CreateTenantRequest(
        tenant_id=new_tenant_id(),
        tenant=admin_pb2.Tenant(quota=admin_pb2.TenantQuota(max_memories=-1)),
    )
    await expect_invalid(root.CreateTenant(request), "tenant.quota.max_memories")


async def test_bad_resource_names_are_invalid(root: Any) -> None:
    await expect_invalid(root.GetTenant(admin_pb2.GetTenantRequest(name="acme")), "name")
    await expect_invalid(root.GetTenant(admin_pb2.GetTenantRequest(name="")), "name")
    await expect_invalid(root.ListApiKeys(admin_pb2.ListApiKeysRequest(parent="x/y")), "parent")
    await expect_invalid(
        root.RevokeApiKey(admin_pb2.RevokeApiKeyRequest(name="tenants/acme/keys/k")), "name"
    )


async def test_platform_admin_cannot_delete_its_own_tenant(root: Any) -> None:
    await expect(
        root.DeleteTenant(admin_pb2.DeleteTenantRequest(name="tenants/default")),
        Code.FAILED_PRECONDITION,
    )


# -- tenant administrators ---------------------------------------------------------------


async def test_tenant_admin_sees_only_its_own_tenant(make_tenant: Any) -> None:
    mine = await make_tenant(scopes=("admin",))
    other = await make_tenant(scopes=("admin",))
    admin = mine.admin

    got = await admin.GetTenant(admin_pb2.GetTenantRequest(name=mine.name))
    assert got.name == mine.name
    await admin.GetUsage(admin_pb2.GetUsageRequest(name=mine.name))
    await admin.ListApiKeys(admin_pb2.ListApiKeysRequest(parent=mine.name))

    other_keys = await other.admin.ListApiKeys(admin_pb2.ListApiKeysRequest(parent=other.name))
    other_key = other_keys.api_keys[0].name
    # Another tenant answers exactly like a tenant that does not exist.
    for name in (other.name, "tenants/no-such-tenant"):
        await expect(admin.GetTenant(admin_pb2.GetTenantRequest(name=name)), Code.NOT_FOUND)
        await expect(admin.GetUsage(admin_pb2.GetUsageRequest(name=name)), Code.NOT_FOUND)
        await expect(admin.ListApiKeys(admin_pb2.ListApiKeysRequest(parent=name)), Code.NOT_FOUND)
        await expect(admin.CreateApiKey(key_request(name, "read")), Code.NOT_FOUND)
    await expect(admin.RevokeApiKey(admin_pb2.RevokeApiKeyRequest(name=other_key)), Code.NOT_FOUND)
    await expect(admin.DeleteApiKey(admin_pb2.DeleteApiKeyRequest(name=other_key)), Code.NOT_FOUND)
    # The other tenant's key still works.
    await other.admin.GetTenant(admin_pb2.GetTenantRequest(name=other.name))

    # Tenant-level operations belong to platform administrators.
    await expect(
        admin.CreateTenant(admin_pb2.CreateTenantRequest(tenant_id=new_tenant_id())),
        Code.PERMISSION_DENIED,
    )
    await expect(admin.ListTenants(admin_pb2.ListTenantsRequest()), Code.PERMISSION_DENIED)
    await expect(
        admin.DeleteTenant(admin_pb2.DeleteTenantRequest(name=other.name)), Code.PERMISSION_DENIED
    )


async def test_keys_without_admin_scope_cannot_administer(make_tenant: Any) -> None:
    tenant = await make_tenant(scopes=("read", "write", "operator"))
    await expect(
        tenant.admin.GetTenant(admin_pb2.GetTenantRequest(name=tenant.name)), Code.PERMISSION_DENIED
    )
    await expect(
        tenant.admin.CreateApiKey(key_request(tenant.name, "read")), Code.PERMISSION_DENIED
    )


async def test_tenant_admin_cannot_escalate(make_tenant: Any) -> None:
    tenant = await make_tenant(scopes=("admin", "read"))
    admin = tenant.admin
    for scopes in (("platform",), ("write",), ("read", "operator"), ("admin", "platform")):
        await expect(admin.CreateApiKey(key_request(tenant.name, *scopes)), Code.PERMISSION_DENIED)

    minted = await admin.CreateApiKey(key_request(tenant.name, "read", display_name="reader"))
    assert sorted(minted.api_key.scopes) == ["read"]
    assert minted.secret.startswith(minted.api_key.secret_prefix)
    assert len(minted.api_key.secret_prefix) == 12

    # Keys stronger than the caller cannot be revoked or deleted by it either.
    stronger = await tenant.new_key(scopes=("read", "write"))
    keys = await admin.ListApiKeys(admin_pb2.ListApiKeysRequest(parent=tenant.name))
    stronger_name = next(k.name for k in keys.api_keys if "write" in k.scopes)
    await expect(
        admin.RevokeApiKey(admin_pb2.RevokeApiKeyRequest(name=stronger_name)),
        Code.PERMISSION_DENIED,
    )
    await expect(
        admin.DeleteApiKey(admin_pb2.DeleteApiKeyRequest(name=stronger_name)),
        Code.PERMISSION_DENIED,
    )
    still = admin_pb2_grpc.AdminServiceStub(tenant.channel_for(stronger))
    await expect(
        still.GetTenant(admin_pb2.GetTenantRequest(name=tenant.name)), Code.PERMISSION_DENIED
    )


async def test_agent_bound_admin_mints_only_keys_bound_to_its_agent(make_tenant: Any) -> None:
    tenant = await make_tenant(scopes=("read",))
    bound_secret = await tenant.new_key(scopes=("admin", "read"), agent="agent-7")
    bound = admin_pb2_grpc.AdminServiceStub(tenant.channel_for(bound_secret))

    inherited = await bound.CreateApiKey(key_request(tenant.name, "read"))
    assert inherited.api_key.agent == "agent-7"
    same = await bound.CreateApiKey(key_request(tenant.name, "read", agent="agent-7"))
    assert same.api_key.agent == "agent-7"
    await expect(
        bound.CreateApiKey(key_request(tenant.name, "read", agent="agent-8")),
        Code.PERMISSION_DENIED,
    )


async def test_platform_admin_manages_any_tenants_keys(root: Any, make_tenant: Any) -> None:
    tenant = await make_tenant(scopes=("read",))
    minted = await root.CreateApiKey(
        key_request(tenant.name, "read", "write", "admin", "operator", agent="svc@team/a:1")
    )
    assert minted.api_key.name.startswith(f"{tenant.name}/apiKeys/")
    assert minted.api_key.agent == "svc@team/a:1"
    listed = await root.ListApiKeys(admin_pb2.ListApiKeysRequest(parent=tenant.name))
    assert minted.api_key.name in [k.name for k in listed.api_keys]
    assert all(not hasattr(k, "secret") for k in listed.api_keys)
    await root.RevokeApiKey(admin_pb2.RevokeApiKeyRequest(name=minted.api_key.name))
    await root.DeleteApiKey(admin_pb2.DeleteApiKeyRequest(name=minted.api_key.name))
    await expect(root.CreateApiKey(key_request("tenants/no-such-tenant", "read")), Code.NOT_FOUND)


# -- key validation ----------------------------------------------------------------------


async def test_key_fields_are_validated(make_tenant: Any) -> None:
    tenant = await make_tenant(scopes=("admin", "read"))
    admin, parent = tenant.admin, tenant.name
    await expect_invalid(admin.CreateApiKey(key_request(parent)), "api_key.scopes")
    await expect_invalid(admin.CreateApiKey(key_request(parent, "read", "root")), "api_key.scopes")
    await expect_invalid(admin.CreateApiKey(key_request(parent, "READ")), "api_key.scopes")
    await expect_invalid(
        admin.CreateApiKey(key_request(parent, "read", agent="has space")), "api_key.agent"
    )
    await expect_invalid(
        admin.CreateApiKey(key_request(parent, "read", agent="a" * 129)), "api_key.agent"
    )
    past = ts(datetime.now(UTC) - timedelta(seconds=1))
    await expect_invalid(
        admin.CreateApiKey(key_request(parent, "read", expire_time=past)), "api_key.expire_time"
    )
    await expect_invalid(
        admin.CreateApiKey(key_request(parent, "read", display_name="d" * 257)),
        "api_key.display_name",
    )
    # Every bad field is reported at once.
    err = await expect(
        admin.CreateApiKey(key_request(parent, "nope", agent="bad agent", expire_time=past)),
        Code.INVALID_ARGUMENT,
    )
    assert {"api_key.scopes", "api_key.agent", "api_key.expire_time"} <= set(bad_fields(err))


async def test_create_key_retry_returns_the_same_key_with_a_new_secret(make_tenant: Any) -> None:
    tenant = await make_tenant(scopes=("admin", "read"))
    request = key_request(tenant.name, "admin", display_name="ci")
    request.request_id = f"mint-{uuid.uuid4()}"
    first = await tenant.admin.CreateApiKey(request)
    again = await tenant.admin.CreateApiKey(request)
    assert again.api_key.name == first.api_key.name
    assert again.secret != first.secret
    # The secret is never stored, so the retry re-issued it: only the last one works.
    probe = admin_pb2.GetTenantRequest(name=tenant.name)
    old = admin_pb2_grpc.AdminServiceStub(tenant.channel_for(first.secret))
    new = admin_pb2_grpc.AdminServiceStub(tenant.channel_for(again.secret))
    await expect(old.GetTenant(probe), Code.UNAUTHENTICATED)
    await new.GetTenant(probe)
    listed = await tenant.admin.ListApiKeys(admin_pb2.ListApiKeysRequest(parent=tenant.name))
    assert [k.name for k in listed.api_keys].count(first.api_key.name) == 1

    different = key_request(tenant.name, "read", display_name="ci")
    different.request_id = request.request_id
    await expect_invalid(tenant.admin.CreateApiKey(different), "request_id")


# -- revocation and expiry ---------------------------------------------------------------


async def test_revoked_key_is_refused_right_away(make_tenant: Any) -> None:
    tenant = await make_tenant(scopes=("admin", "read"))
    secret = await tenant.new_key(scopes=("admin",))
    victim = admin_pb2_grpc.AdminServiceStub(tenant.channel_for(secret))
    probe = admin_pb2.GetTenantRequest(name=tenant.name)
    await victim.GetTenant(probe)  # now cached by the auth layer

    keys = await tenant.admin.ListApiKeys(admin_pb2.ListApiKeysRequest(parent=tenant.name))
    name = next(k.name for k in keys.api_keys if secret.startswith(k.secret_prefix))
    revoked = await tenant.admin.RevokeApiKey(admin_pb2.RevokeApiKeyRequest(name=name))
    assert revoked.HasField("revoke_time")

    err = await expect(victim.GetTenant(probe), Code.UNAUTHENTICATED)
    assert "revoked" in (err.details() or "")

    # Revoking twice keeps the first revocation time.
    again = await tenant.admin.RevokeApiKey(admin_pb2.RevokeApiKeyRequest(name=name))
    assert again.revoke_time == revoked.revoke_time

    active = await tenant.admin.ListApiKeys(admin_pb2.ListApiKeysRequest(parent=tenant.name))
    assert name not in [k.name for k in active.api_keys]
    everything = await tenant.admin.ListApiKeys(
        admin_pb2.ListApiKeysRequest(parent=tenant.name, show_revoked=True)
    )
    assert name in [k.name for k in everything.api_keys]

    await tenant.admin.DeleteApiKey(admin_pb2.DeleteApiKeyRequest(name=name))
    everything = await tenant.admin.ListApiKeys(
        admin_pb2.ListApiKeysRequest(parent=tenant.name, show_revoked=True)
    )
    assert name not in [k.name for k in everything.api_keys]
    await expect(
        tenant.admin.DeleteApiKey(admin_pb2.DeleteApiKeyRequest(name=name)), Code.NOT_FOUND
    )
    await expect(victim.GetTenant(probe), Code.UNAUTHENTICATED)


async def test_deleted_active_key_is_refused_right_away(make_tenant: Any) -> None:
    tenant = await make_tenant(scopes=("admin",))
    secret = await tenant.new_key(scopes=("admin",))
    victim = admin_pb2_grpc.AdminServiceStub(tenant.channel_for(secret))
    probe = admin_pb2.GetTenantRequest(name=tenant.name)
    await victim.GetTenant(probe)
    keys = await tenant.admin.ListApiKeys(admin_pb2.ListApiKeysRequest(parent=tenant.name))
    name = next(k.name for k in keys.api_keys if secret.startswith(k.secret_prefix))
    await tenant.admin.DeleteApiKey(admin_pb2.DeleteApiKeyRequest(name=name))
    await expect(victim.GetTenant(probe), Code.UNAUTHENTICATED)


async def test_expired_key_is_refused(
    make_tenant: Any, raw_pg: psycopg.AsyncConnection[Any]
) -> None:
    tenant = await make_tenant(scopes=("admin",))
    probe = admin_pb2.GetTenantRequest(name=tenant.name)

    # Used while valid (and so cached), then refused once its time has come.
    soon = await tenant.new_key(
        scopes=("admin",), expire_time=datetime.now(UTC) + timedelta(seconds=1.5)
    )
    short_lived = admin_pb2_grpc.AdminServiceStub(tenant.channel_for(soon))
    await short_lived.GetTenant(probe)
    await asyncio.sleep(1.6)
    err = await expect(short_lived.GetTenant(probe), Code.UNAUTHENTICATED)
    assert "expired" in (err.details() or "")

    # Expired before it was ever used.
    later = await tenant.new_key(
        scopes=("admin",), expire_time=datetime.now(UTC) + timedelta(hours=1)
    )
    await raw_pg.execute(
        "UPDATE api_keys SET expire_time = now() - interval '1 minute'"
        " WHERE tenant_id = %s AND expire_time > now()",
        (tenant.tenant_id,),
    )
    stale = admin_pb2_grpc.AdminServiceStub(tenant.channel_for(later))
    await expect(stale.GetTenant(probe), Code.UNAUTHENTICATED)

    usage = await tenant.admin.GetUsage(admin_pb2.GetUsageRequest(name=tenant.name))
    assert usage.active_api_keys == 1  # only the tenant's original admin key


# -- paging ------------------------------------------------------------------------------


async def test_list_api_keys_pages_through_every_key_once(make_tenant: Any) -> None:
    tenant = await make_tenant(scopes=("admin", "read"))
    for _ in range(6):
        await tenant.new_key(scopes=("read",))
    seen: list[str] = []
    token = ""
    pages = 0
    while True:
        page = await tenant.admin.ListApiKeys(
            admin_pb2.ListApiKeysRequest(parent=tenant.name, page_size=2, page_token=token)
        )
        pages += 1
        assert len(page.api_keys) <= 2
        seen.extend(k.name for k in page.api_keys)
        token = page.next_page_token
        if not token:
            break
    assert len(seen) == 7 and len(set(seen)) == 7
    assert pages == 4
    times = [k.create_time.ToDatetime() for k in page.api_keys]
    assert times == sorted(times)


async def test_bad_page_tokens_and_sizes_are_invalid(make_tenant: Any, root: Any) -> None:
    tenant = await make_tenant(scopes=("admin",))
    other = await make_tenant(scopes=("admin",))
    await tenant.new_key(scopes=("admin",))
    first = await tenant.admin.ListApiKeys(
        admin_pb2.ListApiKeysRequest(parent=tenant.name, page_size=1)
    )
    assert first.next_page_token

    def listing(**fields: Any) -> admin_pb2.ListApiKeysRequest:
        return admin_pb2.ListApiKeysRequest(parent=tenant.name, **fields)

    for token in ("garbage!", "bm90IGpzb24", first.next_page_token[:-3]):
        await expect_invalid(tenant.admin.ListApiKeys(listing(page_token=token)), "page_token")
    # A token belongs to the list it came from.
    await expect_invalid(
        tenant.admin.ListApiKeys(listing(page_token=first.next_page_token, show_revoked=True)),
        "page_token",
    )
    await expect_invalid(
        other.admin.ListApiKeys(
            admin_pb2.ListApiKeysRequest(parent=other.name, page_token=first.next_page_token)
        ),
        "page_token",
    )
    await expect_invalid(
        root.ListTenants(admin_pb2.ListTenantsRequest(page_token=first.next_page_token)),
        "page_token",
    )
    for size in (-1, 1001):
        await expect_invalid(tenant.admin.ListApiKeys(listing(page_size=size)), "page_size")
        await expect_invalid(
            root.ListTenants(admin_pb2.ListTenantsRequest(page_size=size)), "page_size"
        )


async def test_list_tenants_pages(root: Any, make_tenant: Any) -> None:
    made = {(await make_tenant()).name for _ in range(3)}
    seen: list[str] = []
    token = ""
    while True:
        page = await root.ListTenants(admin_pb2.ListTenantsRequest(page_size=2, page_token=token))
        seen.extend(t.name for t in page.tenants)
        token = page.next_page_token
        if not token:
            break
    assert len(seen) == len(set(seen))
    assert made <= set(seen)
    assert seen == sorted(seen)


# -- usage -------------------------------------------------------------------------------


async def _insert_memory(
    raw_pg: psycopg.AsyncConnection[Any], tenant_id: str, status: str, text: str
) -> uuid.UUID:
    memory_id = uuid.uuid4()
    await raw_pg.execute(
        "INSERT INTO memories (tenant_id, id, space, kind, content, confidence, importance,"
        " status, content_hash) VALUES (%s, %s, 'team-a', 'SEMANTIC', %s, 0.9, 0.5, %s, %s)",
        (tenant_id, memory_id, text, status, uuid.uuid4().hex),
    )
    return memory_id


async def test_usage_counts_the_tenants_own_rows(
    make_tenant: Any, raw_pg: psycopg.AsyncConnection[Any]
) -> None:
    tenant = await make_tenant(scopes=("admin",))
    other = await make_tenant(scopes=("admin",))
    for status in ("ACTIVE", "ACTIVE", "REJECTED"):
        await _insert_memory(raw_pg, tenant.tenant_id, status, f"fact {uuid.uuid4()}")
    await _insert_memory(raw_pg, other.tenant_id, "ACTIVE", "not mine")
    await raw_pg.execute(
        "UPDATE tenant_state SET live_memories = 2, audit_seq = 3 WHERE tenant_id = %s",
        (tenant.tenant_id,),
    )
    await tenant.new_key(scopes=("admin",))

    usage = await tenant.admin.GetUsage(admin_pb2.GetUsageRequest(name=tenant.name))
    assert usage.name == f"{tenant.name}/usage"
    assert usage.memories_by_status["MEMORY_STATUS_ACTIVE"] == 2
    assert usage.memories_by_status["MEMORY_STATUS_REJECTED"] == 1
    assert usage.memories_by_status["MEMORY_STATUS_RETRACTED"] == 0
    assert usage.live_memories == 2
    assert usage.audit_entries == 3
    assert usage.active_api_keys == 2
    assert dict(usage.llm_tokens) == {}


# -- deleting a tenant -------------------------------------------------------------------


async def _tenant_tables(raw_pg: psycopg.AsyncConnection[Any]) -> list[str]:
    """Every table with a tenant column: a new one must be purged too."""
    cur = await raw_pg.execute(
        "SELECT c.table_name FROM information_schema.columns c"
        " JOIN information_schema.tables t USING (table_schema, table_name)"
        " WHERE c.table_schema = 'public' AND c.column_name = 'tenant_id'"
        " AND t.table_type = 'BASE TABLE' ORDER BY 1"
    )
    return [row[0] for row in await cur.fetchall()]


async def _rows_of(raw_pg: psycopg.AsyncConnection[Any], tenant_id: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for table in [*await _tenant_tables(raw_pg), "tenants"]:
        column = "id" if table == "tenants" else "tenant_id"
        cur = await raw_pg.execute(
            psycopg.sql.SQL("SELECT count(*) FROM {} WHERE {} = %s").format(
                psycopg.sql.Identifier(table), psycopg.sql.Identifier(column)
            ),
            (tenant_id,),
        )
        row = await cur.fetchone()
        counts[table] = int(row[0]) if row else 0
    return counts


async def _populate(raw_pg: psycopg.AsyncConnection[Any], tenant_id: str) -> None:
    memory_id = await _insert_memory(raw_pg, tenant_id, "ACTIVE", f"fact of {tenant_id}")
    await raw_pg.execute(
        "INSERT INTO memory_revisions (tenant_id, memory_id, revision, snapshot, actor)"
        " VALUES (%s, %s, 1, '{}', 'test')",
        (tenant_id, memory_id),
    )
    await raw_pg.execute(
        "INSERT INTO audit_log (tenant_id, seq, action, memory_id, actor)"
        " VALUES (%s, 1, 'PROPOSE', %s, 'test'), (%s, 2, 'CONFIRM', %s, 'test')",
        (tenant_id, memory_id, tenant_id, memory_id),
    )
    await raw_pg.execute(
        "INSERT INTO outbox (tenant_id, memory_id, op) VALUES (%s, %s, 'upsert')",
        (tenant_id, memory_id),
    )
    await raw_pg.execute(
        "INSERT INTO idempotency (tenant_id, request_id, method, fingerprint)"
        " VALUES (%s, 'r1', 'ProposeMemory', 'f')",
        (tenant_id,),
    )
    await raw_pg.execute(
        "INSERT INTO policies (tenant_id, space, policy, etag) VALUES (%s, '', '{}', 'e')",
        (tenant_id,),
    )


async def _wait_for_indexing(raw_pg: psycopg.AsyncConnection[Any], tenant_id: str) -> None:
    # Embedding under a loaded machine is slow: a generous bound, not a timing claim.
    for _ in range(2400):
        cur = await raw_pg.execute(
            "SELECT count(*) FROM outbox WHERE tenant_id = %s AND processed_at IS NULL",
            (tenant_id,),
        )
        row = await cur.fetchone()
        if row is not None and row[0] == 0:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"indexing of {tenant_id} did not finish")


async def test_delete_tenant_purges_every_row_and_cache_key(
    root: Any, make_tenant: Any, server: RunningServer, raw_pg: psycopg.AsyncConnection[Any]
) -> None:
    doomed = await make_tenant()
    kept = await make_tenant()
    for tenant in (doomed, kept):
        await _populate(raw_pg, tenant.tenant_id)
    redis = server.ctx.redis.client
    await redis.set(tenant_key(doomed.tenant_id, "x"), b"1")
    await redis.set(tenant_key(doomed.tenant_id, "session", "s1"), b"2")
    await redis.set(tenant_key(kept.tenant_id, "x"), b"3")
    # Let the indexing worker finish with the populated rows, so the counts below
    # only change because of the deletion.
    for tenant in (doomed, kept):
        await _wait_for_indexing(raw_pg, tenant.tenant_id)
    before = await _rows_of(raw_pg, doomed.tenant_id)
    kept_before = await _rows_of(raw_pg, kept.tenant_id)
    probe = admin_pb2.GetTenantRequest(name=doomed.name)
    await doomed.admin.GetTenant(probe)  # its key is now cached

    result = await root.DeleteTenant(admin_pb2.DeleteTenantRequest(name=doomed.name))

    assert result.deleted_cache_keys == 2
    for table, n in before.items():
        if n:
            assert result.deleted_rows[table] == n, table
    assert result.deleted_rows["memories"] == 1
    assert result.deleted_rows["audit_log"] == 2
    assert result.deleted_rows["api_keys"] == 1
    assert set((await _rows_of(raw_pg, doomed.tenant_id)).values()) == {0}
    assert await _rows_of(raw_pg, kept.tenant_id) == kept_before
    assert await redis.get(tenant_key(doomed.tenant_id, "x")) is None
    assert await redis.get(tenant_key(kept.tenant_id, "x")) == b"3"

    await expect(doomed.admin.GetTenant(probe), Code.UNAUTHENTICATED)
    await kept.admin.GetTenant(admin_pb2.GetTenantRequest(name=kept.name))


@pytest.mark.vector_backends  # and on a real Qdrant server, when one is configured
async def test_delete_tenant_drops_its_points_from_the_vector_index(
    root: Any, make_tenant: Any, server: RunningServer
) -> None:
    recall = server.ctx.recall
    assert recall is not None
    doomed = await make_tenant()
    kept = await make_tenant()
    for tenant in (doomed, kept):
        await tenant.lifecycle.ProposeMemory(
            lifecycle_pb2.ProposeMemoryRequest(
                proposal=lifecycle_pb2.MemoryProposal(
                    space="notes", content="The staging database is restored every Sunday"
                )
            )
        )
        assert await recall.worker.wait_until_indexed(tenant.tenant_id, 60) == 0
        assert await recall.index.count(tenant.tenant_id) == 1

    await root.DeleteTenant(admin_pb2.DeleteTenantRequest(name=doomed.name))

    # The index holds what was derived from the tenant's content: it goes too.
    assert await recall.index.count(doomed.tenant_id) == 0
    assert await recall.index.count(kept.tenant_id) == 1


async def test_a_tenant_recreated_under_a_deleted_ones_id_does_not_get_its_policy(
    root: Any, make_tenant: Any
) -> None:
    doomed = await make_tenant()
    await doomed.lifecycle.SetPolicy(
        lifecycle_pb2.SetPolicyRequest(
            policy=lifecycle_pb2.Policy(name="spaces/crm/policy", allowed_personal_data=["email"])
        )
    )
    stored = await doomed.lifecycle.ProposeMemory(
        lifecycle_pb2.ProposeMemoryRequest(
            proposal=lifecycle_pb2.MemoryProposal(
                space="crm", content="Invoices go to ana@acme.com", confidence=0.9
            )
        )
    )
    assert stored.result.memory.content == "Invoices go to ana@acme.com"  # policy now cached
    await root.DeleteTenant(admin_pb2.DeleteTenantRequest(name=doomed.name))
    await root.CreateTenant(admin_pb2.CreateTenantRequest(tenant_id=doomed.tenant_id))
    reborn = await root.CreateApiKey(key_request(doomed.name, "write"))
    channel = open_channel(doomed.address, reborn.secret)
    try:
        lifecycle = lifecycle_pb2_grpc.LifecycleServiceStub(channel)
        again = await lifecycle.ProposeMemory(
            lifecycle_pb2.ProposeMemoryRequest(
                proposal=lifecycle_pb2.MemoryProposal(
                    space="crm", content="Invoices go to bo@acme.com", confidence=0.9
                )
            )
        )
    finally:
        await channel.close()
    # The new tenant has the built-in policy: personal data is redacted.
    assert again.result.memory.content == "Invoices go to [EMAIL]"


# -- groups -------------------------------------------------------------------------------


async def test_group_and_pool_writes_refuse_an_oversized_request_id(make_tenant: Any) -> None:
    tenant = await make_tenant()
    # Random, so that it does not compress below the idempotency index's row limit.
    long_id = secrets.token_urlsafe(3000)
    admin = tenant.admin
    pools = pool_pb2_grpc.PoolServiceStub(tenant.channel)
    await admin.CreateGroup(admin_pb2.CreateGroupRequest(group_id="oncall"))
    for method, request in (
        (admin.CreateGroup, admin_pb2.CreateGroupRequest(group_id="sre")),
        (
            admin.AddGroupMember,
            admin_pb2.AddGroupMemberRequest(group="groups/oncall", principal="agents/pager"),
        ),
        (admin.DeleteGroup, admin_pb2.DeleteGroupRequest(name="groups/oncall")),
        (
            pools.CreatePool,
            pool_pb2.CreatePoolRequest(pool_id="shared", pool=pool_pb2.Pool(display_name="Shared")),
        ),
    ):
        request.request_id = long_id
        await expect_invalid(method(request), "request_id")
    # Nothing was written by the refused calls.
    listed = await admin.ListGroups(admin_pb2.ListGroupsRequest())
    assert [(g.name, list(g.members)) for g in listed.groups] == [("groups/oncall", [])]


async def test_removing_a_malformed_group_member_is_invalid(make_tenant: Any) -> None:
    tenant = await make_tenant()
    await tenant.admin.CreateGroup(admin_pb2.CreateGroupRequest(group_id="oncall"))
    for principal in ("agents/" + "x" * 8000, " agents/pager", "groups/oncall"):
        await expect_invalid(
            tenant.admin.RemoveGroupMember(
                admin_pb2.RemoveGroupMemberRequest(group="groups/oncall", principal=principal)
            ),
            "principal",
        )
    # A well-formed principal that is not a member is still NOT_FOUND.
    await expect(
        tenant.admin.RemoveGroupMember(
            admin_pb2.RemoveGroupMemberRequest(group="groups/oncall", principal="agents/pager")
        ),
        Code.NOT_FOUND,
    )


async def test_delete_tenant_forgets_its_query_vectors(
    root: Any, make_tenant: Any, server: RunningServer, raw_pg: Any
) -> None:
    """A remembered query answers faster than the model: a tenant created later
    under a deleted one's id must not find the deleted tenant's questions."""
    from engram.v1 import recall_pb2, recall_pb2_grpc

    recall = server.ctx.recall
    assert recall is not None
    doomed, kept = await make_tenant(), await make_tenant()
    question = "when is the staging database restored?"
    for tenant in (doomed, kept):
        await recall_pb2_grpc.RecallServiceStub(tenant.channel).Recall(
            recall_pb2.RecallRequest(query=question, spaces=["notes"])
        )
    remembered = recall.embedder._queries
    assert (doomed.tenant_id, question) in remembered

    await root.DeleteTenant(admin_pb2.DeleteTenantRequest(name=doomed.name))

    assert (doomed.tenant_id, question) not in remembered
    assert (kept.tenant_id, question) in remembered
    # Every replica forgets on the tenant-wide keys notice a deletion sends (sent
    # here for the kept tenant, which only makes its keys be read again).
    await raw_pg.execute("SELECT pg_notify('engram_keys', %s)", (f"{kept.tenant_id}/*",))
    for _ in range(200):
        if (kept.tenant_id, question) not in remembered:
            break
        await asyncio.sleep(0.05)
    assert (kept.tenant_id, question) not in remembered


# -- scopes of administrators ------------------------------------------------------------


async def test_administrators_do_not_read_memories(make_tenant: Any, platform_key: str) -> None:
    tenant = await make_tenant(scopes=("admin",))
    await expect(
        tenant.lifecycle.ListMemories(lifecycle_pb2.ListMemoriesRequest()), Code.PERMISSION_DENIED
    )
    from engram.v1 import lifecycle_pb2_grpc

    platform = lifecycle_pb2_grpc.LifecycleServiceStub(tenant.channel_for(platform_key))
    await expect(platform.ListMemories(lifecycle_pb2.ListMemoriesRequest()), Code.PERMISSION_DENIED)


# -- bootstrap ---------------------------------------------------------------------------


async def _bootstrap_rows(raw_pg: psycopg.AsyncConnection[Any]) -> list[tuple[Any, ...]]:
    cur = await raw_pg.execute(
        "SELECT id, scopes, revoke_time FROM api_keys WHERE tenant_id = %s AND id = %s",
        (BOOTSTRAP_TENANT, BOOTSTRAP_KEY_ID),
    )
    return list(await cur.fetchall())


async def test_bootstrap_token_is_idempotent_and_rotates(
    server: RunningServer, platform_key: str, raw_pg: psycopg.AsyncConnection[Any]
) -> None:
    ctx = server.ctx
    probe = admin_pb2.ListTenantsRequest(page_size=1)

    await ensure_bootstrap_token(ctx, platform_key)
    await ensure_bootstrap_token(ctx, platform_key)
    rows = await _bootstrap_rows(raw_pg)
    assert len(rows) == 1
    assert sorted(rows[0][1]) == ["admin", "platform"]

    rotated = f"rotated-{secrets.token_hex(16)}"
    old_channel = open_channel(server.address, platform_key)
    new_channel = open_channel(server.address, rotated)
    try:
        old = admin_pb2_grpc.AdminServiceStub(old_channel)
        new = admin_pb2_grpc.AdminServiceStub(new_channel)
        await old.ListTenants(probe)  # cached
        await ensure_bootstrap_token(ctx, rotated)
        assert len(await _bootstrap_rows(raw_pg)) == 1
        await expect(old.ListTenants(probe), Code.UNAUTHENTICATED)
        await new.ListTenants(probe)
    finally:
        # Other tests keep using the session's platform key.
        await ensure_bootstrap_token(ctx, platform_key)
        await old_channel.close()
        await new_channel.close()
    assert len(await _bootstrap_rows(raw_pg)) == 1


async def test_bootstrap_token_keeps_most_of_itself_out_of_listings(
    root: Any, platform_key: str
) -> None:
    keys = await root.ListApiKeys(admin_pb2.ListApiKeysRequest(parent="tenants/default"))
    bootstrap = next(k for k in keys.api_keys if k.name.endswith("/apiKeys/bootstrap"))
    assert len(bootstrap.secret_prefix) <= 4
    assert platform_key.startswith(bootstrap.secret_prefix)


async def test_short_bootstrap_token_is_refused(server: RunningServer) -> None:
    with pytest.raises(ValueError, match="at least 16"):
        await ensure_bootstrap_token(server.ctx, "too-short")


async def test_dev_key_is_fresh_and_working_on_every_start(
    server: RunningServer, root: Any
) -> None:
    first = await ensure_dev_key(server.ctx)
    second = await ensure_dev_key(server.ctx)
    assert first != second
    probe = admin_pb2.GetTenantRequest(name=f"tenants/{DEV_TENANT}")
    first_channel = open_channel(server.address, first)
    second_channel = open_channel(server.address, second)
    try:
        await expect(
            admin_pb2_grpc.AdminServiceStub(first_channel).GetTenant(probe), Code.UNAUTHENTICATED
        )
        await admin_pb2_grpc.AdminServiceStub(second_channel).GetTenant(probe)
    finally:
        await first_channel.close()
        await second_channel.close()
    keys = await root.ListApiKeys(
        admin_pb2.ListApiKeysRequest(parent=f"tenants/{DEV_TENANT}", show_revoked=True)
    )
    dev_keys = [k for k in keys.api_keys if second.startswith(k.secret_prefix)]
    assert len(dev_keys) == 1
    assert sorted(dev_keys[0].scopes) == ["admin", "operator", "read", "write"]
