"""The embedded vector index: Qdrant's own engine in-process (PyPI `qdrant-edge-py`).

One shard under `<path>/shard` holds every tenant; `<path>/engram-index.json` records
the embedding model and dimension it was built for. Updates go through the engine's
write-ahead log, so a restart (even after a crash) finds every acknowledged write.

Engine calls are synchronous and, in qdrant-edge-py 0.9, hold the GIL for most of
their run. Writes and the shard's own opening, replacing and closing go through a
one-thread executor, so they never interleave with one another; searches run on the
event loop's thread, where they block the loop no longer than they would hold the GIL
from another thread anyway (measured on 2 cores at 100k points, see
bench/results/vector_index.md: a filtered search 1-3 ms, an upsert chunk of 32 points
a few ms); the engine's own locks keep a search and a write apart. The exception is
`optimize()`, which builds the HNSW graphs: it holds the GIL for its whole run (about
a minute for 100k new points), so it runs only when the caller decides (the indexing
worker, when the backlog is empty).
Until then new points are served by exact search over the tenant's filtered points:
fine for tens of thousands of points, tens of milliseconds at 100k.

HNSW layout follows Qdrant's multitenancy guidance: no global graph (`m=0`, every
query is tenant-scoped) and one graph per tenant (`payload_m`) on the `is_tenant`
keyword index; the other payload indexes serve filtering only (`enable_hnsw=False`),
so no extra graphs are built for them.

The sparse vector has no IDF modifier here: the index keeps each tenant's document
frequencies itself (store/vectors/term_stats.py) and sends IDF-weighted queries,
which scores exactly as the engine's per-tenant IDF did at a fraction of the cost.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import qdrant_edge as qe

from engram_server.errors import FailedPrecondition
from engram_server.lexical.sparse import SparseVector
from engram_server.store.vectors.base import (
    DEFAULT_FILTER,
    DENSE_VECTOR,
    FLOAT_FIELDS,
    INTEGER_FIELDS,
    KEYWORD_FIELDS,
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
from engram_server.store.vectors.term_stats import TermCounts, apply_changes

T = TypeVar("T")

META_FILE = "engram-index.json"
# Points per engine update call. Each call holds the GIL throughout, so small calls
# bound how long the event loop can wait; they are also the fastest (measured at
# 384 dimensions: 16-32 points ~18k points/s, 256 ~15k, 1024 ~10k).
UPSERT_CHUNK = 32
SHARD_DIR = "shard"
# The embedded shard's layout: 2 dropped the engine's IDF modifier for the index's
# own term counts (a shard of layout 1 is rebuilt from PostgreSQL, see RecallRuntime).
EDGE_LAYOUT_VERSION = 2
# Points read per call when a tenant's term counts are built.
SCAN_CHUNK = 1024
# Tenants whose term counts `warm` builds ahead of their first search (largest first).
WARM_TENANTS = 10_000

# (term dimensions removed, term dimensions added) by a write, per document.
_TermChange = tuple[list[list[int]], list[list[int]]]


@dataclass(frozen=True, slots=True)
class EdgeIndexSettings:
    """Engine tuning; the defaults suit many tenants of up to ~100k memories each."""

    # Links per node of the global graph; 0 builds none (queries are tenant-scoped).
    hnsw_m: int = 0
    # Links per node of the per-tenant graphs.
    hnsw_payload_m: int = 16
    hnsw_ef_construct: int = 100
    # Below this many KB of vectors a filtered search scans exactly instead of
    # walking a graph (and no graph is built for a tenant that small).
    full_scan_threshold_kb: int = 10_000
    # Search-time beam width; None lets the engine choose.
    hnsw_ef: int | None = 128
    # ACORN filtered graph search for filters that keep a minority of the points
    # (engine default: under 40% of the collection). A plain graph walk loses most
    # neighbours then: measured at 100k clustered vectors, a filter keeping 14%
    # recalled 0.36 of the true top 10 without ACORN and 0.97 with it. Filters small
    # enough for `full_scan_threshold_kb` are scanned exactly either way.
    acorn: bool = True
    acorn_max_selectivity: float | None = None
    # Engine search threads (None: derived from the CPU count). A search runs on
    # them while the calling thread waits, so more threads only split one search
    # across segments, and the hand-offs cost more than that gains: measured on 2
    # cores at 100k memories, one thread searched the dense leg in 0.78-0.81 ms
    # and the lexical leg in 0.43-0.45 ms, against 1.03-1.12 and 0.56-0.69 ms with
    # the engine's default, for 1.3 instead of 2.0-2.3 ms of CPU a pair.
    search_threads: int | None = 1


class EdgeVectorIndex:
    """`VectorIndex` on an in-process Qdrant edge shard under `path`."""

    def __init__(self, path: str | os.PathLike[str], settings: EdgeIndexSettings | None = None):
        self.path = Path(path)
        self.settings = settings or EdgeIndexSettings()
        self._shard: qe.EdgeShard | None = None
        self._dense_dim = 0
        self._calls = ThreadPoolExecutor(max_workers=1, thread_name_prefix="engram-edge")
        self._optimizer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="engram-edge-opt")
        self._optimizing: asyncio.Future[bool] | None = None
        self._acorn = (
            qe.AcornSearchParams(enable=True, max_selectivity=self.settings.acorn_max_selectivity)
            if self.settings.acorn
            else None
        )
        # Points written since the last optimize(): what the next one has to index.
        self.writes_since_optimize = 0
        # Opening, recreating or closing the shard in progress (see `search`).
        self._reshaping = 0
        # Sparse-term document frequencies of the tenants warmed or searched since
        # the shard was opened. Changed only on the engine thread (with the writes
        # that move them), read by searches on the loop thread.
        self._terms: dict[str, TermCounts] = {}

    # -- lifecycle ---------------------------------------------------------------

    async def ensure_collection(self, dense_dim: int, model: str) -> None:
        async with self._reshape():
            await self._settle_optimize()
            await self._run(self._open, dense_dim, model, False)

    async def recreate_collection(self, dense_dim: int, model: str) -> None:
        async with self._reshape():
            await self._settle_optimize()
            await self._run(self._open, dense_dim, model, True)
            self.writes_since_optimize = 0

    async def close(self) -> None:
        async with self._reshape():
            await self._settle_optimize()
            if self._shard is not None:
                await self._run(self._close_shard)
            self._calls.shutdown(wait=True)
            self._optimizer.shutdown(wait=True)

    @contextlib.asynccontextmanager
    async def _reshape(self) -> AsyncIterator[None]:
        """Marks a change of the shard itself, during which searches queue behind it."""
        self._reshaping += 1
        try:
            yield
        finally:
            self._reshaping -= 1

    async def optimize(self) -> bool:
        """Builds the HNSW graphs and merges segments; blocks the process's Python
        threads while it runs (seconds per ten thousand new points), so call it
        when a pause is acceptable, e.g. from the indexing worker when idle."""
        if self._optimizing is None:
            shard = self._require()
            pending = self.writes_since_optimize
            running = asyncio.get_running_loop().run_in_executor(self._optimizer, shard.optimize)

            def finished(future: asyncio.Future[bool]) -> None:
                self._optimizing = None
                if not future.cancelled() and future.exception() is None:
                    self.writes_since_optimize = max(0, self.writes_since_optimize - pending)

            running.add_done_callback(finished)
            self._optimizing = running
        # Shielded: a caller that gives up waiting does not stop the engine mid-build,
        # and close() still waits for it.
        return await asyncio.shield(self._optimizing)

    async def _settle_optimize(self) -> None:
        # The shard must not be closed or replaced under a running optimize.
        if self._optimizing is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(self._optimizing)

    async def flush(self) -> None:
        """Writes segments to disk now (the WAL already makes writes durable)."""
        await self._run(self._require().flush)

    # -- writes ------------------------------------------------------------------

    async def upsert(self, points: Sequence[IndexPoint]) -> None:
        if not points:
            return
        shard = self._require()
        dim = self._dense_dim

        def write() -> None:
            # Converting to engine points costs ~60 us a point (mostly the payload),
            # so it happens here on the engine thread rather than on the event loop.
            by_tenant: dict[str, list[qe.Point]] = {}
            originals: dict[str, list[IndexPoint]] = {}
            for point in points:
                vectors: dict[str, Any] = {}
                dense = check_dense(point.dense, dim)
                if dense is not None:
                    vectors[DENSE_VECTOR] = dense
                if point.sparse:
                    vectors[SPARSE_VECTOR] = _sparse(point.sparse)
                by_tenant.setdefault(point.tenant_id, []).append(
                    qe.Point(point.id, vectors, point_payload(point))
                )
                originals.setdefault(point.tenant_id, []).append(point)
            # The tenant condition makes the upsert skip an id that another tenant
            # already owns instead of overwriting that tenant's point.
            for tenant_id, batch in by_tenant.items():
                guard = qe.Filter(must=[_condition(tenant_condition(tenant_id))])
                for lo in range(0, len(batch), UPSERT_CHUNK):
                    chunk = batch[lo : lo + UPSERT_CHUNK]
                    change = self._replacing(
                        shard, tenant_id, originals[tenant_id][lo : lo + UPSERT_CHUNK]
                    )
                    shard.update(qe.UpdateOperation.upsert_points(chunk, condition=guard))
                    self._count(tenant_id, change)

        await self._run(write)
        self.writes_since_optimize += len(points)

    async def set_vectors(self, tenant_id: str, updates: Sequence[VectorUpdate]) -> None:
        shard = self._require()
        items: list[qe.PointVectors] = []
        for update in updates:
            vectors: dict[str, Any] = {}
            dense = check_dense(update.dense, self._dense_dim)
            if dense is not None:
                vectors[DENSE_VECTOR] = dense
            if update.sparse:
                vectors[SPARSE_VECTOR] = _sparse(update.sparse)
            if vectors:
                items.append(qe.PointVectors(update.id, vectors))
        if not items:
            return
        operation = qe.UpdateOperation.update_vectors(items, condition=_tenant_filter(tenant_id))
        sparse = {u.id: u.sparse.indices for u in updates if u.sparse}

        def write() -> None:
            change = self._revectoring(shard, tenant_id, sparse) if sparse else None
            shard.update(operation)
            self._count(tenant_id, change)

        await self._run(write)

    async def set_payload(
        self, tenant_id: str, ids: Sequence[uuid.UUID], payload: Mapping[str, Any]
    ) -> None:
        if not ids:
            return
        operation = qe.UpdateOperation.set_payload_by_filter(
            _ids_filter(tenant_id, ids), check_payload_update(payload)
        )
        await self._run(self._require().update, operation)

    async def delete(self, tenant_id: str, ids: Sequence[uuid.UUID]) -> None:
        if not ids:
            return
        shard = self._require()
        operation = qe.UpdateOperation.delete_points_by_filter(_ids_filter(tenant_id, ids))

        def write() -> None:
            change = self._deleting(shard, tenant_id, ids)
            shard.update(operation)
            self._count(tenant_id, change)

        await self._run(write)

    async def drop_tenant(self, tenant_id: str) -> int:
        shard = self._require()
        scope = _tenant_filter(tenant_id)

        def drop() -> int:
            existing = shard.count(qe.CountRequest(exact=True, filter=scope))
            if existing:
                shard.update(qe.UpdateOperation.delete_points_by_filter(scope))
            self._terms.pop(tenant_id, None)
            return existing

        return await self._run(drop)

    # -- reads -------------------------------------------------------------------

    async def search(
        self,
        tenant_id: str,
        dense: Sequence[float] | None,
        sparse: SparseVector | None,
        flt: IndexFilter = DEFAULT_FILTER,
        limit: int = 50,
    ) -> list[ScoredPoint]:
        if limit <= 0:
            return []
        scope = qe.Filter(must=[_condition(c) for c in scoped_conditions(tenant_id, flt)])
        requests: list[qe.QueryRequest] = []
        dense_vector = check_dense(dense, self._dense_dim)
        if dense_vector is not None:
            params = qe.SearchParams(hnsw_ef=self.settings.hnsw_ef, acorn=self._acorn)
            requests.append(
                qe.QueryRequest(
                    limit=limit,
                    query=qe.Query.Nearest(dense_vector, using=DENSE_VECTOR),
                    filter=scope,
                    params=params,
                    with_payload=False,
                    with_vector=False,
                )
            )
        weighted: SparseVector | None = None
        if sparse:
            # IDF over the tenant's own points: another tenant's corpus must not
            # shape this tenant's scores (nor be observable through them).
            counts = self._terms.get(tenant_id)
            if counts is None:
                counts = await self._run(self._load_terms, tenant_id)
            weighted = counts.weigh(sparse)
        if weighted:
            requests.append(
                qe.QueryRequest(
                    limit=limit,
                    query=qe.Query.Nearest(_sparse(weighted), using=SPARSE_VECTOR),
                    filter=scope,
                    with_payload=False,
                    with_vector=False,
                )
            )
        if not requests:
            return []
        batch = qe.QueryBatchRequest(requests)
        if self._reshaping:
            # The shard is being opened, replaced or closed on the engine thread:
            # queue behind that instead of reading a shard on its way out.
            results = await self._run(lambda: self._require().query_batch(batch))
        else:
            # On the event loop's own thread. The engine holds the GIL for most of
            # a search (the loop thread ran at about a quarter of its speed beside
            # one), so a search on another thread bought no parallelism and cost
            # two thread hand-offs (about 0.5 ms per Recall of a short question on
            # two loaded cores). The engine takes its own locks against the writes
            # and the graph build running on the other threads.
            results = self._require().query_batch(batch)
        legs = iter(results)
        dense_hits = _hits(next(legs)) if dense_vector is not None else []
        sparse_hits = _hits(next(legs)) if weighted else []
        return merge_legs(dense_hits, sparse_hits)

    async def warm(self) -> int:
        """Builds the term counts of the shard's tenants (largest first) before their
        first search would have to: a tenant's scan takes about a second per 100k
        points. Each tenant is one job on the engine thread, so writes and searches
        queue behind one tenant at most. Returns how many tenants it built."""
        shard = self._require()
        facets = await self._run(shard.facet, qe.FacetRequest(key=TENANT_FIELD, limit=WARM_TENANTS))
        built = 0
        for hit in sorted(facets.hits, key=lambda h: -h.count):
            tenant_id = str(hit.value)
            if tenant_id not in self._terms and self._shard is shard:
                await self._run(self._load_terms, tenant_id)
                built += 1
        return built

    async def count(self, tenant_id: str) -> int:
        request = qe.CountRequest(exact=True, filter=_tenant_filter(tenant_id))
        return await self._run(self._require().count, request)

    # -- engine plumbing (runs on the executor thread) ---------------------------

    def _open(self, dense_dim: int, model: str, recreate: bool) -> None:
        if dense_dim <= 0:
            raise ValueError("dense dimension must be positive")
        wanted = {"model": model, "dense_dim": dense_dim, "layout": EDGE_LAYOUT_VERSION}
        shard_path = self.path / SHARD_DIR
        meta_path = self.path / META_FILE
        if self._shard is not None:
            self._close_shard()
        self._terms.clear()
        if recreate:
            shutil.rmtree(shard_path, ignore_errors=True)
            meta_path.unlink(missing_ok=True)
        if shard_path.exists() and any(shard_path.iterdir()):
            stored = _read_meta(meta_path)
            if stored != wanted:
                if stored is not None and rebuildable(
                    str(stored.get("model", "")), int(stored.get("dense_dim", 0)), model, dense_dim
                ):
                    raise LayoutOutdated(_describe(stored), describe_model(model, dense_dim))
                raise IndexMismatch(_describe(stored), describe_model(model, dense_dim))
            try:
                self._shard = qe.EdgeShard.load(str(shard_path), self._config(dense_dim))
            except Exception as exc:
                # The engine locks its write-ahead log; a second opener (another
                # server, or a CLI run beside one) fails with WouldBlock.
                if "WouldBlock" in str(exc):
                    raise FailedPrecondition(
                        f"the embedded vector index at {self.path} is open in another "
                        "process; only one process may use it (stop the server first, "
                        "or use a Qdrant server for several processes)"
                    ) from exc
                raise
        else:
            self.path.mkdir(parents=True, exist_ok=True)
            meta_path.unlink(missing_ok=True)
            self._shard = qe.EdgeShard.create(str(shard_path), self._config(dense_dim))
            self._create_indexes(self._shard)
            self._shard.flush()
            _write_meta(meta_path, wanted)
        self._dense_dim = dense_dim

    def _config(self, dense_dim: int) -> qe.EdgeConfig:
        s = self.settings
        return qe.EdgeConfig(
            vectors={
                DENSE_VECTOR: qe.EdgeVectorParams(size=dense_dim, distance=qe.Distance.Cosine)
            },
            sparse_vectors={SPARSE_VECTOR: qe.EdgeSparseVectorParams()},
            hnsw_config=qe.HnswIndexConfig(
                m=s.hnsw_m,
                ef_construct=s.hnsw_ef_construct,
                full_scan_threshold=s.full_scan_threshold_kb,
                payload_m=s.hnsw_payload_m,
            ),
            max_search_threads=s.search_threads,
        )

    @staticmethod
    def _create_indexes(shard: qe.EdgeShard) -> None:
        def index(name: str, schema: Any) -> None:
            shard.update(qe.UpdateOperation.create_field_index(name, schema))

        index(TENANT_FIELD, qe.KeywordIndexParams(is_tenant=True))
        for name in KEYWORD_FIELDS:
            index(name, qe.KeywordIndexParams(enable_hnsw=False, prefix=name == "space" or None))
        for name in FLOAT_FIELDS:
            index(name, qe.FloatIndexParams(enable_hnsw=False))
        for name in INTEGER_FIELDS:
            index(name, qe.IntegerIndexParams(lookup=False, range=True, enable_hnsw=False))

    def _close_shard(self) -> None:
        shard, self._shard = self._shard, None
        self._terms.clear()
        if shard is not None:
            shard.flush()
            shard.close()

    def _require(self) -> qe.EdgeShard:
        if self._shard is None:
            raise RuntimeError("vector index not open: await ensure_collection() first")
        return self._shard

    # -- term counts (engine thread) ---------------------------------------------

    def _load_terms(self, tenant_id: str) -> TermCounts:
        """The tenant's term counts, built from its points on first use."""
        counts = self._terms.get(tenant_id)
        if counts is not None:
            return counts  # built by a search queued before this one
        shard = self._require()
        counts = TermCounts()
        scope = _tenant_filter(tenant_id)
        offset: Any = None
        while True:
            records, offset = shard.scroll(
                qe.ScrollRequest(
                    offset=offset,
                    limit=SCAN_CHUNK,
                    filter=scope,
                    with_payload=False,
                    with_vector=[SPARSE_VECTOR],
                )
            )
            for record in records:
                terms = _stored_terms(record)
                if terms:
                    counts.add(terms)
            if offset is None:
                break
        self._terms[tenant_id] = counts
        return counts

    def _stored_sparse(
        self, shard: qe.EdgeShard, tenant_id: str, ids: Iterable[uuid.UUID]
    ) -> tuple[dict[uuid.UUID, list[int] | None], set[uuid.UUID]] | None:
        """The points among `ids` as stored now: the tenant's own with their term
        dimensions (None for a point without a sparse vector), and the ids another
        tenant holds. None when the tenant's counts are not kept yet (nothing to
        maintain, and nothing read)."""
        if tenant_id not in self._terms:
            return None
        own: dict[uuid.UUID, list[int] | None] = {}
        foreign: set[uuid.UUID] = set()
        for record in shard.retrieve(list(ids), [TENANT_FIELD], [SPARSE_VECTOR]):
            point_id = _uuid(record.id)
            if (record.payload or {}).get(TENANT_FIELD) != tenant_id:
                foreign.add(point_id)
                continue
            own[point_id] = _stored_terms(record)
        return own, foreign

    def _replacing(
        self, shard: qe.EdgeShard, tenant_id: str, points: Sequence[IndexPoint]
    ) -> _TermChange | None:
        """What upserting `points` does to the tenant's counts: a point replaces its
        stored version; an id another tenant holds is skipped by the upsert guard."""
        stored = self._stored_sparse(shard, tenant_id, (p.id for p in points))
        if stored is None:
            return None
        own, foreign = stored
        latest = {p.id: p for p in points}  # an id twice in one call: the last wins
        removed = [terms for terms in own.values() if terms]
        added = [
            list(p.sparse.indices) for p in latest.values() if p.sparse and p.id not in foreign
        ]
        return removed, added

    def _revectoring(
        self, shard: qe.EdgeShard, tenant_id: str, sparse: Mapping[uuid.UUID, Sequence[int]]
    ) -> _TermChange | None:
        """What replacing the sparse vectors of existing points does to the counts
        (points that do not exist, or are another tenant's, are not updated)."""
        stored = self._stored_sparse(shard, tenant_id, sparse)
        if stored is None:
            return None
        own, _ = stored
        removed = [terms for terms in own.values() if terms]
        added = [list(sparse[point_id]) for point_id in own]
        return removed, added

    def _deleting(
        self, shard: qe.EdgeShard, tenant_id: str, ids: Iterable[uuid.UUID]
    ) -> _TermChange | None:
        stored = self._stored_sparse(shard, tenant_id, ids)
        if stored is None:
            return None
        own, _ = stored
        return [terms for terms in own.values() if terms], []

    def _count(self, tenant_id: str, change: _TermChange | None) -> None:
        """Applies a write's change once the engine has taken the write."""
        counts = self._terms.get(tenant_id)
        if change is not None and counts is not None:
            apply_changes(counts, *change)

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._calls, fn, *args)


