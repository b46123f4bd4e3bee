"""RecallService servicer: recall, context building, snapshots and index status.

Engage is served by api/engage.py. Pools named in a request are resolved against
the caller's current membership (pools.recall) before each recall; graph expansion
follows typed edges from the top hits (services.recall).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import grpc
from engram.v1 import recall_pb2, recall_pb2_grpc

from engram_server.api import convert
from engram_server.api.evidence import EDGE_KIND_NUMBERS, edge_kind
from engram_server.api.recall_filters import CONTEXT_FORMATS, bitemporal_times, filter_fields
from engram_server.api.snapshots import SnapshotMethods
from engram_server.api.timestamps import optional_time
from engram_server.errors import InvalidArgument, Violations
from engram_server.lifecycle.model import Memory, Status, memory_name
from engram_server.platform.context import AppContext
from engram_server.platform.principal import current_principal
from engram_server.pools import recall as pool_recall
from engram_server.pools.model import identities
from engram_server.pools.recall import parse_pools
from engram_server.recall.context import build_context, evidence_badge
from engram_server.recall.tokens import TOKENIZER_NAME, count_tokens
from engram_server.services.lifecycle import parse_memory_name
from engram_server.services.reads import MemoryReads
from engram_server.services.recall import (
    DEFAULT_GRAPH_KINDS,
    GraphOptions,
    Hit,
    RecallQuery,
)
from engram_server.services.recall_runtime import RecallRuntime

Ctx = grpc.aio.ServicerContext[Any, Any]
_SERVICE = "engram.v1.RecallService"
MAX_TOKEN_BUDGET = 200_000
# BuildContext's explicit `memories` (protos: at most 200).
MAX_CONTEXT_MEMORIES = 200
# Named memories BuildContext skips (reported in `skipped_memories`): withdrawn,
# refused or forgotten ones. A superseded memory is still rendered when named:
# it is history, dated with the range in which it held.
_NOT_RENDERED = frozenset({Status.RETRACTED, Status.REJECTED, Status.EXPIRED})


def _query(
    request: recall_pb2.RecallRequest | recall_pb2.BuildContextRequest, k: int, v: Violations
) -> RecallQuery:
    filters = filter_fields(request.filter, v)
    parse_pools(request.pools, v)
    graph: GraphOptions | None = None
    if isinstance(request, recall_pb2.RecallRequest) and request.graph.enabled:
        graph = graph_options(request.graph, v)
    valid_at, known_at = bitemporal_times(request, v)
    if request.consistency not in recall_pb2.ReadConsistency.values():
        v.add("consistency", f"unknown enum value {request.consistency}")
    if request.depth not in recall_pb2.RecallDepth.values():
        v.add("depth", f"unknown enum value {request.depth}")
    return RecallQuery(
        deep=request.depth == recall_pb2.RECALL_DEPTH_DEEP,
        graph=graph,
        valid_at=valid_at,
        known_at=known_at,
        query=request.query,
        spaces=tuple(request.spaces),
        include_subspaces=request.include_subspaces,
        k=k,
        **filters,
        min_score=request.min_score,
        now=optional_time(request, "now", "now"),
        read_your_writes=request.consistency == recall_pb2.READ_CONSISTENCY_READ_YOUR_WRITES,
        track_access=not getattr(request, "skip_access_tracking", False),
    )


def graph_options(g: recall_pb2.GraphExpansion, v: Violations) -> GraphOptions:
    """The request's expansion; the ranges (hops, seeds, boost) are checked with the
    rest of the query by the recall service."""
    kinds = [edge_kind(k, f"graph.edge_kinds[{i}]", v) for i, k in enumerate(g.edge_kinds)]
    return GraphOptions(
        edge_kinds=tuple(dict.fromkeys(k for k in kinds if k)) or DEFAULT_GRAPH_KINDS,
        max_hops=g.max_hops or 1,
        seed_count=g.seed_count or 5,
        include_inactive=g.include_inactive,
        hop_boost=g.hop_boost or 0.5,
    )


def hit_to_proto(h: Hit) -> recall_pb2.RecallHit:
    b = h.breakdown
    return recall_pb2.RecallHit(
        memory=convert.memory_to_proto(h.memory),
        score=b.final,
        evidence_badge=evidence_badge(h.memory.evidence_level),
        reached_from=memory_name(h.reached_from) if h.reached_from else "",
        reached_via=EDGE_KIND_NUMBERS.get(h.reached_via, 0),  # type: ignore[arg-type]
        breakdown=recall_pb2.ScoreBreakdown(
            dense=b.dense,
            lexical=b.lexical,
            dense_rank=h.dense_rank or 0,
            lexical_rank=h.lexical_rank or 0,
            fusion=b.fusion,
            slot_match=b.slot_match,
            importance=b.importance,
            retention=b.retention,
            recency=b.recency,
            base_score=b.base_score,
            evidence_delta=b.evidence_delta,
            trust=b.trust,
            graph_boost=b.graph_boost,
        ),
        pool=h.pool,
    )


async def with_pools(ctx: AppContext, q: RecallQuery, pools: Any) -> RecallQuery:
    """`q` with the requested pools and the caller's identities, against which the
    recall's own read checks its membership (pools.recall)."""
    if not pools:
        return q
    v = Violations()
    pool_ids = parse_pools(pools, v)
    v.raise_if_any()
    scopes = tuple(pool_recall.PoolScope(p) for p in pool_ids)
    return replace(q, pools=scopes, reader=tuple(identities(current_principal())))


