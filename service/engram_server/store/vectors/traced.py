"""A vector index that opens a child span around every engine call.

Installed only when tracing is on (`build_index(..., traced=True)`), so an untraced
server calls the engine directly. Spans carry the backend, the operation, the
tenant and sizes, never vectors or payloads.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from opentelemetry import trace

from engram_server.lexical.sparse import SparseVector
from engram_server.store.vectors.base import (
    DEFAULT_FILTER,
    IndexFilter,
    IndexPoint,
    ScoredPoint,
    VectorIndex,
    VectorUpdate,
)

_tracer = trace.get_tracer("engram.store.vectors")


class TracedVectorIndex:
    """Delegates to `inner`; each data call runs in a `vector.<op>` span."""

    def __init__(self, inner: VectorIndex, backend: str) -> None:
        self.inner = inner
        self.backend = backend

    def __getattr__(self, name: str) -> Any:
        # Adapter-specific extras (locks, paths) stay reachable.
        return getattr(self.inner, name)

    def _span(self, op: str, tenant_id: str = "", **attributes: Any) -> Any:
        span_attributes: dict[str, Any] = {
            "db.system": "qdrant",
            "db.operation.name": op,
            "engram.vector_backend": self.backend,
            **attributes,
        }
        if tenant_id:
            span_attributes["engram.tenant"] = tenant_id
        return _tracer.start_as_current_span(
            f"vector.{op}", kind=trace.SpanKind.CLIENT, attributes=span_attributes
        )

    async def ensure_collection(self, dense_dim: int, model: str) -> None:
        with self._span("ensure_collection"):
            await self.inner.ensure_collection(dense_dim, model)

    async def recreate_collection(self, dense_dim: int, model: str) -> None:
        with self._span("recreate_collection"):
            await self.inner.recreate_collection(dense_dim, model)

    async def upsert(self, points: Sequence[IndexPoint]) -> None:
        tenant = points[0].tenant_id if points else ""
        with self._span("upsert", tenant, **{"engram.points": len(points)}):
            await self.inner.upsert(points)

    async def set_vectors(self, tenant_id: str, updates: Sequence[VectorUpdate]) -> None:
        with self._span("set_vectors", tenant_id, **{"engram.points": len(updates)}):
            await self.inner.set_vectors(tenant_id, updates)

    async def set_payload(
        self, tenant_id: str, ids: Sequence[uuid.UUID], payload: Mapping[str, Any]
    ) -> None:
        with self._span("set_payload", tenant_id, **{"engram.points": len(ids)}):
            await self.inner.set_payload(tenant_id, ids, payload)

    async def delete(self, tenant_id: str, ids: Sequence[uuid.UUID]) -> None:
        with self._span("delete", tenant_id, **{"engram.points": len(ids)}):
            await self.inner.delete(tenant_id, ids)

    async def search(
        self,
        tenant_id: str,
        dense: Sequence[float] | None,
        sparse: SparseVector | None,
        flt: IndexFilter = DEFAULT_FILTER,
        limit: int = 50,
    ) -> list[ScoredPoint]:
        with self._span("search", tenant_id, **{"engram.limit": limit}) as span:
            hits = await self.inner.search(tenant_id, dense, sparse, flt, limit)
            span.set_attribute("engram.hits", len(hits))
            return hits

    async def count(self, tenant_id: str) -> int:
        with self._span("count", tenant_id):
            return await self.inner.count(tenant_id)

    async def warm(self) -> int:
        with self._span("warm"):
            return await self.inner.warm()

    async def drop_tenant(self, tenant_id: str) -> int:
        with self._span("drop_tenant", tenant_id):
            return await self.inner.drop_tenant(tenant_id)

    async def optimize(self) -> bool:
        with self._span("optimize"):
            return await self.inner.optimize()

    async def close(self) -> None:
        await self.inner.close()
