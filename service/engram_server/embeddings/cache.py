"""An embedder wrapper that embeds each distinct text of a tenant only once per model."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Sequence
from typing import Protocol

import numpy as np
from opentelemetry import trace

from engram_server.embeddings.base import (
    Embedder,
    EmbeddingError,
    Matrix,
    Vector,
    empty_matrix,
)

# Stored byte order is fixed so a cache written on one machine reads on any other.
_STORED = np.dtype("<f4")


_tracer = trace.get_tracer("engram.embeddings")


class EmbeddingCacheStore(Protocol):
    """Where cached vectors live, partitioned by tenant (see `store.embedding_cache`)."""

    async def lookup(
        self, tenant_id: str, model: str, hashes: Sequence[str]
    ) -> dict[str, bytes]: ...

    async def save(
        self, tenant_id: str, model: str, entries: Sequence[tuple[str, bytes]]
    ) -> None: ...


class CachedEmbedder:
    """Wraps an embedder with a per-tenant cache keyed by (model, content hash).

    `embed_for_tenant` is the cached path, for indexing stored content. A search
    query is not content and is not worth a database round trip: `embed_query`
    keeps the vectors of the most recent `query_cache_size` distinct queries in
    memory instead, keyed by the tenant that asked too. A vector depends on the
    text and the model only, but a hit answers in microseconds where the model
    takes milliseconds: shared by tenants, the cache would let one tenant tell
    from the latency of its own Recall that another had just asked the same
    question (the reason the content cache is per tenant as well).
    """

    def __init__(
        self, inner: Embedder, store: EmbeddingCacheStore, query_cache_size: int = 1024
    ) -> None:
        self.inner = inner
        self.store = store
        self.query_cache_size = max(0, query_cache_size)
        self._queries: OrderedDict[tuple[str, str], Vector] = OrderedDict()
        # Running totals, for metrics and `engram index status`.
        self.hits = 0
        self.misses = 0

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    async def load(self) -> None:
        await self.inner.load()

    async def embed(self, texts: Sequence[str]) -> Matrix:
        with _tracer.start_as_current_span(
            "embedding.embed",
            attributes={"gen_ai.request.model": self.inner.name, "engram.texts": len(texts)},
        ):
            return await self.inner.embed(texts)

    async def embed_query(self, text: str, tenant_id: str) -> Vector:
        return await (await self.begin_query(text, tenant_id))

    async def begin_query(self, text: str, tenant_id: str) -> asyncio.Future[Vector]:
        """`embed_query` as a future, returned once the embedding is under way (for
        an in-process model: once its inference runs outside the GIL), so the caller
        can do other work on the event loop's thread meanwhile. `tenant_id` is the
        tenant asking: only its own earlier queries are served from memory."""
        loop = asyncio.get_running_loop()
        key = (tenant_id, text)
        cached = self._queries.get(key)
        if cached is not None:
            self._queries.move_to_end(key)
            done: asyncio.Future[Vector] = loop.create_future()
            done.set_result(cached)
            return done
        # The span covers the start of the inference (the caller awaits the
        # vector later, overlapping it with other work).
        with _tracer.start_as_current_span(
            "embedding.query", attributes={"gen_ai.request.model": self.inner.name}
        ):
            begin = getattr(self.inner, "begin_query", None)
            if begin is None:
                vector = asyncio.ensure_future(self.inner.embed_query(text))
            else:
                vector = await begin(text)
        vector.add_done_callback(lambda f: self._remember(key, f))
        return vector

    def _remember(self, key: tuple[str, str], computed: asyncio.Future[Vector]) -> None:
        if not self.query_cache_size or computed.cancelled() or computed.exception():
            return
        vector = computed.result()
        vector.setflags(write=False)  # shared by every caller of the same text
        self._queries[key] = vector
        if len(self._queries) > self.query_cache_size:
            self._queries.popitem(last=False)

    def forget_tenant(self, tenant_id: str) -> int:
        """Drops the tenant's remembered query vectors (a deleted tenant: one
        created later under the same id must not find them by their speed);
        returns how many."""
        gone = [key for key in self._queries if key[0] == tenant_id]
        for key in gone:
            del self._queries[key]
        return len(gone)

    async def close(self) -> None:
        self._queries.clear()
        await self.inner.close()

    async def embed_for_tenant(self, tenant_id: str, items: Sequence[tuple[str, str]]) -> Matrix:
        """Vectors of `(content_hash, text)` items, in order.

        The hash must identify exactly the text that is embedded (a memory's
        `content_hash` does, when its content is what gets embedded). Hits come from
        one query; the misses, each distinct hash once, are embedded in one batch and
        stored.
        """
        dimension = await self._dimension()
        if not items:
            return empty_matrix(dimension)
        model = self.inner.name
        distinct = list(dict.fromkeys(content_hash for content_hash, _ in items))
        found = await self.store.lookup(tenant_id, model, distinct)
        vectors: dict[str, Vector] = {}
        for content_hash, raw in found.items():
            vector = np.frombuffer(raw, dtype=_STORED).astype(np.float32)
            # A row of another length is from a differently configured endpoint
            # under the same model name: recompute it rather than mix spaces.
            if vector.shape[0] == dimension:
                vectors[content_hash] = vector
        missing: dict[str, str] = {}
        for content_hash, text in items:
            if content_hash not in vectors:
                missing.setdefault(content_hash, text)
        self.hits += len(distinct) - len(missing)
        self.misses += len(missing)
        if missing:
            fresh = await self.inner.embed(list(missing.values()))
            entries = []
            for content_hash, vector in zip(missing, fresh, strict=True):
                vectors[content_hash] = vector
                entries.append((content_hash, vector.astype(_STORED).tobytes()))
            await self.store.save(tenant_id, model, entries)
        return np.stack([vectors[content_hash] for content_hash, _ in items])

    async def _dimension(self) -> int:
        try:
            return self.inner.dimension
        except EmbeddingError:
            # A remote model before its first reply: one probe tells.
            await self.inner.load()
            return self.inner.dimension
