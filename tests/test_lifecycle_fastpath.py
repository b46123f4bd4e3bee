"""The few-round-trip write and read path keeps every lifecycle guarantee.

Plain proposals skip the up-front duplicate lookup (the insert's ON CONFLICT finds
duplicates), first revision snapshots are built by the database from the rows sent,
a write's response is built from what it sent (and rendered while the database
works) instead of read back, the audit counter and rows are one statement, write
transactions run pipelined and single reads go in one round trip. These tests pin
what must not change because of that.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import psycopg
import pytest
from engram.v1 import lifecycle_pb2, types_pb2
from engram_server.platform.context import AppContext

from tests.lifecycle_helpers import (
    ACTIVE,
    REJECTED,
    count_rows,
    proposal,
    propose,
)

OUTCOME = lifecycle_pb2.ProposalOutcome
ACCEPTED = OUTCOME.Value("PROPOSAL_OUTCOME_ACCEPTED")
DUPLICATE = OUTCOME.Value("PROPOSAL_OUTCOME_DUPLICATE")


async def _audit_seqs(raw_pg: Any, tenant_id: str) -> list[int]:
    cur = await raw_pg.execute(
        "SELECT seq FROM audit_log WHERE tenant_id = %s ORDER BY seq", (tenant_id,)
    )
    return [row[0] for row in await cur.fetchall()]


async def _live_count(raw_pg: Any, tenant_id: str) -> int:
    cur = await raw_pg.execute(
        "SELECT live_memories FROM tenant_state WHERE tenant_id = %s", (tenant_id,)
    )
    row = await cur.fetchone()
    return int(row[0])


async def test_batch_mixing_live_content_and_new_content(make_tenant: Any, raw_pg: Any) -> None:
    t = await make_tenant()
    old = await propose(t.lifecycle, "mix", "already stored")
    response = await t.lifecycle.BatchProposeMemories(
        lifecycle_pb2.BatchProposeMemoriesRequest(
            proposals=[
                proposal("mix", "new one"),
                proposal("mix", "  already   stored "),  # same normalised content
                proposal("mix", "new two"),
                proposal("mix", "already stored"),
                proposal("mix", "new one"),  # repeats the batch's first
            ]
        )
    )
    outcomes = [r.outcome for r in response.results]
    assert outcomes == [ACCEPTED, DUPLICATE, ACCEPTED, DUPLICATE, DUPLICATE]
    names = [r.memory.name for r in response.results]
    assert names[1] == names[3] == old.memory.name
    assert names[4] == names[0] and len({names[0], names[2], old.memory.name}) == 3
    # Only the two new memories were written: rows, revisions, outbox, audit.
    assert await count_rows(raw_pg, "memories", t.tenant_id) == 3
    assert await count_rows(raw_pg, "memory_revisions", t.tenant_id) == 3
    assert await count_rows(raw_pg, "outbox", t.tenant_id) == 3
    assert await _audit_seqs(raw_pg, t.tenant_id) == list(range(1, 7))
    assert await _live_count(raw_pg, t.tenant_id) == 3


async def test_rejected_proposal_of_live_content_is_a_duplicate(make_tenant: Any) -> None:
    """A REJECTED row is outside the live-content index, so this takes the lookup path."""
    t = await make_tenant()
    policy = lifecycle_pb2.Policy(name="spaces/strict/policy", json_schema_critical=True)
    policy.json_schema.update({"type": "object", "required": ["k"]})
    first = await propose(t.lifecycle, "strict", "no structure at all")
    assert first.outcome == ACCEPTED
    await t.lifecycle.SetPolicy(lifecycle_pb2.SetPolicyRequest(policy=policy))
    bad = proposal("strict", "no structure at all")
    bad.structured_content.update({"other": 1})
    again = await t.lifecycle.ProposeMemory(lifecycle_pb2.ProposeMemoryRequest(proposal=bad))
    assert again.result.outcome == DUPLICATE
    assert again.result.memory.name == first.memory.name
    fresh = proposal("strict", "new and bad")
    fresh.structured_content.update({"other": 1})
    rejected = await t.lifecycle.ProposeMemory(lifecycle_pb2.ProposeMemoryRequest(proposal=fresh))
    assert rejected.result.memory.status == REJECTED


async def test_racing_identical_batches_store_each_content_once(
    make_tenant: Any, raw_pg: Any
) -> None:
    t = await make_tenant()
    contents = [f"raced fact {i}" for i in range(10)]

    async def one_batch() -> list[str]:
        response = await t.lifecycle.BatchProposeMemories(
            lifecycle_pb2.BatchProposeMemoriesRequest(
                proposals=[proposal("race", c) for c in contents]
            )
        )
        return [r.memory.name for r in response.results]

    answers = await asyncio.gather(*(one_batch() for _ in range(6)))
    assert all(a == answers[0] for a in answers)
    assert await count_rows(raw_pg, "memories", t.tenant_id) == 10
    # Two transitions per stored memory, gapless, nothing for the duplicates.
    assert await _audit_seqs(raw_pg, t.tenant_id) == list(range(1, 21))
    assert await _live_count(raw_pg, t.tenant_id) == 10


async def test_revision_snapshot_matches_the_memory(make_tenant: Any) -> None:
    t = await make_tenant()
    p = proposal(
        "snap",
        "snapshot me",
        tags=["a", "b"],
        attributes={"k": "v"},
        session="s1",
        thread="th",
        topic="topics",
        importance=0.25,
    )
    p.structured_content.update({"x": [1, 2], "y": None})
    r = await t.lifecycle.ProposeMemory(lifecycle_pb2.ProposeMemoryRequest(proposal=p))
    memory = r.result.memory
    assert memory.status == ACTIVE
    revisions = await t.lifecycle.ListMemoryRevisions(
        lifecycle_pb2.ListMemoryRevisionsRequest(name=memory.name)
    )
    assert len(revisions.revisions) == 1
    snap = revisions.revisions[0].memory
    got = await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=memory.name))
    for field in (
        "name",
        "space",
        "session",
        "thread",
        "content",
        "structured_content",
        "tags",
        "attributes",
        "topic",
        "importance",
        "confidence",
        "status",
        "content_hash",
        "revision",
        "create_time",
        "update_time",
        "agent",
    ):
        assert getattr(snap, field) == getattr(got, field), field


async def test_written_memories_are_exactly_what_a_read_returns(make_tenant: Any) -> None:
    """A write's response is built from what it sent, not read back: every field
    must still equal the stored row, and the first revision's snapshot too."""
    t = await make_tenant()
    first = await propose(t.lifecycle, "exact", "the dependency")
    rich = proposal(
        "exact",
        "rich proposal",
        tags=["x", "y"],
        attributes={"k": "v", "empty": ""},
        session="s9",
        thread="t9",
        topic="deploys",
        importance=0.125,
        confidence=0.3,  # below no threshold: ACTIVE with a low confidence
        source="tests",
        kind=types_pb2.MEMORY_KIND_PROCEDURAL,
        depends_on=[first.memory.name],
    )
    rich.structured_content.update({"steps": [1, 2.5, "three"], "nested": {"a": None}})
    rich.expire_time.FromSeconds(4_000_000_000)
    response = await t.lifecycle.BatchProposeMemories(
        lifecycle_pb2.BatchProposeMemoriesRequest(
            proposals=[rich, proposal("exact", "plain one"), proposal("exact", "plain one")]
        )
    )
    written = [r.memory for r in response.results]
    assert [r.outcome for r in response.results] == [ACCEPTED, ACCEPTED, DUPLICATE]
    assert written[1] == written[2]
    for memory in written:
        stored = await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=memory.name))
        assert memory == stored
        revisions = await t.lifecycle.ListMemoryRevisions(
            lifecycle_pb2.ListMemoryRevisionsRequest(name=memory.name)
        )
        assert [r.memory for r in revisions.revisions] == [stored]
    assert written[0].depends_on == [first.memory.name]
    assert written[0].expire_time.seconds == 4_000_000_000