# -- conversions ---------------------------------------------------------------------


def _sparse(vector: SparseVector) -> qe.SparseVector:
    return qe.SparseVector(indices=list(vector.indices), values=list(vector.values))


def _tenant_filter(tenant_id: str) -> qe.Filter:
    return qe.Filter(must=[_condition(tenant_condition(tenant_id))])


def _ids_filter(tenant_id: str, ids: Iterable[uuid.UUID]) -> qe.Filter:
    return qe.Filter(must=[_condition(tenant_condition(tenant_id)), _condition(IdIn(tuple(ids)))])


def _condition(condition: Condition) -> Any:
    if isinstance(condition, Match):
        return qe.FieldCondition(condition.key, match=qe.MatchValue(condition.value))
    if isinstance(condition, MatchAnyOf):
        return qe.FieldCondition(condition.key, match=qe.MatchAny(list(condition.values)))
    if isinstance(condition, Prefix):
        return qe.FieldCondition(condition.key, match=qe.MatchPrefix(condition.prefix))
    if isinstance(condition, Range):
        return qe.FieldCondition(
            condition.key, range=qe.RangeFloat(gte=condition.gte, lt=condition.lt)
        )
    if isinstance(condition, IdIn):
        return qe.HasIdCondition(set(condition.ids))
    if isinstance(condition, NoneOf):
        return qe.Filter(must_not=[_condition(c) for c in condition.conditions])
    return qe.Filter(should=[_condition(c) for c in condition.conditions])


