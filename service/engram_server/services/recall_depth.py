"""Recall's opt-in depth mode: a first pass as usual, then the sessions of its
best hits searched on their own and their turns ranked with the first pass's
candidates (recall/depth.py says why). Costs a second ranking pass and one index
search per widened session; the default path never comes here.

Every search runs with the request's own filter (tenant, spaces or pools,
statuses and the rest), only narrowed to one session, so depth mode reaches
nothing a plain recall of the same request could not."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import TYPE_CHECKING

from engram_server.lexical.sparse import query_sparse_vector
from engram_server.recall import depth
from engram_server.store.vectors import IndexFilter, ScoredPoint

if TYPE_CHECKING:
    from engram_server.embeddings.cache import CachedEmbedder
    from engram_server.store.vectors import VectorIndex


async def session_points(
    embedder: CachedEmbedder,
    index: VectorIndex,
    tenant: str,
    text: str,
    flt: IndexFilter,
    sessions: list[str],
) -> list[ScoredPoint]:
    """The index's points for `text` within each of `sessions`, under the request's
    own filter `flt` narrowed to the session."""
    vector = (await embedder.embed_query(text, tenant)).tolist()  # cached by the first pass
    sparse = query_sparse_vector(text) or None
    found = await asyncio.gather(
        *(
            index.search(tenant, vector, sparse, replace(flt, session=session), depth.SESSION_LIMIT)
            for session in sessions
        )
    )
    return [point for points in found for point in points]
