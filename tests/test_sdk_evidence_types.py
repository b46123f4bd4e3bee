"""The SDK's evidence calls return the dataclasses of `engram.evidence_types`,
converted from what a real server sends, sync and async, and `engram.to_dict`
makes each of them JSON-ready."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC
from typing import Any

import engram
from engram.v1 import evidence_pb2, types_pb2


def _json(value: Any) -> dict[str, Any]:
    data = engram.to_dict(value)
    assert "raw" not in data
    json.dumps(data)
    return data  # type: ignore[no-any-return]


def _walk(address: str, key: str) -> None:
    with engram.Client(address, key) as client:
        official = client.propose("typed", "The API rate limit is 100 requests per minute").memory
        client.evidence.set_level(official.name, engram.EvidenceLevel.OFFICIAL, reason="docs")
        rumour = client.propose("typed", "The API rate limit is 500 requests per minute").memory

        report = client.assess_memory(rumour.name, apply=True)
        assert isinstance(report, engram.AssessResult) and report.applied
        assert isinstance(report.memory, engram.Memory) and report.memory.name == rumour.name
        assert report.suggested_level is engram.EvidenceLevel.UNVERIFIED
        assert all(isinstance(link, engram.EvidenceLink) for link in report.contradicting)
        assert [link.memory.name for link in report.contradicting] == [official.name]
        assert isinstance(report.contradicting[0].memory, engram.Memory)
        conflict = report.conflict
        assert isinstance(conflict, engram.Conflict) and conflict.open
        assert conflict.state is engram.ConflictState.OPEN
        assert set(conflict.memories) == {official.name, rumour.name}
        assert conflict.create_time is not None and conflict.create_time.tzinfo == UTC
        assert isinstance(report.raw, evidence_pb2.AssessMemoryResponse)
        data = _json(report)
        assert data["suggested_level"] == "UNVERIFIED" and data["conflict"]["state"] == "OPEN"

        listed = list(client.list_conflicts(state=engram.ConflictState.OPEN))
        assert listed == [conflict] and client.get_conflict(conflict.name) == conflict

        resolved = client.resolve_conflict(
            conflict.name, engram.ConflictResolution.KEEP_WINNER, winner=official.name
        )
        assert isinstance(resolved, engram.ResolveResult) and resolved.merged_result is None
        assert resolved.conflict.state is engram.ConflictState.RESOLVED
        assert resolved.conflict.resolution is engram.ConflictResolution.KEEP_WINNER
        assert resolved.conflict.winner == official.name
        assert [(m.name, m.status) for m in resolved.changed_memories] == [
            (rumour.name, engram.MemoryStatus.RETRACTED)
        ]
        assert _json(resolved)["conflict"]["resolution"] == "KEEP_WINNER"

        note = client.propose("typed", "Rate limits are in the API guide").memory
        edge = client.create_edge(
            note.name, official.name, engram.EdgeKind.ABOUT, weight=0.5, attributes={"by": "test"}
        )
        assert isinstance(edge, engram.Edge) and edge.kind is engram.EdgeKind.ABOUT
        assert (edge.source_memory, edge.target_memory) == (note.name, official.name)
        assert edge.attributes == {"by": "test"} and edge.weight == 0.5
        assert isinstance(edge.raw, types_pb2.Edge)
        assert client.get_edge(edge.name) == edge
        incoming = client.list_edges(memory=official.name, direction=engram.EdgeDirection.INCOMING)
        assert edge in list(incoming)
        assert _json(edge)["kind"] == "ABOUT"

        profile = client.get_space_profile("typed", dry_run=True)
        assert isinstance(profile, engram.SpaceProfile) and profile.space == "typed"
        assert isinstance(profile.space_class, engram.SpaceClass)
        assert profile.memories_by_kind == {"SEMANTIC": 3}
        assert profile.memories_by_status == {"ACTIVE": 2, "RETRACTED": 1}
        assert profile.live_memories_by_evidence.get("OFFICIAL") == 1
        assert profile.window_end_time is not None
        _json(profile)
        saved = client.get_space_profile("typed")
        assert [p.name for p in client.list_space_profiles(space="typed")] == [saved.name]


async def test_sync_evidence_calls_return_evidence_dataclasses(make_tenant: Any) -> None:
    t = await make_tenant()
    await asyncio.to_thread(_walk, t.address, t.secret)


async def test_async_evidence_calls_return_evidence_dataclasses(make_tenant: Any) -> None:
    t = await make_tenant()
    async with engram.AsyncClient(t.address, t.secret) as client:
        a = (await client.propose("atyped", "The pool closes at 8pm")).memory
        b = (await client.propose("atyped", "The pool closes at 10pm")).memory
        edge = await client.evidence.create_edge(b.name, a.name, "contradicts")
        assert isinstance(edge, engram.Edge) and edge.kind is engram.EdgeKind.CONTRADICTS
        conflicts = [c async for c in client.list_conflicts(memory=a.name)]
        assert [type(c) for c in conflicts] == [engram.Conflict]
        done = await client.evidence.resolve(conflicts[0].name, "dismiss")
        assert isinstance(done, engram.ResolveResult)
        assert done.conflict.resolution is engram.ConflictResolution.DISMISS
        assert [e async for e in client.list_edges(memory=a.name)] == [edge]
        report = await client.assess_memory(a.name)
        assert isinstance(report, engram.AssessResult) and not report.applied
        profile = await client.get_space_profile("atyped", dry_run=True)
        assert isinstance(profile, engram.SpaceProfile) and profile.live_memory_count == 2
