"""Vector index adapters (embedded Qdrant edge shard, Qdrant server) and their interface."""

from engram_server.store.vectors.base import (
    DEFAULT_FILTER,
    EVIDENCE_RANK,
    IndexFilter,
    IndexMismatch,
    IndexPoint,
    LayoutOutdated,
    ScoredPoint,
    VectorIndex,
    VectorUpdate,
    combine_legs,
    memory_payload,
)

__all__ = [
    "DEFAULT_FILTER",
    "EVIDENCE_RANK",
    "IndexFilter",
    "IndexMismatch",
    "IndexPoint",
    "LayoutOutdated",
    "ScoredPoint",
    "VectorIndex",
    "VectorUpdate",
    "combine_legs",
    "memory_payload",
]
