"""The served vector index: a Qdrant server or cluster through `qdrant-client`.

For deployments with several Engram replicas (the embedded engine is per process).
Same layout as the embedded adapter: one collection for every tenant, a keyword
payload index on `tenant` with `is_tenant=True`, keyword indexes on the filter
fields, a named dense vector (cosine) and a named sparse vector (no modifier). The
embedding model, dimension and layout are kept in the collection metadata. Writes
wait for the server to apply them, so a search right after sees them.

It works on Qdrant servers 1.16 to 1.19 (store/vectors/qdrant_version.py), so it
avoids what only newer servers have:

- Subspace filters: each point stores its space's ancestor paths
  (`space_ancestors`, `a/b/c` -> `a/`, `a/b/`) and a prefix filter matches one
  of them, instead of a prefix match on `space`.
- Lexical IDF per tenant: each point stores its sparse term dimensions (`terms`,
  an integer index), so the server can count in how many of a tenant's points a
  term occurs. A search reads those counts for the query's terms and weighs the
  query with BM25 IDF over the tenant's own points (term_stats.py), instead of the
  server's IDF modifier, which counts every tenant's points together on 1.16-1.18.
  The counts are read at each search, not kept in process: other replicas write
  to the same collection.

A collection of an earlier layout (before these fields) is rebuilt from PostgreSQL
when the server starts, as `engram reindex` would (RecallRuntime).
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from typing import Any

import grpc
import httpx
from qdrant_client import AsyncQdrantClient
from qdrant_client import models as qm
from qdrant_client.http.exceptions import ResponseHandlingException

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
    space_ancestors,
    tenant_condition,
)
from engram_server.store.vectors.qdrant_version import verify_server_version
from engram_server.store.vectors.term_stats import TermCounts

DEFAULT_COLLECTION = "engram_memories"
DEFAULT_GRPC_PORT = 6334
_META_MODEL = "engram_model"
_META_DIM = "engram_dense_dim"
_META_LAYOUT = "engram_layout"
# Derived payload fields the adapter writes itself (see the module docstring).
ANCESTORS_FIELD = "space_ancestors"
TERMS_FIELD = "terms"


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
        url: str = "",
        check_version: bool = True,
    ) -> None:
        self.client = client
        self.collection = collection
        # Where the server is, for messages (the client does not say).
        self.url = url
        # The server's version once read and found supported; None until then
        # and again after a lost connection (see `_connected`).
        self.server_version: str | None = None
        # Off only for qdrant-client's local mode, which is no server (its "version"
        # is the client library's).
        self._check_version = check_version
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
        grpc_port: int = DEFAULT_GRPC_PORT,
        timeout: int = 10,
    ) -> ServerVectorIndex:
        """A client for a Qdrant server URL, over gRPC (REST port in the URL, gRPC
        port apart; Qdrant's defaults are 6333 and 6334)."""
        client = AsyncQdrantClient(
            url=url,
            api_key=api_key,
            prefer_grpc=True,
            grpc_port=grpc_port,
            timeout=timeout,
            # The adapter checks the version itself, against its own range, and
            # refuses instead of warning (`_connected`).
            check_compatibility=False,
        )
        return cls(client, collection, url=url)

    @contextlib.asynccontextmanager
    async def _connected(self) -> AsyncIterator[None]:
        """Every call to the server runs in here. The first one (at start-up) and the
        first after a lost connection read the server's version and refuse a server
        outside the supported range: a reconnect may reach a replaced server."""
        if self.server_version is None and self._check_version:
            self.server_version = await verify_server_version(self.client, self.url)
        try:
            yield
        except Exception as exc:
            if _connection_lost(exc):
                self.server_version = None
            raise

    # -- lifecycle ---------------------------------------------------------------

    async def ensure_collection(self, dense_dim: int, model: str) -> None:
        if dense_dim <= 0:
            raise ValueError("dense dimension must be positive")
        async with self._connected():
            await self._ensure(dense_dim, model)
        self._dense_dim = dense_dim

    async def _ensure(self, dense_dim: int, model: str) -> None:
        if await self.client.collection_exists(self.collection):
            info = await self.client.get_collection(self.collection)
            stored = _stored_model(info.config.metadata, info.config.params.vectors)
            if stored != (model, dense_dim, LAYOUT_VERSION):
                if stored is not None and rebuildable(stored[0], stored[1], model, dense_dim):
                    raise LayoutOutdated(_describe(stored), describe_model(model, dense_dim))
                raise IndexMismatch(_describe(stored), describe_model(model, dense_dim))
        else:
            await self._create(dense_dim, model)

    async def recreate_collection(self, dense_dim: int, model: str) -> None:
        if dense_dim <= 0:
            raise ValueError("dense dimension must be positive")
        async with self._connected():
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
            # No IDF modifier: queries carry the tenant's own IDF (`_weigh`).
            sparse_vectors_config={SPARSE_VECTOR: qm.SparseVectorParams()},
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
                qm.KeywordIndexParams(type=qm.KeywordIndexType.KEYWORD, enable_hnsw=False),
            )
        await self._index(
            ANCESTORS_FIELD,
            qm.KeywordIndexParams(type=qm.KeywordIndexType.KEYWORD, enable_hnsw=False),
        )
        # Looked up by value only, to count a term's documents (`_weigh`).
        await self._index(
            TERMS_FIELD,
            qm.IntegerIndexParams(
                type=qm.IntegerIndexType.INTEGER, lookup=True, range=False, enable_hnsw=False
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
                qm.PointStruct(id=str(point.id), vector=vectors, payload=_stored_payload(point))
            )
        async with self._connected():
            for tenant_id, batch in by_tenant.items():
                # The tenant condition makes the upsert skip an id that another tenant
                # already owns instead of overwriting that tenant's point.
                await self.client.upsert(
                    self.collection, batch, wait=True, update_filter=_tenant_filter(tenant_id)
                )

    async def set_vectors(self, tenant_id: str, updates: Sequence[VectorUpdate]) -> None:
        self._require()
        items: list[qm.PointVectors] = []
        terms: list[qm.SetPayloadOperation] = []
        for update in updates:
            vectors: dict[str, Any] = {}
            dense = check_dense(update.dense, self._dense_dim)
            if dense is not None:
                vectors[DENSE_VECTOR] = dense
            if update.sparse:
                vectors[SPARSE_VECTOR] = _sparse(update.sparse)
                # The point's term dimensions follow its new sparse vector.
                terms.append(
                    qm.SetPayloadOperation(
                        set_payload=qm.SetPayload(
                            payload={TERMS_FIELD: _terms(update.sparse)},
                            filter=_ids_filter(tenant_id, [update.id]),
                        )
                    )
                )
            if vectors:
                items.append(qm.PointVectors(id=str(update.id), vector=vectors))
        if not items:
            return
        revector = qm.UpdateVectorsOperation(
            update_vectors=qm.UpdateVectors(points=items, update_filter=_tenant_filter(tenant_id))
        )
        async with self._connected():
            if terms:
                # One request: the vectors and their terms change together.
                await self.client.batch_update_points(
                    self.collection, [revector, *terms], wait=True
                )
            else:
                await self.client.update_vectors(
                    self.collection, items, wait=True, update_filter=_tenant_filter(tenant_id)
                )

    async def set_payload(
        self, tenant_id: str, ids: Sequence[uuid.UUID], payload: Mapping[str, Any]
    ) -> None:
        self._require()
        if not ids:
            return
        changes = check_payload_update(payload)
        if ANCESTORS_FIELD in changes or TERMS_FIELD in changes:
            raise ValueError(f"{ANCESTORS_FIELD} and {TERMS_FIELD} are derived by the index")
        if "space" in changes:
            changes[ANCESTORS_FIELD] = space_ancestors(str(changes["space"]))
        async with self._connected():
            await self.client.set_payload(
                self.collection,
                changes,
                qm.FilterSelector(filter=_ids_filter(tenant_id, ids)),
                wait=True,
            )

    async def delete(self, tenant_id: str, ids: Sequence[uuid.UUID]) -> None:
        self._require()
        if not ids:
            return
        async with self._connected():
            await self.client.delete(
                self.collection, qm.FilterSelector(filter=_ids_filter(tenant_id, ids)), wait=True
            )

    async def drop_tenant(self, tenant_id: str) -> int:
        existing = await self.count(tenant_id)
        if existing:
            async with self._connected():
                await self.client.delete(
                    self.collection,
                    qm.FilterSelector(filter=_tenant_filter(tenant_id)),
                    wait=True,
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
        dense_vector = check_dense(dense, self._dense_dim)
        async with self._connected():
            requests: list[qm.QueryRequest] = []
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
            # IDF over the tenant's own points: another tenant's corpus must not
            # shape this tenant's scores (nor be observable through them).
            weighted = await self._weigh(tenant_id, sparse) if sparse else None
            if weighted:
                requests.append(
                    qm.QueryRequest(
                        query=_sparse(weighted),
                        using=SPARSE_VECTOR,
                        filter=scope,
                        limit=limit,
                        with_payload=False,
                        with_vector=False,
                    )
                )
            if not requests:
                return []
            responses = await self.client.query_batch_points(self.collection, requests)
        legs = iter(responses)
        dense_hits = _hits(next(legs).points) if dense_vector is not None else []
        sparse_hits = _hits(next(legs).points) if weighted else []
        return merge_legs(dense_hits, sparse_hits)

    async def _weigh(self, tenant_id: str, query: SparseVector) -> SparseVector:
        """The query weighted with BM25 IDF over the tenant's points: how many of
        them have terms, and in how many each query term occurs (exact counts on
        the payload indexes, read together)."""
        tenant = _condition(tenant_condition(tenant_id))
        has_terms = qm.Filter(
            must=[tenant],
            must_not=[qm.IsEmptyCondition(is_empty=qm.PayloadField(key=TERMS_FIELD))],
        )
        dims = list(dict.fromkeys(query.indices))
        counted = await asyncio.gather(
            self.client.count(self.collection, count_filter=has_terms, exact=True),
            *(
                self.client.count(
                    self.collection,
                    count_filter=qm.Filter(
                        must=[
                            tenant,
                            qm.FieldCondition(key=TERMS_FIELD, match=qm.MatchValue(value=dim)),
                        ]
                    ),
                    exact=True,
                )
                for dim in dims
            ),
        )
        docs, *df = (int(result.count) for result in counted)
        return TermCounts.of(docs, dict(zip(dims, df, strict=True))).weigh(query)

    async def warm(self) -> int:
        """Nothing to prepare: term counts are read from the server at each search."""
        return 0

    async def count(self, tenant_id: str) -> int:
        self._require()
        async with self._connected():
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


def _terms(vector: SparseVector | None) -> list[int]:
    return sorted(set(vector.indices)) if vector else []


def _stored_payload(point: IndexPoint) -> dict[str, Any]:
    """The point's payload with the fields this adapter derives from it."""
    payload = point_payload(point)
    payload[ANCESTORS_FIELD] = space_ancestors(str(payload.get("space") or ""))
    payload[TERMS_FIELD] = _terms(point.sparse)
    return payload


def _connection_lost(exc: BaseException) -> bool:
    """Whether a failed call lost the server (gRPC or HTTP), not just the request."""
    if isinstance(exc, grpc.RpcError):
        code = exc.code() if callable(getattr(exc, "code", None)) else None
        return code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
    return isinstance(exc, ResponseHandlingException | httpx.TransportError | ConnectionError)


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
        # Prefixes end at a path boundary ("/"): one of the point's ancestors.
        if condition.key != "space":
            raise ValueError(f"no prefix match on {condition.key!r}")
        return qm.FieldCondition(key=ANCESTORS_FIELD, match=qm.MatchValue(value=condition.prefix))
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
        return (
            f"index layout {layout!r} (this server uses {LAYOUT_VERSION}, whose points also "
            f"hold their ancestor spaces and term dimensions; a rebuild from PostgreSQL, "
            f"as `engram reindex` does, writes them)"
        )
    return describe_model(model, dim)
