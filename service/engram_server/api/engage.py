"""Engage (RecallService): protobuf in, `services.engage.Engage` call, protobuf out.

Engage buffers the incoming turn and answers with the long-term context it calls
for, in one round trip, never re-sending a memory the session already got.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from engram.v1 import recall_pb2

from engram_server.api.recall_filters import (
    CONTEXT_FORMATS,
    bitemporal_times,
    filter_fields,
    with_pools,
)
from engram_server.api.working_memory import (
    fill_message,
    findings_to_proto,
    fingerprint_of,
    message_from_proto,
    working_memory_of,
)
from engram_server.errors import InvalidArgument, Violations
from engram_server.lifecycle.validation import check_request_id, check_space
from engram_server.platform.context import AppContext
from engram_server.platform.egress import EgressPolicy
from engram_server.platform.webhooks import HttpWebhookCaller
from engram_server.pools.recall import parse_pools
from engram_server.services.engage import Engage, EngageRequest, EngageResult
from engram_server.services.lifecycle import LifecycleService
from engram_server.services.recall import DEFAULT_K, MAX_K, MAX_SPACES, Hit, RecallQuery
from engram_server.services.recall_runtime import RecallRuntime

# The RecallService's hit rendering, shared so Engage and Recall hits look alike.
HitToProto = Callable[[Hit], recall_pb2.RecallHit]
DEFAULT_TOKEN_BUDGET = 2000
MAX_TOKEN_BUDGET = 200_000


def _recall_query(request: recall_pb2.EngageRequest, v: Violations) -> RecallQuery:
    filters = filter_fields(request.filter, v)
    if len(request.recall_spaces) > MAX_SPACES:
        v.add("recall_spaces", f"at most {MAX_SPACES} spaces")
    for i, space in enumerate(request.recall_spaces[: MAX_SPACES + 1]):
        check_space(v, f"recall_spaces[{i}]", space)
    if not math.isfinite(request.min_score):
        v.add("min_score", "must be a finite number")
    parse_pools(request.pools, v)
    if request.consistency not in recall_pb2.ReadConsistency.values():
        v.add("consistency", f"unknown enum value {request.consistency}")
    if not 0 <= request.k <= MAX_K:
        v.add("k", f"must be between 0 and {MAX_K}")
    if request.depth not in recall_pb2.RecallDepth.values():
        v.add("depth", f"unknown enum value {request.depth}")
    valid_at, known_at = bitemporal_times(request, v)
    return RecallQuery(
        deep=request.depth == recall_pb2.RECALL_DEPTH_DEEP,
        valid_at=valid_at,
        known_at=known_at,
        query="",
        spaces=tuple(request.recall_spaces) or (request.space,),
        include_subspaces=request.include_subspaces,
        k=request.k or DEFAULT_K,
        **filters,
        min_score=request.min_score,
        read_your_writes=request.consistency == recall_pb2.READ_CONSISTENCY_READ_YOUR_WRITES,
    )


class EngageHandler:
    """Serves Engage for the RecallService servicer."""

    def __init__(self, ctx: AppContext, runtime: RecallRuntime) -> None:
        self.ctx = ctx
        self.runtime = runtime
        self._engage: Engage | None = None

    def _get(self) -> Engage:
        if self._engage is None:
            lifecycle = self.ctx.lifecycle
            if lifecycle is None:
                # Served without the LifecycleService servicer (embedding setups):
                # a write path of its own, for its policies and privacy boundary.
                egress = EgressPolicy.from_settings(self.ctx.settings)
                lifecycle = LifecycleService(
                    self.ctx.db,
                    HttpWebhookCaller(egress),
                    self.ctx.settings.max_content_bytes,
                    url_refusal=egress.refusal,
                )
            self._engage = Engage(lifecycle, working_memory_of(self.ctx), self.runtime.service)
        return self._engage

    async def engage(
        self,
        tenant: str,
        request: recall_pb2.EngageRequest,
        deadline: float | None,
        hit_to_proto: HitToProto,
    ) -> recall_pb2.EngageResponse:
        v = Violations()
        if not request.HasField("message"):
            working_memory_of(self.ctx).check_target(v, request.space, request.session)
            v.add("message", "required")
            v.raise_if_any()
        query = _recall_query(request, v)
        options = request.options
        budget = options.token_budget or DEFAULT_TOKEN_BUDGET
        if not 1 <= budget <= MAX_TOKEN_BUDGET:
            v.add("options.token_budget", f"between 1 and {MAX_TOKEN_BUDGET} (0: 2000)")
        fmt = CONTEXT_FORMATS.get(options.format)
        if fmt is None:
            v.add("options.format", f"unknown enum value {options.format}")
        check_request_id(v, "request_id", request.request_id)
        v.raise_if_any()
        if fmt is None:  # reported above; narrows the type
            raise InvalidArgument.field("options.format", "unknown")
        if request.pools:
            query = await with_pools(self.ctx, query, request.pools)
        result = await self._get()(
            EngageRequest(
                tenant=tenant,
                space=request.space,
                session=request.session,
                message=message_from_proto(request.message),
                query=query,
                token_budget=budget,
                format=fmt,
                group_by_kind=options.group_by_kind,
                cite=options.include_citations,
                # Engage shows badges by default: without `options`, they are on.
                badges=options.include_evidence_badges or not request.HasField("options"),
                resend=request.resend,
                request_id=request.request_id,
                deadline=deadline,
                fingerprint=fingerprint_of("Engage", request),
                insights=request.include_insights,
            )
        )
        return response_to_proto(result, hit_to_proto)


# One handler per recall runtime (one per server in a process), keyed by identity.
_HANDLERS: dict[int, EngageHandler] = {}


def engage_handler(ctx: AppContext, runtime: RecallRuntime) -> EngageHandler:
    """The Engage handler of a RecallService servicer."""
    handler = _HANDLERS.get(id(runtime))
    if handler is None or handler.runtime is not runtime or handler.ctx is not ctx:
        handler = _HANDLERS[id(runtime)] = EngageHandler(ctx, runtime)
    return handler


def response_to_proto(result: EngageResult, hit_to_proto: HitToProto) -> recall_pb2.EngageResponse:
    buffered = result.buffered
    response = recall_pb2.EngageResponse(
        buffered_messages=buffered.buffered_messages,
        buffered_tokens=buffered.buffered_tokens,
        suppressed_count=result.suppressed,
        privacy_findings=findings_to_proto(buffered.findings),
        hits=[hit_to_proto(h) for h in result.hits],
    )
    if buffered.result is not None:
        fill_message(response.message, buffered.result.message)
    for item in result.insights:
        response.insights.add(
            kind=item.kind,
            memory=item.memory,
            related_hit=item.related_hit,
            quote=item.quote,
            conflict=item.conflict,
            missing=item.missing,
        )
    if result.context is not None:
        response.context = result.context.text
        response.cited_memories.extend(result.context.cited)
        response.token_count = result.context.token_count
    return response
