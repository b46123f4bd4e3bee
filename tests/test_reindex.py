"""`engram reindex` and `engram index status` on the real stores.

Against the embedded engine, and a real Qdrant server when ENGRAM_TEST_QDRANT_URL
is set. The test server holds its embedded index open (and locked), so rebuilds go
to a fresh data directory (on Qdrant: a collection of the test's own) and are
compared with the server's incrementally built index.
While a rebuild drains, the server's own indexing worker is paused: otherwise it
would claim part of the queued work for its index instead of the rebuilt one
(which is why the embedded backend is rebuilt with the server stopped).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from engram.v1 import lifecycle_pb2, recall_pb2, recall_pb2_grpc
from engram_server.cli import main
from engram_server.lexical.sparse import query_sparse_vector
from engram_server.services.recall_runtime import RecallRuntime
from engram_server.services.reindex import IndexInUse, check_edge_unlocked, enqueue_all, reindex
from engram_server.store.vectors import IndexFilter, IndexMismatch, VectorIndex
from engram_server.store.vectors.edge import EdgeVectorIndex
from engram_server.store.vectors.server import ServerVectorIndex
from qdrant_client import models as qm

from tests.conftest import delete_collection, new_collection_name
from tests.lifecycle_helpers import proposal

pytestmark = pytest.mark.vector_backends

RYW = recall_pb2.READ_CONSISTENCY_READ_YOUR_WRITES

FACTS = [
    "Alice prefers Go for backend services",
    "The deploy pipeline runs on Fridays after the standup",
    "Bob is allergic to peanuts",
    "The staging database lives in eu-west-1",
    "Carol leads the payments team",
    "Our VPN endpoint is vpn.example.org",
    "Dana reviews every schema migration before release",
    "The on-call rotation changes every Monday at noon",
]
QUERIES = [
    "which language does Alice like for the backend?",
    "peanuts",
    "where is the staging database",
    "who is in charge of payments",
]


def memory_id(name: str) -> uuid.UUID:
    return uuid.UUID(name.rsplit("/", 1)[-1])


async def load(t: Any, facts: list[str]) -> list[Any]:
    response = await t.lifecycle.BatchProposeMemories(
        lifecycle_pb2.BatchProposeMemoriesRequest(proposals=[proposal("kb", f) for f in facts])
    )
    return [r.memory for r in response.results]


async def recall_ids(t: Any, query: str) -> list[uuid.UUID]:
    stub = recall_pb2_grpc.RecallServiceStub(t.channel)
    response = await stub.Recall(
        recall_pb2.RecallRequest(query=query, spaces=["kb"], k=3, consistency=RYW)
    )
    return [memory_id(h.memory.name) for h in response.hits]


@pytest.fixture
async def paused_worker(server: Any) -> AsyncIterator[Any]:
    """The server's recall runtime with its indexing worker stopped meanwhile."""
    runtime = server.ctx.recall
    await runtime.worker.stop()
    try:
        yield runtime
    finally:
        runtime.worker.start()


def rebuild_target(settings: Any, tmp_path: Path) -> tuple[Any, Callable[[], VectorIndex]]:
    """Settings whose index is a new one (a data directory, or a collection of the
    test's own), and a way to open that index."""
    if settings.vector_backend == "edge":
        return dataclasses.replace(settings, data_dir=str(tmp_path)), lambda: EdgeVectorIndex(
            tmp_path / "vectors"
        )
    collection = new_collection_name()
    rebuilt = dataclasses.replace(settings, qdrant_collection=collection)
    return rebuilt, lambda: ServerVectorIndex.connect(
        settings.qdrant_url, collection=collection, grpc_port=settings.qdrant_grpc_port
    )


async def drop_target(settings: Any) -> None:
    if settings.vector_backend == "qdrant":
        await delete_collection(settings.qdrant_collection)


