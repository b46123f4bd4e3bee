"""EvidenceService: grades and their scope rules, edges, conflicts."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest
from engram.v1 import evidence_pb2, evidence_pb2_grpc, lifecycle_pb2, types_pb2

from tests.lifecycle_helpers import (
    ACTIVE,
    RETRACTED,
    SUPERSEDED,
    count_rows,
    field_violations,
    propose,
)

OFFICIAL = types_pb2.EVIDENCE_LEVEL_OFFICIAL
CORROBORATED = types_pb2.EVIDENCE_LEVEL_CORROBORATED
SINGLE = types_pb2.EVIDENCE_LEVEL_SINGLE_SOURCE
UNVERIFIED = types_pb2.EVIDENCE_LEVEL_UNVERIFIED
SUPPORTS = types_pb2.EDGE_KIND_SUPPORTS
CONTRADICTS = types_pb2.EDGE_KIND_CONTRADICTS
RELATED = types_pb2.EDGE_KIND_RELATED


def evidence_stub(t: Any, secret: str | None = None) -> Any:
    channel = t.channel if secret is None else t.channel_for(secret)
    return evidence_pb2_grpc.EvidenceServiceStub(channel)


async def _memory(t: Any, content: str, space: str = "kb", **kw: Any) -> Any:
    result = await propose(t.lifecycle, space, content, **kw)
    return result.memory


async def _audit(t: Any, memory: str) -> list[Any]:
    response = await t.lifecycle.ListAuditEntries(
        lifecycle_pb2.ListAuditEntriesRequest(memory=memory, page_size=100)
    )
    return list(response.entries)


# --- grades ----------------------------------------------------------------------


async def test_set_evidence_level_audits_and_streams(make_tenant: Any) -> None:
    t = await make_tenant()
    ev = evidence_stub(t)
    m = await _memory(t, "The office closes at 6pm")
    head = await t.lifecycle.ListAuditEntries(lifecycle_pb2.ListAuditEntriesRequest(page_size=1000))
    cursor = str(head.entries[-1].sequence)
    call = t.lifecycle.WatchTransitions(lifecycle_pb2.WatchTransitionsRequest(cursor=cursor))
    updated = await ev.SetEvidenceLevel(
        evidence_pb2.SetEvidenceLevelRequest(
            name=m.name, evidence_level=CORROBORATED, reason="two sources", etag=m.etag
        )
    )
    assert updated.evidence_level == CORROBORATED and updated.etag != m.etag
    event = await asyncio.wait_for(call.read(), 10)
    call.cancel()
    assert event.entry.action == types_pb2.AUDIT_ACTION_EVIDENCE
    assert event.entry.memory == m.name
    assert dict(event.entry.details) == {"from": "UNSPECIFIED", "to": "CORROBORATED"}
    assert event.entry.reason == "two sources"
    entries = [e for e in await _audit(t, m.name) if e.action == types_pb2.AUDIT_ACTION_EVIDENCE]
    assert len(entries) == 1 and entries[0].actor
    # A stale etag is ABORTED; lowering needs a reason.
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await ev.SetEvidenceLevel(
            evidence_pb2.SetEvidenceLevelRequest(name=m.name, evidence_level=SINGLE, etag=m.etag)
        )
    assert err.value.code() == grpc.StatusCode.ABORTED
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await ev.SetEvidenceLevel(
            evidence_pb2.SetEvidenceLevelRequest(name=m.name, evidence_level=SINGLE)
        )
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert field_violations(err.value) == ["reason"]


async def test_official_needs_operator_both_ways(make_tenant: Any) -> None:
    t = await make_tenant()
    writer = evidence_stub(t, await t.new_key(scopes=("read", "write")))
    operator = evidence_stub(t)
    m = await _memory(t, "Acme reported record earnings in Q2")
    for level in (OFFICIAL,):
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await writer.SetEvidenceLevel(
                evidence_pb2.SetEvidenceLevelRequest(name=m.name, evidence_level=level)
            )
        assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
    done = await operator.SetEvidenceLevel(
        evidence_pb2.SetEvidenceLevelRequest(name=m.name, evidence_level=OFFICIAL)
    )
    assert done.evidence_level == OFFICIAL
    # Away from OFFICIAL needs operator too.
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await writer.SetEvidenceLevel(
            evidence_pb2.SetEvidenceLevelRequest(
                name=m.name, evidence_level=CORROBORATED, reason="demote"
            )
        )
    assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
    got = await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=m.name))
    assert got.evidence_level == OFFICIAL
    # Issue 22: proposing OFFICIAL without the scope is PERMISSION_DENIED.
    writer_lifecycle = t.lifecycle.__class__(t.channel_for(await t.new_key(scopes=("write",))))
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await propose(writer_lifecycle, "kb", "an official claim", evidence_level=OFFICIAL)
    assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED


async def test_set_evidence_level_bad_input(make_tenant: Any) -> None:
    t = await make_tenant()
    ev = evidence_stub(t)
    m = await _memory(t, "Something to grade")
    cases = [
        (evidence_pb2.SetEvidenceLevelRequest(name=m.name), "evidence_level"),
        (evidence_pb2.SetEvidenceLevelRequest(name="bad", evidence_level=SINGLE), "name"),
        (evidence_pb2.SetEvidenceLevelRequest(name=m.name, evidence_level=99), "evidence_level"),
    ]
    for request, fld in cases:
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await ev.SetEvidenceLevel(request)
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert fld in field_violations(err.value)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await ev.SetEvidenceLevel(
            evidence_pb2.SetEvidenceLevelRequest(
                name="memories/00000000-0000-0000-0000-000000000001", evidence_level=SINGLE
            )
        )
    assert err.value.code() == grpc.StatusCode.NOT_FOUND
    await t.lifecycle.RetractMemory(lifecycle_pb2.RetractMemoryRequest(name=m.name, reason="x"))
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await ev.SetEvidenceLevel(
            evidence_pb2.SetEvidenceLevelRequest(name=m.name, evidence_level=SINGLE)
        )
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION


async def test_ungraded_stays_ungraded(make_tenant: Any) -> None:
    t = await make_tenant()
    m = await _memory(t, "Nothing grades me silently", source="user")
    other = await _memory(t, "Nothing grades me silently either", source="doc")
    got = await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=m.name))
    assert got.evidence_level == types_pb2.EVIDENCE_LEVEL_UNSPECIFIED
    assert other.evidence_level == types_pb2.EVIDENCE_LEVEL_UNSPECIFIED


async def test_no_write_path_grades_silently(make_tenant: Any, app: Any) -> None:
    """Learn (both paths, supported and unsupported facts) and Consolidate store
    ungraded memories and write no EVIDENCE audit entry: only SetEvidenceLevel and
    the assessor (AssessMemory with apply, or assess_on_write) grade."""
    import json

    from tests.llm_server import LocalChatServer
    from tests.test_consolidate import buffer, consolidate
    from tests.test_learn import learn, turn, use_llm_server

    t = await make_tenant()
    await learn(t, "quiet", [turn("user", "My name is Ada Byron. I moved to Lisbon in May.")])
    reply = json.dumps(
        {
            "facts": [
                {"content": "The user's name is Ada.", "kind": "semantic", "source_turns": [0]},
                {"content": "The user owns a yacht.", "kind": "semantic", "source_turns": [0]},
            ]
        }
    )
    with LocalChatServer(lambda messages: reply) as chat:
        await use_llm_server(app, t.tenant_id, chat)
        llm = await learn(t, "quiet", [turn("user", "Hi, I am Ada.")], use_llm=True)
    assert llm.unverified_count == 1  # the unsupported fact is flagged, not graded
    await buffer(
        t,
        "quiet",
        "s1",
        [("user", "We decided to ship the beta on Friday."), ("assistant", "Noted.")],
    )
    await consolidate(t, "quiet", "s1")
    listed = await t.lifecycle.ListMemories(
        lifecycle_pb2.ListMemoriesRequest(space="quiet", page_size=100)
    )
    assert len(listed.memories) >= 4
    assert {m.evidence_level for m in listed.memories} == {types_pb2.EVIDENCE_LEVEL_UNSPECIFIED}
    audit = await t.lifecycle.ListAuditEntries(
        lifecycle_pb2.ListAuditEntriesRequest(space="quiet", page_size=500)
    )
    assert audit.entries  # the writes were audited...
    assert types_pb2.AUDIT_ACTION_EVIDENCE not in {e.action for e in audit.entries}  # ...not graded


def test_only_the_grading_paths_write_a_grade() -> None:
    """Every place in the server that writes a grade: a proposal field set to a
    constant grade, or an `evidence_level` column in an update. Only the grade
    setter (SetEvidenceLevel, the assessor's apply) may, so a new write path that
    grades silently fails here."""
    import ast
    from pathlib import Path

    import engram_server

    root = Path(engram_server.__file__).parent
    writers: set[str] = set()
    for path in sorted(root.rglob("*.py")):
        if "v1" in path.parts:
            continue
        tree = ast.parse(path.read_text(), str(path))
        for func in ast.walk(tree):
            if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(func):
                constant_grade = (
                    isinstance(node, ast.keyword)
                    and node.arg == "evidence_level"
                    and isinstance(node.value, ast.Attribute)
                    and isinstance(node.value.value, ast.Name)
                    and node.value.value.id == "EvidenceLevel"
                    and node.value.attr != "UNSPECIFIED"
                )
                column_update = (
                    isinstance(node, ast.Call)
                    and getattr(node.func, "attr", getattr(node.func, "id", "")) == "update_memory"
                    and any(
                        isinstance(arg, ast.Dict)
                        and any(
                            isinstance(k, ast.Constant) and k.value == "evidence_level"
                            for k in arg.keys
                        )
                        for arg in node.args
                    )
                )
                sql = (
                    isinstance(node, ast.Constant)
                    and isinstance(node.value, str)
                    and "SET evidence_level" in node.value
                )
                if constant_grade or column_update or sql:
                    writers.add(f"{path.relative_to(root)}:{func.name}")
    assert writers == {"services/evidence.py:grade_in_tx"}


# --- edges -----------------------------------------------------------------------


def _edge(source: Any, target: Any, kind: int, **kw: Any) -> evidence_pb2.CreateEdgeRequest:
    return evidence_pb2.CreateEdgeRequest(
        edge=types_pb2.Edge(source_memory=source.name, target_memory=target.name, kind=kind, **kw),
        request_id=kw.pop("request_id", "") if "request_id" in kw else "",
    )


async def test_edges_create_get_list_delete(make_tenant: Any, raw_pg: Any) -> None:
    t = await make_tenant()
    ev = evidence_stub(t)
    a = await _memory(t, "Alice works at Acme")
    b = await _memory(t, "Acme is a robotics company")
    c = await _memory(t, "Alice lives in Lisbon", space="other")
    ab = await ev.CreateEdge(_edge(a, b, RELATED, reason="employer", weight=0.5))
    assert ab.name.startswith("edges/") and ab.weight == 0.5 and ab.creator
    assert (await ev.GetEdge(evidence_pb2.GetEdgeRequest(name=ab.name))) == ab
    ca = await ev.CreateEdge(_edge(c, a, SUPPORTS))
    assert ca.weight == 1.0
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await ev.CreateEdge(_edge(a, b, RELATED))
    assert err.value.code() == grpc.StatusCode.ALREADY_EXISTS
    around = await ev.ListEdges(evidence_pb2.ListEdgesRequest(memory=a.name))
    assert [e.name for e in around.edges] == [ca.name, ab.name]  # newest first
    out = await ev.ListEdges(
        evidence_pb2.ListEdgesRequest(memory=a.name, direction=evidence_pb2.EDGE_DIRECTION_OUTGOING)
    )
    assert [e.name for e in out.edges] == [ab.name]
    by_kind = await ev.ListEdges(evidence_pb2.ListEdgesRequest(memory=a.name, kinds=[SUPPORTS]))
    assert [e.name for e in by_kind.edges] == [ca.name]
    by_space = await ev.ListEdges(evidence_pb2.ListEdgesRequest(space="other"))
    assert [e.name for e in by_space.edges] == [ca.name]
    page = await ev.ListEdges(evidence_pb2.ListEdgesRequest(memory=a.name, page_size=1))
    assert len(page.edges) == 1 and page.next_page_token
    rest = await ev.ListEdges(
        evidence_pb2.ListEdgesRequest(memory=a.name, page_size=1, page_token=page.next_page_token)
    )
    assert [e.name for e in rest.edges] == [ab.name] and not rest.next_page_token
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await ev.ListEdges(
            evidence_pb2.ListEdgesRequest(memory=b.name, page_token=page.next_page_token)
        )
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    await ev.DeleteEdge(evidence_pb2.DeleteEdgeRequest(name=ab.name))
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await ev.GetEdge(evidence_pb2.GetEdgeRequest(name=ab.name))
    assert err.value.code() == grpc.StatusCode.NOT_FOUND
    actions = [
        e.details.get("op")
        for e in await _audit(t, a.name)
        if e.action == types_pb2.AUDIT_ACTION_EDGE
    ]
    assert actions == ["create", "delete"]


async def test_supersedes_edges_are_written_by_supersession_and_undeletable(
    make_tenant: Any,
) -> None:
    t = await make_tenant()
    ev = evidence_stub(t)
    old = await _memory(t, "Alice works at Acme", slot_key="alice::employer")
    new = await _memory(t, "Alice works at Globex", slot_key="alice::employer")
    edges = await ev.ListEdges(evidence_pb2.ListEdgesRequest(memory=old.name))
    assert [(e.kind, e.source_memory, e.target_memory) for e in edges.edges] == [
        (types_pb2.EDGE_KIND_SUPERSEDES, new.name, old.name)
    ]
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await ev.DeleteEdge(evidence_pb2.DeleteEdgeRequest(name=edges.edges[0].name))
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await ev.CreateEdge(_edge(new, old, types_pb2.EDGE_KIND_SUPERSEDES))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert field_violations(err.value) == ["edge.kind"]


async def test_edges_bad_input_and_other_tenants(make_tenant: Any, raw_pg: Any) -> None:
    t = await make_tenant()
    other = await make_tenant()
    ev = evidence_stub(t)
    a = await _memory(t, "Mine")
    foreign = await _memory(other, "Theirs")
    cases = [
        (_edge(a, a, RELATED), "edge.target_memory"),
        (_edge(a, foreign, 0), "edge.kind"),
        (_edge(a, foreign, 42), "edge.kind"),
        (_edge(a, foreign, RELATED, weight=1.5), "edge.weight"),
        (_edge(a, foreign, RELATED, attributes={"": "empty key"}), "edge.attributes[]"),
        (_edge(a, foreign, RELATED, attributes={"k" * 65: "v"}), f"edge.attributes[{'k' * 64}]"),
        (_edge(a, foreign, RELATED, attributes={"note": "v" * 1025}), "edge.attributes[note]"),
        (
            evidence_pb2.CreateEdgeRequest(
                edge=types_pb2.Edge(source_memory="x", target_memory=a.name, kind=RELATED)
            ),
            "edge.source_memory",
        ),
    ]
    for request, fld in cases:
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await ev.CreateEdge(request)
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, fld
        assert fld in field_violations(err.value)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await ev.CreateEdge(_edge(a, foreign, RELATED))
    assert err.value.code() == grpc.StatusCode.NOT_FOUND
    assert foreign.name in (err.value.details() or "")
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await ev.ListEdges(evidence_pb2.ListEdgesRequest())
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert await count_rows(raw_pg, "edges", t.tenant_id) == 0
    # Another tenant's edge is not found, neither by name nor by listing.
    b = await _memory(other, "Theirs too")
    theirs = await evidence_stub(other).CreateEdge(_edge(foreign, b, RELATED))
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await ev.GetEdge(evidence_pb2.GetEdgeRequest(name=theirs.name))
    assert err.value.code() == grpc.StatusCode.NOT_FOUND
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await ev.DeleteEdge(evidence_pb2.DeleteEdgeRequest(name=theirs.name))
    assert err.value.code() == grpc.StatusCode.NOT_FOUND
    listed = await ev.ListEdges(evidence_pb2.ListEdgesRequest(memory=foreign.name))
    assert not listed.edges


# --- conflicts ---------------------------------------------------------------------


async def _contradiction(
    t: Any,
    a: str = "The API rate limit is 100",
    b: str = "The API rate limit is 500",
    first: dict[str, Any] | None = None,
    second: dict[str, Any] | None = None,
) -> tuple[Any, Any, Any]:
    ev = evidence_stub(t)
    x = await _memory(t, a, **(first or {}))
    y = await _memory(t, b, **(second or {}))
    await ev.CreateEdge(_edge(x, y, CONTRADICTS, reason="limits differ"))
    listed = await ev.ListConflicts(evidence_pb2.ListConflictsRequest(memory=x.name))
    assert len(listed.conflicts) == 1
    return x, y, listed.conflicts[0]


async def test_contradicts_edge_opens_conflict_and_list_filters(make_tenant: Any) -> None:
    t = await make_tenant()
    ev = evidence_stub(t)
    x, y, conflict = await _contradiction(t)
    assert conflict.detector == "edge" and conflict.state == evidence_pb2.CONFLICT_STATE_OPEN
    assert sorted(conflict.memories) == sorted([x.name, y.name])
    assert (await ev.GetConflict(evidence_pb2.GetConflictRequest(name=conflict.name))) == conflict
    other = await _contradiction(t, "Deploys happen on Monday", "Deploys happen on Friday")
    everything = await ev.ListConflicts(evidence_pb2.ListConflictsRequest())
    assert [c.name for c in everything.conflicts] == [other[2].name, conflict.name]
    first = await ev.ListConflicts(evidence_pb2.ListConflictsRequest(page_size=1))
    second = await ev.ListConflicts(
        evidence_pb2.ListConflictsRequest(page_size=1, page_token=first.next_page_token)
    )
    assert [c.name for c in second.conflicts] == [conflict.name]
    opened = await ev.ListConflicts(
        evidence_pb2.ListConflictsRequest(space="kb", state=evidence_pb2.CONFLICT_STATE_OPEN)
    )
    assert len(opened.conflicts) == 2
    none = await ev.ListConflicts(
        evidence_pb2.ListConflictsRequest(state=evidence_pb2.CONFLICT_STATE_RESOLVED)
    )
    assert not none.conflicts


async def test_a_purge_takes_the_conflicts_of_its_memories_with_it(make_tenant: Any) -> None:
    # Left behind, such a conflict stayed open for good: resolving it answered
    # NOT_FOUND for the purged memory, and it kept that memory's id.
    t, other = await make_tenant(), await make_tenant()
    ev = evidence_stub(t)
    _, _, purged = await _contradiction(t)
    kept = await _contradiction(
        t,
        "Deploys happen on Monday",
        "Deploys happen on Friday",
        {"space": "ops"},
        {"space": "ops"},
    )
    theirs = await _contradiction(other)
    await t.lifecycle.PurgeMemories(
        lifecycle_pb2.PurgeMemoriesRequest(space="kb", reason="erasure request")
    )
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await ev.GetConflict(evidence_pb2.GetConflictRequest(name=purged.name))
    assert err.value.code() == grpc.StatusCode.NOT_FOUND
    listed = await ev.ListConflicts(evidence_pb2.ListConflictsRequest())
    assert [c.name for c in listed.conflicts] == [kept[2].name]
    still = await evidence_stub(other).GetConflict(
        evidence_pb2.GetConflictRequest(name=theirs[2].name)
    )
    assert still.state == evidence_pb2.CONFLICT_STATE_OPEN


async def test_resolve_keep_winner_retracts_the_rest_and_never_reopens(make_tenant: Any) -> None:
    t = await make_tenant()
    ev = evidence_stub(t)
    x, y, conflict = await _contradiction(t)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await ev.ResolveConflict(
            evidence_pb2.ResolveConflictRequest(
                name=conflict.name,
                resolution=evidence_pb2.CONFLICT_RESOLUTION_KEEP_WINNER,
                winner=(await _memory(t, "unrelated")).name,
            )
        )
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert field_violations(err.value) == ["winner"]
    done = await ev.ResolveConflict(
        evidence_pb2.ResolveConflictRequest(
            name=conflict.name,
            resolution=evidence_pb2.CONFLICT_RESOLUTION_KEEP_WINNER,
            winner=x.name,
            note="the docs say 100",
            etag=conflict.etag,
        )
    )
    assert done.conflict.state == evidence_pb2.CONFLICT_STATE_RESOLVED
    assert done.conflict.winner == x.name and done.conflict.resolver
    assert [(m.name, m.status) for m in done.changed_memories] == [(y.name, RETRACTED)]
    audit = await _audit(t, y.name)
    assert audit[-1].to_status == RETRACTED and audit[-1].reason == "the docs say 100"
    # Resolved conflicts are not resolved again and do not reopen for the pair.
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await ev.ResolveConflict(
            evidence_pb2.ResolveConflictRequest(
                name=conflict.name, resolution=evidence_pb2.CONFLICT_RESOLUTION_KEEP_ALL
            )
        )
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    await ev.CreateEdge(_edge(y, x, CONTRADICTS))
    listed = await ev.ListConflicts(evidence_pb2.ListConflictsRequest(memory=x.name))
    assert len(listed.conflicts) == 1


async def test_resolving_by_supersession_closes_valid_to_where_the_winner_starts(
    make_tenant: Any,
) -> None:
    from datetime import UTC, datetime

    from google.protobuf.timestamp_pb2 import Timestamp

    def ts(year: int) -> Timestamp:
        stamp = Timestamp()
        stamp.FromDatetime(datetime(year, 1, 1, tzinfo=UTC))
        return stamp

    t = await make_tenant()
    ev = evidence_stub(t)
    x, y, conflict = await _contradiction(
        t,
        "The office is in Leeds",
        "The office is in York",
        first={"valid_from": ts(2019)},
        second={"valid_from": ts(2023)},
    )
    done = await ev.ResolveConflict(
        evidence_pb2.ResolveConflictRequest(
            name=conflict.name, resolution=evidence_pb2.CONFLICT_RESOLUTION_SUPERSEDE, winner=y.name
        )
    )
    (old,) = done.changed_memories
    assert old.name == x.name and old.status == SUPERSEDED and old.valid_to == ts(2023)
    # A winner dated before the loser began does not give it a backwards range.
    _a, b, later = await _contradiction(
        t,
        "The shop closes at 6",
        "The shop closes at 7",
        first={"valid_from": ts(2024)},
        second={"valid_from": ts(2020)},
    )
    done = await ev.ResolveConflict(
        evidence_pb2.ResolveConflictRequest(
            name=later.name, resolution=evidence_pb2.CONFLICT_RESOLUTION_SUPERSEDE, winner=b.name
        )
    )
    assert done.changed_memories[0].valid_to == ts(2024)


async def test_resolve_supersede_merge_keep_all_dismiss(make_tenant: Any) -> None:
    t = await make_tenant()
    ev = evidence_stub(t)
    x, y, conflict = await _contradiction(t)
    done = await ev.ResolveConflict(
        evidence_pb2.ResolveConflictRequest(
            name=conflict.name,
            resolution=evidence_pb2.CONFLICT_RESOLUTION_SUPERSEDE,
            winner=y.name,
            note="raised to 500 in May",
        )
    )
    assert [(m.name, m.status, m.superseded_by) for m in done.changed_memories] == [
        (x.name, SUPERSEDED, y.name)
    ]
    assert done.changed_memories[0].HasField("valid_to")
    edges = await ev.ListEdges(
        evidence_pb2.ListEdgesRequest(memory=x.name, kinds=[types_pb2.EDGE_KIND_SUPERSEDES])
    )
    assert edges.edges[0].source_memory == y.name

    a, b, merge = await _contradiction(t, "The cafe opens at 8", "The cafe opens at 9")
    merged = await ev.ResolveConflict(
        evidence_pb2.ResolveConflictRequest(
            name=merge.name,
            resolution=evidence_pb2.CONFLICT_RESOLUTION_MERGE,
            merged=lifecycle_pb2.MemoryProposal(
                space="kb",
                content="The cafe opens at 8 on weekdays and 9 on weekends",
                confidence=0.9,
            ),
        )
    )
    new = merged.merged_result.memory
    assert new.status == ACTIVE and merged.conflict.winner == new.name
    assert sorted((m.name, m.status) for m in merged.changed_memories) == sorted(
        [(a.name, SUPERSEDED), (b.name, SUPERSEDED)]
    )

    c, _d, keep = await _contradiction(t, "Bob is in Paris", "Bob is not in Paris")
    kept = await ev.ResolveConflict(
        evidence_pb2.ResolveConflictRequest(
            name=keep.name,
            resolution=evidence_pb2.CONFLICT_RESOLUTION_KEEP_ALL,
            note="different weeks",
        )
    )
    assert not kept.changed_memories
    left = await ev.ListEdges(evidence_pb2.ListEdgesRequest(memory=c.name, kinds=[CONTRADICTS]))
    assert not left.edges
    _e, _f, dismiss = await _contradiction(t, "Tea is served at 4", "Tea is served at 5")
    dismissed = await ev.ResolveConflict(
        evidence_pb2.ResolveConflictRequest(
            name=dismiss.name, resolution=evidence_pb2.CONFLICT_RESOLUTION_DISMISS
        )
    )
    assert dismissed.conflict.resolution == evidence_pb2.CONFLICT_RESOLUTION_DISMISS
    for bad, fld in [
        (evidence_pb2.ResolveConflictRequest(name=dismiss.name), "resolution"),
        (
            evidence_pb2.ResolveConflictRequest(
                name=dismiss.name, resolution=evidence_pb2.CONFLICT_RESOLUTION_OVERTAKEN
            ),
            "resolution",
        ),
        (
            evidence_pb2.ResolveConflictRequest(
                name=dismiss.name, resolution=evidence_pb2.CONFLICT_RESOLUTION_SUPERSEDE
            ),
            "winner",
        ),
        (
            evidence_pb2.ResolveConflictRequest(
                name=dismiss.name, resolution=evidence_pb2.CONFLICT_RESOLUTION_MERGE
            ),
            "merged",
        ),
        (evidence_pb2.ResolveConflictRequest(name="conflicts/x", resolution=4), "name"),
    ]:
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await ev.ResolveConflict(bad)
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert fld in field_violations(err.value)


async def test_slot_supersession_of_a_better_graded_value_opens_a_conflict(
    make_tenant: Any,
) -> None:
    t = await make_tenant()
    ev = evidence_stub(t)
    old = await _memory(
        t,
        "The CEO is Dana",
        slot_key="acme::ceo",
        evidence_level=OFFICIAL,
    )
    new = await _memory(t, "The CEO is Eli", slot_key="acme::ceo")
    got = await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=old.name))
    assert got.status == SUPERSEDED and got.superseded_by == new.name  # it still happens
    listed = await ev.ListConflicts(evidence_pb2.ListConflictsRequest(memory=new.name))
    assert [c.detector for c in listed.conflicts] == ["supersession"]
    # A plain replacement (no grade lost) opens nothing.
    await _memory(t, "The CFO is Fay", slot_key="acme::cfo")
    await _memory(t, "The CFO is Gus", slot_key="acme::cfo")
    assert len((await ev.ListConflicts(evidence_pb2.ListConflictsRequest())).conflicts) == 1


async def test_bitemporal_supersession_closes_valid_to(make_tenant: Any) -> None:
    from datetime import UTC, datetime

    from google.protobuf.timestamp_pb2 import Timestamp

    t = await make_tenant()
    start = Timestamp()
    start.FromDatetime(datetime(2024, 1, 1, tzinfo=UTC))
    moved = Timestamp()
    moved.FromDatetime(datetime(2025, 3, 1, tzinfo=UTC))
    old = await _memory(t, "Alice lives in Lisbon", slot_key="alice::city", valid_from=start)
    assert old.valid_from == start and not old.HasField("valid_to")
    await _memory(t, "Alice lives in Porto", slot_key="alice::city", valid_from=moved)
    got = await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=old.name))
    assert got.valid_to == moved
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await propose(t.lifecycle, "kb", "backwards", valid_from=moved, valid_to=start)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert field_violations(err.value) == ["proposal.valid_to"]
    origin = await _memory(t, "Observed by a probe", origin=types_pb2.MEMORY_ORIGIN_TOOL_OBSERVED)
    assert origin.origin == types_pb2.MEMORY_ORIGIN_TOOL_OBSERVED


# --- the corroboration assessor ------------------------------------------------------


def _assess(name: str, **kw: Any) -> evidence_pb2.AssessMemoryRequest:
    return evidence_pb2.AssessMemoryRequest(name=name, **kw)


async def test_assessor_corroborates_from_distinct_sources(make_tenant: Any) -> None:
    t = await make_tenant()
    ev = evidence_stub(t)
    claim = await _memory(
        t, "Acme's Q3 revenue was 12 million dollars", space="news", source="acme-press"
    )
    await _memory(t, "Acme Q3 revenue was 12 million dollars", space="news", source="reuters")
    await _memory(
        t,
        "Acme's Q3 revenue was 12 million dollars, analysts said",
        space="news",
        source="bloomberg",
    )
    await _memory(t, "Carol leads the payments team", space="news", source="hr")
    report = await ev.AssessMemory(_assess(claim.name))
    assert report.suggested_level == CORROBORATED
    assert report.distinct_supporting_sources == 2 and not report.contradicting
    assert not report.applied and not report.created_edges
    assert {s.memory.source for s in report.supporting} == {"reuters", "bloomberg"}
    # Nothing was written by the report.
    got = await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=claim.name))
    assert got.evidence_level == types_pb2.EVIDENCE_LEVEL_UNSPECIFIED
    # Three are needed: single source.
    strict = await ev.AssessMemory(_assess(claim.name, min_corroboration=3))
    assert strict.suggested_level == SINGLE
    applied = await ev.AssessMemory(_assess(claim.name, apply=True, request_id="assess-1"))
    assert applied.applied and applied.memory.evidence_level == CORROBORATED
    assert len(applied.created_edges) == 2
    assert all(e.kind == SUPPORTS and e.target_memory == claim.name for e in applied.created_edges)
    again = await ev.AssessMemory(_assess(claim.name, apply=True))
    assert not again.applied and not again.created_edges  # nothing new to write
    audit = [e for e in await _audit(t, claim.name) if e.action == types_pb2.AUDIT_ACTION_EVIDENCE]
    assert len(audit) == 1 and audit[0].reason.startswith("assessor:")


async def test_correspondence_needs_one_more_corroborating_source(make_tenant: Any) -> None:
    """Two independent agreeing sources corroborate a claim in an ordinary space; in a
    space pinned as correspondence the same two leave it single-source, and a third
    corroborates it."""
    t = await make_tenant()
    ev = evidence_stub(t)
    await t.lifecycle.SetPolicy(
        lifecycle_pb2.SetPolicyRequest(
            policy=lifecycle_pb2.Policy(
                name="spaces/inbox/policy", pinned_space_class="correspondence"
            )
        )
    )
    claims = {}
    for space in ("news", "inbox"):
        claims[space] = await _memory(
            t, "Acme's Q3 revenue was 12 million dollars", space=space, source="acme-press"
        )
        await _memory(t, "Acme Q3 revenue was 12 million dollars", space=space, source="reuters")
        await _memory(
            t,
            "Acme's Q3 revenue was 12 million dollars, analysts said",
            space=space,
            source="bloomberg",
        )
    plain = await ev.AssessMemory(_assess(claims["news"].name))
    mail = await ev.AssessMemory(_assess(claims["inbox"].name))
    assert plain.distinct_supporting_sources == mail.distinct_supporting_sources == 2
    assert plain.suggested_level == CORROBORATED
    assert mail.suggested_level == SINGLE and "3 needed" in mail.reasoning
    await _memory(t, "Acme reported Q3 revenue of 12 million dollars", space="inbox", source="ft")
    again = await ev.AssessMemory(_assess(claims["inbox"].name))
    assert again.distinct_supporting_sources == 3 and again.suggested_level == CORROBORATED


async def test_agreeing_with_official_memories_never_makes_a_claim_official(
    make_tenant: Any,
) -> None:
    """OFFICIAL is an operator's word and never inferred: a claim that two OFFICIAL
    memories from other sources agree with is CORROBORATED at most."""
    t = await make_tenant()
    ev = evidence_stub(t)
    for source, text in (
        ("handbook", "Expense reports are due on the 5th of each month"),
        ("intranet", "Expense reports are due on the 5th of each month, per HR"),
    ):
        await _memory(t, text, space="hr", source=source, evidence_level=OFFICIAL)
    claim = await _memory(
        t, "Expense reports are due on the 5th of each month, says Sam", space="hr", source="sam"
    )
    done = await ev.AssessMemory(_assess(claim.name, apply=True))
    assert done.distinct_supporting_sources == 2
    assert done.suggested_level == CORROBORATED and done.memory.evidence_level == CORROBORATED


async def test_assessor_contradictions_and_official_pin(make_tenant: Any) -> None:
    t = await make_tenant()
    ev = evidence_stub(t)
    official = await _memory(
        t,
        "The API rate limit is 100 requests per minute",
        source="docs",
        evidence_level=OFFICIAL,
    )
    claim = await _memory(t, "The API rate limit is 500 requests per minute", source="forum")
    report = await ev.AssessMemory(_assess(claim.name))
    assert report.suggested_level == UNVERIFIED
    assert [c.memory.name for c in report.contradicting] == [official.name]
    assert "numbers differ" in report.contradicting[0].explanation
    done = await ev.AssessMemory(_assess(claim.name, apply=True))
    assert done.applied and done.memory.evidence_level == UNVERIFIED
    assert done.conflict.detector == "official_pin"
    assert sorted(done.conflict.memories) == sorted([claim.name, official.name])
    untouched = await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=official.name))
    assert untouched.evidence_level == OFFICIAL and untouched.status == ACTIVE
    # The official memory itself is never regraded by the assessor.
    on_official = await ev.AssessMemory(_assess(official.name, apply=True))
    assert on_official.memory.evidence_level == OFFICIAL and not on_official.applied
    # Negation and antonyms contradict too.
    bob = await _memory(t, "Bob is allergic to peanuts", space="people", source="bob")
    await _memory(t, "Bob is not allergic to peanuts", space="people", source="mum")
    negated = await ev.AssessMemory(_assess(bob.name))
    assert negated.contradicting and negated.suggested_level == SINGLE
    up = await _memory(t, "The staging server is online", space="ops", source="probe")
    await _memory(t, "The staging server is offline", space="ops", source="pager")
    assert (await ev.AssessMemory(_assess(up.name))).contradicting


async def test_assessor_independence_and_scopes(make_tenant: Any) -> None:
    t = await make_tenant()
    agent_key = await t.new_key(agent="agent-7")
    agent = t.lifecycle.__class__(t.channel_for(agent_key))
    claim = (
        await propose(
            agent,
            "s",
            "The cache hit rate is 93 percent",
            source="dash",
            origin=types_pb2.MEMORY_ORIGIN_AGENT_INFERRED,
        )
    ).memory
    # The same agent's own inferences, from other sources, do not corroborate it.
    for source in ("metrics", "logs"):
        await propose(
            agent,
            "s",
            f"The cache hit rate is 93 percent per {source}",
            source=source,
            origin=types_pb2.MEMORY_ORIGIN_AGENT_INFERRED,
        )
    ev = evidence_stub(t)
    report = await ev.AssessMemory(_assess(claim.name))
    assert len(report.supporting) == 2 and report.distinct_supporting_sources == 0
    assert report.suggested_level == SINGLE
    # Another writer's observations do.
    for source in ("grafana", "prometheus"):
        await _memory(
            t,
            f"The cache hit rate is 93 percent in {source}",
            space="s",
            source=source,
            origin=types_pb2.MEMORY_ORIGIN_TOOL_OBSERVED,
        )
    assert (await ev.AssessMemory(_assess(claim.name))).suggested_level == CORROBORATED
    reader = evidence_stub(t, await t.new_key(scopes=("read",)))
    assert (await reader.AssessMemory(_assess(claim.name))).suggested_level == CORROBORATED
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await reader.AssessMemory(_assess(claim.name, apply=True))
    assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await ev.AssessMemory(_assess(claim.name, min_corroboration=-1))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert field_violations(err.value) == ["min_corroboration"]


async def test_assessor_slot_agreement_across_spaces(make_tenant: Any) -> None:
    t = await make_tenant()
    ev = evidence_stub(t)
    claim = await _memory(
        t, "Alice works at Acme", space="hr", slot_key="alice::employer", source="alice"
    )
    await _memory(
        t,
        "Alice is employed by Acme",
        space="crm",
        slot_key="alice::employer",
        source="linkedin",
    )
    await _memory(
        t, "Alice works at Globex", space="wiki", slot_key="alice::employer", source="wiki"
    )
    report = await ev.AssessMemory(_assess(claim.name, spaces=["hr", "crm", "wiki"]))
    assert [s.memory.space for s in report.supporting] == ["crm"]
    assert [c.memory.space for c in report.contradicting] == ["wiki"]
    assert "same slot" in report.contradicting[0].explanation


async def test_assess_on_write_runs_off_the_write_path(make_tenant: Any) -> None:
    t = await make_tenant()
    await t.lifecycle.SetPolicy(
        lifecycle_pb2.SetPolicyRequest(
            policy=lifecycle_pb2.Policy(name="spaces/wire/policy", assess_on_write=True)
        )
    )
    first = await _memory(t, "The bridge reopens on 3 May", space="wire", source="city")
    second = await _memory(
        t, "The bridge reopens on 3 May, the city said", space="wire", source="radio"
    )
    third = await _memory(
        t, "The bridge reopens on 3 May says the paper", space="wire", source="paper"
    )
    # The proposal answered before any grade was written.
    assert third.evidence_level == types_pb2.EVIDENCE_LEVEL_UNSPECIFIED
    grades: dict[str, int] = {}
    for _ in range(150):
        for m in (first, second, third):
            got = await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=m.name))
            grades[m.name] = got.evidence_level
        if grades[third.name] == CORROBORATED and all(grades.values()):
            break
        await asyncio.sleep(0.2)
    assert grades[third.name] == CORROBORATED
    assert grades[first.name] in (SINGLE, CORROBORATED)
    # A space without the policy is never graded.
    plain = await _memory(t, "The bridge reopens on 3 May", space="elsewhere", source="x")
    await asyncio.sleep(1.0)
    got = await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=plain.name))
    assert got.evidence_level == types_pb2.EVIDENCE_LEVEL_UNSPECIFIED


async def test_assessor_llm_path(make_tenant: Any, app: Any) -> None:
    import json

    from tests.llm_server import LocalChatServer
    from tests.test_learn import use_llm_server

    t = await make_tenant()
    ev = evidence_stub(t)
    claim = await _memory(t, "Our SLA promises four nines", space="llm", source="contract")
    await _memory(t, "The contract guarantees 99.99% availability", space="llm", source="legal")
    await _memory(t, "Uptime commitments are only 99.9%", space="llm", source="sales")

    def responder(messages: list[dict[str, str]]) -> str:
        prompt = messages[-1]["content"]
        judgements = []
        for line in prompt.splitlines():
            head, _, text = line.partition(". ")
            if head.isdigit():
                verdict = (
                    "agree"
                    if "99.99" in text
                    else "contradict"
                    if "99.9" in text
                    else ("unrelated")
                )
                judgements.append({"index": int(head), "verdict": verdict, "reason": "test"})
        return json.dumps({"judgements": judgements})

    with LocalChatServer(responder) as chat:
        await use_llm_server(app, t.tenant_id, chat)
        report = await ev.AssessMemory(_assess(claim.name, use_llm=True))
        assert chat.requests, "the model was asked"
    assert [s.memory.source for s in report.supporting] == ["legal"]
    assert [c.memory.source for c in report.contradicting] == ["sales"]
    assert report.suggested_level == SINGLE
    assert report.supporting[0].explanation == "model: test"


async def test_dream_turns_contradictions_into_conflicts(make_tenant: Any) -> None:
    t = await make_tenant()
    ev = evidence_stub(t)
    a = await _memory(t, "The nightly build takes 10 minutes", space="dream")
    b = await _memory(t, "The nightly build takes 45 minutes", space="dream")
    await _memory(t, "Carol leads the payments team", space="dream")
    report = await t.lifecycle.Dream(lifecycle_pb2.DreamRequest(space="dream", dry_run=True))
    conflicts = [x for x in report.actions if x.action == "conflict"]
    assert len(conflicts) == 1 and sorted(conflicts[0].memories) == sorted([a.name, b.name])
    assert not (await ev.ListConflicts(evidence_pb2.ListConflictsRequest())).conflicts
    applied = await t.lifecycle.Dream(lifecycle_pb2.DreamRequest(space="dream", dry_run=False))
    assert [x.action for x in applied.actions if x.action == "conflict"] == ["conflict"]
    listed = await ev.ListConflicts(evidence_pb2.ListConflictsRequest(space="dream"))
    assert [c.detector for c in listed.conflicts] == ["dream"]
    for m in (a, b):  # nothing retracted
        got = await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=m.name))
        assert got.status == ACTIVE


async def test_space_profile_classifies_pins_and_keeps_runs(make_tenant: Any) -> None:
    from datetime import UTC, datetime, timedelta

    from google.protobuf.timestamp_pb2 import Timestamp

    t = await make_tenant()
    ev = evidence_stub(t)
    for i in range(4):
        await _memory(t, f"Stable fact number {i} about the warehouse", space="kb2")
    later = Timestamp()
    later.FromDatetime(datetime.now(UTC) + timedelta(days=10))
    profile = await ev.GetSpaceProfile(
        evidence_pb2.GetSpaceProfileRequest(name="spaces/kb2/profile", now=later)
    )
    assert profile.live_memory_count == 4 and profile.total_memory_count == 4
    assert profile.stability == 1.0 and profile.churn == 0.0
    assert profile.space_class == evidence_pb2.SPACE_CLASS_CANONICAL
    assert profile.memories_by_status == {"MEMORY_STATUS_ACTIVE": 4}
    assert profile.live_memories_by_evidence == {"EVIDENCE_LEVEL_UNSPECIFIED": 4}
    # Churn: a slot rewritten over and over.
    for i in range(6):
        await _memory(t, f"Ticket 7 status is step {i}", space="inbox", slot_key="ticket7::status")
    busy = await ev.GetSpaceProfile(
        evidence_pb2.GetSpaceProfileRequest(name="spaces/inbox/profile")
    )
    assert busy.space_class == evidence_pb2.SPACE_CLASS_CORRESPONDENCE
    assert busy.max_supersession_depth == 5 and busy.deprecation_ratio == pytest.approx(5 / 6)
    # A pin is never relabelled; the observation is reported as drift.
    await t.lifecycle.SetPolicy(
        lifecycle_pb2.SetPolicyRequest(
            policy=lifecycle_pb2.Policy(name="spaces/inbox/policy", pinned_space_class="canonical")
        )
    )
    pinned = await ev.GetSpaceProfile(
        evidence_pb2.GetSpaceProfileRequest(name="spaces/inbox/profile")
    )
    assert pinned.space_class == evidence_pb2.SPACE_CLASS_CANONICAL
    assert pinned.observed_class == evidence_pb2.SPACE_CLASS_CORRESPONDENCE and pinned.drift
    dry = await ev.GetSpaceProfile(
        evidence_pb2.GetSpaceProfileRequest(name="spaces/inbox/profile", dry_run=True)
    )
    assert dry.drift
    runs = await ev.ListSpaceProfiles(evidence_pb2.ListSpaceProfilesRequest(space="inbox"))
    assert len(runs.profiles) == 2  # the dry run was not kept
    first = await ev.ListSpaceProfiles(
        evidence_pb2.ListSpaceProfilesRequest(space="inbox", page_size=1)
    )
    rest = await ev.ListSpaceProfiles(
        evidence_pb2.ListSpaceProfilesRequest(
            space="inbox", page_size=1, page_token=first.next_page_token
        )
    )
    assert first.next_page_token and not rest.next_page_token
    assert [p.compute_time for p in (*first.profiles, *rest.profiles)] == [
        p.compute_time for p in runs.profiles
    ]
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await ev.ListSpaceProfiles(
            evidence_pb2.ListSpaceProfilesRequest(space="kb2", page_token=first.next_page_token)
        )
    assert field_violations(err.value) == ["page_token"]
    drifting = await ev.ListSpaceProfiles(evidence_pb2.ListSpaceProfilesRequest(drift_only=True))
    assert [p.space for p in drifting.profiles] == ["inbox"]
    empty = await ev.GetSpaceProfile(
        evidence_pb2.GetSpaceProfileRequest(name="spaces/void/profile")
    )
    assert empty.space_class == evidence_pb2.SPACE_CLASS_UNSPECIFIED
    for bad in ("spaces/profile", "kb2", "spaces/a b/profile"):
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await ev.GetSpaceProfile(evidence_pb2.GetSpaceProfileRequest(name=bad))
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_learn_in_correspondence_stores_attributed_events(make_tenant: Any) -> None:
    from tests.test_learn import learn, turn

    t = await make_tenant()
    turns = [turn("user", "My name is Ada Byron. I moved to Lisbon in May.")]
    facts = await learn(t, "notes", turns)
    stored = [r.memory for r in facts.results if r.memory.name]
    assert stored and all(m.origin == types_pb2.MEMORY_ORIGIN_USER_STATED for m in stored)
    assert any(m.slot_key for m in stored)
    await t.lifecycle.SetPolicy(
        lifecycle_pb2.SetPolicyRequest(
            policy=lifecycle_pb2.Policy(
                name="spaces/mail/policy", pinned_space_class="correspondence"
            )
        )
    )
    events = await learn(t, "mail", turns)
    stored = [r.memory for r in events.results if r.memory.name]
    assert stored
    for m in stored:
        assert m.kind == types_pb2.MEMORY_KIND_EVENT and not m.slot_key
        assert m.content.startswith('the user said "') and m.HasField("valid_from")


def test_assessor_on_the_labelled_claims() -> None:
    from engram_server.evidence.evaluation import evaluate, load

    score = asyncio.run(evaluate(load())).as_dict()
    assert score["cases"] >= 30
    # The committed figures (eval/results/evidence.md); a regression shows here.
    assert score["corroborated_precision"] >= 0.95
    assert score["corroborated_recall"] >= 0.7
    assert score["contradiction_precision"] >= 0.85
    assert score["contradiction_recall"] >= 0.8


def test_eval_llm_path_against_a_local_model(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`engram eval evidence --llm-url` asks the model for every case's pairs and
    scores its verdicts like the deterministic path's; a model that knows the labels
    scores 1.0, and the report gains its rows. Without a model the report says so."""
    import json

    from engram_server.evidence.evaluation import build_parser, llm_config, load, main

    for name in ("URL", "MODEL", "PROVIDER", "API_KEY"):
        monkeypatch.delenv(f"ENGRAM_LLM_{name}", raising=False)
    labels = {
        (case["claim"]["content"], other["content"]): other["label"]
        for case in load()
        for other in case["others"]
    }

    def knows_the_labels(messages: list[dict[str, str]]) -> str:
        text = messages[-1]["content"]
        claim = text.splitlines()[0].removeprefix("CLAIM: ")
        judgements = []
        for line in text.splitlines()[2:]:
            head, _, statement = line.partition(". ")
            judgements.append(
                {"index": int(head), "verdict": labels[(claim, statement)], "reason": "label"}
            )
        return json.dumps({"judgements": judgements})

    from tests.llm_server import LocalChatServer

    out = tmp_path / "evidence.md"
    with LocalChatServer(knows_the_labels) as chat:
        assert main(["--llm-url", chat.url, "--llm-model", "labeller", "--out", str(out)]) == 0
        asked = len(chat.requests)
    rows = {r["path"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    cases = load()
    assert asked == 2 * len(cases)  # once per case for "all", once more in its split
    llm = rows["llm labeller (all)"]
    assert llm["cases"] == len(cases)
    for metric in ("contradiction", "agreement"):
        assert llm[f"{metric}_precision"] == llm[f"{metric}_recall"] == 1.0
    assert llm["grade_accuracy"] >= rows["deterministic (all)"]["grade_accuracy"]
    report = out.read_text()
    assert "| llm labeller (all) | " in report and "no figures" not in report

    # The server's own LLM settings are the defaults; flags win.
    parsed = build_parser().parse_args(["--llm-model", "flag"])
    config = llm_config(parsed, {"ENGRAM_LLM_URL": "http://m/v1", "ENGRAM_LLM_MODEL": "env"})
    assert (config.provider, config.base_url, config.model) == ("openai", "http://m/v1", "flag")
    assert llm_config(build_parser().parse_args([]), {}) is None
    monkeypatch.setenv("ENGRAM_LLM_URL", "http://127.0.0.1:9/v1")
    assert main(["--no-llm", "--out", str(out)]) == 0
    assert "llm" not in capsys.readouterr().out
    assert "The LLM path (`use_llm` on AssessMemory) has no figures here" in out.read_text()


async def test_a_purge_leaves_no_quote_of_a_conflict_in_the_audit_log(
    make_tenant: Any, raw_pg: Any
) -> None:
    """The assessor's reason for a conflict quotes the memories ("500 against
    100"): it stays on the conflict, which a purge deletes, not in the audit log."""
    t = await make_tenant()
    ev = evidence_stub(t)
    claim = await _memory(t, "The API rate limit is 500 requests per minute", source="wiki")
    await _memory(t, "The API rate limit is 100 requests per minute", source="runbook")
    await ev.AssessMemory(_assess(claim.name, apply=True))
    (conflict,) = (await ev.ListConflicts(evidence_pb2.ListConflictsRequest())).conflicts
    assert "500" in conflict.reason and "100" in conflict.reason
    await t.lifecycle.PurgeMemories(
        lifecycle_pb2.PurgeMemoriesRequest(space=claim.space, reason="erasure request")
    )
    cur = await raw_pg.execute(
        "SELECT action, reason FROM audit_log WHERE tenant_id = %s", (t.tenant_id,)
    )
    audited = await cur.fetchall()
    assert any(action == "CONFLICT" for action, _ in audited)
    assert not [reason for _, reason in audited if "500" in reason or "100" in reason]