class RecallServicer(SnapshotMethods, recall_pb2_grpc.RecallServiceServicer):
    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx
        self.runtime = RecallRuntime.build(ctx.settings, ctx.db)
        ctx.recall = self.runtime
        self.reads = MemoryReads(ctx.db)

    async def start(self) -> None:
        await self.runtime.start(self.ctx.notifier)

    async def stop(self) -> None:
        await self.runtime.stop(self.ctx.notifier)

    def _deadline(self, context: Ctx) -> float | None:
        remaining = context.time_remaining()
        wait = self.ctx.settings.read_your_writes_wait_ms / 1000.0
        return wait if remaining is None else min(wait, remaining)

    async def Recall(
        self, request: recall_pb2.RecallRequest, context: Ctx
    ) -> recall_pb2.RecallResponse:
        v = Violations()
        q = _query(request, request.k, v)
        v.raise_if_any()
        q = await with_pools(self.ctx, q, request.pools)
        result = await self.runtime.service.recall(
            current_principal().tenant_id, q, self._deadline(context)
        )
        return recall_pb2.RecallResponse(
            hits=[hit_to_proto(h) for h in result.hits],
            pending_index_items=result.pending_index_items,
            embedding_model=result.embedding_model,
        )

    async def BuildContext(
        self, request: recall_pb2.BuildContextRequest, context: Ctx
    ) -> recall_pb2.BuildContextResponse:
        v = Violations()
        options = request.options
        budget = options.token_budget
        if not 1 <= budget <= MAX_TOKEN_BUDGET:
            v.add("options.token_budget", f"required, between 1 and {MAX_TOKEN_BUDGET}")
        fmt = CONTEXT_FORMATS.get(options.format)
        if fmt is None:
            v.add("options.format", f"unknown enum value {options.format}")
        if request.query and request.memories:
            v.add("memories", "give either query or memories, not both")
        if not request.query and not request.memories:
            v.add("query", "required (or memories)")
        tenant = current_principal().tenant_id
        ranked: list[Memory] = []
        skipped: list[str] = []
        if request.memories:
            if len(request.memories) > MAX_CONTEXT_MEMORIES:
                v.add("memories", f"at most {MAX_CONTEXT_MEMORIES} memories")
            ids = []
            for i, name in enumerate(request.memories[: MAX_CONTEXT_MEMORIES + 1]):
                try:
                    ids.append(parse_memory_name(name, f"memories[{i}]"))
                except InvalidArgument as exc:
                    v.items.extend(exc.violations)
            v.raise_if_any()
            # A memory named twice is rendered once.
            for memory_id in dict.fromkeys(ids):
                memory = await self.reads.get(tenant, memory_id)
                if memory.status in _NOT_RENDERED:
                    skipped.append(memory.name)
                else:
                    ranked.append(memory)
        else:
            q = _query(request, request.k, v)
            v.raise_if_any()
            q = await with_pools(self.ctx, q, request.pools)
            result = await self.runtime.service.recall(tenant, q, self._deadline(context))
            ranked = [h.memory for h in result.hits]
        assert fmt is not None
        built = build_context(
            ranked,
            budget,
            count_tokens,
            fmt,
            group_by_kind=options.group_by_kind,
            cite=options.include_citations,
            badges=options.include_evidence_badges,
        )
        return recall_pb2.BuildContextResponse(
            text=built.text,
            cited_memories=built.cited,
            token_count=built.token_count,
            omitted_count=len(built.omitted),
            skipped_memories=skipped,
            tokenizer=TOKENIZER_NAME,
        )

    async def GetIndexStatus(
        self, request: recall_pb2.GetIndexStatusRequest, context: Ctx
    ) -> recall_pb2.IndexStatus:
        tenant = current_principal().tenant_id
        backlog = await self.runtime.worker.backlog(tenant)
        status = recall_pb2.IndexStatus(
            name=request.name or "indexStatus",
            pending_dense_items=backlog["pending"],
            pending_lexical_items=backlog["pending"],
            retrying_items=backlog["retrying"],
            indexed_memories=await self.runtime.index.count(tenant),
            embedding_model=self.runtime.embedder.name,
            embedding_dimension=self.runtime.embedder.dimension,
            vector_backend=self.ctx.settings.vector_backend,
        )
        if backlog["oldest"] is not None:
            status.oldest_pending_time.FromDatetime(backlog["oldest"])
        if self.runtime.worker.last_indexed_time is not None:
            status.last_indexed_time.FromDatetime(self.runtime.worker.last_indexed_time)
        return status

    async def Engage(
        self, request: recall_pb2.EngageRequest, context: Ctx
    ) -> recall_pb2.EngageResponse:
        # Buffering, privacy screening and per-session dedup live in api/engage.py.
        from engram_server.api.engage import engage_handler

        return await engage_handler(self.ctx, self.runtime).engage(
            current_principal().tenant_id, request, self._deadline(context), hit_to_proto
        )
