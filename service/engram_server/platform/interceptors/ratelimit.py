"""Per-tenant request rate quota (`tenants.quota_requests_per_second`).

Counting happens in Redis, one counter per tenant and wall-clock second, so every
replica shares the budget. The quota itself is read from Postgres and cached
briefly. When Redis is down the limiter lets calls through: an unlimited minute
is better than refusing every tenant's every call; the outage is logged once.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import grpc
import grpc.aio
from redis.exceptions import RedisError

from engram_server.errors import ResourceExhausted
from engram_server.platform.interceptors._wrap import WrappingInterceptor
from engram_server.platform.principal import current_principal
from engram_server.platform.scopes import is_public
from engram_server.store.postgres import Database
from engram_server.store.redis import RedisStore, is_unreachable, tenant_key

log = logging.getLogger(__name__)

# How long a tenant's quota is trusted before it is read again.
QUOTA_CACHE_SECONDS = 5.0
# After a Redis failure, skip counting for this long instead of paying a
# connection timeout on every call.
REDIS_BACKOFF_SECONDS = 5.0


class RateLimitInterceptor(WrappingInterceptor):
    def __init__(
        self,
        db: Database,
        redis: RedisStore,
        quota_cache_seconds: float = QUOTA_CACHE_SECONDS,
        redis_backoff_seconds: float = REDIS_BACKOFF_SECONDS,
    ) -> None:
        self._db = db
        self._redis = redis
        self._quota_cache_seconds = quota_cache_seconds
        self._redis_backoff_seconds = redis_backoff_seconds
        self._quotas: dict[str, tuple[int, float]] = {}
        self._redis_down_until = 0.0
        self._redis_down_logged = False

    def applies(self, method: str) -> bool:
        return not is_public(method)

    async def quota(self, tenant_id: str) -> int:
        """Requests per second allowed to the tenant; 0 means unlimited."""
        cached = self._quotas.get(tenant_id)
        now = time.monotonic()
        if cached is not None and now - cached[1] < self._quota_cache_seconds:
            return cached[0]
        rows = await self._db.tenant_read(
            tenant_id, "SELECT quota_requests_per_second FROM tenants WHERE id = %s", (tenant_id,)
        )
        limit = int(rows[0]["quota_requests_per_second"]) if rows else 0
        self._quotas[tenant_id] = (limit, now)
        return limit

    def forget(self, tenant_id: str) -> None:
        """Drops the cached quota so the next call reads it again."""
        self._quotas.pop(tenant_id, None)

    async def _count(self, tenant_id: str, requests: int = 1) -> int | None:
        """Adds `requests` to this second's count of the tenant and returns the
        count, or None if Redis is unusable."""
        if time.monotonic() < self._redis_down_until:
            return None
        key = tenant_key(tenant_id, "rate", str(int(time.time())))
        try:
            pipe = self._redis.client.pipeline(transaction=False)
            pipe.incrby(key, requests)
            pipe.expire(key, 2)
            count, _ = await pipe.execute()
        except Exception as exc:
            if not (isinstance(exc, RedisError) or is_unreachable(exc)):
                raise
            self._redis_down_until = time.monotonic() + self._redis_backoff_seconds
            if not self._redis_down_logged:
                self._redis_down_logged = True
                log.warning("rate limiting suspended: redis unavailable (%s)", exc)
            return None
        if self._redis_down_logged:
            self._redis_down_logged = False
            log.info("rate limiting resumed: redis is back")
        return int(count)

    async def check(self, tenant_id: str) -> None:
        """Counts one call of the tenant; raises ResourceExhausted over its quota."""
        if await self.admit(tenant_id, 1) < 1:
            raise self.exceeded(tenant_id, await self.quota(tenant_id))

    async def admit(self, tenant_id: str, requests: int) -> int:
        """Counts `requests` more requests of the tenant (the messages of a stream)
        and returns how many of them, the first ones, fit in this second's quota."""
        limit = await self.quota(tenant_id)
        if limit <= 0 or requests <= 0:
            return requests
        count = await self._count(tenant_id, requests)
        if count is None:
            return requests
        return max(0, min(requests, limit - (count - requests)))

    @staticmethod
    def exceeded(tenant_id: str, limit: int) -> ResourceExhausted:
        return ResourceExhausted(
            f"tenant request rate quota of {limit}/s exceeded",
            quota="requests_per_second",
            subject=f"tenants/{tenant_id}",
        )

    @asynccontextmanager
    async def around(
        self, details: grpc.HandlerCallDetails, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[None]:
        await self.check(current_principal().tenant_id)
        yield
