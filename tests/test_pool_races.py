"""Concurrent publish, unpublish, retract and remove-member leave a consistent state."""

from __future__ import annotations

import asyncio
import contextlib
import random
from typing import Any

import grpc
from engram.v1 import lifecycle_pb2, pool_pb2

from tests.pool_helpers import WRITER, make_agent

WRITERS = 4
ROUNDS = 12


async def test_concurrent_publish_unpublish_remove(make_tenant: Any, raw_pg: Any) -> None:
    t = await make_tenant()
    owner = await make_agent(t, "owner")
    writers = [await make_agent(t, f"w{i}") for i in range(WRITERS)]
    await owner.create_pool("race")
    await owner.create_pool("doomed")
    members = {}
    for w in writers:
        members[w.name] = (await owner.add("pools/race", w.name, WRITER)).name
        await owner.add("pools/doomed", w.name, WRITER)
    rng = random.Random(7)

    async def work(w: Any) -> None:
        for i in range(ROUNDS):
            slot = f"topic::{rng.randrange(3)}"
            try:
                m = await w.remember(w.name, f"{w.name} says {i}", importance=0.9, slot_key=slot)
                if i % 3 == 0:
                    with contextlib.suppress(grpc.aio.AioRpcError):
                        await w.publish("pools/doomed", m.name)
                out = await w.publish("pools/race", m.name)
                if out.outcome == pool_pb2.PUBLISH_OUTCOME_PUBLISHED and rng.random() < 0.3:
                    await w.pool.UnpublishMemory(
                        pool_pb2.UnpublishMemoryRequest(name=out.publication.name)
                    )
                elif rng.random() < 0.3:
                    await w.lifecycle.RetractMemory(
                        lifecycle_pb2.RetractMemoryRequest(name=m.name, reason="oops")
                    )
            except grpc.aio.AioRpcError as err:
                # Removed mid-way: refused cleanly, never half-written.
                assert err.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.PERMISSION_DENIED)

    async def remover() -> None:
        for w in writers[:2]:
            await asyncio.sleep(0.15)
            await owner.pool.RemovePoolMember(
                pool_pb2.RemovePoolMemberRequest(name=members[w.name])
            )
        await owner.pool.DeletePool(pool_pb2.DeletePoolRequest(name="pools/doomed"))

    await asyncio.gather(*(work(w) for w in writers), remover())

    async def rows(query: str, *params: Any) -> list[Any]:
        cur = await raw_pg.execute(query, params)
        return list(await cur.fetchall())

    tenant = t.tenant_id
    # 0. A pool deleted while publishes raced it leaves nothing behind.
    for table in ("publications", "pool_slots", "pool_events", "pool_members", "pool_trust"):
        left = await rows(
            f"SELECT * FROM {table} WHERE tenant_id = %s AND pool_id = 'doomed'", tenant
        )
        assert left == [], (table, left[:3])
    # 1. No live publication of a memory that is not ACTIVE.
    assert (
        await rows(
            "SELECT p.id FROM publications p JOIN memories m ON m.tenant_id = p.tenant_id"
            " AND m.id = p.memory_id WHERE p.tenant_id = %s AND p.state = 'PUBLISHED'"
            " AND m.status <> 'ACTIVE'",
            tenant,
        )
        == []
    )
    # 2. Nothing published by a writer after its removal committed (audit order).
    for w in writers[:2]:
        removed = await rows(
            "SELECT seq FROM audit_log WHERE tenant_id = %s AND action = 'MEMBERSHIP'"
            " AND details->>'event' = 'member_removed' AND details->>'principal' = %s"
            " AND details->>'pool' = 'pools/race'",
            tenant,
            w.name,
        )
        assert len(removed) == 1
        late = await rows(
            "SELECT seq FROM audit_log WHERE tenant_id = %s AND action = 'PUBLICATION'"
            " AND actor = %s AND details->>'event' = 'published' AND seq > %s"
            " AND details->>'pool' = 'pools/race'",
            tenant,
            w.name,
            removed[0][0],
        )
        assert late == []
    # 3. The pool's log is gapless, and each slot holds the latest live publication.
    seqs = [
        r[0]
        for r in await rows(
            "SELECT seq FROM pool_events WHERE tenant_id = %s AND pool_id = 'race' ORDER BY seq",
            tenant,
        )
    ]
    assert seqs == list(range(1, len(seqs) + 1))
    state = await rows(
        "SELECT seq FROM pool_state WHERE tenant_id = %s AND pool_id = 'race'", tenant
    )
    assert state[0][0] == len(seqs)
    holders = dict(
        (r[0], r[1])
        for r in await rows(
            "SELECT slot, memory_id FROM pool_slots WHERE tenant_id = %s AND pool_id = 'race'"
            " AND audience = 'contributors'",
            tenant,
        )
    )
    expected = dict(
        (r[0], r[1])
        for r in await rows(
            "SELECT DISTINCT ON (p.slot) p.slot, p.memory_id FROM publications p"
            " JOIN memories m ON m.tenant_id = p.tenant_id AND m.id = p.memory_id"
            " WHERE p.tenant_id = %s AND p.pool_id = 'race' AND p.state = 'PUBLISHED'"
            " AND m.status = 'ACTIVE' ORDER BY p.slot, p.published_time DESC, p.id DESC",
            tenant,
        )
    )
    assert {k: v for k, v in holders.items() if v is not None} == expected
    # 4. A fresh sync sees exactly those holders.
    synced = {}
    async for message in owner.pool.SyncPool(pool_pb2.SyncPoolRequest(pool="pools/race")):
        if message.caught_up:
            break
        synced[message.delta.slot_key] = message.delta.new_memory.name
    assert synced == {k: f"memories/{v}" for k, v in expected.items()}
