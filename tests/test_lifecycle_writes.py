"""Proposals, batches, dedup, idempotency, revisions, confidence, expiry, purge."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import grpc
import pytest
from engram.v1 import lifecycle_pb2, types_pb2
from google.protobuf.field_mask_pb2 import FieldMask
from google.protobuf.timestamp_pb2 import Timestamp

from tests.lifecycle_helpers import (
    ACTIVE,
    EXPIRED,
    PENDING,
    REJECTED,
    RETRACTED,
    count_rows,
    field_violations,
    proposal,
    propose,
)

OUTCOME = lifecycle_pb2.ProposalOutcome


async def test_propose_accepts_and_audits(make_tenant: Any, raw_pg: Any) -> None:
    t = await make_tenant()
    result = await propose(
        t.lifecycle,
        "team-a/agent-7",
        "Alice prefers Go for services",
        tags=["lang"],
        slot_key="alice::language",
        kind=types_pb2.MEMORY_KIND_PREFERENCE,
    )
    assert result.outcome == OUTCOME.Value("PROPOSAL_OUTCOME_ACCEPTED")
    m = result.memory
    assert m.status == ACTIVE and m.revision == 1 and m.etag and len(m.content_hash) == 64
    assert m.name.startswith("memories/") and m.kind == types_pb2.MEMORY_KIND_PREFERENCE
    audit = await t.lifecycle.ListAuditEntries(lifecycle_pb2.ListAuditEntriesRequest(memory=m.name))
    assert [(e.from_status, e.to_status) for e in audit.entries] == [
        (types_pb2.MEMORY_STATUS_UNSPECIFIED, types_pb2.MEMORY_STATUS_PROPOSED),
        (types_pb2.MEMORY_STATUS_PROPOSED, ACTIVE),
    ]
    assert await count_rows(raw_pg, "outbox", t.tenant_id) == 1


async def test_validators_decide_pending_and_rejected(make_tenant: Any) -> None:
    t = await make_tenant()
    schema = {
        "type": "object",
        "required": ["attribute", "value"],
        "properties": {"value": {"type": "string"}},
    }
    policy = lifecycle_pb2.Policy(
        name="spaces/facts/policy", min_confidence=0.5, json_schema_critical=True
    )
    policy.json_schema.update(schema)
    await t.lifecycle.SetPolicy(lifecycle_pb2.SetPolicyRequest(policy=policy))

    ok = proposal("facts", "language is Python")
    ok.structured_content.update({"attribute": "language", "value": "Python"})
    r = await t.lifecycle.ProposeMemory(lifecycle_pb2.ProposeMemoryRequest(proposal=ok))
    assert r.result.outcome == OUTCOME.Value("PROPOSAL_OUTCOME_ACCEPTED")

    low = proposal("facts", "os is Linux", confidence=0.3)
    low.structured_content.update({"attribute": "os", "value": "Linux"})
    r = await t.lifecycle.ProposeMemory(lifecycle_pb2.ProposeMemoryRequest(proposal=low))
    assert r.result.outcome == OUTCOME.Value("PROPOSAL_OUTCOME_PENDING_CONFIRMATION")
    assert r.result.memory.status == PENDING
    assert [f.validator for f in r.result.failures] == ["confidence_threshold"]

    bad = proposal("facts", "bad data")
    bad.structured_content.update({"bad": "data"})
    r = await t.lifecycle.ProposeMemory(lifecycle_pb2.ProposeMemoryRequest(proposal=bad))
    assert r.result.outcome == OUTCOME.Value("PROPOSAL_OUTCOME_REJECTED")
    assert r.result.memory.status == REJECTED
    assert r.result.failures[0].validator == "json_schema" and r.result.failures[0].critical

    # Other spaces keep the (empty) tenant default.
    r2 = await propose(t.lifecycle, "elsewhere", "low but fine", confidence=0.1)
    assert r2.outcome == OUTCOME.Value("PROPOSAL_OUTCOME_ACCEPTED")


async def test_batch_is_all_or_nothing(make_tenant: Any, raw_pg: Any) -> None:
    t = await make_tenant()
    good = [proposal("b", f"fact {i}") for i in range(5)]
    bad = proposal("b", "   ")  # blank content
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await t.lifecycle.BatchProposeMemories(
            lifecycle_pb2.BatchProposeMemoriesRequest(proposals=[*good, bad])
        )
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "proposals[5].content" in field_violations(err.value)
    # A failure discovered inside the transaction (unknown dependency) rolls back too.
    missing = proposal(
        "b", "depends on nothing", depends_on=["memories/00000000-0000-0000-0000-000000000000"]
    )
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await t.lifecycle.BatchProposeMemories(
            lifecycle_pb2.BatchProposeMemoriesRequest(proposals=[*good, missing])
        )
    assert err.value.code() == grpc.StatusCode.NOT_FOUND
    for table in ("memories", "audit_log", "outbox", "memory_revisions"):
        assert await count_rows(raw_pg, table, t.tenant_id) == 0, table

    response = await t.lifecycle.BatchProposeMemories(
        lifecycle_pb2.BatchProposeMemoriesRequest(proposals=[*good, proposal("b", "fact 2")])
    )
    outcomes = [r.outcome for r in response.results]
    assert outcomes[:5] == [OUTCOME.Value("PROPOSAL_OUTCOME_ACCEPTED")] * 5
    assert outcomes[5] == OUTCOME.Value("PROPOSAL_OUTCOME_DUPLICATE")
    assert response.results[5].memory.name == response.results[2].memory.name
    assert await count_rows(raw_pg, "memories", t.tenant_id) == 5


async def test_dedup_returns_the_live_memory(make_tenant: Any) -> None:
    t = await make_tenant()
    first = await propose(t.lifecycle, "d", "The build uses Bazel")
    again = await propose(t.lifecycle, "d", "  The build   uses Bazel ")
    assert again.outcome == OUTCOME.Value("PROPOSAL_OUTCOME_DUPLICATE")
    assert again.memory.name == first.memory.name
    other_space = await propose(t.lifecycle, "d2", "The build uses Bazel")
    assert other_space.outcome == OUTCOME.Value("PROPOSAL_OUTCOME_ACCEPTED")
    # Once retracted, the same content may be stored anew.
    await t.lifecycle.RetractMemory(
        lifecycle_pb2.RetractMemoryRequest(name=first.memory.name, reason="moved to make")
    )
    fresh = await propose(t.lifecycle, "d", "The build uses Bazel")
    assert fresh.outcome == OUTCOME.Value("PROPOSAL_OUTCOME_ACCEPTED")
    assert fresh.memory.name != first.memory.name


async def test_concurrent_identical_proposals_store_one(make_tenant: Any, raw_pg: Any) -> None:
    t = await make_tenant()
    results = await asyncio.gather(*(propose(t.lifecycle, "race", "same words") for _ in range(8)))
    assert len({r.memory.name for r in results}) == 1
    assert await count_rows(raw_pg, "memories", t.tenant_id) == 1


async def test_request_id_makes_retries_safe(make_tenant: Any, raw_pg: Any) -> None:
    t = await make_tenant()
    first = await propose(t.lifecycle, "i", "retry me", request_id="req-1")
    second = await propose(t.lifecycle, "i", "retry me", request_id="req-1")
    assert second.outcome == first.outcome == OUTCOME.Value("PROPOSAL_OUTCOME_ACCEPTED")
    assert second.memory.name == first.memory.name
    assert await count_rows(raw_pg, "audit_log", t.tenant_id) == 2
    # Concurrent retries of a retraction: one transition, the same answer.
    calls = [
        t.lifecycle.RetractMemory(
            lifecycle_pb2.RetractMemoryRequest(
                name=first.memory.name, reason="dup", request_id="req-2"
            )
        )
        for _ in range(4)
    ]
    answers = await asyncio.gather(*calls)
    assert {a.memory.status for a in answers} == {RETRACTED}
    assert await count_rows(raw_pg, "audit_log", t.tenant_id) == 3
    # Reusing an id for a different request is refused.
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await propose(t.lifecycle, "i", "something else", request_id="req-1")
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert field_violations(err.value) == ["request_id"]


async def test_a_retry_after_a_purge_took_the_memory_is_not_found(make_tenant: Any) -> None:
    """A write's retry after a purge erased the memory it named answers NOT_FOUND,
    as a read of it would, and never another memory of the first answer."""
    t = await make_tenant()
    await t.lifecycle.SetPolicy(
        lifecycle_pb2.SetPolicyRequest(
            policy=lifecycle_pb2.Policy(name="spaces/gone/policy", min_confidence=0.5)
        )
    )
    pending = (await propose(t.lifecycle, "gone", "held for review", confidence=0.2)).memory
    assert pending.status == PENDING
    raised = (await propose(t.lifecycle, "gone", "its confidence rises", confidence=0.6)).memory
    revised = (await propose(t.lifecycle, "gone", "its words change")).memory
    retracted = (await propose(t.lifecycle, "gone", "retracted with its dependent")).memory
    # The dependent lives in a space the purge leaves alone.
    dependent = (
        await propose(t.lifecycle, "kept", "depends on it", depends_on=[retracted.name])
    ).memory
    writes: list[tuple[Any, Any]] = [
        (
            t.lifecycle.ConfirmMemory,
            lifecycle_pb2.ConfirmMemoryRequest(name=pending.name, request_id="again-1"),
        ),
        (
            t.lifecycle.UpdateMemoryConfidence,
            lifecycle_pb2.UpdateMemoryConfidenceRequest(
                name=raised.name, confidence=0.7, request_id="again-2"
            ),
        ),
        (
            t.lifecycle.ReviseMemory,
            lifecycle_pb2.ReviseMemoryRequest(
                memory=types_pb2.Memory(name=revised.name, etag=revised.etag, content="new"),
                update_mask=FieldMask(paths=["content"]),
                request_id="again-3",
            ),
        ),
        (
            t.lifecycle.RetractMemory,
            lifecycle_pb2.RetractMemoryRequest(
                name=retracted.name, reason="wrong", cascade=True, request_id="again-4"
            ),
        ),
    ]
    for method, request in writes:
        await method(request)
    await t.lifecycle.PurgeMemories(
        lifecycle_pb2.PurgeMemoriesRequest(space="gone", reason="erasure request")
    )
    for method, request in writes:
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await method(request)
        assert err.value.code() == grpc.StatusCode.NOT_FOUND, type(request).__name__
    kept = await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=dependent.name))
    assert kept.status == RETRACTED


async def test_confidence_only_rises(make_tenant: Any) -> None:
    t = await make_tenant()
    m = (await propose(t.lifecycle, "c", "confidence test", confidence=0.4)).memory
    up = await t.lifecycle.UpdateMemoryConfidence(
        lifecycle_pb2.UpdateMemoryConfidenceRequest(
            name=m.name, confidence=0.8, reason="seen twice"
        )
    )
    assert up.confidence == pytest.approx(0.8)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await t.lifecycle.UpdateMemoryConfidence(
            lifecycle_pb2.UpdateMemoryConfidenceRequest(name=m.name, confidence=0.5)
        )
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    still = await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=m.name))
    assert still.confidence == pytest.approx(0.8)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await t.lifecycle.UpdateMemoryConfidence(
            lifecycle_pb2.UpdateMemoryConfidenceRequest(name=m.name, confidence=1.5)
        )
    assert field_violations(err.value) == ["confidence"]


async def test_revise_keeps_every_revision_and_checks_etag(make_tenant: Any) -> None:
    t = await make_tenant()
    m = (await propose(t.lifecycle, "r", "Deploys happen on Fridays")).memory
    revised = await t.lifecycle.ReviseMemory(
        lifecycle_pb2.ReviseMemoryRequest(
            memory=types_pb2.Memory(
                name=m.name, etag=m.etag, content="Deploys happen on Tuesdays", tags=["ops"]
            ),
            update_mask=FieldMask(paths=["content", "tags"]),
        )
    )
    assert revised.revision == 2 and revised.content.endswith("Tuesdays")
    assert list(revised.tags) == ["ops"] and revised.etag != m.etag
    with pytest.raises(grpc.aio.AioRpcError) as err:  # stale etag
        await t.lifecycle.ReviseMemory(
            lifecycle_pb2.ReviseMemoryRequest(
                memory=types_pb2.Memory(name=m.name, etag=m.etag, content="x"),
                update_mask=FieldMask(paths=["content"]),
            )
        )
    assert err.value.code() == grpc.StatusCode.ABORTED
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await t.lifecycle.ReviseMemory(
            lifecycle_pb2.ReviseMemoryRequest(
                memory=types_pb2.Memory(name=m.name, etag=revised.etag, status=EXPIRED),
                update_mask=FieldMask(paths=["status"]),
            )
        )
    assert field_violations(err.value) == ["update_mask"]
    revisions = await t.lifecycle.ListMemoryRevisions(
        lifecycle_pb2.ListMemoryRevisionsRequest(name=m.name)
    )
    assert [r.revision for r in revisions.revisions] == [2, 1]
    assert revisions.revisions[1].memory.content == "Deploys happen on Fridays"


async def test_retract_cascades_to_dependents(make_tenant: Any) -> None:
    t = await make_tenant()
    root = (await propose(t.lifecycle, "g", "The API is v2")).memory
    child = (await propose(t.lifecycle, "g", "Clients call /v2", depends_on=[root.name])).memory
    grandchild = (await propose(t.lifecycle, "g", "SDK 2 uses /v2", depends_on=[child.name])).memory
    unrelated = (await propose(t.lifecycle, "g", "Logs go to Loki")).memory
    response = await t.lifecycle.RetractMemory(
        lifecycle_pb2.RetractMemoryRequest(name=root.name, reason="API is v3", cascade=True)
    )
    assert {m.name for m in response.cascaded} == {child.name, grandchild.name}
    for name, status in (
        (child.name, RETRACTED),
        (grandchild.name, RETRACTED),
        (unrelated.name, ACTIVE),
    ):
        got = await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=name))
        assert got.status == status


async def test_expiry_by_policy_ttl_and_sweeper(make_tenant: Any) -> None:
    t = await make_tenant()
    policy = lifecycle_pb2.Policy(name="spaces/ttl/policy")
    policy.default_ttl_seconds["MEMORY_KIND_EPISODIC"] = 3600
    await t.lifecycle.SetPolicy(lifecycle_pb2.SetPolicyRequest(policy=policy))
    episodic = (
        await propose(t.lifecycle, "ttl", "standup ran long", kind=types_pb2.MEMORY_KIND_EPISODIC)
    ).memory
    semantic = (await propose(t.lifecycle, "ttl", "standup is at 10")).memory
    assert episodic.HasField("expire_time") and not semantic.HasField("expire_time")
    ttl = episodic.expire_time.ToDatetime(tzinfo=UTC) - episodic.create_time.ToDatetime(tzinfo=UTC)
    assert timedelta(minutes=59) < ttl <= timedelta(hours=1, seconds=5)

    later = Timestamp()
    later.FromDatetime(datetime.now(UTC) + timedelta(hours=2))
    response = await t.lifecycle.ExpireDueMemories(
        lifecycle_pb2.ExpireDueMemoriesRequest(as_of=later)
    )
    assert list(response.names) == [episodic.name]
    got = await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=episodic.name))
    assert got.status == EXPIRED

    # The background sweeper expires due memories without being asked.
    soon = Timestamp()
    soon.FromDatetime(datetime.now(UTC) + timedelta(milliseconds=300))
    m = (await propose(t.lifecycle, "ttl", "short lived", expire_time=soon)).memory
    for _ in range(600):  # the sweeper runs every 0.5 s; a minute for a loaded machine
        got = await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=m.name))
        if got.status == EXPIRED:
            break
        await asyncio.sleep(0.1)
    assert got.status == EXPIRED
    audit = await t.lifecycle.ListAuditEntries(lifecycle_pb2.ListAuditEntriesRequest(memory=m.name))
    assert audit.entries[-1].actor == "system"


async def test_purge_deletes_and_leaves_a_tombstone(make_tenant: Any, raw_pg: Any) -> None:
    t = await make_tenant()
    for i in range(3):
        await propose(t.lifecycle, "users/42", f"user fact {i}", session="s1")
    await propose(t.lifecycle, "users/42", "other session", session="s2")
    kept = (await propose(t.lifecycle, "users/43", "another user")).memory
    response = await t.lifecycle.PurgeMemories(
        lifecycle_pb2.PurgeMemoriesRequest(space="users/42", session="s1", reason="GDPR-123")
    )
    assert response.purged_count == 3
    assert response.tombstone.action == types_pb2.AUDIT_ACTION_PURGE
    assert "GDPR-123" in response.tombstone.reason
    response = await t.lifecycle.PurgeMemories(
        lifecycle_pb2.PurgeMemoriesRequest(space="users/42", reason="GDPR-124")
    )
    assert response.purged_count == 1
    listed = await t.lifecycle.ListMemories(lifecycle_pb2.ListMemoriesRequest())
    assert [m.name for m in listed.memories] == [kept.name]
    assert await count_rows(raw_pg, "memory_revisions", t.tenant_id) == 1
    usage = await t.admin.GetUsage(_usage_request(t.tenant_id))
    assert usage.live_memories == 1


def _usage_request(tenant_id: str) -> Any:
    from engram.v1 import admin_pb2

    return admin_pb2.GetUsageRequest(name=f"tenants/{tenant_id}")


async def test_the_audit_log_names_failed_validators_without_their_messages(
    make_tenant: Any, raw_pg: Any
) -> None:
    """A JSON Schema's message quotes the value it refuses; the audit log, which
    outlives a purge, names the validator only (the memory, purged, keeps the note),
    and a purge empties the failures kept for the proposal's retries."""
    t = await make_tenant()
    policy = lifecycle_pb2.Policy(name="spaces/people/policy", json_schema_critical=False)
    policy.json_schema.update({"type": "object", "properties": {"age": {"type": "integer"}}})
    await t.lifecycle.SetPolicy(lifecycle_pb2.SetPolicyRequest(policy=policy))
    held = proposal("people", "a person record")
    held.structured_content.update({"age": "Zebulon Quartermaine"})
    request = lifecycle_pb2.ProposeMemoryRequest(proposal=held, request_id="held-1")
    r = await t.lifecycle.ProposeMemory(request)
    assert r.result.memory.status == PENDING
    assert "Zebulon" in r.result.failures[0].message  # the caller is told why
    audit = await t.lifecycle.ListAuditEntries(
        lifecycle_pb2.ListAuditEntriesRequest(memory=r.result.memory.name)
    )
    assert audit.entries[-1].reason == "failed validators: json_schema"
    await t.lifecycle.PurgeMemories(
        lifecycle_pb2.PurgeMemoriesRequest(space="people", reason="erasure request")
    )
    audit = await t.lifecycle.ListAuditEntries(
        lifecycle_pb2.ListAuditEntriesRequest(space="people")
    )
    assert audit.entries
    assert not [e for e in audit.entries if "Zebulon" in str(e)]
    cur = await raw_pg.execute(
        "SELECT result::text FROM idempotency WHERE tenant_id = %s", (t.tenant_id,)
    )
    kept = [row[0] for row in await cur.fetchall()]
    assert kept and not [k for k in kept if "Zebulon" in k]
    with pytest.raises(grpc.aio.AioRpcError) as err:  # a retry finds its memory gone
        await t.lifecycle.ProposeMemory(request)
    assert err.value.code() == grpc.StatusCode.NOT_FOUND


async def test_audit_log_is_append_only(make_tenant: Any, raw_pg: Any) -> None:
    t = await make_tenant()
    await propose(t.lifecycle, "a", "audited")
    import psycopg

    for statement in (
        "UPDATE audit_log SET actor = 'mallory' WHERE tenant_id = %s",
        "DELETE FROM audit_log WHERE tenant_id = %s",
    ):
        with pytest.raises(psycopg.Error):
            async with raw_pg.transaction():
                await raw_pg.execute(statement, (t.tenant_id,))
    with pytest.raises(psycopg.Error):
        async with raw_pg.transaction():
            await raw_pg.execute("TRUNCATE audit_log")
    assert await count_rows(raw_pg, "audit_log", t.tenant_id) == 2


async def test_quota_on_live_memories(make_tenant: Any, raw_pg: Any) -> None:
    t = await make_tenant()
    await raw_pg.execute("UPDATE tenants SET quota_max_memories = 2 WHERE id = %s", (t.tenant_id,))
    await propose(t.lifecycle, "q", "one")
    await propose(t.lifecycle, "q", "two")
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await propose(t.lifecycle, "q", "three")
    assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert await count_rows(raw_pg, "memories", t.tenant_id) == 2