async def test_single_round_trip_reads_stay_tenant_scoped(
    app: AppContext, make_tenant: Any
) -> None:
    a = await make_tenant()
    b = await make_tenant()
    stored = await propose(a.lifecycle, "iso", "only tenant a sees this")
    memory_id = uuid.UUID(stored.memory.name.split("/", 1)[1])
    query = "SELECT id FROM memories WHERE id = %s"
    assert [r["id"] for r in await app.db.tenant_read(a.tenant_id, query, (memory_id,))] == [
        memory_id
    ]
    assert await app.db.tenant_read(b.tenant_id, query, (memory_id,)) == []


async def test_failed_pipelined_transaction_rolls_back_and_frees_the_connection(
    app: AppContext, make_tenant: Any, raw_pg: Any
) -> None:
    t = await make_tenant()
    before = await count_rows(raw_pg, "outbox", t.tenant_id)
    with pytest.raises(psycopg.errors.DivisionByZero):
        async with app.db.tenant_tx(t.tenant_id, pipeline=True) as conn:
            await conn.execute(
                "INSERT INTO outbox (tenant_id, memory_id, op) VALUES (%s, NULL, 'upsert')",
                (t.tenant_id,),
            )
            cur = await conn.execute("SELECT 1 / 0 AS boom")
            await cur.fetchone()
    assert await count_rows(raw_pg, "outbox", t.tenant_id) == before
    # Every pooled connection is back in its normal state, with no tenant set.
    for _ in range(app.db.pool.max_size):
        async with app.db.unscoped() as conn:
            assert not conn.autocommit
            cur = await conn.execute("SELECT current_setting('engram.tenant_id', true) AS t")
            row = await cur.fetchone()
            assert row is not None and not row["t"]
            await conn.rollback()