async def test_reindex_equals_incremental_indexing(
    make_tenant: Any, server: Any, raw_pg: Any, tmp_path: Path
) -> None:
    tenants = [await make_tenant(), await make_tenant()]
    for t in tenants:
        memories = await load(t, FACTS)
        # A retracted memory stays a point (with its status), in both indexes.
        await t.lifecycle.RetractMemory(
            lifecycle_pb2.RetractMemoryRequest(name=memories[5].name, reason="moved")
        )
    recalled = {(t.tenant_id, q): await recall_ids(t, q) for t in tenants for q in QUERIES}

    runtime = server.ctx.recall
    live = runtime.index
    embedder = runtime.embedder
    # A query's vector depends on its text only: one tenant's serves the search of every tenant.
    asker = tenants[0].tenant_id
    vectors = {q: (await embedder.embed_query(q, asker), query_sparse_vector(q)) for q in QUERIES}
    scope = IndexFilter(spaces=("kb",), statuses=())
    incremental = {
        (t.tenant_id, q): await live.search(t.tenant_id, *vectors[q], scope, 10)
        for t in tenants
        for q in QUERIES
    }

    rebuilt_settings, open_rebuilt = rebuild_target(server.ctx.settings, tmp_path)
    try:
        # The target holds an index of another model: reindex is what replaces it.
        stale = open_rebuilt()
        await stale.ensure_collection(8, "an-older-model")
        await stale.close()
        with pytest.raises(IndexMismatch):
            stale = open_rebuilt()
            try:
                await stale.ensure_collection(embedder.dimension, embedder.name)
            finally:
                await stale.close()

        await runtime.worker.stop()
        try:
            report = await reindex(rebuilt_settings, server.ctx.db)
        finally:
            runtime.worker.start()
        assert report.drained and report.pending == 0
        assert (report.model, report.dimension) == (embedder.name, embedder.dimension)
        assert report.backend == server.ctx.settings.vector_backend
        cur = await raw_pg.execute("SELECT tenant_id, count(*) FROM memories GROUP BY tenant_id")
        assert report.queued == {tenant: n for tenant, n in await cur.fetchall()}
        await compare_rebuilt(open_rebuilt(), embedder, live, incremental, recalled, vectors)
    finally:
        await drop_target(rebuilt_settings)


async def compare_rebuilt(
    rebuilt: VectorIndex,
    embedder: Any,
    live: VectorIndex,
    incremental: dict[tuple[str, str], Any],
    recalled: dict[tuple[str, str], list[uuid.UUID]],
    vectors: dict[str, Any],
) -> None:
    """The rebuilt index holds what the live one does and answers its searches alike."""
    scope = IndexFilter(spaces=("kb",), statuses=())
    await rebuilt.ensure_collection(embedder.dimension, embedder.name)
    tenants = {tenant for tenant, _ in incremental}
    try:
        for tenant in tenants:
            assert await rebuilt.count(tenant) == await live.count(tenant) == len(FACTS)
        for (tenant, query), expected in incremental.items():
            hits = await rebuilt.search(tenant, *vectors[query], scope, 10)
            assert [h.id for h in hits] == [h.id for h in expected], query
            for got, want in zip(hits, expected, strict=True):
                assert got.dense_score == pytest.approx(want.dense_score, abs=1e-4)
                assert got.sparse_score == pytest.approx(want.sparse_score, abs=1e-4)
            # What Recall answered is all still found in the rebuilt index.
            found = {h.id for h in await rebuilt.search(tenant, *vectors[query], limit=10)}
            assert set(recalled[(tenant, query)]) <= found
    finally:
        await rebuilt.close()


