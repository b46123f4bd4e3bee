"""EvidenceService in the SDK: `client.evidence` (sync) and `async_client.evidence`.

Grades come back as `engram.types.Memory`; edges, conflicts, assessments and space
profiles as the generated messages of `engram.v1` (`types_pb2.Edge`,
`evidence_pb2.Conflict`, `evidence_pb2.AssessMemoryResponse`,
`evidence_pb2.SpaceProfile`), whose fields the API reference documents.

    client.evidence.set_level("memories/…", "official", reason="press release")
    report = client.evidence.assess("memories/…")            # report only (read scope)
    client.evidence.assess("memories/…", apply=True)         # grade, edges, conflicts
    edge = client.evidence.create_edge(a, b, "supports", reason="same figure")
    for conflict in client.evidence.conflicts(state="open"):
        client.evidence.resolve(conflict.name, "keep_winner", winner=a, note="docs")
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from google.protobuf.timestamp_pb2 import Timestamp

from engram import _convert as c
from engram import _requests
from engram import types as t
from engram.v1 import evidence_pb2, evidence_pb2_grpc, types_pb2

if TYPE_CHECKING:
    from engram.aio import _AsyncTransport
    from engram.client import _Transport

_EDGE_KINDS = {
    "supports": types_pb2.EDGE_KIND_SUPPORTS,
    "contradicts": types_pb2.EDGE_KIND_CONTRADICTS,
    "supersedes": types_pb2.EDGE_KIND_SUPERSEDES,
    "about": types_pb2.EDGE_KIND_ABOUT,
    "derived_from": types_pb2.EDGE_KIND_DERIVED_FROM,
    "related": types_pb2.EDGE_KIND_RELATED,
}
_RESOLUTIONS = {
    "keep_winner": evidence_pb2.CONFLICT_RESOLUTION_KEEP_WINNER,
    "supersede": evidence_pb2.CONFLICT_RESOLUTION_SUPERSEDE,
    "merge": evidence_pb2.CONFLICT_RESOLUTION_MERGE,
    "keep_all": evidence_pb2.CONFLICT_RESOLUTION_KEEP_ALL,
    "dismiss": evidence_pb2.CONFLICT_RESOLUTION_DISMISS,
}
_STATES = {
    "": evidence_pb2.CONFLICT_STATE_UNSPECIFIED,
    "open": evidence_pb2.CONFLICT_STATE_OPEN,
    "resolved": evidence_pb2.CONFLICT_STATE_RESOLVED,
}
_DIRECTIONS = {
    "both": evidence_pb2.EDGE_DIRECTION_BOTH,
    "outgoing": evidence_pb2.EDGE_DIRECTION_OUTGOING,
    "incoming": evidence_pb2.EDGE_DIRECTION_INCOMING,
}


def _pick(table: Mapping[str, Any], value: str | int, what: str) -> Any:
    if isinstance(value, int):
        return value
    key = value.lower().removeprefix(f"{what}_")
    if key not in table:
        raise ValueError(f"unknown {what} {value!r}; one of {', '.join(sorted(table))}")
    return table[key]


def edge_kind(value: str | int) -> Any:
    """`"supports"` (or the enum number) as an `engram.v1.EdgeKind`."""
    return _pick(_EDGE_KINDS, value, "edge_kind")


def set_level_request(
    name: str, level: t.EvidenceLevel | str, reason: str, etag: str, request_id: str | None
) -> evidence_pb2.SetEvidenceLevelRequest:
    return evidence_pb2.SetEvidenceLevelRequest(
        name=c.memory_name(name),
        evidence_level=c.enum_in(t.EvidenceLevel, level, "evidence level"),  # type: ignore[arg-type]
        reason=reason,
        etag=etag,
        request_id=_requests.request_id(request_id),
    )


def assess_request(
    name: str,
    spaces: Sequence[str],
    min_corroboration: int,
    use_llm: bool,
    apply: bool,
    request_id: str | None,
) -> evidence_pb2.AssessMemoryRequest:
    return evidence_pb2.AssessMemoryRequest(
        name=c.memory_name(name),
        spaces=list(spaces),
        min_corroboration=min_corroboration,
        use_llm=use_llm,
        apply=apply,
        request_id=_requests.request_id(request_id) if apply else "",
    )


def edge_request(
    source: str,
    target: str,
    kind: str | int,
    weight: float,
    reason: str,
    attributes: Mapping[str, str] | None,
    request_id: str | None,
) -> evidence_pb2.CreateEdgeRequest:
    return evidence_pb2.CreateEdgeRequest(
        edge=types_pb2.Edge(
            source_memory=c.memory_name(source),
            target_memory=c.memory_name(target),
            kind=edge_kind(kind),
            weight=weight,
            reason=reason,
            attributes=dict(attributes or {}),
        ),
        request_id=_requests.request_id(request_id),
    )


def list_edges_request(
    memory: str, space: str, kinds: Sequence[str | int], direction: str, page_size: int
) -> evidence_pb2.ListEdgesRequest:
    return evidence_pb2.ListEdgesRequest(
        memory=c.memory_name(memory) if memory else "",
        space=space,
        kinds=[edge_kind(k) for k in kinds],
        direction=_pick(_DIRECTIONS, direction, "direction"),
        page_size=page_size,
    )


def list_conflicts_request(
    space: str, state: str, memory: str, page_size: int
) -> evidence_pb2.ListConflictsRequest:
    return evidence_pb2.ListConflictsRequest(
        space=space,
        state=_pick(_STATES, state, "state"),
        memory=c.memory_name(memory) if memory else "",
        page_size=page_size,
    )


def resolve_request(
    name: str,
    resolution: str | int,
    winner: str,
    merged: t.MemoryProposal | Mapping[str, Any] | None,
    note: str,
    etag: str,
    request_id: str | None,
) -> evidence_pb2.ResolveConflictRequest:
    request = evidence_pb2.ResolveConflictRequest(
        name=name if name.startswith("conflicts/") else f"conflicts/{name}",
        resolution=_pick(_RESOLUTIONS, resolution, "resolution"),
        winner=c.memory_name(winner) if winner else "",
        note=note,
        etag=etag,
        request_id=_requests.request_id(request_id),
    )
    if merged is not None:
        request.merged.CopyFrom(c.proposal_in(_requests.proposal(merged)))
    return request


def profile_request(
    space: str, include_subspaces: bool, window_days: int, now: datetime | None, dry_run: bool
) -> evidence_pb2.GetSpaceProfileRequest:
    request = evidence_pb2.GetSpaceProfileRequest(
        name=f"spaces/{space}/profile",
        include_subspaces=include_subspaces,
        window_days=window_days,
        dry_run=dry_run,
    )
    if now is not None:
        stamp = Timestamp()
        stamp.FromDatetime(now)
        request.now.CopyFrom(stamp)
    return request


class EvidenceClient:
    """Grades, the corroboration assessor, conflicts, edges and space profiles."""

    def __init__(self, stub: evidence_pb2_grpc.EvidenceServiceStub, transport: _Transport):
        self._stub = stub
        self._transport = transport

    def set_level(
        self,
        name: str,
        level: t.EvidenceLevel | str,
        *,
        reason: str = "",
        etag: str = "",
        request_id: str | None = None,
    ) -> t.Memory:
        """Sets a memory's grade. OFFICIAL, and changing an OFFICIAL grade, need the
        operator scope; lowering a grade needs a reason."""
        request = set_level_request(name, level, reason, etag, request_id)
        return c.memory_out(
            self._transport.unary(self._stub.SetEvidenceLevel, request, retryable=True)
        )

    def assess(
        self,
        name: str,
        *,
        spaces: Sequence[str] = (),
        min_corroboration: int = 0,
        use_llm: bool = False,
        apply: bool = False,
        request_id: str | None = None,
    ) -> evidence_pb2.AssessMemoryResponse:
        """Runs the corroboration assessor; `apply=True` writes its grade, SUPPORTS
        edges and conflicts (write scope)."""
        request = assess_request(name, spaces, min_corroboration, use_llm, apply, request_id)
        return self._transport.unary(self._stub.AssessMemory, request, retryable=True)

    def get_conflict(self, name: str) -> evidence_pb2.Conflict:
        request = evidence_pb2.GetConflictRequest(
            name=name if name.startswith("conflicts/") else f"conflicts/{name}"
        )
        return self._transport.unary(self._stub.GetConflict, request, retryable=True)

    def conflicts(
        self, *, space: str = "", state: str = "", memory: str = "", page_size: int = 0
    ) -> Iterator[evidence_pb2.Conflict]:
        """Conflicts, newest first, every page."""
        request = list_conflicts_request(space, state, memory, page_size)
        return self._transport.pages(self._stub.ListConflicts, request, lambda r: r.conflicts)

    def resolve(
        self,
        name: str,
        resolution: str | int,
        *,
        winner: str = "",
        merged: t.MemoryProposal | Mapping[str, Any] | None = None,
        note: str = "",
        etag: str = "",
        request_id: str | None = None,
    ) -> evidence_pb2.ResolveConflictResponse:
        """Resolves an open conflict: "keep_winner", "supersede", "merge", "keep_all"
        or "dismiss"."""
        request = resolve_request(name, resolution, winner, merged, note, etag, request_id)
        return self._transport.unary(self._stub.ResolveConflict, request, retryable=True)

    def create_edge(
        self,
        source: str,
        target: str,
        kind: str | int,
        *,
        weight: float = 0.0,
        reason: str = "",
        attributes: Mapping[str, str] | None = None,
        request_id: str | None = None,
    ) -> types_pb2.Edge:
        request = edge_request(source, target, kind, weight, reason, attributes, request_id)
        return self._transport.unary(self._stub.CreateEdge, request, retryable=True)

    def get_edge(self, name: str) -> types_pb2.Edge:
        request = evidence_pb2.GetEdgeRequest(name=name)
        return self._transport.unary(self._stub.GetEdge, request, retryable=True)

    def edges(
        self,
        *,
        memory: str = "",
        space: str = "",
        kinds: Sequence[str | int] = (),
        direction: str = "both",
        page_size: int = 0,
    ) -> Iterator[types_pb2.Edge]:
        """Edges around a memory or in a space, newest first, every page."""
        request = list_edges_request(memory, space, kinds, direction, page_size)
        return self._transport.pages(self._stub.ListEdges, request, lambda r: r.edges)

    def delete_edge(self, name: str, *, request_id: str | None = None) -> None:
        request = evidence_pb2.DeleteEdgeRequest(
            name=name, request_id=_requests.request_id(request_id)
        )
        self._transport.unary(self._stub.DeleteEdge, request, retryable=True)

    def profile(
        self,
        space: str,
        *,
        include_subspaces: bool = False,
        window_days: int = 0,
        now: datetime | None = None,
        dry_run: bool = False,
    ) -> evidence_pb2.SpaceProfile:
        request = profile_request(space, include_subspaces, window_days, now, dry_run)
        return self._transport.unary(self._stub.GetSpaceProfile, request, retryable=True)

    def profiles(
        self, *, space: str = "", drift_only: bool = False, page_size: int = 0
    ) -> Iterator[evidence_pb2.SpaceProfile]:
        request = evidence_pb2.ListSpaceProfilesRequest(
            space=space, drift_only=drift_only, page_size=page_size
        )
        return self._transport.pages(self._stub.ListSpaceProfiles, request, lambda r: r.profiles)


class AsyncEvidenceClient:
    """`EvidenceClient` for asyncio (`AsyncClient.evidence`)."""

    def __init__(
        self, stub: evidence_pb2_grpc.EvidenceServiceStub, transport: _AsyncTransport
    ) -> None:
        self._stub = stub
        self._transport = transport

    async def set_level(
        self,
        name: str,
        level: t.EvidenceLevel | str,
        *,
        reason: str = "",
        etag: str = "",
        request_id: str | None = None,
    ) -> t.Memory:
        request = set_level_request(name, level, reason, etag, request_id)
        return c.memory_out(
            await self._transport.unary(self._stub.SetEvidenceLevel, request, retryable=True)  # type: ignore[arg-type]
        )

    async def assess(
        self,
        name: str,
        *,
        spaces: Sequence[str] = (),
        min_corroboration: int = 0,
        use_llm: bool = False,
        apply: bool = False,
        request_id: str | None = None,
    ) -> evidence_pb2.AssessMemoryResponse:
        request = assess_request(name, spaces, min_corroboration, use_llm, apply, request_id)
        return await self._transport.unary(self._stub.AssessMemory, request, retryable=True)  # type: ignore[arg-type]

    async def get_conflict(self, name: str) -> evidence_pb2.Conflict:
        request = evidence_pb2.GetConflictRequest(
            name=name if name.startswith("conflicts/") else f"conflicts/{name}"
        )
        return await self._transport.unary(self._stub.GetConflict, request, retryable=True)  # type: ignore[arg-type]

    def conflicts(
        self, *, space: str = "", state: str = "", memory: str = "", page_size: int = 0
    ) -> AsyncIterator[evidence_pb2.Conflict]:
        request = list_conflicts_request(space, state, memory, page_size)
        return self._transport.pages(self._stub.ListConflicts, request, lambda r: r.conflicts)  # type: ignore[arg-type]

    async def resolve(
        self,
        name: str,
        resolution: str | int,
        *,
        winner: str = "",
        merged: t.MemoryProposal | Mapping[str, Any] | None = None,
        note: str = "",
        etag: str = "",
        request_id: str | None = None,
    ) -> evidence_pb2.ResolveConflictResponse:
        request = resolve_request(name, resolution, winner, merged, note, etag, request_id)
        return await self._transport.unary(self._stub.ResolveConflict, request, retryable=True)  # type: ignore[arg-type]

    async def create_edge(
        self,
        source: str,
        target: str,
        kind: str | int,
        *,
        weight: float = 0.0,
        reason: str = "",
        attributes: Mapping[str, str] | None = None,
        request_id: str | None = None,
    ) -> types_pb2.Edge:
        request = edge_request(source, target, kind, weight, reason, attributes, request_id)
        return await self._transport.unary(self._stub.CreateEdge, request, retryable=True)  # type: ignore[arg-type]

    async def get_edge(self, name: str) -> types_pb2.Edge:
        request = evidence_pb2.GetEdgeRequest(name=name)
        return await self._transport.unary(self._stub.GetEdge, request, retryable=True)  # type: ignore[arg-type]

    def edges(
        self,
        *,
        memory: str = "",
        space: str = "",
        kinds: Sequence[str | int] = (),
        direction: str = "both",
        page_size: int = 0,
    ) -> AsyncIterator[types_pb2.Edge]:
        request = list_edges_request(memory, space, kinds, direction, page_size)
        return self._transport.pages(self._stub.ListEdges, request, lambda r: r.edges)  # type: ignore[arg-type]

    async def delete_edge(self, name: str, *, request_id: str | None = None) -> None:
        request = evidence_pb2.DeleteEdgeRequest(
            name=name, request_id=_requests.request_id(request_id)
        )
        await self._transport.unary(self._stub.DeleteEdge, request, retryable=True)  # type: ignore[arg-type]

    async def profile(
        self,
        space: str,
        *,
        include_subspaces: bool = False,
        window_days: int = 0,
        now: datetime | None = None,
        dry_run: bool = False,
    ) -> evidence_pb2.SpaceProfile:
        request = profile_request(space, include_subspaces, window_days, now, dry_run)
        return await self._transport.unary(self._stub.GetSpaceProfile, request, retryable=True)  # type: ignore[arg-type]

    def profiles(
        self, *, space: str = "", drift_only: bool = False, page_size: int = 0
    ) -> AsyncIterator[evidence_pb2.SpaceProfile]:
        request = evidence_pb2.ListSpaceProfilesRequest(
            space=space, drift_only=drift_only, page_size=page_size
        )
        return self._transport.pages(self._stub.ListSpaceProfiles, request, lambda r: r.profiles)  # type: ignore[arg-type]


__all__ = ["AsyncEvidenceClient", "EvidenceClient", "edge_kind"]
