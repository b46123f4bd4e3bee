"""EvidenceService in the SDK: `client.evidence` (sync) and `async_client.evidence`.

Grades come back as `engram.Memory`; edges, conflicts, assessments, resolutions and
space profiles as the frozen dataclasses of `engram.evidence_types` (exported from
`engram`): `Edge`, `Conflict`, `AssessResult`, `ResolveResult`, `SpaceProfile`, with
`EdgeKind`, `ConflictState`, `ConflictResolution` and `SpaceClass` as StrEnums. Kinds,
states, resolutions and directions are taken as those members, names or numbers.

    client.evidence.set_level("memories/…", "official", reason="press release")
    report = client.evidence.assess("memories/…")            # report only (read scope)
    client.evidence.assess("memories/…", apply=True)         # grade, edges, conflicts
    edge = client.evidence.create_edge(a, b, "supports", reason="same figure")
    for conflict in client.evidence.conflicts(state="open"):
        client.evidence.resolve(conflict.name, "keep_winner", winner=a, note="docs")
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from engram import _convert as c
from engram import _evidence_convert as ec
from engram import _requests, errors
from engram import evidence_types as et
from engram import types as t
from engram._base import AsyncClientBase, ClientBase, rpc
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


def _pick(table: Mapping[str, Any], value: Any, what: str, field: str | None = None) -> Any:
    field = field or what
    if isinstance(value, int) and not isinstance(value, bool):
        if value in table.values():
            return value
        raise errors.invalid_argument(field, f"unknown {what} {value}")
    if not isinstance(value, str):
        raise errors.invalid_argument(
            field, f"expected one of {', '.join(sorted(table))}, got {type(value).__name__}"
        )
    key = value.lower().removeprefix(f"{what}_")
    if key not in table:
        raise errors.invalid_argument(
            field, f"unknown {what} {value!r}; one of {', '.join(sorted(table))}"
        )
    return table[key]


def edge_kind(value: Any, field: str = "edge.kind") -> Any:
    """`"supports"` (or the enum number) as an `engram.v1.EdgeKind`."""
    return _pick(_EDGE_KINDS, value, "edge_kind", field)


def _strings(values: Any, field: str) -> list[Any]:
    if isinstance(values, str | bytes) or not isinstance(values, Iterable):
        raise errors.invalid_argument(field, f"expected a list, got {type(values).__name__}")
    return list(values)


def _conflict_name(name: Any, field: str = "name") -> str:
    text = c.text_in(name, field)
    return text if text.startswith("conflicts/") else f"conflicts/{text}"


def set_level_request(
    name: Any, level: Any, reason: Any, etag: Any, request_id: Any
) -> evidence_pb2.SetEvidenceLevelRequest:
    return c.fill(
        evidence_pb2.SetEvidenceLevelRequest(),
        name=c.memory_name(name),
        evidence_level=c.enum_in(t.EvidenceLevel, level, "evidence_level"),
        reason=reason,
        etag=etag,
        request_id=_requests.request_id(request_id),
    )


def assess_request(
    name: Any,
    spaces: Any,
    min_corroboration: Any,
    use_llm: Any,
    apply: Any,
    request_id: Any,
) -> evidence_pb2.AssessMemoryRequest:
    rid = _requests.request_id(request_id)
    return c.fill(
        evidence_pb2.AssessMemoryRequest(),
        name=c.memory_name(name),
        spaces=_strings(spaces, "spaces"),
        min_corroboration=min_corroboration,
        use_llm=use_llm,
        apply=c.flag(apply, "apply"),
        request_id=rid if apply else "",
    )


def get_conflict_request(name: Any) -> evidence_pb2.GetConflictRequest:
    return evidence_pb2.GetConflictRequest(name=_conflict_name(name))


def edge_request(
    source: Any,
    target: Any,
    kind: Any,
    weight: Any,
    reason: Any,
    attributes: Any,
    request_id: Any,
) -> evidence_pb2.CreateEdgeRequest:
    edge = c.fill(
        types_pb2.Edge(),
        "edge.",
        source_memory=c.memory_name(source, "edge.source_memory"),
        target_memory=c.memory_name(target, "edge.target_memory"),
        kind=edge_kind(kind),
        weight=weight,
        reason=reason,
        attributes=attributes,
    )
    return c.fill(
        evidence_pb2.CreateEdgeRequest(), edge=edge, request_id=_requests.request_id(request_id)
    )


def get_edge_request(name: Any) -> evidence_pb2.GetEdgeRequest:
    return evidence_pb2.GetEdgeRequest(name=c.text_in(name, "name"))


def delete_edge_request(name: Any, request_id: Any) -> evidence_pb2.DeleteEdgeRequest:
    return evidence_pb2.DeleteEdgeRequest(
        name=c.text_in(name, "name"), request_id=_requests.request_id(request_id)
    )


def list_edges_request(
    memory: Any, space: Any, kinds: Any, direction: Any, page_size: Any
) -> evidence_pb2.ListEdgesRequest:
    return c.fill(
        evidence_pb2.ListEdgesRequest(),
        memory=c.memory_name(memory, "memory") if memory != "" else "",
        space=space,
        kinds=[edge_kind(k, f"kinds[{i}]") for i, k in enumerate(_strings(kinds, "kinds"))],
        direction=_pick(_DIRECTIONS, direction, "direction"),
        page_size=page_size,
    )


def list_conflicts_request(
    space: Any, state: Any, memory: Any, page_size: Any
) -> evidence_pb2.ListConflictsRequest:
    return c.fill(
        evidence_pb2.ListConflictsRequest(),
        space=space,
        state=_pick(_STATES, state, "state"),
        memory=c.memory_name(memory, "memory") if memory != "" else "",
        page_size=page_size,
    )


def resolve_request(
    name: Any,
    resolution: Any,
    winner: Any,
    merged: Any,
    note: Any,
    etag: Any,
    request_id: Any,
) -> evidence_pb2.ResolveConflictRequest:
    request = c.fill(
        evidence_pb2.ResolveConflictRequest(),
        name=_conflict_name(name),
        resolution=_pick(_RESOLUTIONS, resolution, "resolution"),
        winner=c.memory_name(winner, "winner") if winner != "" else "",
        note=note,
        etag=etag,
        request_id=_requests.request_id(request_id),
    )
    if merged is not None:
        if not isinstance(merged, t.MemoryProposal | Mapping):
            raise errors.invalid_argument(
                "merged", f"expected a MemoryProposal or a mapping, got {type(merged).__name__}"
            )
        request.merged.CopyFrom(c.proposal_in(_requests.proposal(merged)))
    return request


def profile_request(
    space: Any, include_subspaces: Any, window_days: Any, now: Any, dry_run: Any
) -> evidence_pb2.GetSpaceProfileRequest:
    return c.fill(
        evidence_pb2.GetSpaceProfileRequest(),
        name=f"spaces/{c.text_in(space, 'space')}/profile",
        include_subspaces=include_subspaces,
        window_days=window_days,
        dry_run=dry_run,
        now=now,
    )


def list_profiles_request(
    space: Any, drift_only: Any, page_size: Any
) -> evidence_pb2.ListSpaceProfilesRequest:
    return c.fill(
        evidence_pb2.ListSpaceProfilesRequest(),
        space=space,
        drift_only=drift_only,
        page_size=page_size,
    )


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
    ) -> et.AssessResult:
        """Runs the corroboration assessor; `apply=True` writes its grade, SUPPORTS
        edges and conflicts (write scope)."""
        request = assess_request(name, spaces, min_corroboration, use_llm, apply, request_id)
        return ec.assess_out(
            self._transport.unary(self._stub.AssessMemory, request, retryable=True)
        )

    def get_conflict(self, name: str) -> et.Conflict:
        request = get_conflict_request(name)
        return ec.conflict_out(
            self._transport.unary(self._stub.GetConflict, request, retryable=True)
        )

    def conflicts(
        self,
        *,
        space: str = "",
        state: et.ConflictState | str = "",
        memory: str = "",
        page_size: int = 0,
    ) -> Iterator[et.Conflict]:
        """Conflicts, newest first, every page."""
        request = list_conflicts_request(space, state, memory, page_size)
        return self._transport.pages(
            self._stub.ListConflicts, request, lambda r: map(ec.conflict_out, r.conflicts)
        )

    def resolve(
        self,
        name: str,
        resolution: et.ConflictResolution | str | int,
        *,
        winner: str = "",
        merged: t.MemoryProposal | Mapping[str, Any] | None = None,
        note: str = "",
        etag: str = "",
        request_id: str | None = None,
    ) -> et.ResolveResult:
        """Resolves an open conflict: "keep_winner", "supersede", "merge", "keep_all"
        or "dismiss"."""
        request = resolve_request(name, resolution, winner, merged, note, etag, request_id)
        return ec.resolve_out(
            self._transport.unary(self._stub.ResolveConflict, request, retryable=True)
        )

    def create_edge(
        self,
        source: str,
        target: str,
        kind: et.EdgeKind | str | int,
        *,
        weight: float = 0.0,
        reason: str = "",
        attributes: Mapping[str, str] | None = None,
        request_id: str | None = None,
    ) -> et.Edge:
        request = edge_request(source, target, kind, weight, reason, attributes, request_id)
        return ec.edge_out(self._transport.unary(self._stub.CreateEdge, request, retryable=True))

    def get_edge(self, name: str) -> et.Edge:
        request = get_edge_request(name)
        return ec.edge_out(self._transport.unary(self._stub.GetEdge, request, retryable=True))

    def edges(
        self,
        *,
        memory: str = "",
        space: str = "",
        kinds: Sequence[et.EdgeKind | str | int] = (),
        direction: et.EdgeDirection | str = "both",
        page_size: int = 0,
    ) -> Iterator[et.Edge]:
        """Edges around a memory or in a space, newest first, every page."""
        request = list_edges_request(memory, space, kinds, direction, page_size)
        return self._transport.pages(
            self._stub.ListEdges, request, lambda r: map(ec.edge_out, r.edges)
        )

    def delete_edge(self, name: str, *, request_id: str | None = None) -> None:
        request = delete_edge_request(name, request_id)
        self._transport.unary(self._stub.DeleteEdge, request, retryable=True)

    def profile(
        self,
        space: str,
        *,
        include_subspaces: bool = False,
        window_days: int = 0,
        now: datetime | None = None,
        dry_run: bool = False,
    ) -> et.SpaceProfile:
        request = profile_request(space, include_subspaces, window_days, now, dry_run)
        return ec.profile_out(
            self._transport.unary(self._stub.GetSpaceProfile, request, retryable=True)
        )

    def profiles(
        self, *, space: str = "", drift_only: bool = False, page_size: int = 0
    ) -> Iterator[et.SpaceProfile]:
        request = list_profiles_request(space, drift_only, page_size)
        return self._transport.pages(
            self._stub.ListSpaceProfiles, request, lambda r: map(ec.profile_out, r.profiles)
        )


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
    ) -> et.AssessResult:
        request = assess_request(name, spaces, min_corroboration, use_llm, apply, request_id)
        return ec.assess_out(
            await self._transport.unary(self._stub.AssessMemory, request, retryable=True)  # type: ignore[arg-type]
        )

    async def get_conflict(self, name: str) -> et.Conflict:
        request = get_conflict_request(name)
        return ec.conflict_out(
            await self._transport.unary(self._stub.GetConflict, request, retryable=True)  # type: ignore[arg-type]
        )

    def conflicts(
        self,
        *,
        space: str = "",
        state: et.ConflictState | str = "",
        memory: str = "",
        page_size: int = 0,
    ) -> AsyncIterator[et.Conflict]:
        request = list_conflicts_request(space, state, memory, page_size)
        return self._transport.pages(
            self._stub.ListConflicts,  # type: ignore[arg-type]
            request,
            lambda r: map(ec.conflict_out, r.conflicts),
        )

    async def resolve(
        self,
        name: str,
        resolution: et.ConflictResolution | str | int,
        *,
        winner: str = "",
        merged: t.MemoryProposal | Mapping[str, Any] | None = None,
        note: str = "",
        etag: str = "",
        request_id: str | None = None,
    ) -> et.ResolveResult:
        request = resolve_request(name, resolution, winner, merged, note, etag, request_id)
        return ec.resolve_out(
            await self._transport.unary(self._stub.ResolveConflict, request, retryable=True)  # type: ignore[arg-type]
        )

    async def create_edge(
        self,
        source: str,
        target: str,
        kind: et.EdgeKind | str | int,
        *,
        weight: float = 0.0,
        reason: str = "",
        attributes: Mapping[str, str] | None = None,
        request_id: str | None = None,
    ) -> et.Edge:
        request = edge_request(source, target, kind, weight, reason, attributes, request_id)
        return ec.edge_out(
            await self._transport.unary(self._stub.CreateEdge, request, retryable=True)  # type: ignore[arg-type]
        )

    async def get_edge(self, name: str) -> et.Edge:
        request = get_edge_request(name)
        return ec.edge_out(
            await self._transport.unary(self._stub.GetEdge, request, retryable=True)  # type: ignore[arg-type]
        )

    def edges(
        self,
        *,
        memory: str = "",
        space: str = "",
        kinds: Sequence[et.EdgeKind | str | int] = (),
        direction: et.EdgeDirection | str = "both",
        page_size: int = 0,
    ) -> AsyncIterator[et.Edge]:
        request = list_edges_request(memory, space, kinds, direction, page_size)
        return self._transport.pages(
            self._stub.ListEdges,  # type: ignore[arg-type]
            request,
            lambda r: map(ec.edge_out, r.edges),
        )

    async def delete_edge(self, name: str, *, request_id: str | None = None) -> None:
        request = delete_edge_request(name, request_id)
        await self._transport.unary(self._stub.DeleteEdge, request, retryable=True)  # type: ignore[arg-type]

    async def profile(
        self,
        space: str,
        *,
        include_subspaces: bool = False,
        window_days: int = 0,
        now: datetime | None = None,
        dry_run: bool = False,
    ) -> et.SpaceProfile:
        request = profile_request(space, include_subspaces, window_days, now, dry_run)
        return ec.profile_out(
            await self._transport.unary(self._stub.GetSpaceProfile, request, retryable=True)  # type: ignore[arg-type]
        )

    def profiles(
        self, *, space: str = "", drift_only: bool = False, page_size: int = 0
    ) -> AsyncIterator[et.SpaceProfile]:
        request = list_profiles_request(space, drift_only, page_size)
        return self._transport.pages(
            self._stub.ListSpaceProfiles,  # type: ignore[arg-type]
            request,
            lambda r: map(ec.profile_out, r.profiles),
        )


class EvidenceMixin(ClientBase):
    """EvidenceService as methods of `engram.Client` (`client.evidence` has the same
    calls under shorter names)."""

    @property
    def _evidence_stub(self) -> evidence_pb2_grpc.EvidenceServiceStub:
        return self._stub_of(evidence_pb2_grpc.EvidenceServiceStub)

    @rpc("engram.v1.EvidenceService.SetEvidenceLevel")
    def set_evidence_level(
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
            self._unary(self._evidence_stub.SetEvidenceLevel, request, retryable=True)
        )

    @rpc("engram.v1.EvidenceService.AssessMemory")
    def assess_memory(
        self,
        name: str,
        *,
        spaces: Sequence[str] = (),
        min_corroboration: int = 0,
        use_llm: bool = False,
        apply: bool = False,
        request_id: str | None = None,
    ) -> et.AssessResult:
        request = assess_request(name, spaces, min_corroboration, use_llm, apply, request_id)
        return ec.assess_out(self._unary(self._evidence_stub.AssessMemory, request, retryable=True))

    @rpc("engram.v1.EvidenceService.GetConflict")
    def get_conflict(self, name: str) -> et.Conflict:
        request = get_conflict_request(name)
        return ec.conflict_out(
            self._unary(self._evidence_stub.GetConflict, request, retryable=True)
        )

    @rpc("engram.v1.EvidenceService.ListConflicts")
    def list_conflicts(
        self,
        *,
        space: str = "",
        state: et.ConflictState | str = "",
        memory: str = "",
        page_size: int = 0,
    ) -> Iterator[et.Conflict]:
        request = list_conflicts_request(space, state, memory, page_size)
        return self._pages(
            self._evidence_stub.ListConflicts, request, lambda r: map(ec.conflict_out, r.conflicts)
        )

    @rpc("engram.v1.EvidenceService.ResolveConflict")
    def resolve_conflict(
        self,
        name: str,
        resolution: et.ConflictResolution | str | int,
        *,
        winner: str = "",
        merged: t.MemoryProposal | Mapping[str, Any] | None = None,
        note: str = "",
        etag: str = "",
        request_id: str | None = None,
    ) -> et.ResolveResult:
        request = resolve_request(name, resolution, winner, merged, note, etag, request_id)
        return ec.resolve_out(
            self._unary(self._evidence_stub.ResolveConflict, request, retryable=True)
        )

    @rpc("engram.v1.EvidenceService.CreateEdge")
    def create_edge(
        self,
        source: str,
        target: str,
        kind: et.EdgeKind | str | int,
        *,
        weight: float = 0.0,
        reason: str = "",
        attributes: Mapping[str, str] | None = None,
        request_id: str | None = None,
    ) -> et.Edge:
        request = edge_request(source, target, kind, weight, reason, attributes, request_id)
        return ec.edge_out(self._unary(self._evidence_stub.CreateEdge, request, retryable=True))

    @rpc("engram.v1.EvidenceService.GetEdge")
    def get_edge(self, name: str) -> et.Edge:
        request = get_edge_request(name)
        return ec.edge_out(self._unary(self._evidence_stub.GetEdge, request, retryable=True))

    @rpc("engram.v1.EvidenceService.ListEdges")
    def list_edges(
        self,
        *,
        memory: str = "",
        space: str = "",
        kinds: Sequence[et.EdgeKind | str | int] = (),
        direction: et.EdgeDirection | str = "both",
        page_size: int = 0,
    ) -> Iterator[et.Edge]:
        request = list_edges_request(memory, space, kinds, direction, page_size)
        return self._pages(
            self._evidence_stub.ListEdges, request, lambda r: map(ec.edge_out, r.edges)
        )

    @rpc("engram.v1.EvidenceService.DeleteEdge")
    def delete_edge(self, name: str, *, request_id: str | None = None) -> None:
        request = delete_edge_request(name, request_id)
        self._unary(self._evidence_stub.DeleteEdge, request, retryable=True)

    @rpc("engram.v1.EvidenceService.GetSpaceProfile")
    def get_space_profile(
        self,
        space: str,
        *,
        include_subspaces: bool = False,
        window_days: int = 0,
        now: datetime | None = None,
        dry_run: bool = False,
    ) -> et.SpaceProfile:
        request = profile_request(space, include_subspaces, window_days, now, dry_run)
        return ec.profile_out(
            self._unary(self._evidence_stub.GetSpaceProfile, request, retryable=True)
        )

    @rpc("engram.v1.EvidenceService.ListSpaceProfiles")
    def list_space_profiles(
        self, *, space: str = "", drift_only: bool = False, page_size: int = 0
    ) -> Iterator[et.SpaceProfile]:
        request = list_profiles_request(space, drift_only, page_size)
        return self._pages(
            self._evidence_stub.ListSpaceProfiles,
            request,
            lambda r: map(ec.profile_out, r.profiles),
        )


class AsyncEvidenceMixin(AsyncClientBase):
    """EvidenceService as methods of `engram.AsyncClient`."""

    @property
    def _evidence_stub(self) -> Any:
        return self._stub_of(evidence_pb2_grpc.EvidenceServiceStub)

    @rpc("engram.v1.EvidenceService.SetEvidenceLevel")
    async def set_evidence_level(
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
            await self._unary(self._evidence_stub.SetEvidenceLevel, request, retryable=True)
        )

    @rpc("engram.v1.EvidenceService.AssessMemory")
    async def assess_memory(
        self,
        name: str,
        *,
        spaces: Sequence[str] = (),
        min_corroboration: int = 0,
        use_llm: bool = False,
        apply: bool = False,
        request_id: str | None = None,
    ) -> et.AssessResult:
        request = assess_request(name, spaces, min_corroboration, use_llm, apply, request_id)
        return ec.assess_out(
            await self._unary(self._evidence_stub.AssessMemory, request, retryable=True)
        )

    @rpc("engram.v1.EvidenceService.GetConflict")
    async def get_conflict(self, name: str) -> et.Conflict:
        request = get_conflict_request(name)
        return ec.conflict_out(
            await self._unary(self._evidence_stub.GetConflict, request, retryable=True)
        )

    @rpc("engram.v1.EvidenceService.ListConflicts")
    def list_conflicts(
        self,
        *,
        space: str = "",
        state: et.ConflictState | str = "",
        memory: str = "",
        page_size: int = 0,
    ) -> AsyncIterator[et.Conflict]:
        request = list_conflicts_request(space, state, memory, page_size)
        return self._pages(
            self._evidence_stub.ListConflicts, request, lambda r: map(ec.conflict_out, r.conflicts)
        )

    @rpc("engram.v1.EvidenceService.ResolveConflict")
    async def resolve_conflict(
        self,
        name: str,
        resolution: et.ConflictResolution | str | int,
        *,
        winner: str = "",
        merged: t.MemoryProposal | Mapping[str, Any] | None = None,
        note: str = "",
        etag: str = "",
        request_id: str | None = None,
    ) -> et.ResolveResult:
        request = resolve_request(name, resolution, winner, merged, note, etag, request_id)
        return ec.resolve_out(
            await self._unary(self._evidence_stub.ResolveConflict, request, retryable=True)
        )

    @rpc("engram.v1.EvidenceService.CreateEdge")
    async def create_edge(
        self,
        source: str,
        target: str,
        kind: et.EdgeKind | str | int,
        *,
        weight: float = 0.0,
        reason: str = "",
        attributes: Mapping[str, str] | None = None,
        request_id: str | None = None,
    ) -> et.Edge:
        request = edge_request(source, target, kind, weight, reason, attributes, request_id)
        return ec.edge_out(
            await self._unary(self._evidence_stub.CreateEdge, request, retryable=True)
        )

    @rpc("engram.v1.EvidenceService.GetEdge")
    async def get_edge(self, name: str) -> et.Edge:
        request = get_edge_request(name)
        return ec.edge_out(await self._unary(self._evidence_stub.GetEdge, request, retryable=True))

    @rpc("engram.v1.EvidenceService.ListEdges")
    def list_edges(
        self,
        *,
        memory: str = "",
        space: str = "",
        kinds: Sequence[et.EdgeKind | str | int] = (),
        direction: et.EdgeDirection | str = "both",
        page_size: int = 0,
    ) -> AsyncIterator[et.Edge]:
        request = list_edges_request(memory, space, kinds, direction, page_size)
        return self._pages(
            self._evidence_stub.ListEdges, request, lambda r: map(ec.edge_out, r.edges)
        )

    @rpc("engram.v1.EvidenceService.DeleteEdge")
    async def delete_edge(self, name: str, *, request_id: str | None = None) -> None:
        request = delete_edge_request(name, request_id)
        await self._unary(self._evidence_stub.DeleteEdge, request, retryable=True)

    @rpc("engram.v1.EvidenceService.GetSpaceProfile")
    async def get_space_profile(
        self,
        space: str,
        *,
        include_subspaces: bool = False,
        window_days: int = 0,
        now: datetime | None = None,
        dry_run: bool = False,
    ) -> et.SpaceProfile:
        request = profile_request(space, include_subspaces, window_days, now, dry_run)
        return ec.profile_out(
            await self._unary(self._evidence_stub.GetSpaceProfile, request, retryable=True)
        )

    @rpc("engram.v1.EvidenceService.ListSpaceProfiles")
    def list_space_profiles(
        self, *, space: str = "", drift_only: bool = False, page_size: int = 0
    ) -> AsyncIterator[et.SpaceProfile]:
        request = list_profiles_request(space, drift_only, page_size)
        return self._pages(
            self._evidence_stub.ListSpaceProfiles,
            request,
            lambda r: map(ec.profile_out, r.profiles),
        )


__all__ = [
    "AsyncEvidenceClient",
    "AsyncEvidenceMixin",
    "EvidenceClient",
    "EvidenceMixin",
    "edge_kind",
]