async def test_enqueue_inserts_one_outbox_row_per_memory_of_every_tenant(
    make_tenant: Any, server: Any, raw_pg: Any, paused_worker: Any
) -> None:
    for t in [await make_tenant(), await make_tenant()]:
        await load(t, FACTS[:3])

    async def counts() -> dict[str, int]:
        out = {}
        for table in ("memories", "memory_revisions", "audit_log", "idempotency"):
            cur = await raw_pg.execute(f"SELECT count(*) FROM {table}")
            out[table] = (await cur.fetchone())[0]
        return out

    before = await counts()
    cur = await raw_pg.execute("SELECT coalesce(max(id), 0) FROM outbox")
    last_id = (await cur.fetchone())[0]

    db = server.ctx.db
    queued = await enqueue_all(db)

    assert await counts() == before
    cur = await raw_pg.execute(
        "SELECT tenant_id, memory_id, op FROM outbox WHERE id > %s", (last_id,)
    )
    rows = await cur.fetchall()
    cur = await raw_pg.execute("SELECT tenant_id, id FROM memories")
    memories = await cur.fetchall()
    assert sorted((t, m) for t, m, _ in rows) == sorted(memories)
    assert {op for _, _, op in rows} == {"upsert"}
    per_tenant: dict[str, int] = {}
    for tenant, _ in memories:
        per_tenant[tenant] = per_tenant.get(tenant, 0) + 1
    assert queued == per_tenant

    # The function leaves the caller's transaction unscoped, as it found it.
    async with db.unscoped() as conn:
        await conn.execute("SELECT * FROM engram_enqueue_reindex() WHERE false")
        cur = await conn.execute("SELECT current_setting('engram.tenant_id', true) AS t")
        row = await cur.fetchone()
        assert not row["t"]
        cur = await conn.execute("SELECT count(*) AS n FROM memories")
        assert (await cur.fetchone())["n"] == 0  # RLS still shows no tenant's rows
        await conn.rollback()

    # Drain what was queued so later tests find an idle outbox.
    while await paused_worker.worker.run_once():
        pass


async def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = await asyncio.to_thread(main, list(argv))
    out, err = capsys.readouterr()
    return code, out, err


