"""One tenant's malformed input never reaches the database or hurts another tenant.

Strings PostgreSQL cannot store (NUL) and bytes protobuf cannot decode (invalid
UTF-8, corrupt encoding, nesting past the recursion limit) are INVALID_ARGUMENT for
every RPC, decided before any handler runs; and a pooled connection that saw a
database error is never handed to the next caller.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import grpc
import psycopg
import pytest
from engram.v1 import lifecycle_pb2, recall_pb2, recall_pb2_grpc
from engram_server.store.postgres import Database
from google.protobuf import struct_pb2

from tests.lifecycle_helpers import count_rows, field_violations, proposal

PROPOSE = "/engram.v1.LifecycleService/ProposeMemory"


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _length_delimited(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _field_number(message: Any, name: str) -> int:
    number: int = message.DESCRIPTOR.fields_by_name[name].number
    return number


def _proposal_bytes(inner: bytes) -> bytes:
    """A ProposeMemoryRequest whose proposal holds `inner` after a valid space."""
    space = _length_delimited(_field_number(lifecycle_pb2.MemoryProposal, "space"), b"s")
    return _length_delimited(
        _field_number(lifecycle_pb2.ProposeMemoryRequest, "proposal"), space + inner
    )


def _nested_struct(depth: int) -> bytes:
    """A Struct `{"a": {"a": ...}}` nested `depth` levels, encoded by hand (the
    library refuses to build what it could not parse back)."""
    fields = _field_number(struct_pb2.Struct, "fields")
    struct_value = _field_number(struct_pb2.Value, "struct_value")
    encoded = b""
    for _ in range(depth):
        value = _length_delimited(struct_value, encoded)
        entry = _length_delimited(1, b"a") + _length_delimited(2, value)
        encoded = _length_delimited(fields, entry)
    return encoded


def _raw_propose(tenant: Any) -> Any:
    return tenant.channel.unary_unary(PROPOSE)


NUL_PROPOSALS = [
    ("content", proposal("s", "x bad a\x00b"), "proposal.content"),
    ("tag", proposal("s", "fine", tags=["ok", "b\x00d"]), "proposal.tags[1]"),
    ("session", proposal("s", "fine", session="se\x00ss"), "proposal.session"),
    ("space", proposal("s\x00x", "fine"), "proposal.space"),
    ("slot key", proposal("s", "fine", slot_key="a::b\x00"), "proposal.slot_key"),
    ("source", proposal("s", "fine", source="src\x00"), "proposal.source"),
]


@pytest.mark.parametrize(
    ("label", "bad", "field"), NUL_PROPOSALS, ids=[case[0] for case in NUL_PROPOSALS]
)
async def test_nul_in_any_string_is_invalid_argument_naming_the_field(
    make_tenant: Any, raw_pg: Any, label: str, bad: lifecycle_pb2.MemoryProposal, field: str
) -> None:
    t = await make_tenant()
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await t.lifecycle.ProposeMemory(lifecycle_pb2.ProposeMemoryRequest(proposal=bad))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert field_violations(err.value) == [field]
    for table in ("memories", "audit_log", "outbox", "idempotency"):
        assert await count_rows(raw_pg, table, t.tenant_id) == 0


async def test_nul_inside_structured_content_and_batches(make_tenant: Any) -> None:
    t = await make_tenant()
    structured = proposal("s", "fine")
    structured.structured_content.update({"outer": {"inner": "v\x00"}, "k\x00": 1})
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await t.lifecycle.ProposeMemory(lifecycle_pb2.ProposeMemoryRequest(proposal=structured))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    fields = field_violations(err.value)
    assert "proposal.structured_content.fields (a key)" in fields
    assert any(f.startswith("proposal.structured_content.fields['outer']") for f in fields)

    batch = lifecycle_pb2.BatchProposeMemoriesRequest(
        proposals=[proposal("s", "one"), proposal("s", "t\x00wo")]
    )
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await t.lifecycle.BatchProposeMemories(batch)
    assert field_violations(err.value) == ["proposals[1].content"]


async def test_nul_in_a_recall_query_and_a_streamed_request(make_tenant: Any) -> None:
    t = await make_tenant()
    recall = recall_pb2_grpc.RecallServiceStub(t.channel)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await recall.Recall(recall_pb2.RecallRequest(query="q\x00", spaces=["s"]))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert field_violations(err.value) == ["query"]

    def requests() -> Any:
        yield lifecycle_pb2.AppendMessagesRequest(space="s", session="a\x00b")

    with pytest.raises(grpc.aio.AioRpcError) as err:
        async for _ in t.lifecycle.AppendMessages(requests()):
            pass
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert field_violations(err.value) == ["session"]


UNDECODABLE = [
    (
        "invalid UTF-8",
        _proposal_bytes(
            _length_delimited(_field_number(lifecycle_pb2.MemoryProposal, "content"), b"\xff\xfe")
        ),
    ),
    ("truncated", _proposal_bytes(b"")[:-1] + b"\x0a\x50abc"),
    ("unknown wire type", b"\x0f\x01\x02"),
    (
        "Struct nested 200 deep",
        _proposal_bytes(
            _length_delimited(
                _field_number(lifecycle_pb2.MemoryProposal, "structured_content"),
                _nested_struct(200),
            )
        ),
    ),
]


@pytest.mark.parametrize(("label", "payload"), UNDECODABLE, ids=[c[0] for c in UNDECODABLE])
async def test_undecodable_requests_are_invalid_argument(
    make_tenant: Any, raw_pg: Any, label: str, payload: bytes
) -> None:
    t = await make_tenant()
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await _raw_propose(t)(payload)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert field_violations(err.value) == ["request"]
    assert "class" not in (err.value.details() or "")
    assert await count_rows(raw_pg, "memories", t.tenant_id) == 0


async def test_undecodable_request_without_a_key_is_still_unauthenticated(
    make_tenant: Any,
) -> None:
    t = await make_tenant()
    anonymous = t.channel_for(None).unary_unary(PROPOSE)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await anonymous(b"\x0f\x01\x02")
    assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED


async def test_malformed_writes_of_one_tenant_never_fail_another_tenants_writes(
    make_tenant: Any,
) -> None:
    """Tenant X floods malformed proposals while tenant Y writes; every one of Y's
    valid proposals succeeds, and every one of X's is INVALID_ARGUMENT."""
    x, y = await make_tenant(), await make_tenant()
    raw = _raw_propose(x)
    bad_payloads = [payload for _, payload in UNDECODABLE]

    async def bad(i: int) -> grpc.StatusCode:
        try:
            if i % 2:
                await raw(bad_payloads[i % len(bad_payloads)])
            else:
                await x.lifecycle.ProposeMemory(
                    lifecycle_pb2.ProposeMemoryRequest(
                        proposal=proposal("s", f"x bad {i} a\x00b", tags=[f"t\x00{i}"])
                    )
                )
        except grpc.aio.AioRpcError as exc:
            return exc.code()
        return grpc.StatusCode.OK

    async def good(i: int) -> int:
        response = await y.lifecycle.ProposeMemory(
            lifecycle_pb2.ProposeMemoryRequest(
                proposal=proposal("team/y", f"valid memory number {i}", tags=["t"]),
                request_id=f"good-{i}",
            )
        )
        return int(response.result.outcome)

    results = await asyncio.gather(
        *(coro for i in range(60) for coro in (bad(i), good(i), good(i + 1000)))
    )
    bad_codes = results[0::3]
    good_outcomes = results[1::3] + results[2::3]
    assert set(bad_codes) == {grpc.StatusCode.INVALID_ARGUMENT}
    assert set(good_outcomes) == {lifecycle_pb2.PROPOSAL_OUTCOME_ACCEPTED}
    listed = await y.lifecycle.ListMemories(
        lifecycle_pb2.ListMemoriesRequest(space="team/y", page_size=1000)
    )
    assert len(listed.memories) == 120


