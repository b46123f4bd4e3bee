"""Tenant isolation on every LifecycleService RPC."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest
from engram.v1 import lifecycle_pb2, types_pb2
from google.protobuf.field_mask_pb2 import FieldMask

from tests.lifecycle_helpers import PENDING, propose


async def test_tenant_b_cannot_touch_tenant_a(make_tenant: Any) -> None:
    a = await make_tenant()
    b = await make_tenant()
    await a.lifecycle.SetPolicy(
        lifecycle_pb2.SetPolicyRequest(
            policy=lifecycle_pb2.Policy(name="spaces/shared/policy", min_confidence=0.5)
        )
    )
    active = (await propose(a.lifecycle, "shared", "A's secret plan")).memory
    pending = (await propose(a.lifecycle, "shared", "A's doubt", confidence=0.1)).memory
    assert pending.status == PENDING

    calls = {
        "GetMemory": b.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=active.name)),
        "ConfirmMemory": b.lifecycle.ConfirmMemory(
            lifecycle_pb2.ConfirmMemoryRequest(name=pending.name)
        ),
        "RejectMemory": b.lifecycle.RejectMemory(
            lifecycle_pb2.RejectMemoryRequest(name=pending.name)
        ),
        "RetractMemory": b.lifecycle.RetractMemory(
            lifecycle_pb2.RetractMemoryRequest(name=active.name, reason="x")
        ),
        "ReviseMemory": b.lifecycle.ReviseMemory(
            lifecycle_pb2.ReviseMemoryRequest(
                memory=types_pb2.Memory(name=active.name, etag=active.etag, content="pwned"),
                update_mask=FieldMask(paths=["content"]),
            )
        ),
        "UpdateMemoryConfidence": b.lifecycle.UpdateMemoryConfidence(
            lifecycle_pb2.UpdateMemoryConfidenceRequest(name=active.name, confidence=1.0)
        ),
        "ListMemoryRevisions": b.lifecycle.ListMemoryRevisions(
            lifecycle_pb2.ListMemoryRevisionsRequest(name=active.name)
        ),
        "ProposeMemory(depends_on)": b.lifecycle.ProposeMemory(
            lifecycle_pb2.ProposeMemoryRequest(
                proposal=lifecycle_pb2.MemoryProposal(
                    space="x", content="y", depends_on=[active.name]
                )
            )
        ),
    }
    for label, call in calls.items():
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await call
        assert err.value.code() == grpc.StatusCode.NOT_FOUND, label

    # Lists, audit, purge, expiry and policies only ever see B's own rows.
    listed = await b.lifecycle.ListMemories(lifecycle_pb2.ListMemoriesRequest())
    assert list(listed.memories) == []
    audit = await b.lifecycle.ListAuditEntries(lifecycle_pb2.ListAuditEntriesRequest())
    assert list(audit.entries) == []
    audit = await b.lifecycle.ListAuditEntries(
        lifecycle_pb2.ListAuditEntriesRequest(memory=active.name)
    )
    assert list(audit.entries) == []
    purged = await b.lifecycle.PurgeMemories(
        lifecycle_pb2.PurgeMemoriesRequest(space="shared", reason="attack")
    )
    assert purged.purged_count == 0
    policy = await b.lifecycle.GetPolicy(
        lifecycle_pb2.GetPolicyRequest(name="spaces/shared/policy")
    )
    assert policy.min_confidence == 0
    # Identical content in B is B's own memory, never a duplicate of A's.
    mine = await propose(b.lifecycle, "shared", "A's secret plan")
    assert mine.outcome == lifecycle_pb2.PROPOSAL_OUTCOME_ACCEPTED
    assert mine.memory.name != active.name
    # A still has everything, unchanged.
    got = await a.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=active.name))
    assert got.content == "A's secret plan" and got.confidence == active.confidence
    listed_a = await a.lifecycle.ListMemories(lifecycle_pb2.ListMemoriesRequest())
    assert len(listed_a.memories) == 2


async def test_watch_never_crosses_tenants(make_tenant: Any) -> None:
    a = await make_tenant()
    b = await make_tenant()
    stream = b.lifecycle.WatchTransitions(lifecycle_pb2.WatchTransitionsRequest(cursor="0"))
    received: list[Any] = []

    async def consume() -> None:
        async for event in stream:
            received.append(event)

    task = asyncio.create_task(consume())
    await propose(a.lifecycle, "w", "only for A")
    await propose(b.lifecycle, "w", "only for B")
    for _ in range(1200):  # up to a minute on a loaded machine
        if len(received) >= 2:
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.2)
    stream.cancel()
    task.cancel()
    assert [e.memory.content for e in received] == ["only for B", "only for B"]
