"""EvidenceService servicer: grades, the assessor, conflicts, edges and space profiles."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import Any, TypeVar

import grpc
from engram.v1 import evidence_pb2, evidence_pb2_grpc, types_pb2
from google.protobuf import empty_pb2

from engram_server.api import convert
from engram_server.api.profiles import get_space_profile, list_space_profiles
from engram_server.errors import InvalidArgument, Violations
from engram_server.lifecycle.model import EvidenceLevel, memory_name
from engram_server.lifecycle.validation import check_space
from engram_server.platform.context import AppContext
from engram_server.platform.principal import current_principal
from engram_server.platform.roles import runs_background
from engram_server.services import paging
from engram_server.services.evidence import (
    Assessment,
    AssessWorker,
    EvidenceLink,
    EvidenceService,
)
from engram_server.services.lifecycle import parse_memory_name
from engram_server.store import evidence as evidence_store
from engram_server.store.postgres import Conn

Ctx = grpc.aio.ServicerContext[Any, Any]

_EDGE_KINDS = {
    types_pb2.EDGE_KIND_SUPPORTS: "SUPPORTS",
    types_pb2.EDGE_KIND_CONTRADICTS: "CONTRADICTS",
    types_pb2.EDGE_KIND_SUPERSEDES: "SUPERSEDES",
    types_pb2.EDGE_KIND_ABOUT: "ABOUT",
    types_pb2.EDGE_KIND_DERIVED_FROM: "DERIVED_FROM",
    types_pb2.EDGE_KIND_RELATED: "RELATED",
}
EDGE_KIND_NUMBERS = {name: number for number, name in _EDGE_KINDS.items()}
_DIRECTIONS = {
    evidence_pb2.EDGE_DIRECTION_UNSPECIFIED: "BOTH",
    evidence_pb2.EDGE_DIRECTION_BOTH: "BOTH",
    evidence_pb2.EDGE_DIRECTION_OUTGOING: "OUTGOING",
    evidence_pb2.EDGE_DIRECTION_INCOMING: "INCOMING",
}
_RESOLUTIONS = {
    evidence_pb2.CONFLICT_RESOLUTION_KEEP_WINNER: "KEEP_WINNER",
    evidence_pb2.CONFLICT_RESOLUTION_SUPERSEDE: "SUPERSEDE",
    evidence_pb2.CONFLICT_RESOLUTION_MERGE: "MERGE",
    evidence_pb2.CONFLICT_RESOLUTION_KEEP_ALL: "KEEP_ALL",
    evidence_pb2.CONFLICT_RESOLUTION_DISMISS: "DISMISS",
    evidence_pb2.CONFLICT_RESOLUTION_OVERTAKEN: "OVERTAKEN",
}
_RESOLUTION_NUMBERS = {name: number for number, name in _RESOLUTIONS.items()}
_STATES = {
    evidence_pb2.CONFLICT_STATE_UNSPECIFIED: "",
    evidence_pb2.CONFLICT_STATE_OPEN: "OPEN",
    evidence_pb2.CONFLICT_STATE_RESOLVED: "RESOLVED",
}
_STATE_NUMBERS = {
    "OPEN": evidence_pb2.CONFLICT_STATE_OPEN,
    "RESOLVED": evidence_pb2.CONFLICT_STATE_RESOLVED,
}


def parse_resource(name: str, prefix: str, field: str) -> uuid.UUID:
    if not name:
        raise InvalidArgument.field(field, "required")
    head, _, raw = name.partition("/")
    if head != prefix or not raw:
        raise InvalidArgument.field(field, f"must look like {prefix}/{{id}}")
    try:
        return uuid.UUID(raw)
    except ValueError as exc:
        raise InvalidArgument.field(field, "id must be a UUID") from exc


def edge_kind(value: int, field: str, v: Violations) -> str:
    name = _EDGE_KINDS.get(value)  # type: ignore[call-overload]
    if name is None:
        v.add(field, f"unknown or unset edge kind {value}")
        return ""
    return str(name)


def edge_to_proto(e: evidence_store.Edge) -> types_pb2.Edge:
    out = types_pb2.Edge(
        name=e.name,
        source_memory=memory_name(e.source_id),
        target_memory=memory_name(e.target_id),
        kind=EDGE_KIND_NUMBERS[e.kind],
        weight=e.weight,
        reason=e.reason,
        creator=e.creator,
        attributes=e.attributes,
    )
    convert.set_time(out.create_time, e.create_time)
    return out


def conflict_to_proto(c: evidence_store.Conflict) -> evidence_pb2.Conflict:
    out = evidence_pb2.Conflict(
        name=c.name,
        space=c.space,
        memories=[memory_name(i) for i in c.memory_ids],
        detector=c.detector,
        reason=c.reason,
        state=_STATE_NUMBERS[c.state],
        resolution=_RESOLUTION_NUMBERS.get(c.resolution, 0),  # type: ignore[arg-type]
        winner=memory_name(c.winner) if c.winner else "",
        resolution_note=c.resolution_note,
        resolver=c.resolver,
        etag=c.etag,
    )
    convert.set_time(out.create_time, c.create_time)
    if c.resolve_time is not None:
        convert.set_time(out.resolve_time, c.resolve_time)
    return out


def _link(link: EvidenceLink) -> evidence_pb2.EvidenceLink:
    return evidence_pb2.EvidenceLink(
        memory=convert.memory_to_proto(link.memory),
        similarity=max(0.0, min(1.0, link.judgement.similarity)),
        explanation=link.judgement.explanation,
    )


def assessment_to_proto(a: Assessment) -> evidence_pb2.AssessMemoryResponse:
    out = evidence_pb2.AssessMemoryResponse(
        memory=convert.memory_to_proto(a.memory),
        suggested_level=types_pb2.EvidenceLevel.Value(f"EVIDENCE_LEVEL_{a.suggested.value}"),
        supporting=[_link(s) for s in a.supporting],
        contradicting=[_link(c) for c in a.contradicting],
        reasoning=a.reasoning,
        applied=a.applied,
        created_edges=[edge_to_proto(e) for e in a.created_edges],
        distinct_supporting_sources=a.distinct_sources,
    )
    if a.conflict is not None:
        out.conflict.CopyFrom(conflict_to_proto(a.conflict))
    return out


def _list_scope(v: Violations, page_size: int, memory: str, space: str) -> tuple[int, Any]:
    """The page size and the memory id of a listing around a memory or in a space,
    their violations recorded in `v`."""
    size = v.collect(paging.page_size, page_size) or 0
    memory_id = v.collect(parse_memory_name, memory, "memory") if memory else None
    if space:
        check_space(v, "space", space)
    return size, memory_id


_Row = TypeVar("_Row")
TimeIdPosition = tuple[datetime, uuid.UUID]


def _row_position(row: Any) -> TimeIdPosition:
    return row.create_time, row.id


class EvidenceServicer(evidence_pb2_grpc.EvidenceServiceServicer):
    """EvidenceService: evidence grades, the assessor, conflicts, edges and space profiles."""

    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx
        self._service: EvidenceService | None = None
        self._worker: AssessWorker | None = None

    async def start(self) -> None:
        """Starts the assess-on-write worker (where this process's role runs
        background work)."""
        if not runs_background(self.ctx.settings):
            return
        self._worker = AssessWorker(self.service)
        self._worker.start()

    async def stop(self) -> None:
        if self._worker is not None:
            await self._worker.stop()

    @property
    def service(self) -> EvidenceService:
        if self._service is None:
            assert self.ctx.lifecycle is not None, "the LifecycleService servicer is built first"
            self._service = EvidenceService(self.ctx.lifecycle)
            self.ctx.evidence = self._service
        if self.ctx.recall is not None:
            self._service.recall_service = self.ctx.recall.service  # type: ignore[attr-defined]
        self._service.llm = self.ctx.llm  # type: ignore[attr-defined]
        return self._service

    async def _time_id_page(
        self,
        page_token: str,
        size: int,
        filter_parts: tuple[Any, ...],
        read: Callable[[Conn, TimeIdPosition | None], Awaitable[Sequence[_Row]]],
    ) -> tuple[list[_Row], str]:
        """One page of a listing ordered by (create_time, id): `read` gets the
        position after which the page starts and reads `size + 1` rows, in the
        caller's tenant; the token is bound to the listing's filter."""
        fingerprint = paging.filter_fingerprint(*filter_parts)
        after = paging.time_id_position(page_token, fingerprint)
        async with self.ctx.db.tenant_tx(current_principal().tenant_id) as conn:
            rows = await read(conn, after)
        return paging.time_id_page(rows, size, fingerprint, _row_position)

    # --- grades ----------------------------------------------------------------------

    async def SetEvidenceLevel(
        self, request: evidence_pb2.SetEvidenceLevelRequest, context: Ctx
    ) -> types_pb2.Memory:
        v = Violations()
        memory_id = v.collect(parse_memory_name, request.name)
        level = convert.enum_name(
            types_pb2.EvidenceLevel, request.evidence_level, "EVIDENCE_LEVEL_", "evidence_level", v
        )
        if level == "UNSPECIFIED":
            v.add("evidence_level", "required: UNSPECIFIED cannot be set")
        v.raise_if_any()
        assert memory_id is not None and level is not None
        memory = await self.service.set_level(
            current_principal(),
            memory_id,
            EvidenceLevel(level),
            request.reason,
            request.etag,
            convert.request_key("SetEvidenceLevel", request),
        )
        return convert.memory_to_proto(memory)

    async def AssessMemory(
        self, request: evidence_pb2.AssessMemoryRequest, context: Ctx
    ) -> evidence_pb2.AssessMemoryResponse:
        memory_id = parse_memory_name(request.name)
        judge_pairs = None
        if request.use_llm:
            from engram_server.evidence.llm_judge import llm_judge

            judge_pairs = await llm_judge(self.ctx, current_principal().tenant_id)
        result = await self.service.assess(
            current_principal(),
            memory_id,
            list(request.spaces),
            request.min_corroboration,
            request.apply,
            convert.request_key("AssessMemory", request) if request.apply else None,
            judge_pairs=judge_pairs,
        )
        return assessment_to_proto(result)

    # --- conflicts -------------------------------------------------------------------

    async def GetConflict(
        self, request: evidence_pb2.GetConflictRequest, context: Ctx
    ) -> evidence_pb2.Conflict:
        conflict_id = parse_resource(request.name, "conflicts", "name")
        conflict = await self.service.get_conflict(current_principal().tenant_id, conflict_id)
        return conflict_to_proto(conflict)

    async def ListConflicts(
        self, request: evidence_pb2.ListConflictsRequest, context: Ctx
    ) -> evidence_pb2.ListConflictsResponse:
        v = Violations()
        size, memory_id = _list_scope(v, request.page_size, request.memory, request.space)
        state = _STATES.get(request.state)
        if state is None:
            v.add("state", f"unknown enum value {request.state}")
        v.raise_if_any()
        rows, token = await self._time_id_page(
            request.page_token,
            size,
            ("ListConflicts", request.space, state, request.memory),
            lambda conn, after: evidence_store.list_conflicts(
                conn,
                space=request.space,
                state=state or "",
                memory_id=memory_id,
                limit=size + 1,
                after=after,
            ),
        )
        return evidence_pb2.ListConflictsResponse(
            conflicts=[conflict_to_proto(c) for c in rows], next_page_token=token
        )

    async def ResolveConflict(
        self, request: evidence_pb2.ResolveConflictRequest, context: Ctx
    ) -> evidence_pb2.ResolveConflictResponse:
        v = Violations()
        conflict_id = v.collect(parse_resource, request.name, "conflicts", "name")
        resolution = _RESOLUTIONS.get(request.resolution)
        if resolution is None or resolution == "OVERTAKEN":
            v.add("resolution", "required: KEEP_WINNER, SUPERSEDE, MERGE, KEEP_ALL or DISMISS")
        winner = v.collect(parse_memory_name, request.winner, "winner") if request.winner else None
        merged = None
        if request.HasField("merged"):
            merged = convert.proposal_from_proto(request.merged, "merged", v)
        v.raise_if_any()
        assert conflict_id is not None and resolution is not None
        done = await self.service.resolve_conflict(
            current_principal(),
            conflict_id,
            resolution,
            winner,
            merged,
            request.note,
            request.etag,
            convert.request_key("ResolveConflict", request),
        )
        out = evidence_pb2.ResolveConflictResponse(
            conflict=conflict_to_proto(done.conflict),
            changed_memories=[convert.memory_to_proto(m) for m in done.changed],
        )
        if done.merged is not None:
            out.merged_result.CopyFrom(convert.result_to_proto(done.merged))
        return out

    # --- edges -----------------------------------------------------------------------

    async def CreateEdge(
        self, request: evidence_pb2.CreateEdgeRequest, context: Ctx
    ) -> types_pb2.Edge:
        v = Violations()
        e = request.edge
        source = v.collect(parse_memory_name, e.source_memory, "edge.source_memory")
        target = v.collect(parse_memory_name, e.target_memory, "edge.target_memory")
        kind = edge_kind(e.kind, "edge.kind", v)
        v.raise_if_any()
        assert source is not None and target is not None
        edge = await self.service.create_edge(
            current_principal(),
            source,
            target,
            kind,
            e.weight,
            e.reason,
            dict(e.attributes),
            convert.request_key("CreateEdge", request),
        )
        return edge_to_proto(edge)

    async def GetEdge(self, request: evidence_pb2.GetEdgeRequest, context: Ctx) -> types_pb2.Edge:
        edge_id = parse_resource(request.name, "edges", "name")
        return edge_to_proto(await self.service.get_edge(current_principal().tenant_id, edge_id))

    async def ListEdges(
        self, request: evidence_pb2.ListEdgesRequest, context: Ctx
    ) -> evidence_pb2.ListEdgesResponse:
        v = Violations()
        if not request.memory and not request.space:
            v.add("memory", "required: give memory or space")
        size, memory_id = _list_scope(v, request.page_size, request.memory, request.space)
        direction = _DIRECTIONS.get(request.direction)
        if direction is None:
            v.add("direction", f"unknown enum value {request.direction}")
        kinds = [edge_kind(k, f"kinds[{i}]", v) for i, k in enumerate(request.kinds)]
        v.raise_if_any()
        rows, token = await self._time_id_page(
            request.page_token,
            size,
            ("ListEdges", request.memory, direction, request.space, sorted(kinds)),
            lambda conn, after: evidence_store.list_edges(
                conn,
                memory_id=memory_id,
                direction=direction or "BOTH",
                space=request.space,
                kinds=kinds,
                limit=size + 1,
                after=after,
            ),
        )
        return evidence_pb2.ListEdgesResponse(
            edges=[edge_to_proto(e) for e in rows], next_page_token=token
        )

    async def DeleteEdge(
        self, request: evidence_pb2.DeleteEdgeRequest, context: Ctx
    ) -> empty_pb2.Empty:
        edge_id = parse_resource(request.name, "edges", "name")
        await self.service.delete_edge(
            current_principal(), edge_id, convert.request_key("DeleteEdge", request)
        )
        return empty_pb2.Empty()

    # --- space profiles ----------------------------------------------------------------

    async def GetSpaceProfile(
        self, request: evidence_pb2.GetSpaceProfileRequest, context: Ctx
    ) -> evidence_pb2.SpaceProfile:
        return await get_space_profile(self.ctx, self.service, request)

    async def ListSpaceProfiles(
        self, request: evidence_pb2.ListSpaceProfilesRequest, context: Ctx
    ) -> evidence_pb2.ListSpaceProfilesResponse:
        return await list_space_profiles(self.ctx, request)
