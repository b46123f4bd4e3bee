"""Redis access with per-tenant, hash-tagged key prefixes.

Every key is `engram:{<tenant>}:<part>:<part>...`. The braces are a Redis Cluster
hash tag, so all of one tenant's keys live in one slot (multi-key operations stay
legal) and deleting a tenant is one SCAN over its prefix.
"""

from __future__ import annotations

import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from engram_server.errors import Unavailable

KEY_ROOT = "engram"
# What a caller reads when Redis cannot be reached (its address stays in the log).
REDIS_UNAVAILABLE = "Redis is unavailable; retry later"


# uvloop's words when redis-py writes to a connection the server has just closed
# (a Redis restart between connecting and sending): a RuntimeError that redis-py
# does not turn into its ConnectionError.
_CLOSED_TRANSPORT = "the handler is closed"


def is_unreachable(exc: BaseException) -> bool:
    """Whether `exc` means Redis cannot be reached right now (retrying later may work)."""
    if isinstance(exc, RedisConnectionError | RedisTimeoutError | OSError):
        return True
    return isinstance(exc, RuntimeError) and _CLOSED_TRANSPORT in str(exc)


def tenant_prefix(tenant_id: str) -> str:
    if not tenant_id or any(c in tenant_id for c in "{}:*?[]"):
        raise ValueError(f"unsafe tenant id for a Redis key: {tenant_id!r}")
    return f"{KEY_ROOT}:{{{tenant_id}}}:"


def tenant_key(tenant_id: str, *parts: str) -> str:
    return tenant_prefix(tenant_id) + ":".join(parts)


class RedisStore:
    """The server's Redis client; callers build keys with `tenant_key` only."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.client: aioredis.Redis = aioredis.Redis.from_url(
            url,
            decode_responses=False,
            socket_connect_timeout=2.0,
            socket_timeout=2.0,
            health_check_interval=15,
            retry_on_timeout=True,
        )

    async def ping(self) -> None:
        try:
            await self.client.ping()
        except Exception as exc:
            if not is_unreachable(exc):
                raise
            raise Unavailable(REDIS_UNAVAILABLE) from exc

    async def purge_tenant(self, tenant_id: str) -> int:
        """Deletes every key of the tenant and returns how many there were."""
        pattern = tenant_prefix(tenant_id) + "*"
        deleted = 0
        try:
            batch: list[bytes] = []
            async for key in self.client.scan_iter(match=pattern, count=500):
                batch.append(key)
                if len(batch) >= 500:
                    deleted += int(await self.client.unlink(*batch))
                    batch.clear()
            if batch:
                deleted += int(await self.client.unlink(*batch))
        except Exception as exc:
            if not is_unreachable(exc):
                raise
            raise Unavailable(REDIS_UNAVAILABLE) from exc
        return deleted

    async def close(self) -> None:
        await self.client.aclose()