def _stored_terms(record: qe.Record) -> list[int] | None:
    """The term dimensions of a retrieved point's sparse vector, if it has one."""
    vectors = record.vector
    vector = vectors.get(SPARSE_VECTOR) if isinstance(vectors, dict) else None
    return list(vector.indices) if isinstance(vector, qe.SparseVector) else None


def _hits(points: Sequence[qe.ScoredPoint]) -> list[tuple[uuid.UUID, float]]:
    return [(_uuid(p.id), float(p.score)) for p in points]


def _uuid(point_id: Any) -> uuid.UUID:
    return point_id if isinstance(point_id, uuid.UUID) else uuid.UUID(str(point_id))


def _read_meta(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _write_meta(path: Path, meta: dict[str, Any]) -> None:
    # Written last and atomically: a shard without this file is treated as unknown
    # (a half-created index asks for a reindex rather than being trusted).
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(meta, sort_keys=True))
    os.replace(tmp, path)


def _describe(meta: Mapping[str, Any] | None) -> str:
    if not meta:
        return "an unknown model (no index metadata)"
    if meta.get("layout") != EDGE_LAYOUT_VERSION:
        return f"index layout {meta.get('layout')!r} (this server uses {EDGE_LAYOUT_VERSION})"
    return describe_model(str(meta.get("model")), int(meta.get("dense_dim", 0)))