async def test_plain_writes_send_the_audit_with_the_insert_and_duplicates_fall_back(
    make_tenant: Any, raw_pg: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engram_server.store import memories as store

    calls: list[str] = []
    inside_append: list[bool] = []
    real_send, real_append = store.send_append_audit, store.append_audit

    async def send_append_audit(*args: Any, **kwargs: Any) -> Any:
        if not inside_append:  # append_audit sends through it too
            calls.append("sent with the insert")
        return await real_send(*args, **kwargs)

    async def append_audit(*args: Any, **kwargs: Any) -> Any:
        calls.append("after reading the insert")
        inside_append.append(True)
        try:
            return await real_append(*args, **kwargs)
        finally:
            inside_append.pop()

    monkeypatch.setattr(store, "send_append_audit", send_append_audit)
    monkeypatch.setattr(store, "append_audit", append_audit)
    t = await make_tenant()
    first = await propose(t.lifecycle, "spec", "a plain new fact")
    assert first.outcome == ACCEPTED
    assert calls == ["sent with the insert"]
    calls.clear()
    again = await propose(t.lifecycle, "spec", "a  plain new fact ")
    assert again.outcome == DUPLICATE and again.memory.name == first.memory.name
    # The speculative transaction was abandoned whole; the redo found the duplicate.
    assert calls == ["sent with the insert", "after reading the insert"]
    assert await count_rows(raw_pg, "memories", t.tenant_id) == 1
    assert await count_rows(raw_pg, "outbox", t.tenant_id) == 1
    assert await _audit_seqs(raw_pg, t.tenant_id) == [1, 2]
    assert await _live_count(raw_pg, t.tenant_id) == 1


async def test_write_responses_are_rendered_before_the_insert_is_read(
    make_tenant: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engram_server.api import convert
    from engram_server.store import memories as store

    order: list[str] = []
    real_render, real_read = convert.result_to_proto, store.read_inserted_ids

    def result_to_proto(*args: Any) -> Any:
        order.append("rendered")
        return real_render(*args)

    async def read_inserted_ids(*args: Any) -> Any:
        order.append("insert read")
        return await real_read(*args)

    monkeypatch.setattr(convert, "result_to_proto", result_to_proto)
    monkeypatch.setattr(store, "read_inserted_ids", read_inserted_ids)
    t = await make_tenant()
    response = await t.lifecycle.BatchProposeMemories(
        lifecycle_pb2.BatchProposeMemoriesRequest(
            proposals=[proposal("pre", "first"), proposal("pre", "second")]
        )
    )
    assert order == ["rendered", "rendered", "insert read"]
    assert [r.memory.content for r in response.results] == ["first", "second"]
    order.clear()
    # Content already live: the speculative rendering is dropped with the
    # abandoned transaction and the redone write's results are rendered instead.
    again = await propose(t.lifecycle, "pre", "second")
    assert order == ["rendered", "insert read", "rendered"]
    assert again.outcome == DUPLICATE
    assert again.memory == response.results[1].memory


async def test_memory_ids_are_time_ordered_version_7(make_tenant: Any) -> None:
    import time

    t = await make_tenant()
    before_ms = time.time_ns() // 1_000_000
    ids = []
    for n in range(3):
        result = await propose(t.lifecycle, "ids", f"time-ordered fact {n}")
        ids.append(uuid.UUID(result.memory.name.removeprefix("memories/")))
        await asyncio.sleep(0.003)
    after_ms = time.time_ns() // 1_000_000
    assert all(i.version == 7 and i.variant == uuid.RFC_4122 for i in ids)
    # The leading 48 bits are the creation time in milliseconds, so ids sort in
    # the order the memories were written (the B-tree inserts stay together).
    assert ids == sorted(ids)
    assert all(before_ms <= i.int >> 80 <= after_ms for i in ids)


def test_new_memory_ids_are_unique_and_well_formed() -> None:
    from engram_server.lifecycle.model import new_memory_id

    ids = [new_memory_id() for _ in range(20_000)]
    assert len(set(ids)) == len(ids)
    assert {i.version for i in ids} == {7}
    assert {i.variant for i in ids} == {uuid.RFC_4122}


async def test_dependents_lookup_can_use_the_partial_index(raw_pg: Any) -> None:
    from engram_server.store.memories import DEPENDENTS_SQL

    # The index covers only rows with dependencies; the lookup must state that
    # condition itself for the planner to prove the index applies.
    condition = "depends_on && %s::uuid[] AND depends_on <> '{}'"
    assert condition in DEPENDENTS_SQL
    await raw_pg.execute("SET enable_seqscan = off")
    try:
        cur = await raw_pg.execute(
            "EXPLAIN SELECT id FROM memories WHERE "
            + condition.replace("%s", "ARRAY[gen_random_uuid()]")
        )
        plan = "\n".join(row[0] for row in await cur.fetchall())
    finally:
        await raw_pg.execute("RESET enable_seqscan")
    assert "memories_depends_on" in plan


def test_json_parameters_fall_back_for_values_orjson_refuses() -> None:
    import json

    from engram_server.store.postgres import _json_dumps

    assert json.loads(_json_dumps({"a": [1, 2.5, "x"], "b": None})) == {
        "a": [1, 2.5, "x"],
        "b": None,
    }
    assert json.loads(_json_dumps({"big": 2**70})) == {"big": 2**70}


async def test_jsonb_results_keep_integers_beyond_64_bits(app: AppContext) -> None:
    async with app.db.unscoped() as conn:
        cur = await conn.execute("SELECT '{\"big\": 18446744073709551616}'::jsonb AS v")
        row = await cur.fetchone()
        await conn.rollback()
    assert row is not None and row["v"] == {"big": 2**64}