async def test_cli_index_status(
    make_tenant: Any, server: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    t = await make_tenant()
    await load(t, FACTS)
    await recall_ids(t, "peanuts")  # read-your-writes: the tenant's backlog is drained
    conn = ("--address", server.address, "--api-key", t.secret)

    code, out, err = await run_cli(capsys, "index", "status", "--json", *conn)
    assert code == 0, err
    status = json.loads(out)
    embedder = server.ctx.recall.embedder
    assert status["indexed_memories"] == len(FACTS)
    assert status["pending_items"] == 0 and status["oldest_pending_time"] is None
    assert status["embedding_model"] == embedder.name
    assert status["embedding_dimension"] == embedder.dimension
    assert status["vector_backend"] == server.ctx.settings.vector_backend

    code, out, err = await run_cli(capsys, "index", "status", *conn)
    assert code == 0, err
    lines = dict(line.split(None, 1) for line in out.splitlines())
    assert lines["indexed_memories"] == str(len(FACTS))
    assert lines["pending_items"] == "0"

    code, _, err = await run_cli(capsys, "index", "status", "--address", server.address)
    assert code == 1 and "UNAUTHENTICATED" in err


@pytest.mark.vector_backends("edge")
async def test_reindex_refuses_an_embedded_index_in_use(
    settings: Any, server: Any, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    live = server.ctx.recall.index
    tenants_before = await live.count("default")
    with pytest.raises(IndexInUse):
        check_edge_unlocked(settings.data_dir)

    monkeypatch.setenv("ENGRAM_DATA_DIR", settings.data_dir)
    monkeypatch.setenv("ENGRAM_MIGRATE_ON_START", "false")
    code, _, err = await run_cli(capsys, "reindex", "--database-url", settings.database_url)
    assert code == 1
    assert "in use by a running Engram server" in err and "stop the server" in err
    # Nothing was deleted from under the server.
    assert (Path(settings.data_dir) / "vectors" / "shard" / "wal").is_dir()
    assert await live.count("default") == tenants_before


@pytest.mark.vector_backends("edge")
async def test_an_index_of_an_older_layout_is_rebuilt_at_start(
    make_tenant: Any, settings: Any, server: Any, tmp_path: Path
) -> None:
    # A server whose embedded index was written by an older layout of the adapter
    # (same model) does not refuse to start: it empties the index and queues every
    # memory, and its worker refills it from PostgreSQL.
    t = await make_tenant()
    memories = await load(t, FACTS)
    assert await recall_ids(t, "peanuts")  # read-your-writes: indexed by the live server
    runtime = server.ctx.recall
    embedder = runtime.embedder
    old = EdgeVectorIndex(tmp_path / "vectors")
    await old.ensure_collection(embedder.dimension, embedder.name)
    await old.upsert([])
    await old.close()
    meta = tmp_path / "vectors" / "engram-index.json"
    meta.write_text(json.dumps({**json.loads(meta.read_text()), "layout": 1}))

    # The live server's worker pauses, so the upgraded runtime's does all the work
    # (nothing of this tenant is pending any more: only the rebuild queues it).
    await runtime.worker.stop()
    upgraded = RecallRuntime.build(
        dataclasses.replace(settings, data_dir=str(tmp_path)), server.ctx.db
    )
    notifier = server.ctx.notifier
    await upgraded.start(notifier)
    try:
        for _ in range(600):
            if await upgraded.index.count(t.tenant_id) == len(FACTS):
                break
            await asyncio.sleep(0.1)
        assert await upgraded.index.count(t.tenant_id) == len(FACTS)
        stored = json.loads(meta.read_text())
        assert stored["layout"] != 1
        hits = await upgraded.index.search(
            t.tenant_id, None, query_sparse_vector("peanuts"), IndexFilter(spaces=("kb",)), 3
        )
        assert [h.id for h in hits] == [memory_id(memories[2].name)]
    finally:
        await upgraded.stop(notifier)
        runtime.worker.start()


@pytest.mark.vector_backends("qdrant")
async def test_a_server_collection_of_an_older_layout_is_rebuilt_at_start(
    make_tenant: Any, server: Any
) -> None:
    # A collection written before the adapter stored ancestor spaces and term
    # dimensions (layout 1: the server's IDF modifier, a prefix index on `space`)
    # is rebuilt from PostgreSQL when a server starts, as `engram reindex` would;
    # afterwards subspace filters and per-tenant IDF work on it.
    t = await make_tenant()
    memories = await load(t, FACTS)
    assert await recall_ids(t, "peanuts")
    runtime = server.ctx.recall
    embedder = runtime.embedder
    settings = server.ctx.settings
    collection = new_collection_name()
    old = ServerVectorIndex.connect(
        settings.qdrant_url, collection=collection, grpc_port=settings.qdrant_grpc_port
    )
    try:
        await old.client.create_collection(
            collection,
            vectors_config={"dense": qm.VectorParams(size=embedder.dimension, distance="Cosine")},
            sparse_vectors_config={"bm25": qm.SparseVectorParams(modifier=qm.Modifier.IDF)},
            metadata={
                "engram_model": embedder.name,
                "engram_dense_dim": embedder.dimension,
                "engram_layout": 1,
            },
        )
        await old.close()

        await runtime.worker.stop()
        upgraded = RecallRuntime.build(
            dataclasses.replace(settings, qdrant_collection=collection), server.ctx.db
        )
        notifier = server.ctx.notifier
        await upgraded.start(notifier)
        try:
            for _ in range(600):
                if await upgraded.index.count(t.tenant_id) == len(FACTS):
                    break
                await asyncio.sleep(0.1)
            assert await upgraded.index.count(t.tenant_id) == len(FACTS)
            hits = await upgraded.index.search(
                t.tenant_id, None, query_sparse_vector("peanuts"), IndexFilter(spaces=("kb",)), 3
            )
            assert [h.id for h in hits] == [memory_id(memories[2].name)]
        finally:
            await upgraded.stop(notifier)
            runtime.worker.start()
    finally:
        await delete_collection(collection)
