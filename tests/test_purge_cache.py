"""An erasure (PurgeMemories) takes the vectors cached for indexing with it.

The embedding cache keeps the vector of every text a tenant's memories were
indexed with, keyed by a hash of the text: derived from the content, so it must
not outlive a purge, nor come back when indexing was embedding a purged memory
at the time.
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import replace
from typing import Any

import numpy as np
import psycopg
import pytest
from engram.v1 import lifecycle_pb2, types_pb2
from engram_server.lexical.sparse import query_sparse_vector
from engram_server.lifecycle.model import Memory
from engram_server.services.indexing import Neighbour, cache_keys, dense_text, forget_vanished
from engram_server.store import memories as store
from engram_server.store.embedding_cache import PostgresEmbeddingCache
from google.protobuf.field_mask_pb2 import FieldMask

from tests.lifecycle_helpers import propose

# Against the embedded engine, and a real Qdrant server when ENGRAM_TEST_QDRANT_URL is set.
pytestmark = pytest.mark.vector_backends

WAIT_SECONDS = 60


async def _cached(raw_pg: Any, tenant_id: str) -> set[str]:
    cur = await raw_pg.execute(
        "SELECT content_hash FROM embedding_cache WHERE tenant_id = %s", (tenant_id,)
    )
    return {row[0] for row in await cur.fetchall()}


async def _indexed(server: Any, t: Any, content: str) -> Memory:
    """A memory proposed in space "s" once indexing has cached its vector, as stored."""
    proposed = (await propose(t.lifecycle, "s", content)).memory
    assert await server.ctx.recall.worker.wait_until_indexed(t.tenant_id, WAIT_SECONDS) == 0
    async with server.ctx.db.tenant_tx(t.tenant_id) as conn:
        stored = await store.get_memory(conn, uuid.UUID(proposed.name.rpartition("/")[2]))
    assert stored is not None
    return stored


async def test_purge_forgets_the_cached_vectors_of_what_it_deletes(
    make_tenant: Any, server: Any, raw_pg: Any
) -> None:
    t, other = await make_tenant(), await make_tenant()
    said = "Ana: I moved to Lisbon last spring"
    plain = "The locker code is 4512"
    first = (await propose(t.lifecycle, "users/42", plain, session="s1")).memory
    await propose(t.lifecycle, "users/42", said, session="s1")
    # Indexed before the revision, so the first content's vector is cached too.
    assert await server.ctx.recall.worker.wait_until_indexed(t.tenant_id, WAIT_SECONDS) == 0
    revised = "The locker code is 9034"
    await t.lifecycle.ReviseMemory(
        lifecycle_pb2.ReviseMemoryRequest(
            memory=types_pb2.Memory(name=first.name, etag=first.etag, content=revised),
            update_mask=FieldMask(paths=["content"]),
        )
    )
    kept = "Team lunch is on Thursdays"
    await propose(t.lifecycle, "users/43", kept)
    await propose(other.lifecycle, "users/42", plain)  # the same text in another tenant
    for tenant in (t, other):
        assert (
            await server.ctx.recall.worker.wait_until_indexed(tenant.tenant_id, WAIT_SECONDS) == 0
        )

    purged_keys = {*cache_keys(plain), *cache_keys(revised), *cache_keys(said)}
    cached = await _cached(raw_pg, t.tenant_id)
    # What indexing embedded: the plain texts by their hash, the turn without its
    # speaker by the key of that text.
    assert dense_text(cache_keys(said)[0], said)[0] in cached
    assert {cache_keys(plain)[0], cache_keys(revised)[0], cache_keys(kept)[0]} <= cached

    response = await t.lifecycle.PurgeMemories(
        lifecycle_pb2.PurgeMemoriesRequest(space="users/42", reason="erasure request")
    )
    assert response.purged_count == 2
    after = await _cached(raw_pg, t.tenant_id)
    assert not after & purged_keys  # the earlier revision's vector went too
    assert cache_keys(kept)[0] in after  # another space's memory keeps its vector
    assert cache_keys(plain)[0] in await _cached(raw_pg, other.tenant_id)


async def test_a_session_purge_keeps_the_rest_of_the_space(
    make_tenant: Any, server: Any, raw_pg: Any
) -> None:
    t = await make_tenant()
    await propose(t.lifecycle, "users/7", "Bo: my passport number ends in 88", session="s1")
    await propose(t.lifecycle, "users/7", "Bo: my favourite tea is genmaicha", session="s2")
    assert await server.ctx.recall.worker.wait_until_indexed(t.tenant_id, WAIT_SECONDS) == 0
    await t.lifecycle.PurgeMemories(
        lifecycle_pb2.PurgeMemoriesRequest(space="users/7", session="s1", reason="erasure")
    )
    after = await _cached(raw_pg, t.tenant_id)
    assert not after & set(cache_keys("Bo: my passport number ends in 88"))
    assert set(cache_keys("Bo: my favourite tea is genmaicha")) & after


async def test_indexing_forgets_what_it_cached_for_a_memory_purged_meanwhile(
    make_tenant: Any, server: Any, raw_pg: Any
) -> None:
    # A batch loaded a memory, a purge deleted it (and its cached vectors) while
    # the batch was embedded, then the batch cached the vectors again: the check
    # after embedding forgets them, and leaves the vectors of memories still there.
    t = await make_tenant()
    alive = await _indexed(server, t, "Cy: the boiler is serviced in May")
    db = server.ctx.db
    gone = replace(alive, id=uuid.uuid4(), content="Cy: my bank PIN is 2468")
    previous = "Cy: I will tell you something private"
    vector = np.ones(4, dtype="<f4").tobytes()
    await PostgresEmbeddingCache(db).save(
        t.tenant_id,
        "test-model",
        [(k, vector) for text in (gone.content, previous) for k in cache_keys(text)],
    )
    before = await _cached(raw_pg, t.tenant_id)
    async with db.tenant_tx(t.tenant_id) as conn:
        forgotten = await forget_vanished(
            conn,
            t.tenant_id,
            [alive, gone],
            {gone.id: Neighbour(cache_keys(previous)[0], previous)},
        )
    after = await _cached(raw_pg, t.tenant_id)
    assert forgotten == 4  # two keys of each text (whole, and without the speaker)
    assert before - after == {*cache_keys(gone.content), *cache_keys(previous)}
    assert set(cache_keys(alive.content)) & after


async def test_the_check_after_embedding_never_waits_for_a_locked_row(
    make_tenant: Any, server: Any, raw_pg: Any
) -> None:
    # A purge not committed yet holds the rows it deleted: the check takes them
    # as gone instead of waiting (a write holding rows in another order could
    # otherwise deadlock with it).
    t = await make_tenant()
    memory = await _indexed(server, t, "Di: my new address is 12 Elm Row")
    db = server.ctx.db
    assert set(cache_keys(memory.content)) & await _cached(raw_pg, t.tenant_id)
    async with raw_pg.transaction(force_rollback=True):
        await raw_pg.execute("DELETE FROM memories WHERE id = %s", (memory.id,))
        async with db.tenant_tx(t.tenant_id) as conn:
            forgotten = await asyncio.wait_for(
                forget_vanished(conn, t.tenant_id, [memory], {}), timeout=20
            )
    assert forgotten >= 1
    assert not set(cache_keys(memory.content)) & await _cached(raw_pg, t.tenant_id)


async def test_a_purged_near_duplicate_leaves_none_of_its_text_in_the_audit_log(
    server: Any, make_tenant: Any
) -> None:
    t = await make_tenant()
    await t.lifecycle.SetPolicy(
        lifecycle_pb2.SetPolicyRequest(
            policy=lifecycle_pb2.Policy(name="spaces/s/policy", near_duplicate_threshold=0.8)
        )
    )
    await propose(t.lifecycle, "s", "Grace takes her coffee with oat milk")
    assert await server.ctx.recall.worker.wait_until_indexed(t.tenant_id, WAIT_SECONDS) == 0
    # Its source (a memory's field like any other: it can name a person) too.
    near = await propose(
        t.lifecycle, "s", "Grace takes her coffee with oat milk!", source="call with Grace Okafor"
    )
    assert near.outcome == lifecycle_pb2.PROPOSAL_OUTCOME_REINFORCED

    await t.lifecycle.PurgeMemories(
        lifecycle_pb2.PurgeMemoriesRequest(space="s", reason="erasure request")
    )

    # The audit log is append-only and outlives the purge: it must not quote content.
    audit = await t.lifecycle.ListAuditEntries(lifecycle_pb2.ListAuditEntriesRequest(space="s"))
    assert audit.entries
    assert not [e for e in audit.entries if "oat milk" in str(e) or "Okafor" in str(e)]


async def test_purges_take_their_memories_out_of_the_vector_index(
    make_tenant: Any, server: Any
) -> None:
    t, other = await make_tenant(), await make_tenant()
    index = server.ctx.recall.index
    in_s1 = (await propose(t.lifecycle, "users/9", "Cy: my locker is 41", session="s1")).memory
    in_s2 = (await propose(t.lifecycle, "users/9", "Cy: locker 12 is broken", session="s2")).memory
    elsewhere = (await propose(t.lifecycle, "users/10", "the locker room shuts at nine")).memory
    await propose(other.lifecycle, "users/9", "Cy: my locker is 41", session="s1")
    ids = {m.name: uuid.UUID(m.name.rpartition("/")[2]) for m in (in_s1, in_s2, elsewhere)}

    async def indexed(tenant: Any) -> set[uuid.UUID]:
        assert (
            await server.ctx.recall.worker.wait_until_indexed(tenant.tenant_id, WAIT_SECONDS) == 0
        )
        hits = await index.search(tenant.tenant_id, None, query_sparse_vector("locker"), limit=10)
        assert await index.count(tenant.tenant_id) == len(hits)
        return {h.id for h in hits}

    assert await indexed(t) == set(ids.values())
    await t.lifecycle.PurgeMemories(
        lifecycle_pb2.PurgeMemoriesRequest(space="users/9", session="s1", reason="erasure")
    )
    assert await indexed(t) == {ids[in_s2.name], ids[elsewhere.name]}
    await t.lifecycle.PurgeMemories(
        lifecycle_pb2.PurgeMemoriesRequest(space="users/9", reason="erasure")
    )
    assert await indexed(t) == {ids[elsewhere.name]}
    assert len(await indexed(other)) == 1  # the same space name in another tenant


async def test_a_lock_queued_behind_an_indexing_batch_cannot_stall_it(
    make_tenant: Any, server: Any, raw_pg: Any, stack: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A batch holds its transaction (and a share lock on memories) while it
    # embeds. A schema change queued behind it then blocks the batch's short
    # check transaction, which the batch waits for: neither could ever go on.
    # The check gives up after its lock timeout, the batch rolls back, the
    # queued lock goes through, and the batch is indexed on its retry.
    t = await make_tenant()
    worker = server.ctx.recall.worker
    embed = worker.embedder.embed_for_tenant
    database_url = stack.database_url
    queued = asyncio.Event()
    locker: list[asyncio.Task[None]] = []

    async def take_the_table() -> None:
        async with await psycopg.AsyncConnection.connect(database_url) as conn:
            await conn.execute("LOCK TABLE memories IN ACCESS EXCLUSIVE MODE")
            await conn.commit()

    async def embedding_while_a_lock_queues(tenant: str, texts: list[str]) -> Any:
        if tenant == t.tenant_id and not locker:
            locker.append(asyncio.create_task(take_the_table()))
            while True:  # until the LOCK TABLE waits behind this batch
                cur = await raw_pg.execute(
                    "SELECT count(*) FROM pg_locks WHERE relation = 'memories'::regclass"
                    " AND mode = 'AccessExclusiveLock' AND NOT granted"
                )
                row = await cur.fetchone()
                if row is not None and row[0]:
                    break
                await asyncio.sleep(0.05)
            queued.set()
        return await embed(tenant, texts)

    monkeypatch.setattr(worker.embedder, "embed_for_tenant", embedding_while_a_lock_queues)
    await propose(t.lifecycle, "s", "Ed: the fire drill is on the first Monday")
    try:
        indexed = worker.wait_until_indexed(t.tenant_id, WAIT_SECONDS)
        assert await asyncio.wait_for(indexed, WAIT_SECONDS) == 0
        assert queued.is_set()
        await asyncio.wait_for(locker[0], WAIT_SECONDS)
    finally:
        for task in locker:  # a stalled batch must not stall the tests after this one
            task.cancel()
