"""Per-tenant request rate quota, counted in Redis."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import grpc
import grpc.aio
import pytest
from engram.v1 import admin_pb2, admin_pb2_grpc, lifecycle_pb2, lifecycle_pb2_grpc
from engram_server.errors import ResourceExhausted
from engram_server.platform.context import AppContext
from engram_server.platform.interceptors.ratelimit import RateLimitInterceptor
from engram_server.platform.principal import Principal, reset_principal, set_principal
from engram_server.store.redis import RedisStore, tenant_key
from google.rpc import error_details_pb2
from grpc_status import rpc_status


async def _set_quota(raw_pg: Any, tenant_id: str, per_second: int) -> None:
    await raw_pg.execute(
        "UPDATE tenants SET quota_requests_per_second = %s WHERE id = %s", (per_second, tenant_id)
    )


async def _wait_for_fresh_second() -> None:
    # Start a burst early in a wall-clock second so it stays inside it.
    await asyncio.sleep(1.02 - (time.time() % 1))


async def test_calls_beyond_the_quota_are_resource_exhausted(make_tenant: Any, raw_pg: Any) -> None:
    tenant = await make_tenant(scopes=("read",))
    await _set_quota(raw_pg, tenant.tenant_id, 3)
    stub = lifecycle_pb2_grpc.LifecycleServiceStub(tenant.channel)
    await _wait_for_fresh_second()
    outcomes = await asyncio.gather(
        *(stub.ListMemories(lifecycle_pb2.ListMemoriesRequest()) for _ in range(8)),
        return_exceptions=True,
    )
    refused = [o for o in outcomes if isinstance(o, grpc.aio.AioRpcError)]
    assert all(e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED for e in refused)
    assert 3 <= len(outcomes) - len(refused) <= 6  # at most two seconds' worth
    status = rpc_status.from_call(refused[0])
    assert status is not None
    quota = error_details_pb2.QuotaFailure()
    assert any(d.Unpack(quota) for d in status.details if d.Is(quota.DESCRIPTOR))
    assert quota.violations[0].subject == f"tenants/{tenant.tenant_id}"


async def test_quota_is_per_tenant(make_tenant: Any, raw_pg: Any) -> None:
    limited = await make_tenant(scopes=("read",))
    free = await make_tenant(scopes=("read",))
    await _set_quota(raw_pg, limited.tenant_id, 1)
    await _wait_for_fresh_second()
    for _ in range(5):
        await free.lifecycle.ListMemories(lifecycle_pb2.ListMemoriesRequest())
    await limited.lifecycle.ListMemories(lifecycle_pb2.ListMemoriesRequest())


async def test_quota_set_through_the_admin_api_applies(server: Any, platform_key: str) -> None:
    tenant_id = f"q-{time.time_ns() % 10**9}"
    async with grpc.aio.insecure_channel(server.address) as channel:
        platform = (("authorization", f"Bearer {platform_key}"),)
        admin = admin_pb2_grpc.AdminServiceStub(channel)
        await admin.CreateTenant(
            admin_pb2.CreateTenantRequest(
                tenant_id=tenant_id,
                tenant=admin_pb2.Tenant(quota=admin_pb2.TenantQuota(requests_per_second=1)),
            ),
            metadata=platform,
        )
        key = await admin.CreateApiKey(
            admin_pb2.CreateApiKeyRequest(
                parent=f"tenants/{tenant_id}", api_key=admin_pb2.ApiKey(scopes=["read"])
            ),
            metadata=platform,
        )
        auth = (("authorization", f"Bearer {key.secret}"),)
        stub = lifecycle_pb2_grpc.LifecycleServiceStub(channel)
        await _wait_for_fresh_second()
        codes = []
        for _ in range(3):
            try:
                await stub.ListMemories(lifecycle_pb2.ListMemoriesRequest(), metadata=auth)
                codes.append(grpc.StatusCode.OK)
            except grpc.aio.AioRpcError as err:
                codes.append(err.code())
    assert codes[0] == grpc.StatusCode.OK
    assert grpc.StatusCode.RESOURCE_EXHAUSTED in codes


async def test_counter_lives_under_the_tenant_prefix(
    app: AppContext, make_tenant: Any, raw_pg: Any
) -> None:
    tenant = await make_tenant(scopes=("read",))
    await _set_quota(raw_pg, tenant.tenant_id, 100)
    # A limiter of its own: the server's shared one may be inside its back-off window
    # after an earlier test's Redis hiccup, and then it counts nothing for a few seconds.
    limiter = RateLimitInterceptor(app.db, app.redis)
    pattern = tenant_key(tenant.tenant_id, "rate", "*")
    await limiter.check(tenant.tenant_id)
    # One KEYS call, not a SCAN walk: with many unrelated keys in the Redis, a walk
    # may outlast the counter's two-second lifetime.
    keys = await app.redis.client.keys(pattern)
    assert keys, "the counter is not under the tenant's key prefix"
    ttls = [await app.redis.client.pttl(k) for k in keys]
    # -1 would be a counter that never expires; -2 one that expired since the scan.
    assert -1 not in ttls
    assert all(ttl <= 2000 for ttl in ttls), ttls


async def test_redis_outage_lets_calls_through(
    app: AppContext, make_tenant: Any, raw_pg: Any, caplog: pytest.LogCaptureFixture
) -> None:
    tenant = await make_tenant(scopes=("read",))
    await _set_quota(raw_pg, tenant.tenant_id, 1)
    dead = RedisStore("redis://127.0.0.1:1/0")  # nothing listens there
    limiter = RateLimitInterceptor(app.db, dead)
    token = set_principal(Principal(tenant.tenant_id, "k", frozenset({"read"})))
    try:
        for _ in range(5):
            async with limiter.around(None, None):  # type: ignore[arg-type]
                pass
    finally:
        reset_principal(token)
        await dead.close()
    assert caplog.text.count("rate limiting suspended") == 1


async def test_limiter_counts_with_a_live_redis(
    app: AppContext, make_tenant: Any, raw_pg: Any
) -> None:
    tenant = await make_tenant(scopes=("read",))
    await _set_quota(raw_pg, tenant.tenant_id, 2)
    limiter = RateLimitInterceptor(app.db, app.redis)
    token = set_principal(Principal(tenant.tenant_id, "k", frozenset({"read"})))
    try:
        await _wait_for_fresh_second()
        for _ in range(2):
            async with limiter.around(None, None):  # type: ignore[arg-type]
                pass
        with pytest.raises(ResourceExhausted):
            async with limiter.around(None, None):  # type: ignore[arg-type]
                pass
    finally:
        reset_principal(token)
