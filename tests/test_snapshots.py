"""Snapshots of a space over gRPC: create, read, delete, diff, and atomic restore."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import grpc
import psycopg
import pytest
from engram.v1 import admin_pb2, lifecycle_pb2, recall_pb2, recall_pb2_grpc, types_pb2
from engram_server.lifecycle.model import EvidenceLevel, Kind, Memory, Status, content_hash
from engram_server.recall import snapshots as model
from google.protobuf.field_mask_pb2 import FieldMask

from tests.lifecycle_helpers import (
    ACTIVE,
    PENDING,
    RETRACTED,
    count_rows,
    field_violations,
    propose,
)

ADDED = recall_pb2.SNAPSHOT_CHANGE_TYPE_ADDED
REMOVED = recall_pb2.SNAPSHOT_CHANGE_TYPE_REMOVED
CHANGED = recall_pb2.SNAPSHOT_CHANGE_TYPE_CHANGED


def recall(t: Any) -> recall_pb2_grpc.RecallServiceStub:
    return recall_pb2_grpc.RecallServiceStub(t.channel)


async def snapshot(t: Any, space: str, snapshot_id: str = "", **kw: Any) -> recall_pb2.Snapshot:
    request_id = kw.pop("request_id", "")
    return await recall(t).CreateSnapshot(
        recall_pb2.CreateSnapshotRequest(
            snapshot=recall_pb2.Snapshot(space=space, **kw),
            snapshot_id=snapshot_id,
            request_id=request_id,
        )
    )


async def get(t: Any, name: str) -> types_pb2.Memory:
    return await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=name))


async def retract(t: Any, name: str, reason: str = "wrong") -> None:
    await t.lifecycle.RetractMemory(lifecycle_pb2.RetractMemoryRequest(name=name, reason=reason))


async def revise(t: Any, m: types_pb2.Memory, **fields: Any) -> types_pb2.Memory:
    current = await get(t, m.name)
    return await t.lifecycle.ReviseMemory(
        lifecycle_pb2.ReviseMemoryRequest(
            memory=types_pb2.Memory(name=m.name, etag=current.etag, **fields),
            update_mask=FieldMask(paths=sorted(fields)),
        )
    )


async def live(t: Any, space: str) -> dict[str, types_pb2.Memory]:
    """Content -> live memory of a space."""
    response = await t.lifecycle.ListMemories(
        lifecycle_pb2.ListMemoriesRequest(space=space, statuses=[ACTIVE, PENDING], page_size=1000)
    )
    return {m.content: m for m in response.memories}


async def diff_all(t: Any, base: str, target: str = "", size: int = 0) -> list[Any]:
    changes: list[Any] = []
    token = ""
    while True:
        page = await recall(t).DiffSnapshots(
            recall_pb2.DiffSnapshotsRequest(
                base=base, target=target, page_size=size, page_token=token
            )
        )
        changes.extend(page.changes)
        token = page.next_page_token
        if not token:
            return changes


async def audit_rows(raw_pg: Any, tenant_id: str) -> list[tuple[Any, ...]]:
    cur = await raw_pg.execute(
        "SELECT seq, action, memory_id, from_status, to_status, reason, details"
        " FROM audit_log WHERE tenant_id = %s ORDER BY seq",
        (tenant_id,),
    )
    return list(await cur.fetchall())


async def expect(call: Any, code: grpc.StatusCode) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call
    assert err.value.code() == code, err.value.details()
    return err.value


# -- create, get, list, delete ------------------------------------------------------------


async def test_create_get_list_delete(make_tenant: Any, raw_pg: Any) -> None:
    t = await make_tenant()
    policy = lifecycle_pb2.Policy(name="spaces/proj/policy", min_confidence=0.5)
    await t.lifecycle.SetPolicy(lifecycle_pb2.SetPolicyRequest(policy=policy))
    await propose(t.lifecycle, "proj", "The API is versioned")
    pending = await propose(t.lifecycle, "proj", "Maybe we use gRPC", confidence=0.2)
    assert pending.memory.status == PENDING
    gone = await propose(t.lifecycle, "proj", "Deploys on Fridays")
    await retract(t, gone.memory.name)
    await propose(t.lifecycle, "proj/sub", "Sub-space fact")
    await propose(t.lifecycle, "other", "Unrelated")

    first = await snapshot(t, "proj", "before-refactor", description="before", labels={"by": "ci"})
    assert first.name == "snapshots/before-refactor"
    assert (first.space, first.memory_count, first.description) == ("proj", 2, "before")
    assert dict(first.labels) == {"by": "ci"} and first.creator.startswith("apiKeys/")
    assert first.create_time.seconds > 0
    audit = await t.lifecycle.ListAuditEntries(
        lifecycle_pb2.ListAuditEntriesRequest(space="proj", page_size=1000)
    )
    taken = audit.entries[-1]
    assert taken.action == types_pb2.AUDIT_ACTION_SNAPSHOT
    assert taken.sequence == first.audit_sequence
    assert taken.details["snapshot"] == first.name and taken.details["memory_count"] == "2"

    deep = await snapshot(t, "proj", include_subspaces=True)
    assert deep.memory_count == 3 and deep.include_subspaces
    assert uuid.UUID(deep.name.removeprefix("snapshots/"))  # server-assigned id
    assert deep.audit_sequence == first.audit_sequence + 1
    await snapshot(t, "other", "other-space")

    assert await recall(t).GetSnapshot(recall_pb2.GetSnapshotRequest(name=first.name)) == first
    listed = await recall(t).ListSnapshots(recall_pb2.ListSnapshotsRequest())
    assert [s.name for s in listed.snapshots] == ["snapshots/other-space", deep.name, first.name]
    page = await recall(t).ListSnapshots(recall_pb2.ListSnapshotsRequest(space="proj", page_size=1))
    assert [s.name for s in page.snapshots] == [deep.name] and page.next_page_token
    page = await recall(t).ListSnapshots(
        recall_pb2.ListSnapshotsRequest(space="proj", page_size=1, page_token=page.next_page_token)
    )
    assert [s.name for s in page.snapshots] == [first.name] and not page.next_page_token

    await expect(snapshot(t, "proj", "before-refactor"), grpc.StatusCode.ALREADY_EXISTS)
    await recall(t).DeleteSnapshot(recall_pb2.DeleteSnapshotRequest(name=first.name))
    await expect(
        recall(t).GetSnapshot(recall_pb2.GetSnapshotRequest(name=first.name)),
        grpc.StatusCode.NOT_FOUND,
    )
    await expect(
        recall(t).DeleteSnapshot(recall_pb2.DeleteSnapshotRequest(name=first.name)),
        grpc.StatusCode.NOT_FOUND,
    )
    rows = await audit_rows(raw_pg, t.tenant_id)
    assert rows[-1][1] == "SNAPSHOT" and rows[-1][6]["operation"] == "delete"
    # The memories it recorded are untouched, its copies are gone.
    assert len(await live(t, "proj")) == 2
    cur = await raw_pg.execute(
        "SELECT count(*) FROM snapshot_memories WHERE tenant_id = %s AND snapshot_id = %s",
        (t.tenant_id, "before-refactor"),
    )
    assert (await cur.fetchone())[0] == 0
    # The id is free again.
    again = await snapshot(t, "proj", "before-refactor")
    assert again.memory_count == 2


async def test_writes_are_idempotent(make_tenant: Any, raw_pg: Any) -> None:
    t = await make_tenant()
    await propose(t.lifecycle, "s", "one fact")
    first = await snapshot(t, "s", request_id="snap-1")
    await propose(t.lifecycle, "s", "another fact")
    retry = await snapshot(t, "s", request_id="snap-1")
    assert retry == first and retry.memory_count == 1
    listed = await recall(t).ListSnapshots(recall_pb2.ListSnapshotsRequest())
    assert len(listed.snapshots) == 1
    err = await expect(snapshot(t, "t", request_id="snap-1"), grpc.StatusCode.INVALID_ARGUMENT)
    assert field_violations(err) == ["request_id"]

    restore = recall_pb2.RestoreSnapshotRequest(name=first.name, request_id="restore-1")
    done = await recall(t).RestoreSnapshot(restore)
    assert done.retracted_count == 1 and done.audit_sequence > 0
    head = len(await audit_rows(raw_pg, t.tenant_id))
    await propose(t.lifecycle, "s", "a third fact")
    assert await recall(t).RestoreSnapshot(restore) == done
    assert len(await audit_rows(raw_pg, t.tenant_id)) == head + 2  # only the third proposal

    delete = recall_pb2.DeleteSnapshotRequest(name=first.name, request_id="del-1")
    await recall(t).DeleteSnapshot(delete)
    await recall(t).DeleteSnapshot(delete)  # a retry succeeds, as the first call did
    deletions = [r for r in await audit_rows(raw_pg, t.tenant_id) if r[1] == "SNAPSHOT"]
    assert [r[6]["operation"] for r in deletions] == ["create", "delete"]


async def test_bad_input_names_the_field(make_tenant: Any) -> None:
    t = await make_tenant()
    stub = recall(t)
    cases = [
        (stub.CreateSnapshot(recall_pb2.CreateSnapshotRequest()), ["snapshot.space"]),
        (
            stub.CreateSnapshot(
                recall_pb2.CreateSnapshotRequest(
                    snapshot=recall_pb2.Snapshot(space="bad space"), snapshot_id="Bad!"
                )
            ),
            ["snapshot.space", "snapshot_id"],
        ),
        (
            stub.CreateSnapshot(
                recall_pb2.CreateSnapshotRequest(
                    snapshot=recall_pb2.Snapshot(space="s", description="x" * 3000)
                )
            ),
            ["snapshot.description"],
        ),
        (stub.GetSnapshot(recall_pb2.GetSnapshotRequest(name="pools/x")), ["name"]),
        (stub.GetSnapshot(recall_pb2.GetSnapshotRequest()), ["name"]),
        (stub.DiffSnapshots(recall_pb2.DiffSnapshotsRequest()), ["base"]),
        (
            stub.DiffSnapshots(recall_pb2.DiffSnapshotsRequest(base="snapshots/a", target="b")),
            ["target"],
        ),
        (
            stub.DiffSnapshots(
                recall_pb2.DiffSnapshotsRequest(base="snapshots/a", page_token="garbage")
            ),
            ["page_token"],
        ),
        (stub.ListSnapshots(recall_pb2.ListSnapshotsRequest(page_size=5000)), ["page_size"]),
        (stub.ListSnapshots(recall_pb2.ListSnapshotsRequest(space="a//b")), ["space"]),
        (
            stub.RestoreSnapshot(
                recall_pb2.RestoreSnapshotRequest(name="snapshots/a", reason="x" * 3000)
            ),
            ["reason"],
        ),
    ]
    for call, fields in cases:
        err = await expect(call, grpc.StatusCode.INVALID_ARGUMENT)
        assert field_violations(err) == fields


async def test_scopes(make_tenant: Any) -> None:
    t = await make_tenant(scopes=("read",))
    await expect(snapshot(t, "s"), grpc.StatusCode.PERMISSION_DENIED)
    assert not (await recall(t).ListSnapshots(recall_pb2.ListSnapshotsRequest())).snapshots


async def test_tenants_never_see_each_others_snapshots(make_tenant: Any) -> None:
    a, b = await make_tenant(), await make_tenant()
    await propose(a.lifecycle, "shared-name", "A's secret")
    mine = await snapshot(a, "shared-name", "same-id")
    theirs = await snapshot(b, "shared-name", "same-id")  # ids are per tenant
    assert (mine.memory_count, theirs.memory_count) == (1, 0)
    await snapshot(a, "shared-name", "only-a")
    name = "snapshots/only-a"
    stub = recall(b)
    for call in (
        stub.GetSnapshot(recall_pb2.GetSnapshotRequest(name=name)),
        stub.RestoreSnapshot(recall_pb2.RestoreSnapshotRequest(name=name)),
        stub.RestoreSnapshot(recall_pb2.RestoreSnapshotRequest(name=name, validate_only=True)),
        stub.DeleteSnapshot(recall_pb2.DeleteSnapshotRequest(name=name)),
        stub.DiffSnapshots(recall_pb2.DiffSnapshotsRequest(base=name)),
        stub.DiffSnapshots(recall_pb2.DiffSnapshotsRequest(base=theirs.name, target=name)),
    ):
        await expect(call, grpc.StatusCode.NOT_FOUND)
    listed = await stub.ListSnapshots(recall_pb2.ListSnapshotsRequest())
    assert [s.name for s in listed.snapshots] == [theirs.name]
    # B's restore of its own empty snapshot leaves A's memories alone.
    await stub.RestoreSnapshot(recall_pb2.RestoreSnapshotRequest(name=theirs.name))
    assert list(await live(a, "shared-name")) == ["A's secret"]


# -- restore ---------------------------------------------------------------------------


async def test_restore_makes_the_space_equal_to_the_snapshot(make_tenant: Any, raw_pg: Any) -> None:
    t = await make_tenant()
    await t.lifecycle.SetPolicy(
        lifecycle_pb2.SetPolicyRequest(
            policy=lifecycle_pb2.Policy(name="spaces/s/policy", min_confidence=0.5)
        )
    )
    kept = (await propose(t.lifecycle, "s", "Kept as is")).memory
    changed = (await propose(t.lifecycle, "s", "Deploys on Tuesdays", tags=["ops"])).memory
    lost = (await propose(t.lifecycle, "s", "The DB is Postgres", importance=0.9)).memory
    child = (
        await propose(t.lifecycle, "s", "Use psycopg 3", depends_on=[lost.name], tags=["py"])
    ).memory
    doubtful = (await propose(t.lifecycle, "s", "Maybe Redis", confidence=0.2)).memory
    outside = (await propose(t.lifecycle, "elsewhere", "Not in scope")).memory
    snap = await snapshot(t, "s", "good")
    assert snap.memory_count == 5

    await revise(t, changed, content="Deploys on Mondays", tags=["ops", "weekly"])
    await t.lifecycle.RetractMemory(
        lifecycle_pb2.RetractMemoryRequest(name=lost.name, reason="oops", cascade=True)
    )
    await t.lifecycle.RejectMemory(lifecycle_pb2.RejectMemoryRequest(name=doubtful.name))
    added = (await propose(t.lifecycle, "s", "Written after the snapshot")).memory

    rows_before = await audit_rows(raw_pg, t.tenant_id)
    outbox_before = await count_rows(raw_pg, "outbox", t.tenant_id)
    dry = await recall(t).RestoreSnapshot(
        recall_pb2.RestoreSnapshotRequest(name=snap.name, validate_only=True)
    )
    expected = (1, 3, 1, 1)  # retracted, re-created, revised, unchanged
    assert (
        dry.retracted_count,
        dry.recreated_count,
        dry.revised_count,
        dry.unchanged_count,
    ) == expected
    assert dry.validate_only and dry.audit_sequence == 0
    assert await audit_rows(raw_pg, t.tenant_id) == rows_before
    assert (await get(t, added.name)).status == ACTIVE

    done = await recall(t).RestoreSnapshot(
        recall_pb2.RestoreSnapshotRequest(name=snap.name, reason="bad deploy")
    )
    assert (
        done.retracted_count,
        done.recreated_count,
        done.revised_count,
        done.unchanged_count,
    ) == expected
    assert not done.validate_only

    # Live now but not in the snapshot: retracted, with the snapshot named.
    retracted = await get(t, added.name)
    assert retracted.status == RETRACTED
    assert retracted.retraction_reason == "restored snapshot snapshots/good: bad deploy"
    # Changed since: revised back, as a new revision that keeps the history.
    back = await get(t, changed.name)
    assert (back.content, list(back.tags), back.revision) == ("Deploys on Tuesdays", ["ops"], 3)
    revisions = await t.lifecycle.ListMemoryRevisions(
        lifecycle_pb2.ListMemoryRevisionsRequest(name=changed.name)
    )
    assert [r.memory.content for r in revisions.revisions] == [
        "Deploys on Tuesdays",
        "Deploys on Mondays",
        "Deploys on Tuesdays",
    ]
    # No longer live: re-created as new memories linked to their originals; the
    # terminal originals stay terminal.
    now_live = await live(t, "s")
    assert set(now_live) == {
        "Kept as is",
        "Deploys on Tuesdays",
        "The DB is Postgres",
        "Use psycopg 3",
        "Maybe Redis",
    }
    assert now_live["Kept as is"].name == kept.name
    for original in (lost, child, doubtful):
        copy = now_live[original.content]
        assert copy.name != original.name
        assert copy.attributes["restored_from"] == original.name
        assert (await get(t, original.name)).status == RETRACTED
    assert now_live["The DB is Postgres"].importance == pytest.approx(0.9)
    assert now_live["Maybe Redis"].status == PENDING  # still needs its review
    assert now_live["Use psycopg 3"].status == ACTIVE
    # The dependency follows the re-created memory, so a cascade still reaches it.
    assert list(now_live["Use psycopg 3"].depends_on) == [now_live["The DB is Postgres"].name]
    assert (await get(t, outside.name)).status == ACTIVE

    # Every change is an audited lifecycle move, in one block ending at audit_sequence.
    new_rows = (await audit_rows(raw_pg, t.tenant_id))[len(rows_before) :]
    assert new_rows[-1][0] == done.audit_sequence
    moves = sorted((r[1], r[3], r[4]) for r in new_rows)
    assert moves == sorted(
        [
            ("TRANSITION", "ACTIVE", "RETRACTED"),
            ("REVISION", "ACTIVE", "ACTIVE"),
            *[("TRANSITION", "", "PROPOSED")] * 3,
            ("TRANSITION", "PROPOSED", "ACTIVE"),
            ("TRANSITION", "PROPOSED", "ACTIVE"),
            ("TRANSITION", "PROPOSED", "PENDING_CONFIRMATION"),
        ]
    )
    assert all(r[6]["snapshot"] == snap.name for r in new_rows)
    recreated_rows = [r for r in new_rows if r[4] == "PROPOSED"]
    assert {r[6]["restored_from"] for r in recreated_rows} == {
        lost.name,
        child.name,
        doubtful.name,
    }
    assert await count_rows(raw_pg, "outbox", t.tenant_id) == outbox_before + 5

    # Now equal to the snapshot: nothing to diff, nothing left to restore.
    assert await diff_all(t, snap.name) == []
    again = await recall(t).RestoreSnapshot(recall_pb2.RestoreSnapshotRequest(name=snap.name))
    assert (again.unchanged_count, again.audit_sequence) == (5, 0)
    assert again.retracted_count == again.recreated_count == again.revised_count == 0


async def test_restore_respects_dedup_and_swaps(make_tenant: Any) -> None:
    t = await make_tenant()
    a = (await propose(t.lifecycle, "s", "alpha")).memory
    b = (await propose(t.lifecycle, "s", "beta")).memory
    dup = (await propose(t.lifecycle, "s", "gamma", tags=["old"])).memory
    c = (await propose(t.lifecycle, "s", "primary store", slot_key="svc::db")).memory
    d = (await propose(t.lifecycle, "s", "cache store", slot_key="svc::cache")).memory
    snap = await snapshot(t, "s")
    # a and b swap contents, c and d swap slots; gamma is retracted and proposed
    # again as a new memory.
    await revise(t, a, content="placeholder")
    await revise(t, b, content="alpha")
    await revise(t, a, content="beta")
    await revise(t, c, slot_key="svc::tmp")
    await revise(t, d, slot_key="svc::db")
    await revise(t, c, slot_key="svc::cache")
    await retract(t, dup.name)
    again = (await propose(t.lifecycle, "s", "gamma")).memory

    done = await recall(t).RestoreSnapshot(recall_pb2.RestoreSnapshotRequest(name=snap.name))
    assert (done.retracted_count, done.recreated_count, done.revised_count) == (0, 0, 5)
    now_live = await live(t, "s")
    assert (now_live["alpha"].name, now_live["beta"].name) == (a.name, b.name)
    assert now_live["primary store"].slot_key == "svc::db"
    assert now_live["cache store"].slot_key == "svc::cache"
    # The live gamma stands for the snapshot's (its tags revised back), nothing re-created.
    assert now_live["gamma"].name == again.name and list(now_live["gamma"].tags) == ["old"]
    assert len(now_live) == 5


async def test_restore_is_atomic(make_tenant: Any, raw_pg: Any) -> None:
    t = await make_tenant()
    originals = [(await propose(t.lifecycle, "s", f"fact {i}")).memory for i in range(3)]
    changed = originals[0]
    snap = await snapshot(t, "s")
    await revise(t, changed, content="fact 0, revised")
    for m in originals[1:]:
        await retract(t, m.name)
    newer = (await propose(t.lifecycle, "s", "newer fact")).memory
    await raw_pg.execute("UPDATE tenants SET quota_max_memories = 2 WHERE id = %s", (t.tenant_id,))

    async def state() -> tuple[Any, ...]:
        tables = ("audit_log", "outbox", "memories", "memory_revisions", "idempotency")
        counts = [await count_rows(raw_pg, table, t.tenant_id) for table in tables]
        cur = await raw_pg.execute(
            "SELECT id, status, content, revision, update_time FROM memories"
            " WHERE tenant_id = %s ORDER BY id",
            (t.tenant_id,),
        )
        cur2 = await raw_pg.execute(
            "SELECT audit_seq, live_memories FROM tenant_state WHERE tenant_id = %s",
            (t.tenant_id,),
        )
        return (*counts, await cur.fetchall(), await cur2.fetchone())

    before = await state()
    # Retracting one, revising one and re-creating two would leave 3 live memories.
    err = await expect(
        recall(t).RestoreSnapshot(
            recall_pb2.RestoreSnapshotRequest(name=snap.name, request_id="r-1")
        ),
        grpc.StatusCode.RESOURCE_EXHAUSTED,
    )
    assert "quota" in (err.details() or "")
    assert await state() == before
    assert (await get(t, newer.name)).status == ACTIVE
    assert (await get(t, changed.name)).content == "fact 0, revised"

    await raw_pg.execute("UPDATE tenants SET quota_max_memories = 3 WHERE id = %s", (t.tenant_id,))
    done = await recall(t).RestoreSnapshot(
        recall_pb2.RestoreSnapshotRequest(name=snap.name, request_id="r-1")
    )
    assert (done.retracted_count, done.recreated_count, done.revised_count) == (1, 2, 1)
    assert set(await live(t, "s")) == {"fact 0", "fact 1", "fact 2"}


# -- diff ------------------------------------------------------------------------------


async def test_diff_two_snapshots_and_now(make_tenant: Any, raw_pg: Any) -> None:
    t = await make_tenant()
    stay = (await propose(t.lifecycle, "s", "stays")).memory
    edit = (await propose(t.lifecycle, "s", "to edit")).memory
    drop = (await propose(t.lifecycle, "s", "to drop")).memory
    base = await snapshot(t, "s", "base")
    await revise(t, edit, content="edited", tags=["x"])
    await retract(t, drop.name)
    for i in range(3):
        await propose(t.lifecycle, "s", f"added {i}")
    target = await snapshot(t, "s", "target")

    changes = await diff_all(t, base.name, target.name, size=2)
    assert len(changes) == 5
    names = [(c.before.name or c.after.name) for c in changes]
    assert names == sorted(names) and stay.name not in names
    kinds = {(c.before.name or c.after.name): c.change_type for c in changes}
    assert kinds[edit.name] == CHANGED and kinds[drop.name] == REMOVED
    assert sorted(kinds.values()).count(ADDED) == 3
    edited = next(c for c in changes if c.change_type == CHANGED)
    assert list(edited.changed_fields) == ["content", "tags"]
    assert (edited.before.content, edited.after.content) == ("to edit", "edited")
    removed = next(c for c in changes if c.change_type == REMOVED)
    assert removed.before.content == "to drop" and not removed.HasField("after")
    first = await recall(t).DiffSnapshots(
        recall_pb2.DiffSnapshotsRequest(base=base.name, target=target.name, page_size=2)
    )
    assert (first.added_count, first.removed_count, first.changed_count) == (3, 1, 1)
    assert len(first.changes) == 2 and first.next_page_token

    # Snapshot vs now, paged: later pages keep comparing with the first page's state.
    first = await recall(t).DiffSnapshots(
        recall_pb2.DiffSnapshotsRequest(base=base.name, page_size=2)
    )
    assert (first.added_count, first.removed_count, first.changed_count) == (3, 1, 1)
    await propose(t.lifecycle, "s", "added after the first page")
    await retract(t, stay.name)
    rest: list[Any] = []
    token = first.next_page_token
    while token:
        page = await recall(t).DiffSnapshots(
            recall_pb2.DiffSnapshotsRequest(base=base.name, page_size=2, page_token=token)
        )
        assert (page.added_count, page.removed_count, page.changed_count) == (3, 1, 1)
        rest.extend(page.changes)
        token = page.next_page_token
    assert len(first.changes) + len(rest) == 5
    # A fresh diff sees the space as it is now.
    fresh = await recall(t).DiffSnapshots(recall_pb2.DiffSnapshotsRequest(base=base.name))
    assert (fresh.added_count, fresh.removed_count, fresh.changed_count) == (4, 2, 1)
    assert not fresh.next_page_token
    # A diff that fit on one page kept no state behind; the paged one expires later.
    cur = await raw_pg.execute(
        "SELECT count(*) FROM snapshots WHERE tenant_id = %s AND view_expire_time IS NOT NULL",
        (t.tenant_id,),
    )
    assert (await cur.fetchone())[0] == 1
    listed = await recall(t).ListSnapshots(recall_pb2.ListSnapshotsRequest())
    assert [s.name for s in listed.snapshots] == [target.name, base.name]
    # A token for one diff is refused by another.
    err = await expect(
        recall(t).DiffSnapshots(
            recall_pb2.DiffSnapshotsRequest(
                base=target.name, page_size=2, page_token=first.next_page_token
            )
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
    )
    assert field_violations(err) == ["page_token"]

    other = await snapshot(t, "other-space")
    err = await expect(
        recall(t).DiffSnapshots(recall_pb2.DiffSnapshotsRequest(base=base.name, target=other.name)),
        grpc.StatusCode.INVALID_ARGUMENT,
    )
    assert field_violations(err) == ["target"]


# -- purges and tenant deletion -------------------------------------------------------------


async def test_purge_removes_copies_from_snapshots(make_tenant: Any, raw_pg: Any) -> None:
    t = await make_tenant()
    await propose(t.lifecycle, "users/42", "private fact", session="s1")
    await propose(t.lifecycle, "users/42", "another private fact")
    snap = await snapshot(t, "users/42")
    assert snap.memory_count == 2
    await t.lifecycle.PurgeMemories(
        lifecycle_pb2.PurgeMemoriesRequest(space="users/42", session="s1", reason="GDPR")
    )
    got = await recall(t).GetSnapshot(recall_pb2.GetSnapshotRequest(name=snap.name))
    assert got.memory_count == 1
    await recall(t).RestoreSnapshot(recall_pb2.RestoreSnapshotRequest(name=snap.name))
    assert set(await live(t, "users/42")) == {"another private fact"}
    cur = await raw_pg.execute(
        "SELECT memory->>'content' FROM snapshot_memories WHERE tenant_id = %s", (t.tenant_id,)
    )
    assert [r[0] for r in await cur.fetchall()] == ["another private fact"]


async def test_deleting_a_tenant_purges_its_snapshots(make_tenant: Any, raw_pg: Any) -> None:
    doomed, kept = await make_tenant(), await make_tenant()
    for t in (doomed, kept):
        await propose(t.lifecycle, "s", "fact")
        await snapshot(t, "s", "snap")
    result = await doomed.platform_admin.DeleteTenant(
        admin_pb2.DeleteTenantRequest(name=doomed.name)
    )
    assert result.deleted_rows["snapshots"] == 1
    assert result.deleted_rows["snapshot_memories"] == 1
    for table in ("snapshots", "snapshot_memories"):
        assert await count_rows(raw_pg, table, doomed.tenant_id) == 0
        assert await count_rows(raw_pg, table, kept.tenant_id) == 1


# -- pure logic ------------------------------------------------------------------------


def _memory(content: str, **kw: Any) -> Memory:
    now = datetime.now(UTC)
    fields: dict[str, Any] = {
        "id": uuid.uuid4(),
        "space": "s",
        "session": "",
        "thread": "",
        "kind": Kind.SEMANTIC,
        "content": content,
        "structured_content": None,
        "source": "",
        "agent": "a",
        "confidence": 0.9,
        "importance": 0.5,
        "evidence_level": EvidenceLevel.UNSPECIFIED,
        "tags": (),
        "slot_key": "",
        "topic": "",
        "depends_on": (),
        "status": Status.ACTIVE,
        "create_time": now,
        "update_time": now,
        "expire_time": None,
        "retract_time": None,
        "retraction_reason": "",
        "content_hash": content_hash(content),
        "revision": 1,
        "superseded_by": None,
        "validation_notes": (),
        "attributes": {},
    }
    fields.update(kw)
    return Memory(**fields)


def test_match_keys_follow_restored_from() -> None:
    original = _memory("x")
    copy = _memory("x", attributes={"restored_from": f"memories/{original.id}"})
    later = _memory(
        "y",
        attributes={"restored_from": f"memories/{original.id}"},
        create_time=copy.create_time + timedelta(seconds=1),
    )
    keys = model.assign_match_keys([later, copy])
    assert keys == {copy.id: original.id, later.id: later.id}
    # The original itself, when live, keeps its id; its copies keep theirs.
    keys = model.assign_match_keys([copy, original])
    assert keys == {copy.id: copy.id, original.id: original.id}
    # A re-created memory compares equal to its original.
    (a,) = model.capture([original])
    (b,) = model.capture([copy])
    assert (a.match_key, a.fingerprint) == (b.match_key, b.fingerprint)


def test_plan_skips_memories_whose_expiry_passed() -> None:
    now = datetime.now(UTC)
    lapsed = _memory("old", expire_time=now - timedelta(hours=1))
    fresh = _memory("new", expire_time=now + timedelta(hours=1))
    plan = model.plan_restore(model.capture([lapsed, fresh]), [], now)
    assert [c.memory.id for c in plan.recreate] == [fresh.id]
    assert plan.unchanged == 1 and not plan.retract and not plan.revert


def test_plan_never_moves_active_back_to_pending() -> None:
    pending = _memory("p", status=Status.PENDING_CONFIRMATION)
    confirmed = _memory("p", id=pending.id, status=Status.ACTIVE, confidence=0.95)
    plan = model.plan_restore(model.capture([pending]), [confirmed], datetime.now(UTC))
    assert plan.unchanged == 1 and not plan.revert
    plan = model.plan_restore(model.capture([confirmed]), [pending], datetime.now(UTC))
    assert [(r.current.id, r.confirm, r.changes) for r in plan.revert] == [(pending.id, True, {})]


async def _waiting_on_locks(raw_pg: Any, n: int) -> None:
    """Returns once `n` sessions of the test database wait on a lock."""
    for _ in range(1200):  # a minute for a loaded machine
        cur = await raw_pg.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        row = await cur.fetchone()
        if row is not None and row[0] >= n:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{n} sessions never waited on a lock")


async def _first_then_a_purge(
    t: Any, raw_pg: Any, database_url: str, first: Callable[[], Awaitable[Any]]
) -> tuple[Any, Any]:
    """Holds the tenant's audit counter while the call `first()` starts queues on
    it, then a purge of space "race" behind it (its delete done, uncommitted),
    then lets both go; their answers. (`first` is called only once the counter is
    held: a gRPC call starts when it is made.)"""
    counter = await psycopg.AsyncConnection.connect(database_url)
    try:
        await counter.execute(
            "SELECT audit_seq FROM tenant_state WHERE tenant_id = %s FOR UPDATE",
            (t.tenant_id,),
        )
        going = asyncio.ensure_future(first())
        await _waiting_on_locks(raw_pg, 1)  # `first`, first in line
        purging = asyncio.ensure_future(
            t.lifecycle.PurgeMemories(
                lifecycle_pb2.PurgeMemoriesRequest(space="race", reason="erasure request")
            )
        )
        await _waiting_on_locks(raw_pg, 2)  # the purge, its delete done
        await counter.commit()
    finally:
        await counter.close()
    return await going, await purging


async def test_a_snapshot_taken_while_a_purge_runs_keeps_no_copy_of_it(
    make_tenant: Any, raw_pg: Any, database_url: str
) -> None:
    """The snapshot holds the audit counter and copies the space while the purge,
    having deleted it (uncommitted), waits for the counter: the copy must go too."""
    t = await make_tenant()
    await propose(t.lifecycle, "race", "Hana lives at 5 Elm Street")
    taken, purged = await _first_then_a_purge(
        t, raw_pg, database_url, lambda: snapshot(t, "race", "during")
    )
    assert taken.memory_count == 1  # it copied the memory before the purge committed
    assert purged.purged_count == 1
    cur = await raw_pg.execute(
        "SELECT count(*) FROM snapshot_memories WHERE tenant_id = %s", (t.tenant_id,)
    )
    assert (await cur.fetchone())[0] == 0
    now = await recall(t).GetSnapshot(recall_pb2.GetSnapshotRequest(name=taken.name))
    assert now.memory_count == 0


async def test_a_memory_restored_while_a_purge_runs_is_purged_too(
    make_tenant: Any, raw_pg: Any, database_url: str
) -> None:
    """The restore holds the audit counter and brings a retracted memory back from
    its snapshot while the purge, having deleted the space (uncommitted), waits:
    the memory it brought back must not outlive the purge."""
    t = await make_tenant()
    m = (await propose(t.lifecycle, "race", "Ines lives at 9 Oak Street")).memory
    taken = await snapshot(t, "race", "before")
    await retract(t, m.name)
    restored, _ = await _first_then_a_purge(
        t,
        raw_pg,
        database_url,
        lambda: recall(t).RestoreSnapshot(recall_pb2.RestoreSnapshotRequest(name=taken.name)),
    )
    assert restored.recreated_count == 1
    cur = await raw_pg.execute("SELECT count(*) FROM memories WHERE tenant_id = %s", (t.tenant_id,))
    assert (await cur.fetchone())[0] == 0


async def test_a_write_holding_a_row_the_purge_finds_late_does_not_deadlock_it(
    make_tenant: Any, raw_pg: Any, database_url: str
) -> None:
    """Lock order: a memory committed while the purge waited for the audit counter
    (here a proposal; a restore's is the same) is locked by another write, which
    then asks for the counter. The purge, holding the counter, used to wait for
    that row: a deadlock, which PostgreSQL broke by failing one of the two. Now the
    purge lets the counter go, deletes the row once the write commits, and both
    succeed."""
    t = await make_tenant()
    await propose(t.lifecycle, "race", "Ines lives at 9 Oak Street")
    holder = await psycopg.AsyncConnection.connect(database_url)
    second = await psycopg.AsyncConnection.connect(database_url)
    writer = await psycopg.AsyncConnection.connect(database_url)
    counter = "SELECT audit_seq FROM tenant_state WHERE tenant_id = %s FOR UPDATE"
    try:
        await holder.execute(counter, (t.tenant_id,))
        late = asyncio.ensure_future(propose(t.lifecycle, "race", "Ines moved to 4 Elm Road"))
        await _waiting_on_locks(raw_pg, 1)  # the proposal, its row inserted
        queued = asyncio.ensure_future(second.execute(counter, (t.tenant_id,)))
        await _waiting_on_locks(raw_pg, 2)
        purging = asyncio.ensure_future(
            t.lifecycle.PurgeMemories(
                lifecycle_pb2.PurgeMemoriesRequest(space="race", reason="erasure request")
            )
        )
        await _waiting_on_locks(raw_pg, 3)  # the purge, its first delete done
        await holder.commit()  # the proposal commits; `second` holds the counter
        stored = (await late).memory
        await queued
        # Another write locks the row the purge has not seen, then asks for the counter.
        await writer.execute(
            "SELECT id FROM memories WHERE id = %s FOR UPDATE", (stored.name.split("/")[1],)
        )
        asking = asyncio.ensure_future(writer.execute(counter, (t.tenant_id,)))
        await _waiting_on_locks(raw_pg, 2)  # the purge and the writer, on the counter
        await second.commit()
        await asyncio.wait_for(asking, 30)  # no deadlock: the purge let the counter go
        await writer.commit()
        purged = await asyncio.wait_for(purging, 30)
    finally:
        for conn in (holder, second, writer):
            await conn.close()
    assert purged.purged_count == 2
    cur = await raw_pg.execute("SELECT count(*) FROM memories WHERE tenant_id = %s", (t.tenant_id,))
    assert (await cur.fetchone())[0] == 0


async def test_a_purge_scans_derived_decisions_once_when_nothing_came_late(
    make_tenant: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The decisions quoting a tenant's memories are scanned for what derives from
    the purged ones; the pass under the audit counter scans again only when it
    found memories the first pass did not."""
    from engram_server.store import decisions as decision_store

    scans: list[int] = []
    real = decision_store.memories_derived_from

    async def counted(*args: Any) -> list[uuid.UUID]:
        scans.append(1)
        return await real(*args)

    monkeypatch.setattr(decision_store, "memories_derived_from", counted)
    t = await make_tenant()
    await propose(t.lifecycle, "calm", "Jo lives at 3 Birch Lane")
    purged = await t.lifecycle.PurgeMemories(
        lifecycle_pb2.PurgeMemoriesRequest(space="calm", reason="erasure request")
    )
    assert purged.purged_count == 1
    assert len(scans) == 1
