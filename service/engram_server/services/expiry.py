"""The expiry sweeper: safe on every replica at once.

Each replica asks which tenants have due memories, then expires them inside the
tenant's own transaction with `FOR UPDATE SKIP LOCKED`, so two replicas never
expire the same memory twice and never wait on each other.
"""

from __future__ import annotations

from engram_server.services.lifecycle import SYSTEM_ACTOR, LifecycleService
from engram_server.store.postgres import Database

TENANTS_PER_ROUND = 100
MEMORIES_PER_TENANT = 1000


async def sweep_once(db: Database, service: LifecycleService) -> int:
    """Expires due memories across tenants; returns how many were expired."""
    async with db.unscoped() as conn:
        cur = await conn.execute(
            "SELECT tenant_id FROM engram_tenants_with_due_memories(now(), %s)",
            (TENANTS_PER_ROUND,),
        )
        tenants = [row["tenant_id"] for row in await cur.fetchall()]
        await conn.commit()
    total = 0
    for tenant in tenants:
        total += len(await service.expire_due(tenant, SYSTEM_ACTOR, None, MEMORIES_PER_TENANT))
    return total
