"""Both vector-index adapters against real engines: the embedded Qdrant edge shard,
the server adapter on qdrant-client's local mode, and the server adapter on a real
Qdrant server when `ENGRAM_TEST_QDRANT_URL` names one (each test module instance
in a collection of its own, deleted afterwards)."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from engram_server.errors import FailedPrecondition
from engram_server.lexical import query_sparse_vector, sparse_vector
from engram_server.store.vectors import (
    EVIDENCE_RANK,
    IndexFilter,
    IndexMismatch,
    IndexPoint,
    LayoutOutdated,
    VectorIndex,
    VectorUpdate,
    combine_legs,
)
from engram_server.store.vectors.edge import EdgeVectorIndex
from engram_server.store.vectors.server import ServerVectorIndex
from engram_server.store.vectors.term_stats import bm25_idf
from qdrant_client import AsyncQdrantClient
from qdrant_client import models as qm

from tests.conftest import (
    new_collection_name,
    real_qdrant_client,
    real_qdrant_grpc_port,
    real_qdrant_url,
)

# qdrant-client's local mode warns that it ignores payload indexes and search tuning.
pytestmark = [
    pytest.mark.filterwarnings("ignore:Payload indexes have no effect:UserWarning"),
    pytest.mark.filterwarnings("ignore:Local mode performs exact:UserWarning"),
]

DIM = 4
MODEL = "test-model"
TENANT = "tenant-a"

Reopen = Callable[[], VectorIndex]

# The embedded engine; the server adapter on qdrant-client's local mode; the server
# adapter on a real Qdrant server (skipped unless ENGRAM_TEST_QDRANT_URL is set).
BACKENDS = ["edge", "server", "qdrant"]
SERVER_BACKENDS = ["server", "qdrant"]


@pytest.fixture(params=BACKENDS)
async def opener(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Reopen]:
    """Makes adapter instances over one backing store (a shard dir, a local client,
    or a collection of the test's own on the real server)."""
    made: list[VectorIndex] = []
    if request.param == "edge":

        def make() -> VectorIndex:
            made.append(EdgeVectorIndex(tmp_path / "vectors"))
            return made[-1]

        yield make
        for index in made:
            await index.close()
        return

    real = request.param == "qdrant"
    collection = new_collection_name()
    client = real_qdrant_client() if real else AsyncQdrantClient(location=":memory:")

    def make_server() -> VectorIndex:
        made.append(
            ServerVectorIndex(
                client, collection, owns_client=False, url=real_qdrant_url() if real else ""
            )
            if real
            else ServerVectorIndex(client, collection, owns_client=False, check_version=False)
        )
        return made[-1]

    try:
        yield make_server
    finally:
        for index in made:
            await index.close()
        if real:
            await client.delete_collection(collection)
        await client.close()


async def open_server_index(backend: str) -> ServerVectorIndex:
    """A server adapter over a new collection: local mode, or the real server."""
    if backend == "qdrant":
        vectors = ServerVectorIndex.connect(
            real_qdrant_url(), collection=new_collection_name(), grpc_port=real_qdrant_grpc_port()
        )
    else:
        vectors = ServerVectorIndex(AsyncQdrantClient(location=":memory:"), check_version=False)
    await vectors.ensure_collection(DIM, MODEL)
    return vectors


async def close_index(vectors: VectorIndex) -> None:
    """Closes the index; a collection on the real server is deleted first."""
    if isinstance(vectors, ServerVectorIndex) and vectors.url:
        await vectors.client.delete_collection(vectors.collection)
    await vectors.close()


@pytest.fixture(scope="module", params=BACKENDS)
async def index(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[VectorIndex]:
    """One collection per backend for the module; each test works in fresh tenants."""
    vectors: VectorIndex
    if request.param == "edge":
        vectors = EdgeVectorIndex(tmp_path_factory.mktemp("vectors"))
        await vectors.ensure_collection(DIM, MODEL)
    else:
        vectors = await open_server_index(request.param)
    yield vectors
    await close_index(vectors)


@pytest.fixture
def tenant_a() -> str:
    return f"tenant-a-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def tenant_b() -> str:
    return f"tenant-b-{uuid.uuid4().hex[:8]}"


def payload(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "space": "team-a/agent-1",
        "status": "ACTIVE",
        "kind": "SEMANTIC",
        "tags": [],
        "topic": "",
        "session": "",
        "slot_key": "",
        "create_time": 1_700_000_000.0,
        "evidence_level": EVIDENCE_RANK["UNSPECIFIED"],
        "importance": 0.5,
    }
    base.update(fields)
    return base


def point(
    tenant: str,
    text: str,
    dense: Sequence[float] | None = (1.0, 0.0, 0.0, 0.0),
    point_id: uuid.UUID | None = None,
    **fields: Any,
) -> IndexPoint:
    return IndexPoint(
        id=point_id or uuid.uuid4(),
        tenant_id=tenant,
        payload=payload(**fields),
        dense=list(dense) if dense is not None else None,
        sparse=sparse_vector(text),
    )


async def ids_found(
    index: VectorIndex, tenant: str, query: str = "", flt: IndexFilter | None = None
) -> set[uuid.UUID]:
    """Ids a tenant gets from both legs (a dense query that matches every point)."""
    hits = await index.search(
        tenant,
        dense=[0.5, 0.5, 0.5, 0.5],
        sparse=query_sparse_vector(query) if query else None,
        flt=flt or IndexFilter(),
        limit=100,
    )
    return {hit.id for hit in hits}


async def test_dense_and_sparse_legs_score_separately(index: VectorIndex, tenant_a: str) -> None:
    near = point(tenant_a, "Alice goes running every morning", dense=(1.0, 0.1, 0.0, 0.0))
    far = point(tenant_a, "Bob prefers tea over coffee", dense=(0.0, 0.0, 1.0, 0.0))
    await index.upsert([near, far])

    dense_hits = await index.search(tenant_a, [1.0, 0.0, 0.0, 0.0], None, limit=10)
    assert [h.id for h in dense_hits] == [near.id, far.id]
    assert dense_hits[0].dense_score is not None and dense_hits[0].dense_score > 0.99
    assert all(h.sparse_score is None for h in dense_hits)

    # "runs" and "running" share a stem, so the lexical leg finds Alice only.
    sparse_hits = await index.search(tenant_a, None, query_sparse_vector("who runs?"), limit=10)
    assert [h.id for h in sparse_hits] == [near.id]
    assert sparse_hits[0].sparse_score is not None and sparse_hits[0].sparse_score > 0
    assert sparse_hits[0].sparse_rank == 1 and sparse_hits[0].dense_score is None

    both = await index.search(
        tenant_a, [0.0, 0.0, 1.0, 0.0], query_sparse_vector("running"), limit=10
    )
    by_id = {h.id: h for h in both}
    assert by_id[near.id].sparse_rank == 1 and by_id[near.id].dense_rank == 2
    assert by_id[far.id].dense_rank == 1 and by_id[far.id].sparse_rank is None
    assert await index.search(tenant_a, None, None) == []

    # Recall runs the legs as two searches (the lexical one while the query is
    # embedded) and joins them: the same hits as one two-legged search.
    dense_only = await index.search(tenant_a, [0.0, 0.0, 1.0, 0.0], None, limit=10)
    sparse_only = await index.search(tenant_a, None, query_sparse_vector("running"), limit=10)
    assert combine_legs(dense_only, sparse_only) == both
    assert combine_legs([], sparse_only) == sparse_only


async def test_bm25_prefers_rarer_terms(index: VectorIndex, tenant_a: str) -> None:
    common = [point(tenant_a, f"deploy note number {i}") for i in range(5)]
    rare = point(tenant_a, "deploy with kubernetes")
    await index.upsert([*common, rare])
    hits = await index.search(tenant_a, None, query_sparse_vector("deploy kubernetes"), limit=10)
    assert hits[0].id == rare.id
    assert len(hits) == 6


async def test_filters(index: VectorIndex, tenant_a: str) -> None:
    base = point(tenant_a, "base memory")
    other_space = point(tenant_a, "x", space="team-b/agent-2")
    sub_space = point(tenant_a, "x", space="team-a/agent-1/sub")
    retracted = point(tenant_a, "x", status="RETRACTED")
    episodic = point(tenant_a, "x", kind="EPISODIC")
    tagged = point(tenant_a, "x", tags=["red", "blue"])
    half_tagged = point(tenant_a, "x", tags=["red"])
    topical = point(tenant_a, "x", topic="billing")
    in_session = point(tenant_a, "x", session="s-1")
    slotted = point(tenant_a, "x", slot_key="user::city")
    old = point(tenant_a, "x", create_time=1_600_000_000.0)
    official = point(tenant_a, "x", evidence_level=EVIDENCE_RANK["OFFICIAL"])
    everything = [
        base,
        other_space,
        sub_space,
        retracted,
        episodic,
        tagged,
        half_tagged,
        topical,
        in_session,
        slotted,
        old,
        official,
    ]
    await index.upsert(everything)
    active = {p.id for p in everything} - {retracted.id}

    assert await ids_found(index, tenant_a) == active
    assert await ids_found(index, tenant_a, flt=IndexFilter(spaces=["team-b/agent-2"])) == {
        other_space.id
    }
    assert await ids_found(
        index, tenant_a, flt=IndexFilter(space_prefixes=["team-a/agent-1/"])
    ) == {sub_space.id}
    either = IndexFilter(spaces=["team-b/agent-2"], space_prefixes=["team-a/agent-1/"])
    assert await ids_found(index, tenant_a, flt=either) == {other_space.id, sub_space.id}
    assert await ids_found(index, tenant_a, flt=IndexFilter(statuses=["RETRACTED"])) == {
        retracted.id
    }
    assert await ids_found(index, tenant_a, flt=IndexFilter(statuses=[])) == active | {retracted.id}
    assert await ids_found(index, tenant_a, flt=IndexFilter(kinds=["EPISODIC"])) == {episodic.id}
    assert await ids_found(index, tenant_a, flt=IndexFilter(tags=["red", "blue"])) == {tagged.id}
    assert await ids_found(index, tenant_a, flt=IndexFilter(tags=["red"])) == {
        tagged.id,
        half_tagged.id,
    }
    assert await ids_found(index, tenant_a, flt=IndexFilter(topic="billing")) == {topical.id}
    assert await ids_found(index, tenant_a, flt=IndexFilter(session="s-1")) == {in_session.id}
    assert await ids_found(index, tenant_a, flt=IndexFilter(slot_keys=["user::city"])) == {
        slotted.id
    }
    assert await ids_found(index, tenant_a, flt=IndexFilter(created_before=1_700_000_000.0)) == {
        old.id
    }
    assert await ids_found(
        index, tenant_a, flt=IndexFilter(created_after=1_700_000_000.0)
    ) == active - {old.id}
    assert await ids_found(
        index, tenant_a, flt=IndexFilter(min_evidence_level=EVIDENCE_RANK["CORROBORATED"])
    ) == {official.id}
    assert await ids_found(index, tenant_a, flt=IndexFilter(ids=[base.id, retracted.id])) == {
        base.id
    }
    assert await ids_found(
        index, tenant_a, flt=IndexFilter(payload_match={"topic": "billing"})
    ) == {topical.id}
    # Filters apply to the lexical leg too.
    assert await ids_found(index, tenant_a, "base memory", IndexFilter(kinds=["EPISODIC"])) == {
        episodic.id
    }


async def test_status_change_and_delete(index: VectorIndex, tenant_a: str) -> None:
    kept = point(tenant_a, "kept memory about invoices")
    gone = point(tenant_a, "retracted memory about invoices")
    deleted = point(tenant_a, "deleted memory about invoices")
    await index.upsert([kept, gone, deleted])
    assert await ids_found(index, tenant_a, "invoices") == {kept.id, gone.id, deleted.id}

    await index.set_payload(tenant_a, [gone.id], {"status": "RETRACTED"})
    await index.delete(tenant_a, [deleted.id])
    assert await ids_found(index, tenant_a, "invoices") == {kept.id}
    assert await ids_found(index, tenant_a, "invoices", IndexFilter(statuses=["RETRACTED"])) == {
        gone.id
    }
    assert await index.count(tenant_a) == 2


async def test_set_vectors_keeps_payload_and_other_vector(
    index: VectorIndex, tenant_a: str, tenant_b: str
) -> None:
    memory = point(tenant_a, "lexical first, dense later", dense=None, topic="t")
    await index.upsert([memory])
    assert await index.search(tenant_a, [1.0, 0.0, 0.0, 0.0], None) == []

    await index.set_vectors(tenant_a, [VectorUpdate(memory.id, dense=[0.0, 1.0, 0.0, 0.0])])
    hits = await index.search(
        tenant_a, [0.0, 1.0, 0.0, 0.0], query_sparse_vector("dense"), IndexFilter(topic="t")
    )
    assert [(h.id, h.dense_rank, h.sparse_rank) for h in hits] == [(memory.id, 1, 1)]
    # Another tenant cannot set vectors on the point.
    await index.set_vectors(tenant_b, [VectorUpdate(memory.id, dense=[0.0, 0.0, 0.0, 1.0])])
    hits = await index.search(tenant_a, [0.0, 1.0, 0.0, 0.0], None)
    assert hits[0].dense_score is not None and hits[0].dense_score > 0.99


async def test_tenant_isolation(index: VectorIndex, tenant_a: str, tenant_b: str) -> None:
    secret = point(tenant_a, "the launch code is swordfish", space="shared")
    await index.upsert([secret])
    mine = point(tenant_b, "an unrelated note", space="shared")
    await index.upsert([mine])

    # Tenant B asks for A's words, A's space, A's id, and names A in a payload
    # condition: the adapter's own tenant condition still holds.
    assert await ids_found(index, tenant_b, "launch code swordfish") == {mine.id}
    assert await ids_found(index, tenant_b, flt=IndexFilter(spaces=["shared"])) == {mine.id}
    assert await ids_found(index, tenant_b, flt=IndexFilter(ids=[secret.id])) == set()
    crafted = IndexFilter(payload_match={"tenant": tenant_a}, statuses=[])
    assert await ids_found(index, tenant_b, "swordfish", crafted) == set()

    # Writes by B never reach A's point, even with A's id.
    await index.set_payload(tenant_b, [secret.id], {"status": "RETRACTED"})
    await index.delete(tenant_b, [secret.id])
    hijack = point(tenant_b, "overwritten", point_id=secret.id, dense=(0.0, 0.0, 0.0, 1.0))
    await index.upsert([hijack])
    assert await ids_found(index, tenant_a, "swordfish") == {secret.id}
    hits = await index.search(tenant_a, [1.0, 0.0, 0.0, 0.0], None)
    assert hits[0].dense_score is not None and hits[0].dense_score > 0.99
    assert await index.count(tenant_a) == 1
    assert await index.count(tenant_b) == 1

    # A point can never be moved to another tenant, nor a tenant id be empty.
    with pytest.raises(ValueError):
        await index.set_payload(tenant_b, [mine.id], {"tenant": tenant_a})
    with pytest.raises(ValueError):
        await index.search("", [1.0, 0.0, 0.0, 0.0], None)


async def test_sparse_idf_is_per_tenant(index: VectorIndex, tenant_a: str, tenant_b: str) -> None:
    # In A the word "python" is everywhere; in B it is rare. B's score for it must
    # not depend on A's corpus.
    await index.upsert([point(tenant_a, f"python script {i}") for i in range(10)])
    only = point(tenant_b, "python tooling")
    await index.upsert([only, point(tenant_b, "something else")])
    before = await index.search(tenant_b, None, query_sparse_vector("python"))
    await index.upsert([point(tenant_a, f"more python {i}") for i in range(10)])
    after = await index.search(tenant_b, None, query_sparse_vector("python"))
    assert [h.id for h in before] == [only.id]
    assert before[0].sparse_score == pytest.approx(after[0].sparse_score)


async def test_drop_tenant(index: VectorIndex, tenant_a: str, tenant_b: str) -> None:
    await index.upsert([point(tenant_a, f"note {i}") for i in range(3)])
    keep = point(tenant_b, "note")
    await index.upsert([keep])
    assert await index.drop_tenant(tenant_a) == 3
    assert await index.count(tenant_a) == 0
    assert await ids_found(index, tenant_a, "note") == set()
    assert await ids_found(index, tenant_b, "note") == {keep.id}
    assert await index.drop_tenant(tenant_a) == 0


async def test_model_or_dimension_change_needs_reindex(opener: Reopen) -> None:
    first = opener()
    await first.ensure_collection(DIM, MODEL)
    memory = point(TENANT, "survives a matching reopen")
    await first.upsert([memory])

    with pytest.raises(IndexMismatch, match="engram reindex"):
        await opener().ensure_collection(DIM, "another-model")
    with pytest.raises(IndexMismatch, match="dimension 8"):
        await opener().ensure_collection(8, MODEL)
    with pytest.raises(RuntimeError, match="ensure_collection"):
        await opener().count(TENANT)
    with pytest.raises(ValueError, match="dimension 3"):
        await first.upsert([point(TENANT, "bad", dense=(1.0, 0.0, 0.0))])

    await first.close()
    rebuilt = opener()
    await rebuilt.recreate_collection(8, "another-model")
    assert await rebuilt.count(TENANT) == 0
    await rebuilt.upsert([point(TENANT, "new model", dense=(1.0,) * 8)])
    assert await rebuilt.count(TENANT) == 1


async def test_another_variant_of_the_model_asks_for_a_rebuild(opener: Reopen) -> None:
    # The same model computed with other kernels ("model+variant") holds the same
    # memories in another form: the server may rebuild it by itself. A different
    # model or dimension stays a plain mismatch for `engram reindex`.
    first = opener()
    await first.ensure_collection(DIM, MODEL)
    await first.upsert([point(TENANT, "stored with exact kernels")])
    await first.close()

    for wanted in (f"{MODEL}+dynamic", f"{MODEL}+blockwise"):
        with pytest.raises(LayoutOutdated, match=r"\+"):
            await opener().ensure_collection(DIM, wanted)
    with pytest.raises(IndexMismatch) as caught:
        await opener().ensure_collection(8, f"{MODEL}+dynamic")
    assert not isinstance(caught.value, LayoutOutdated)
    with pytest.raises(IndexMismatch) as caught:
        await opener().ensure_collection(DIM, "another-model+dynamic")
    assert not isinstance(caught.value, LayoutOutdated)

    variant = opener()
    await variant.recreate_collection(DIM, f"{MODEL}+dynamic")
    assert await variant.count(TENANT) == 0
    await variant.close()
    # And back again: the exact variant is also the same model.
    with pytest.raises(LayoutOutdated):
        await opener().ensure_collection(DIM, MODEL)


async def test_edge_persists_across_reopen(tmp_path: Path) -> None:
    path = tmp_path / "vectors"
    first = EdgeVectorIndex(path)
    await first.ensure_collection(DIM, MODEL)
    memory = point(TENANT, "remember me after a restart")
    retracted = point(TENANT, "retracted before the restart")
    await first.upsert([memory, retracted])
    await first.set_payload(TENANT, [retracted.id], {"status": "RETRACTED"})
    await first.close()

    second = EdgeVectorIndex(path)
    await second.ensure_collection(DIM, MODEL)
    intruder = EdgeVectorIndex(path)
    with pytest.raises(FailedPrecondition, match="open in another process"):
        await intruder.ensure_collection(DIM, MODEL)
    await intruder.close()
    try:
        assert await second.count(TENANT) == 2
        assert await ids_found(second, TENANT, "restart") == {memory.id}
        await second.upsert([point(TENANT, "written later")])
        assert second.writes_since_optimize == 1
        await second.optimize()
        assert second.writes_since_optimize == 0
        hits = await second.search(TENANT, None, query_sparse_vector("restart"))
        assert [h.id for h in hits] == [memory.id]
        assert await second.count(TENANT) == 3
    finally:
        await second.close()


@pytest.fixture
async def edge(tmp_path: Path) -> AsyncIterator[EdgeVectorIndex]:
    """A fresh embedded index of its own (not shared: these tests reshape it)."""
    index = EdgeVectorIndex(tmp_path / "vectors")
    await index.ensure_collection(DIM, MODEL)
    try:
        yield index
    finally:
        await index.close()


async def test_edge_search_during_a_recreate_waits_for_the_new_shard(
    edge: EdgeVectorIndex,
) -> None:
    # Searches run on the event loop's thread, except while the shard itself is
    # being replaced: then they queue behind the replacement and read the new one.
    old = point(TENANT, "written before the rebuild")
    await edge.upsert([old])
    assert await ids_found(edge, TENANT, "rebuild") == {old.id}

    rebuild = asyncio.ensure_future(edge.recreate_collection(DIM, MODEL))
    await asyncio.sleep(0)  # the rebuild has begun; the search below must not race it
    during = await ids_found(edge, TENANT, "rebuild")
    await rebuild
    assert during == set()  # answered by the new, empty shard, without an error

    new = point(TENANT, "written after the rebuild")
    await edge.upsert([new])
    assert await ids_found(edge, TENANT, "rebuild") == {new.id}


async def test_edge_searches_run_beside_writes_and_the_graph_build(
    edge: EdgeVectorIndex,
) -> None:
    # Searches on the loop's thread while the engine thread writes and the optimizer
    # thread builds graphs: every search answers, and what was written is found.
    written: list[IndexPoint] = []

    async def writer() -> None:
        for batch in range(20):
            points = [
                point(TENANT, f"note {batch} {i} about concurrency", dense=(1.0, i, batch, 0.5))
                for i in range(25)
            ]
            await edge.upsert(points)
            written.extend(points)
            if batch == 10:
                await edge.optimize()

    async def reader() -> int:
        answered = 0
        while len(written) < 500:
            await edge.search(
                TENANT, [0.5, 0.5, 0.5, 0.5], query_sparse_vector("concurrency"), limit=20
            )
            answered += 1
            await asyncio.sleep(0)
        return answered

    _, answered = await asyncio.gather(writer(), reader())
    assert answered > 0
    assert await edge.count(TENANT) == 500
    found = await edge.search(TENANT, None, query_sparse_vector("concurrency"), limit=1000)
    assert {h.id for h in found} == {p.id for p in written}


async def open_edge(path: Path) -> EdgeVectorIndex:
    """An embedded index at `path`, opened for the test model."""
    index = EdgeVectorIndex(path)
    await index.ensure_collection(DIM, MODEL)
    return index


def okapi_scores(corpus: dict[uuid.UUID, str], query: str) -> dict[uuid.UUID, float]:
    """Okapi BM25 of `query` over `corpus`, computed here from the stored
    term-frequency weights and IDF over exactly these documents."""
    docs = {i: sparse_vector(text) for i, text in corpus.items()}
    df: dict[int, int] = {}
    for vector in docs.values():
        for dim in vector.indices:
            df[dim] = df.get(dim, 0) + 1
    q = query_sparse_vector(query)
    scores = {}
    for i, vector in docs.items():
        weights = dict(zip(vector.indices, vector.values, strict=True))
        total = sum(
            bm25_idf(len(docs), df[dim]) * weights[dim] for dim in q.indices if dim in weights
        )
        if total:
            scores[i] = total
    return scores


async def sparse_scores(index: VectorIndex, tenant: str, query: str) -> dict[uuid.UUID, float]:
    hits = await index.search(
        tenant, None, query_sparse_vector(query), IndexFilter(statuses=()), limit=100
    )
    return {h.id: h.sparse_score or 0.0 for h in hits}


async def test_sparse_scores_are_okapi_bm25_over_the_tenants_points(
    index: VectorIndex, tenant_a: str, tenant_b: str
) -> None:
    texts = [
        "Alice deploys the billing service every Friday",
        "the billing service runs on Postgres",
        "Bob reviews billing invoices and billing disputes",
        "Friday standup moved to Thursday",
        "Postgres upgrade planned for the billing cluster",
    ]
    mine = [
        point(tenant_a, t, status="RETRACTED" if i == 3 else "ACTIVE") for i, t in enumerate(texts)
    ]
    await index.upsert(mine)
    # The other tenant's words are everywhere in its own corpus; they must not count.
    await index.upsert([point(tenant_b, f"billing Friday Postgres {i}") for i in range(12)])
    corpus = {p.id: t for p, t in zip(mine, texts, strict=True)}
    for query in ("billing Friday", "Postgres billing cluster", "who reviews invoices?"):
        want = okapi_scores(corpus, query)
        got = await sparse_scores(index, tenant_a, query)
        assert got.keys() == want.keys(), query
        for i, score in want.items():
            assert got[i] == pytest.approx(score, rel=1e-4), query


async def test_edge_term_counts_follow_every_write(tmp_path: Path) -> None:
    # The embedded index counts term document frequencies itself: after upserts,
    # replacements, new sparse vectors, deletes, a foreign tenant's attempts and a
    # dropped tenant, its scores equal Okapi BM25 over what the tenant holds, and
    # equal those of the same index reopened (counts rebuilt from the points).
    path = tmp_path / "vectors"
    edge = await open_edge(path)
    corpus: dict[uuid.UUID, str] = {}

    async def add(text: str, point_id: uuid.UUID | None = None) -> uuid.UUID:
        p = point(TENANT, text, point_id=point_id)
        await edge.upsert([p])
        corpus[p.id] = text
        return p.id

    async def check(query: str) -> dict[uuid.UUID, float]:
        got = await sparse_scores(edge, TENANT, query)
        want = okapi_scores(corpus, query)
        assert got.keys() == want.keys(), query
        for i, score in want.items():
            assert got[i] == pytest.approx(score, rel=1e-4), query
        return got

    first = await add("the release train leaves on Tuesday")
    # Before any search the counts are not kept; the first search builds them.
    await add("release notes are written by Dana")
    await check("release Tuesday")
    revised = await add("Erin owns the release checklist")
    await add("Erin now owns the deploy checklist", point_id=revised)  # replaced
    await add("Tuesday is also the demo day")
    dense_only = IndexPoint(uuid.uuid4(), TENANT, payload(), dense=[1.0, 0, 0, 0], sparse=None)
    await edge.upsert([dense_only])
    await edge.set_vectors(TENANT, [VectorUpdate(dense_only.id, sparse=sparse_vector("demo"))])
    corpus[dense_only.id] = "demo"
    await edge.set_vectors(TENANT, [VectorUpdate(first, sparse=sparse_vector("train tickets"))])
    corpus[first] = "train tickets"
    gone = await add("the release was rolled back on Tuesday")
    await edge.delete(TENANT, [gone])
    del corpus[gone]
    # Another tenant (its counts kept too) aims at this tenant's ids: neither
    # tenant's counts move; the intruder's count only its own points.
    theirs = {uuid.uuid4(): "release Tuesday demo", uuid.uuid4(): "a second release note"}
    first_id, second_id = theirs
    await edge.upsert([point("intruder", theirs[first_id], point_id=first_id)])
    await sparse_scores(edge, "intruder", "release")  # its counts are kept from here
    await edge.upsert([point("intruder", "release release Tuesday", point_id=revised)])
    await edge.set_vectors("intruder", [VectorUpdate(first, sparse=sparse_vector("release"))])
    await edge.delete("intruder", [revised])
    await edge.upsert([point("intruder", theirs[second_id], point_id=second_id)])
    for query in ("release Tuesday", "second note"):
        assert await sparse_scores(edge, "intruder", query) == pytest.approx(
            okapi_scores(theirs, query)
        )
    # A dropped tenant's counts go with it.
    await edge.drop_tenant("intruder")
    fresh = point("intruder", "release")
    await edge.upsert([fresh])
    assert await sparse_scores(edge, "intruder", "release") == pytest.approx(
        okapi_scores({fresh.id: "release"}, "release")
    )
    # Batches with one id twice keep the last version, as the engine does.
    twice = uuid.uuid4()
    await edge.upsert(
        [
            point(TENANT, "draft about trains", point_id=twice),
            point(TENANT, "final demo", point_id=twice),
        ]
    )
    corpus[twice] = "final demo"

    queries = ("release Tuesday", "deploy checklist", "demo train", "tickets")
    before = {q: await check(q) for q in queries}
    await edge.close()

    edge = reopened = await open_edge(path)
    try:
        for q in queries:
            assert await check(q) == pytest.approx(before[q])
        # Dropping the tenant forgets its counts; new points start them afresh.
        await edge.drop_tenant(TENANT)
        corpus.clear()
        await add("a fresh start")
        await check("fresh start")
    finally:
        await reopened.close()


async def test_edge_index_of_an_older_layout_asks_for_a_rebuild(tmp_path: Path) -> None:
    path = tmp_path / "vectors"
    await (await open_edge(path)).close()
    meta = path / "engram-index.json"
    stored = json.loads(meta.read_text())
    meta.write_text(json.dumps({**stored, "layout": 1}))

    again = EdgeVectorIndex(path)
    try:
        with pytest.raises(LayoutOutdated, match="layout 1"):
            await again.ensure_collection(DIM, MODEL)
        # Another model is a plain mismatch, not an outdated layout.
        with pytest.raises(IndexMismatch) as caught:
            await again.ensure_collection(DIM, "another-model")
        assert not isinstance(caught.value, LayoutOutdated)
        await again.recreate_collection(DIM, MODEL)
        await again.upsert([point(TENANT, "after the rebuild")])
        assert await ids_found(again, TENANT, "rebuild") != set()
    finally:
        await again.close()


async def test_warm_builds_the_term_counts_of_every_tenant(tmp_path: Path) -> None:
    path = tmp_path / "vectors"
    first = await open_edge(path)
    corpora = {
        tenant: {uuid.uuid4(): f"{tenant} note {i} about release trains" for i in range(n)}
        for tenant, n in (("big", 30), ("small", 3))
    }
    for tenant, corpus in corpora.items():
        await first.upsert([point(tenant, text, point_id=i) for i, text in corpus.items()])
    await first.close()

    again = await open_edge(path)
    try:
        assert await again.warm() == 2
        assert await again.warm() == 0  # nothing left to build
        for tenant, corpus in corpora.items():
            assert await sparse_scores(again, tenant, "release note") == pytest.approx(
                okapi_scores(corpus, "release note")
            )
    finally:
        await again.close()


async def test_subspace_filters_match_at_path_boundaries(index: VectorIndex, tenant_a: str) -> None:
    # A prefix filter is a path prefix ending in "/": the server adapter matches it
    # against each point's stored ancestor spaces, the embedded one by prefix.
    spaces = ["team-a", "team-a/x", "team-a/x/y", "team-ab/z", "team-a-b", "other/team-a/x"]
    points = {space: point(tenant_a, f"note in {space}", space=space) for space in spaces}
    await index.upsert(list(points.values()))

    def ids(*names: str) -> set[uuid.UUID]:
        return {points[n].id for n in names}

    under_a = IndexFilter(space_prefixes=["team-a/"])
    assert await ids_found(index, tenant_a, flt=under_a) == ids("team-a/x", "team-a/x/y")
    assert await ids_found(index, tenant_a, "note", under_a) == ids("team-a/x", "team-a/x/y")
    deep = IndexFilter(space_prefixes=["team-a/x/"])
    assert await ids_found(index, tenant_a, flt=deep) == ids("team-a/x/y")
    itself_and_below = IndexFilter(spaces=["team-a"], space_prefixes=["team-a/"])
    assert await ids_found(index, tenant_a, flt=itself_and_below) == ids(
        "team-a", "team-a/x", "team-a/x/y"
    )
    not_under_a = IndexFilter(excluded_space_prefixes=["team-a/"])
    assert await ids_found(index, tenant_a, flt=not_under_a) == ids(
        "team-a", "team-ab/z", "team-a-b", "other/team-a/x"
    )
    with pytest.raises(ValueError, match="ends with '/'"):
        await index.search(tenant_a, [1.0, 0, 0, 0], None, IndexFilter(space_prefixes=["team-a"]))


@pytest.fixture
async def fresh_index(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[Callable[[], Any]]:
    """`await fresh_index()` -> a new, empty index of the test's backend (its own
    shard directory, local client or collection on the real server)."""
    made: list[VectorIndex] = []
    backend: str = request.param

    async def make() -> VectorIndex:
        vectors: VectorIndex
        if backend == "edge":
            vectors = EdgeVectorIndex(tmp_path / f"vectors-{len(made)}")
            await vectors.ensure_collection(DIM, MODEL)
        else:
            vectors = await open_server_index(backend)
        made.append(vectors)
        return vectors

    try:
        yield make
    finally:
        for vectors in made:
            await close_index(vectors)


@pytest.mark.parametrize("fresh_index", BACKENDS, indirect=True)
async def test_each_tenant_scores_as_it_would_alone(fresh_index: Callable[[], Any]) -> None:
    # Two tenants with very different corpora: a large one where "deploy" and
    # "kubernetes" are everywhere, a small one where they are rare. In one shared
    # index each gets exactly the lexical scores it gets in an index of its own,
    # and those are Okapi BM25 over its own memories.
    busy = {uuid.uuid4(): f"deploy kubernetes cluster {i} rollout" for i in range(40)}
    busy |= {uuid.uuid4(): "kubernetes upgrade notes", uuid.uuid4(): "quarterly budget"}
    quiet = {
        uuid.uuid4(): "we deploy on Fridays",
        uuid.uuid4(): "kubernetes is new to the team",
        uuid.uuid4(): "lunch menu for the offsite",
        uuid.uuid4(): "the budget review moved to Monday",
    }
    corpora = {"busy": busy, "quiet": quiet}
    queries = ("deploy kubernetes", "budget", "kubernetes upgrade", "offsite lunch menu")

    def points_of(tenant: str) -> list[IndexPoint]:
        return [point(tenant, text, point_id=i) for i, text in corpora[tenant].items()]

    alone: dict[str, dict[str, dict[uuid.UUID, float]]] = {}
    for tenant in corpora:
        own = await fresh_index()
        await own.upsert(points_of(tenant))
        alone[tenant] = {q: await sparse_scores(own, tenant, q) for q in queries}
    shared = await fresh_index()
    await shared.upsert(points_of("busy") + points_of("quiet"))
    for tenant, corpus in corpora.items():
        for q in queries:
            together = await sparse_scores(shared, tenant, q)
            assert together.keys() == alone[tenant][q].keys(), (tenant, q)
            assert together == pytest.approx(alone[tenant][q], rel=1e-5), (tenant, q)
            assert together == pytest.approx(okapi_scores(corpus, q), rel=1e-4), (tenant, q)
    # The difference is real: the same words score differently in the two tenants.
    busy_hit = next(i for i, t in busy.items() if t == "kubernetes upgrade notes")
    quiet_hit = next(i for i, t in quiet.items() if t.startswith("kubernetes"))
    on_busy = (await sparse_scores(shared, "busy", "kubernetes"))[busy_hit]
    on_quiet = (await sparse_scores(shared, "quiet", "kubernetes"))[quiet_hit]
    assert on_quiet > 2 * on_busy


@pytest.mark.parametrize("fresh_index", SERVER_BACKENDS, indirect=True)
async def test_server_term_counts_follow_every_write(fresh_index: Callable[[], Any]) -> None:
    # The server adapter reads a tenant's term counts from the server at each
    # search: after replacements, new sparse vectors, deletes and a foreign
    # tenant's attempts on its ids, scores are Okapi BM25 over what the tenant holds.
    index: VectorIndex = await fresh_index()
    corpus: dict[uuid.UUID, str] = {}

    async def add(text: str, point_id: uuid.UUID | None = None) -> uuid.UUID:
        p = point(TENANT, text, point_id=point_id)
        await index.upsert([p])
        corpus[p.id] = text
        return p.id

    async def check(query: str) -> None:
        got = await sparse_scores(index, TENANT, query)
        want = okapi_scores(corpus, query)
        assert got.keys() == want.keys(), query
        assert got == pytest.approx(want, rel=1e-4), query

    first = await add("the release train leaves on Tuesday")
    await add("release notes are written by Dana")
    revised = await add("Erin owns the release checklist")
    await add("Erin now owns the deploy checklist", point_id=revised)
    dense_only = IndexPoint(uuid.uuid4(), TENANT, payload(), dense=[1.0, 0, 0, 0], sparse=None)
    await index.upsert([dense_only])
    await check("release Tuesday")  # a point without terms is no document
    await index.set_vectors(TENANT, [VectorUpdate(dense_only.id, sparse=sparse_vector("demo"))])
    corpus[dense_only.id] = "demo"
    await index.set_vectors(TENANT, [VectorUpdate(first, sparse=sparse_vector("train tickets"))])
    corpus[first] = "train tickets"
    gone = await add("the release was rolled back on Tuesday")
    await index.delete(TENANT, [gone])
    del corpus[gone]
    await index.upsert([point("intruder", "release release Tuesday", point_id=revised)])
    await index.set_vectors("intruder", [VectorUpdate(first, sparse=sparse_vector("release"))])
    await index.delete("intruder", [revised])
    for query in ("release Tuesday", "deploy checklist", "demo train", "tickets"):
        await check(query)
    assert await sparse_scores(index, "intruder", "release") == {}


@pytest.mark.parametrize("fresh_index", SERVER_BACKENDS, indirect=True)
async def test_a_server_collection_of_an_older_layout_asks_for_a_rebuild(
    fresh_index: Callable[[], Any],
) -> None:
    # Layout 1 had no ancestor spaces nor term dimensions in its payloads (and the
    # server's IDF modifier): the same model's collection is outdated, rebuilt by
    # the server at start (RecallRuntime) as `engram reindex` would.
    current: ServerVectorIndex = await fresh_index()
    await current.upsert([point(TENANT, "written by the current layout")])
    collection = current.collection
    await current.client.delete_collection(collection)
    await current.client.create_collection(
        collection,
        vectors_config={"dense": qm.VectorParams(size=DIM, distance=qm.Distance.COSINE)},
        sparse_vectors_config={"bm25": qm.SparseVectorParams(modifier=qm.Modifier.IDF)},
        metadata={"engram_model": MODEL, "engram_dense_dim": DIM, "engram_layout": 1},
    )
    again = ServerVectorIndex(
        current.client, collection, owns_client=False, check_version=bool(current.url)
    )
    with pytest.raises(LayoutOutdated, match="layout 1") as caught:
        await again.ensure_collection(DIM, MODEL)
    assert "ancestor spaces" in str(caught.value) and "engram reindex" in str(caught.value)
    with pytest.raises(IndexMismatch) as mismatch:
        await again.ensure_collection(DIM, "another-model")
    assert not isinstance(mismatch.value, LayoutOutdated)
    await again.recreate_collection(DIM, MODEL)
    fresh = point(TENANT, "after the rebuild", space="a/b/c")
    await again.upsert([fresh])
    assert await ids_found(again, TENANT, "rebuild", IndexFilter(space_prefixes=["a/"])) == {
        fresh.id
    }
