"""The served vector index: a Qdrant server or cluster through `qdrant-client`.

For deployments with several Engram replicas (the embedded engine is per process).
Same layout as the embedded adapter: one collection for every tenant, a keyword
payload index on `tenant` with `is_tenant=True`, keyword indexes on the filter
fields, a named dense vector (cosine) and a named sparse vector with the IDF
modifier. The embedding model and dimension are kept in the collection metadata.
Writes wait for the server to apply them, so a search right after sees them.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from qdrant_client import AsyncQdrantClient
from qdrant_client import models as qm

from engram_server.lexical.sparse import SparseVector
from engram_server.store.vectors.base import (
    DEFAULT_FILTER,
    DENSE_VECTOR,
    FLOAT_FIELDS,
    INTEGER_FIELDS,
    KEYWORD_FIELDS,
    LAYOUT_VERSION,
    SPARSE_VECTOR,
    TENANT_FIELD,
    Condition,
    IdIn,
    IndexFilter,
    IndexMismatch,
    IndexPoint,
    LayoutOutdated,
    Match,
    MatchAnyOf,
    NoneOf,
    Prefix,
    Range,
    ScoredPoint,
    VectorUpdate,
    check_dense,
    check_payload_update,
    describe_model,
    merge_legs,
    point_payload,
    rebuildable,
    scoped_conditions,
    tenant_condition,
)

DEFAULT_COLLECTION = "engram_memories"
_META_MODEL = "engram_model"
_META_DIM = "engram_dense_dim"
_META_LAYOUT = "engram_layout"


class ServerVectorIndex:
    """`VectorIndex` on a Qdrant collection reached through an `AsyncQdrantClient`."""

    def __init__(
        self,
        client: AsyncQdrantClient,
        collection: str = DEFAULT_COLLECTION,
        *,
        hnsw_ef: int | None = 128,
        acorn: bool = True,
        owns_client: bool = True,
    ) -> None:
        self.client = client
        self.collection = collection
        self.hnsw_ef = hnsw_ef
        # ACORN for selective filters; see EdgeIndexSettings.acorn for why.
        self._acorn = qm.AcornSearchParams(enable=True) if acorn else None
        self._owns_client = owns_client
        self._dense_dim = 0

    @classmethod
    def connect(
        cls,
        url: str,
        *,
        api_key: str | None = None,
        collection: str = DEFAULT_COLLECTION,
        timeout: int = 10,
    ) -> ServerVectorIndex:
        """A client for a Qdrant server URL, over gRPC (REST port in the URL)."""
        client = AsyncQdrantClient(url=url, api_key=api_key, prefer_grpc=True, timeout=timeout)
        return cls(client, collection)

    # -- lifecycle ---------------------------------------------------------------

    async def ensure_collection(self, dense_dim: int, model: str) -> None:
        if dense_dim <= 0:
            raise ValueError("dense dimension must be positive")
        if await self.client.collection_exists(self.collection):
            info = await self.client.get_collection(self.collection)
            stored = _stored_model(info.config.metadata, info.config.params.vectors)
            if stored != (model, dense_dim, LAYOUT_VERSION):
                if stored is not None and rebuildable(stored[0], stored[1], model, dense_dim):
                    raise LayoutOutdated(_describe(stored), describe_model(model, dense_dim))
                raise IndexMismatch(_describe(stored), describe_model(model, dense_dim))
        else:
            await self._create(dense_dim, model)
        self._dense_dim = dense_dim

    async def recreate_collection(self, dense_dim: int, model: str) -> None:
        if dense_dim <= 0:
            raise ValueError("dense dimension must be positive")
        if await self.client.collection_exists(self.collection):
            await self.client.delete_collection(self.collection)
        await self._create(dense_dim, model)
        self._dense_dim = dense_dim

    async def close(self) -> None:
        if self._owns_client:
            await self.client.close()

    async def optimize(self) -> bool:
        # A Qdrant server runs its optimizers in the background on its own.
        return False

    async def _create(self, dense_dim: int, model: str) -> None:
        await self.client.create_collection(
            self.collection,
            vectors_config={
                DENSE_VECTOR: qm.VectorParams(size=dense_dim, distance=qm.Distance.COSINE)
            },
            sparse_vectors_config={SPARSE_VECTOR: qm.SparseVectorParams(modifier=qm.Modifier.IDF)},
            # Qdrant's multitenancy layout: per-tenant graphs, no global one.
            hnsw_config=qm.HnswConfigDiff(m=0, payload_m=16),
            metadata={_META_MODEL: model, _META_DIM: dense_dim, _META_LAYOUT: LAYOUT_VERSION},
        )
        await self._index(
            TENANT_FIELD,
            qm.KeywordIndexParams(type=qm.KeywordIndexType.KEYWORD, is_tenant=True),
        )
        for name in KEYWORD_FIELDS:
            await self._index(
                name,
                qm.KeywordIndexParams(
                    type=qm.KeywordIndexType.KEYWORD,
                    enable_hnsw=False,
                    prefix=True if name == "space" else None,
                ),
            )
        for name in FLOAT_FIELDS:
            await self._index(
                name, qm.FloatIndexParams(type=qm.FloatIndexType.FLOAT, enable_hnsw=False)
            )
        for name in INTEGER_FIELDS:
            await self._index(
                name,
                qm.IntegerIndexParams(
                    type=qm.IntegerIndexType.INTEGER, lookup=False, range=True, enable_hnsw=False
                ),
            )

    async def _index(self, name: str, schema: qm.PayloadSchemaParams) -> None:
        await self.client.create_payload_index(
            self.collection, name, field_schema=schema, wait=True
        )

    # -- writes ------------------------------------------------------------------

    async def upsert(self, points: Sequence[IndexPoint]) -> None:
        if not points:
            return
        self._require()
        by_tenant: dict[str, list[qm.PointStruct]] = {}
        for point in points:
            vectors: dict[str, Any] = {}
            dense = check_dense(point.dense, self._dense_dim)
            if dense is not None:
                vectors[DENSE_VECTOR] = dense
            if point.sparse:
                vectors[SPARSE_VECTOR] = _sparse(point.sparse)
            by_tenant.setdefault(point.tenant_id, []).append(
                qm.PointStruct(id=str(point.id), vector=vectors, payload=point_payload(point))
            )
        for tenant_id, batch in by_tenant.items():
            # The tenant condition makes the upsert skip an id that another tenant
            # already owns instead of overwriting that tenant's point.
            await self.client.upsert(
                self.collection, batch, wait=True, update_filter=_tenant_filter(tenant_id)
            )

    async def set_vectors(self, tenant_id: str, updates: Sequence[VectorUpdate]) -> None:
        self._require()
        items: list[qm.PointVectors] = []
        for update in updates:
            vectors: dict[str, Any] = {}
            dense = check_dense(update.dense, self._dense_dim)
            if dense is not None:
                vectors[DENSE_VECTOR] = dense
            if update.sparse:
                vectors[SPARSE_VECTOR] = _sparse(update.sparse)
            if vectors:
                items.append(qm.PointVectors(id=str(update.id), vector=vectors))
        if items:
            await self.client.update_vectors(
                self.collection, items, wait=True, update_filter=_tenant_filter(tenant_id)
            )

    async def set_payload(
        self, tenant_id: str, ids: Sequence[uuid.UUID], payload: Mapping[str, Any]
    ) -> None:
        self._require()
        if not ids:
            return
        await self.client.set_payload(
            self.collection,
            check_payload_update(payload),
            qm.FilterSelector(filter=_ids_filter(tenant_id, ids)),
            wait=True,
        )

    async def delete(self, tenant_id: str, ids: Sequence[uuid.UUID]) -> None:
        self._require()
        if not ids:
            return
        await self.client.delete(
            self.collection, qm.FilterSelector(filter=_ids_filter(tenant_id, ids)), wait=True
        )

    async def drop_tenant(self, tenant_id: str) -> int:
        existing = await self.count(tenant_id)
        if existing:
            await self.client.delete(
                self.collection, qm.FilterSelector(filter=_tenant_filter(tenant_id)), wait=True
            )
        return existing

    # -- reads -------------------------------------------------------------------

    async def search(
        self,
        tenant_id: str,
        dense: Sequence[float] | None,
        sparse: SparseVector | None,
        flt: IndexFilter = DEFAULT_FILTER,
        limit: int = 50,
    ) -> list[ScoredPoint]:
        self._require()
        if limit <= 0:
            return []
        scope = qm.Filter(must=[_condition(c) for c in scoped_conditions(tenant_id, flt)])
        requests: list[qm.QueryRequest] = []
        dense_vector = check_dense(dense, self._dense_dim)
        if dense_vector is not None:
            requests.append(
                qm.QueryRequest(
                    query=dense_vector,
                    using=DENSE_VECTOR,
                    filter=scope,
                    limit=limit,
                    params=qm.SearchParams(hnsw_ef=self.hnsw_ef, acorn=self._acorn),
                    with_payload=False,
                    with_vector=False,
                )
            )
        if sparse:
            # IDF over the tenant's own points: another tenant's corpus must not
            # shape this tenant's scores (nor be observable through them).
            idf = qm.IdfCorpusParams(corpus=_tenant_filter(tenant_id))
            requests.append(
                qm.QueryRequest(
                    query=_sparse(sparse),
                    using=SPARSE_VECTOR,
                    filter=scope,
                    limit=limit,
                    params=qm.SearchParams(idf=idf),
                    with_payload=False,
                    with_vector=False,
                )
            )
        if not requests:
            return []
        responses = await self.client.query_batch_points(self.collection, requests)
        legs = iter(responses)
        dense_hits = _hits(next(legs).points) if dense_vector is not None else []
        sparse_hits = _hits(next(legs).points) if sparse else []
        return merge_legs(dense_hits, sparse_hits)

    async def warm(self) -> int:
        """Nothing to prepare: the server computes IDF itself."""
        return 0

    async def count(self, tenant_id: str) -> int:
        self._require()
        result = await self.client.count(
            self.collection, count_filter=_tenant_filter(tenant_id), exact=True
        )
        return int(result.count)

    def _require(self) -> None:
        if self._dense_dim <= 0:
            raise RuntimeError("vector index not open: await ensure_collection() first")


# -- conversions ---------------------------------------------------------------------


def _sparse(vector: SparseVector) -> qm.SparseVector:
    return qm.SparseVector(indices=list(vector.indices), values=list(vector.values))


def _tenant_filter(tenant_id: str) -> qm.Filter:
    return qm.Filter(must=[_condition(tenant_condition(tenant_id))])


def _ids_filter(tenant_id: str, ids: Iterable[uuid.UUID]) -> qm.Filter:
    return qm.Filter(must=[_condition(tenant_condition(tenant_id)), _condition(IdIn(tuple(ids)))])


def _condition(condition: Condition) -> qm.Condition:
    if isinstance(condition, Match):
        return qm.FieldCondition(key=condition.key, match=qm.MatchValue(value=condition.value))
    if isinstance(condition, MatchAnyOf):
        return qm.FieldCondition(key=condition.key, match=qm.MatchAny(any=list(condition.values)))
    if isinstance(condition, Prefix):
        return qm.FieldCondition(key=condition.key, match=qm.MatchPrefix(prefix=condition.prefix))
    if isinstance(condition, Range):
        return qm.FieldCondition(
            key=condition.key, range=qm.Range(gte=condition.gte, lt=condition.lt)
        )
    if isinstance(condition, IdIn):
        return qm.HasIdCondition(has_id=[str(i) for i in condition.ids])
    if isinstance(condition, NoneOf):
        return qm.Filter(must_not=[_condition(c) for c in condition.conditions])
    return qm.Filter(should=[_condition(c) for c in condition.conditions])


def _hits(points: Sequence[qm.ScoredPoint]) -> list[tuple[uuid.UUID, float]]:
    return [(uuid.UUID(str(p.id)), float(p.score)) for p in points]


def _stored_model(metadata: Mapping[str, Any] | None, vectors: Any) -> tuple[str, int, int] | None:
    if not metadata or _META_MODEL not in metadata:
        return None
    dim = int(metadata.get(_META_DIM, 0))
    params = vectors.get(DENSE_VECTOR) if isinstance(vectors, Mapping) else None
    if params is not None and int(params.size) != dim:
        return None
    return (str(metadata[_META_MODEL]), dim, int(metadata.get(_META_LAYOUT, 0)))


def _describe(stored: tuple[str, int, int] | None) -> str:
    if stored is None:
        return "an unknown model (the collection has no Engram metadata)"
    model, dim, layout = stored
    if layout != LAYOUT_VERSION:
        return f"index layout {layout!r} (this server uses {LAYOUT_VERSION})"
    return describe_model(model, dim)
