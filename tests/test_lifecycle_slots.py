"""Slot-addressed supersession: one ACTIVE memory per slot, even under races."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest
from engram.v1 import lifecycle_pb2, types_pb2
from google.protobuf.field_mask_pb2 import FieldMask

from tests.lifecycle_helpers import ACTIVE, PENDING, SUPERSEDED, proposal, propose


async def _active_in_slot(t: Any, space: str, slot: str) -> list[Any]:
    listed = await t.lifecycle.ListMemories(
        lifecycle_pb2.ListMemoriesRequest(space=space, statuses=[ACTIVE], page_size=1000)
    )
    return [m for m in listed.memories if m.slot_key == slot]


async def test_new_slot_value_supersedes_the_old(make_tenant: Any, raw_pg: Any) -> None:
    t = await make_tenant()
    old = (
        await propose(t.lifecycle, "p", "Alice works at Acme", slot_key="alice::employer")
    ).memory
    new = (
        await propose(t.lifecycle, "p", "Alice works at Globex", slot_key="alice::employer")
    ).memory
    got = await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=old.name))
    assert got.status == SUPERSEDED and got.superseded_by == new.name
    assert [m.name for m in await _active_in_slot(t, "p", "alice::employer")] == [new.name]
    audit = await t.lifecycle.ListAuditEntries(
        lifecycle_pb2.ListAuditEntriesRequest(memory=old.name)
    )
    assert audit.entries[-1].to_status == SUPERSEDED
    assert new.name in audit.entries[-1].reason
    # The audit log outlives a purge: it names the slot's new holder, never the key.
    assert "alice" not in audit.entries[-1].reason
    cur = await raw_pg.execute(
        "SELECT kind FROM edges WHERE tenant_id = %s AND source_id = %s AND target_id = %s",
        (t.tenant_id, new.name.split("/")[1], old.name.split("/")[1]),
    )
    assert [r[0] for r in await cur.fetchall()] == ["SUPERSEDES"]
    # Other slots and other spaces are untouched.
    other = (
        await propose(t.lifecycle, "p2", "Alice works at Initech", slot_key="alice::employer")
    ).memory
    assert other.status == ACTIVE


async def test_batch_keeps_the_last_value_per_slot(make_tenant: Any) -> None:
    t = await make_tenant()
    response = await t.lifecycle.BatchProposeMemories(
        lifecycle_pb2.BatchProposeMemoriesRequest(
            proposals=[
                proposal("b", f"Bob lives in city {i}", slot_key="bob::city") for i in range(3)
            ]
        )
    )
    statuses = [r.memory.status for r in response.results]
    assert statuses == [SUPERSEDED, SUPERSEDED, ACTIVE]
    assert response.results[0].memory.superseded_by == response.results[2].memory.name


async def test_pending_memory_supersedes_when_confirmed(make_tenant: Any) -> None:
    t = await make_tenant()
    await t.lifecycle.SetPolicy(
        lifecycle_pb2.SetPolicyRequest(
            policy=lifecycle_pb2.Policy(name="spaces/c/policy", min_confidence=0.5)
        )
    )
    old = (await propose(t.lifecycle, "c", "Carol uses vim", slot_key="carol::editor")).memory
    doubt = (
        await propose(
            t.lifecycle, "c", "Carol uses emacs", slot_key="carol::editor", confidence=0.2
        )
    ).memory
    assert doubt.status == PENDING
    assert (
        await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=old.name))
    ).status == ACTIVE
    confirmed = await t.lifecycle.ConfirmMemory(lifecycle_pb2.ConfirmMemoryRequest(name=doubt.name))
    assert confirmed.status == ACTIVE
    got = await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=old.name))
    assert got.status == SUPERSEDED and got.superseded_by == doubt.name
    audit = await t.lifecycle.ListAuditEntries(
        lifecycle_pb2.ListAuditEntriesRequest(memory=old.name)
    )
    assert audit.entries[-1].to_status == SUPERSEDED
    assert doubt.name in audit.entries[-1].reason
    # The audit log outlives a purge: it names the slot's new holder, never the key.
    assert "carol" not in audit.entries[-1].reason


async def test_concurrent_writers_leave_one_active_and_a_chain(make_tenant: Any) -> None:
    t = await make_tenant()
    results = await asyncio.gather(
        *(
            propose(t.lifecycle, "race", f"Dan's phone is model {i}", slot_key="dan::phone")
            for i in range(8)
        )
    )
    assert len({r.memory.name for r in results}) == 8
    active = await _active_in_slot(t, "race", "dan::phone")
    assert len(active) == 1
    listed = await t.lifecycle.ListMemories(lifecycle_pb2.ListMemoriesRequest(space="race"))
    superseded = [m for m in listed.memories if m.status == SUPERSEDED]
    assert len(superseded) == 7
    # Every superseded memory points at a memory that exists: a chain, nothing lost.
    names = {m.name for m in listed.memories}
    assert all(m.superseded_by in names for m in superseded)


async def test_compare_and_set_refuses_a_stale_writer(make_tenant: Any) -> None:
    t = await make_tenant()
    first = (
        await propose(
            t.lifecycle, "cas", "Eve's team is red", slot_key="eve::team", expected_slot_memory=""
        )
    ).memory
    assert first.status == ACTIVE
    second = (
        await propose(
            t.lifecycle,
            "cas",
            "Eve's team is blue",
            slot_key="eve::team",
            expected_slot_memory=first.name,
        )
    ).memory
    assert second.status == ACTIVE
    with pytest.raises(grpc.aio.AioRpcError) as err:  # still believes `first` holds the slot
        await propose(
            t.lifecycle,
            "cas",
            "Eve's team is green",
            slot_key="eve::team",
            expected_slot_memory=first.name,
        )
    assert err.value.code() == grpc.StatusCode.ABORTED
    with pytest.raises(grpc.aio.AioRpcError) as err:  # expects an empty slot
        await propose(
            t.lifecycle, "cas", "Eve's team is gold", slot_key="eve::team", expected_slot_memory=""
        )
    assert err.value.code() == grpc.StatusCode.ABORTED
    assert [m.name for m in await _active_in_slot(t, "cas", "eve::team")] == [second.name]


async def test_revising_into_a_held_slot_is_refused(make_tenant: Any) -> None:
    t = await make_tenant()
    holder = (
        await propose(t.lifecycle, "rv", "Fay works at Acme", slot_key="fay::employer")
    ).memory
    other = (await propose(t.lifecycle, "rv", "Fay works at Globex")).memory
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await t.lifecycle.ReviseMemory(
            lifecycle_pb2.ReviseMemoryRequest(
                memory=types_pb2.Memory(name=other.name, etag=other.etag, slot_key="fay::employer"),
                update_mask=FieldMask(paths=["slot_key"]),
            )
        )
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert holder.name in (err.value.details() or "")
    assert [m.name for m in await _active_in_slot(t, "rv", "fay::employer")] == [holder.name]
    unchanged = await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=other.name))
    assert unchanged.slot_key == "" and unchanged.revision == other.revision
    # An empty slot, or the memory's own, can still be named.
    moved = await t.lifecycle.ReviseMemory(
        lifecycle_pb2.ReviseMemoryRequest(
            memory=types_pb2.Memory(name=other.name, etag=other.etag, slot_key="fay::city"),
            update_mask=FieldMask(paths=["slot_key"]),
        )
    )
    assert moved.slot_key == "fay::city" and moved.status == ACTIVE