async def _backend_pid(db: Database, tenant: str) -> int:
    async with db.tenant_tx(tenant) as conn:
        row = await (await conn.execute("SELECT pg_backend_pid() AS pid")).fetchone()
    assert row is not None
    return int(row["pid"])


async def _repeat(db: Database, tenant: str, times: int, pipeline: bool) -> None:
    for i in range(times):
        async with db.tenant_tx(tenant, pipeline=pipeline) as conn:
            cur = await conn.execute("SELECT %s::text AS v, %s::int AS n", ("a", i))
            assert await cur.fetchone() == {"v": "a", "n": i}


@pytest.mark.parametrize("pipeline", [False, True], ids=["plain", "pipeline"])
@pytest.mark.parametrize(
    ("failure", "params"),
    [
        ("SELECT %s::text AS v, %s::int / 0 AS n", ("a", 1)),  # fails in the server
        ("SELECT %s::text AS v, %s::int AS n", ("a\x00b", 1)),  # fails while binding
    ],
    ids=["server error", "client error"],
)
async def test_a_connection_that_saw_a_database_error_is_not_reused(
    database_url: str, failure: str, params: tuple[Any, ...], pipeline: bool
) -> None:
    db = Database(database_url, min_size=1, max_size=1)
    await db.open()
    tenant = f"t-{uuid.uuid4().hex[:8]}"
    try:
        # Past psycopg's prepare threshold, so the statement is prepared server-side.
        await _repeat(db, tenant, 8, pipeline)
        before = await _backend_pid(db, tenant)
        with pytest.raises(psycopg.Error):
            async with db.tenant_tx(tenant, pipeline=pipeline) as conn:
                await conn.execute("SELECT %s::text AS v, %s::int AS n", ("a", 0))
                await conn.execute(failure, params)
        assert await _backend_pid(db, tenant) != before
        await _repeat(db, tenant, 8, pipeline)
    finally:
        await db.close()
