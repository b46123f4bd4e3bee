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
from engram_server.store.vectors import ScoredPoint

if TYPE_CHECKING:
    from engram_server.services.recall import Hit, RecallQuery, RecallService


async def deep_ranked(service: RecallService, tenant: str, q: RecallQuery) -> list[Hit]:
    # Seeds are the best hits of the direct ranking (graph expansion comes last).
    first = await service._ranked(tenant, replace(q, graph=None))
    sessions = [] if q.session else depth.seed_sessions(h.memory.session for h in first)
    if not sessions:
        # Nothing to widen (no sessions, or the request names one already).
        return first if q.graph is None else await service._ranked(tenant, q)
    extra = await _session_points(service, tenant, q, sessions)
    return await service._ranked(tenant, q, widened=extra)


async def _session_points(
    service: RecallService, tenant: str, q: RecallQuery, sessions: list[str]
) -> list[ScoredPoint]:
    text = q.query.strip() or q.slot_key
    vector = (await service.embedder.embed_query(text, tenant)).tolist()  # cached by the first pass
    sparse = query_sparse_vector(text) or None
    flt = service._filter(q)
    found = await asyncio.gather(
        *(
            service.index.search(
                tenant, vector, sparse, replace(flt, session=session), depth.SESSION_LIMIT
            )
            for session in sessions
        )
    )
    return [point for points in found for point in points]
