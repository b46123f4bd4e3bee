"""Authentication and scope checks on the live server, with real keys."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import grpc
import grpc.aio
import pytest
from engram.v1 import admin_pb2, admin_pb2_grpc, lifecycle_pb2, lifecycle_pb2_grpc
from engram_server.errors import Unauthenticated
from engram_server.platform import auth
from engram_server.platform.auth import bearer_secret
from google.rpc import error_details_pb2
from grpc_status import rpc_status


async def _list_memories(channel: grpc.aio.Channel) -> Any:
    return await lifecycle_pb2_grpc.LifecycleServiceStub(channel).ListMemories(
        lifecycle_pb2.ListMemoriesRequest()
    )


async def _expect(code: grpc.StatusCode, call: Any) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    assert caught.value.code() == code, caught.value.details()
    return caught.value


async def _eventually_refused(channel: grpc.aio.Channel) -> str:
    """Polls until the key is refused (a NOTIFY takes a moment to arrive)."""
    async with asyncio.timeout(5):
        while True:
            try:
                await _list_memories(channel)
            except grpc.aio.AioRpcError as err:
                assert err.code() == grpc.StatusCode.UNAUTHENTICATED, err.details()
                return err.details() or ""
            await asyncio.sleep(0.05)


def _key_id(secret: str) -> str:
    # `egk_<key id>_<random>`
    return secret.split("_", 2)[1]


async def test_a_valid_key_is_accepted(make_tenant: Any) -> None:
    tenant = await make_tenant(scopes=("read",))
    reply = await _list_memories(tenant.channel)
    assert list(reply.memories) == []


async def test_no_key_is_unauthenticated(server: Any) -> None:
    async with grpc.aio.insecure_channel(server.address) as channel:
        err = await _expect(grpc.StatusCode.UNAUTHENTICATED, _list_memories(channel))
    assert "authorization" in (err.details() or "")
    # The rich status travels on this code too.
    assert rpc_status.from_call(err) is not None


@pytest.mark.parametrize(
    "header", ["Basic dXNlcjpwYXNz", "Bearer", "Bearer    ", "egk_abc_def", "bearer egk_unknown"]
)
async def test_malformed_or_unknown_keys_are_unauthenticated(server: Any, header: str) -> None:
    async with grpc.aio.insecure_channel(server.address) as channel:
        await _expect(
            grpc.StatusCode.UNAUTHENTICATED,
            lifecycle_pb2_grpc.LifecycleServiceStub(channel).ListMemories(
                lifecycle_pb2.ListMemoriesRequest(), metadata=(("authorization", header),)
            ),
        )


async def test_bearer_scheme_is_case_insensitive() -> None:
    assert bearer_secret("bearer abc") == "abc"
    assert bearer_secret("BEARER  abc ") == "abc"
    with pytest.raises(Unauthenticated):
        bearer_secret(None)


async def test_revoked_key_is_refused_even_when_cached(make_tenant: Any) -> None:
    tenant = await make_tenant(scopes=("read", "admin"))
    victim = await tenant.new_key(scopes=("read",))
    victim_channel = tenant.channel_for(victim)
    await _list_memories(victim_channel)  # now cached
    await tenant.admin.RevokeApiKey(
        admin_pb2.RevokeApiKeyRequest(name=f"{tenant.name}/apiKeys/{_key_id(victim)}")
    )
    assert "revoked" in await _eventually_refused(victim_channel)


async def test_revocation_reaches_the_cache_through_notify(make_tenant: Any, raw_pg: Any) -> None:
    """As if another replica revoked the key: only the NOTIFY tells this one."""
    tenant = await make_tenant(scopes=("read",))
    await _list_memories(tenant.channel)  # cached
    key_id = _key_id(tenant.secret)
    await raw_pg.execute(
        "UPDATE api_keys SET revoke_time = now() WHERE tenant_id = %s AND id = %s",
        (tenant.tenant_id, key_id),
    )
    # Without the notice the cached key keeps working (the cache is real)...
    await _list_memories(tenant.channel)
    await raw_pg.execute("SELECT pg_notify('engram_keys', %s)", (f"{tenant.tenant_id}/{key_id}",))
    # ...and with it, it stops at once.
    assert "revoked" in await _eventually_refused(tenant.channel)


async def test_tenant_wide_notice_drops_every_key_of_the_tenant(
    make_tenant: Any, raw_pg: Any
) -> None:
    tenant = await make_tenant(scopes=("read",))
    await _list_memories(tenant.channel)
    await raw_pg.execute(
        "UPDATE api_keys SET revoke_time = now() WHERE tenant_id = %s", (tenant.tenant_id,)
    )
    await raw_pg.execute("SELECT pg_notify('engram_keys', %s)", (f"{tenant.tenant_id}/*",))
    await _eventually_refused(tenant.channel)


async def test_invalidate_key_drops_a_cached_key_locally(make_tenant: Any, raw_pg: Any) -> None:
    tenant = await make_tenant(scopes=("read",))
    await _list_memories(tenant.channel)
    key_id = _key_id(tenant.secret)
    await raw_pg.execute(
        "UPDATE api_keys SET revoke_time = now() WHERE tenant_id = %s AND id = %s",
        (tenant.tenant_id, key_id),
    )
    auth.invalidate_key(tenant.tenant_id, key_id)
    await _expect(grpc.StatusCode.UNAUTHENTICATED, _list_memories(tenant.channel))


async def test_expired_key_is_unauthenticated(make_tenant: Any, raw_pg: Any) -> None:
    tenant = await make_tenant(scopes=("read", "admin"))
    secret = await tenant.new_key(scopes=("read",))
    await raw_pg.execute(
        "UPDATE api_keys SET expire_time = now() - interval '1 second'"
        " WHERE tenant_id = %s AND id = %s",
        (tenant.tenant_id, _key_id(secret)),
    )
    err = await _expect(grpc.StatusCode.UNAUTHENTICATED, _list_memories(tenant.channel_for(secret)))
    assert "expired" in (err.details() or "")


async def test_a_cached_key_still_expires_on_time(make_tenant: Any) -> None:
    tenant = await make_tenant(scopes=("read", "admin"))
    secret = await tenant.new_key(
        scopes=("read",), expire_time=datetime.now(UTC) + timedelta(seconds=1)
    )
    channel = tenant.channel_for(secret)
    await _list_memories(channel)  # valid, and cached
    await asyncio.sleep(1.1)
    err = await _expect(grpc.StatusCode.UNAUTHENTICATED, _list_memories(channel))
    assert "expired" in (err.details() or "")


async def test_deleted_tenant_keys_stop_working(make_tenant: Any, platform_key: str) -> None:
    tenant = await make_tenant(scopes=("read",))
    await _list_memories(tenant.channel)
    platform = admin_pb2_grpc.AdminServiceStub(tenant.channel_for(platform_key))
    await platform.DeleteTenant(admin_pb2.DeleteTenantRequest(name=tenant.name))
    await _eventually_refused(tenant.channel)


# -- scopes --------------------------------------------------------------------------------


def _missing_scope(err: grpc.aio.AioRpcError) -> str:
    status = rpc_status.from_call(err)
    assert status is not None
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info.metadata["scope"]
    raise AssertionError("no ErrorInfo")


async def test_missing_scope_is_permission_denied_naming_the_scope(make_tenant: Any) -> None:
    tenant = await make_tenant(scopes=("read",))
    err = await _expect(
        grpc.StatusCode.PERMISSION_DENIED,
        tenant.lifecycle.ProposeMemory(lifecycle_pb2.ProposeMemoryRequest()),
    )
    assert _missing_scope(err) == "write"


async def test_write_key_cannot_read(make_tenant: Any) -> None:
    tenant = await make_tenant(scopes=("write",))
    err = await _expect(grpc.StatusCode.PERMISSION_DENIED, _list_memories(tenant.channel))
    assert _missing_scope(err) == "read"


@pytest.mark.parametrize(
    ("method", "scope"),
    [("SetPolicy", "admin"), ("PurgeMemories", "admin"), ("ExpireDueMemories", "operator")],
)
async def test_privileged_lifecycle_methods_need_their_scope(
    make_tenant: Any, method: str, scope: str
) -> None:
    tenant = await make_tenant(scopes=("read", "write"))
    request_type = getattr(lifecycle_pb2, f"{method}Request")
    err = await _expect(
        grpc.StatusCode.PERMISSION_DENIED, getattr(tenant.lifecycle, method)(request_type())
    )
    assert _missing_scope(err) == scope


async def test_platform_key_does_not_read_memories(make_tenant: Any, platform_key: str) -> None:
    tenant = await make_tenant(scopes=("read",))
    channel = tenant.channel_for(platform_key)
    err = await _expect(grpc.StatusCode.PERMISSION_DENIED, _list_memories(channel))
    assert _missing_scope(err) == "read"


async def test_admin_service_needs_admin_or_platform(make_tenant: Any) -> None:
    reader = await make_tenant(scopes=("read", "write"))
    await _expect(
        grpc.StatusCode.PERMISSION_DENIED,
        reader.admin.ListApiKeys(admin_pb2.ListApiKeysRequest(parent=reader.name)),
    )
    admin = await make_tenant(scopes=("admin",))
    listed = await admin.admin.ListApiKeys(admin_pb2.ListApiKeysRequest(parent=admin.name))
    assert len(listed.api_keys) == 1


async def test_streaming_calls_authenticate_too(make_tenant: Any) -> None:
    tenant = await make_tenant(scopes=("read",))
    stream = tenant.lifecycle.WatchTransitions(lifecycle_pb2.WatchTransitionsRequest(cursor="0"))
    # Past authentication the stream stays open, waiting for transitions.
    await asyncio.sleep(0.3)
    assert not stream.done()
    stream.cancel()
    async with grpc.aio.insecure_channel(tenant.address) as anonymous:
        anon = lifecycle_pb2_grpc.LifecycleServiceStub(anonymous).WatchTransitions(
            lifecycle_pb2.WatchTransitionsRequest(cursor="0")
        )
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            async for _ in anon:
                pass
    assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
