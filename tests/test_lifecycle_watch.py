"""WatchTransitions: every committed transition once, in order, resumable."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
from engram.v1 import lifecycle_pb2

from tests.lifecycle_helpers import ACTIVE, PROPOSED, RETRACTED, propose


async def _collect(stub: Any, request: Any, want: int, wait_seconds: float = 10.0) -> list[Any]:
    """Reads `want` events, then disconnects."""
    call = stub.WatchTransitions(request)
    events: list[Any] = []

    async def read() -> None:
        async for event in call:
            events.append(event)
            if len(events) >= want:
                return

    try:
        await asyncio.wait_for(read(), wait_seconds)
    finally:
        call.cancel()
    return events


async def test_watch_delivers_every_transition_in_order_and_resumes(make_tenant: Any) -> None:
    t = await make_tenant()
    head = await _start_live(t)

    # Writers run concurrently with the stream.
    names: list[str] = []

    async def write(i: int) -> None:
        m = (await propose(t.lifecycle, "w", f"event {i}")).memory
        names.append(m.name)
        await t.lifecycle.RetractMemory(
            lifecycle_pb2.RetractMemoryRequest(name=m.name, reason="done")
        )

    first_batch = asyncio.gather(*(write(i) for i in range(10)))
    events = await _collect(t.lifecycle, lifecycle_pb2.WatchTransitionsRequest(cursor=head), 15)
    await first_batch
    assert len(events) == 15
    # Resume from the last cursor seen: the rest arrive, nothing twice.
    rest = await _collect(
        t.lifecycle, lifecycle_pb2.WatchTransitionsRequest(cursor=events[-1].cursor), 15
    )
    everything = events + rest
    seqs = [e.entry.sequence for e in everything]
    assert seqs == sorted(seqs) and len(set(seqs)) == 30
    assert seqs == list(range(seqs[0], seqs[0] + 30)), "gapless"
    per_memory: dict[str, list[int]] = {}
    for e in everything:
        per_memory.setdefault(e.entry.memory, []).append(e.entry.to_status)
    assert set(per_memory) == set(names)
    for statuses in per_memory.values():
        assert statuses == [PROPOSED, ACTIVE, RETRACTED]


async def _start_live(t: Any) -> str:
    """A cursor at the current end of the tenant's log."""
    audit = await t.lifecycle.ListAuditEntries(
        lifecycle_pb2.ListAuditEntriesRequest(page_size=1000)
    )
    return str(audit.entries[-1].sequence) if audit.entries else "0"


async def test_watch_filters_by_space_and_status(make_tenant: Any) -> None:
    t = await make_tenant()
    request = lifecycle_pb2.WatchTransitionsRequest(cursor="0", space="keep", statuses=[RETRACTED])
    kept = (await propose(t.lifecycle, "keep", "kept")).memory
    other = (await propose(t.lifecycle, "drop", "dropped")).memory
    for m in (other, kept):
        await t.lifecycle.RetractMemory(lifecycle_pb2.RetractMemoryRequest(name=m.name, reason="r"))
    events = await _collect(t.lifecycle, request, 1)
    assert [(e.entry.memory, e.entry.to_status) for e in events] == [(kept.name, RETRACTED)]
    assert events[0].memory.status == RETRACTED


async def test_watch_from_now_sees_only_new_transitions(make_tenant: Any) -> None:
    t = await make_tenant()
    await propose(t.lifecycle, "n", "before the stream")
    call = t.lifecycle.WatchTransitions(lifecycle_pb2.WatchTransitionsRequest())
    got: list[Any] = []

    async def read() -> None:
        async for event in call:
            got.append(event)
            if len(got) == 2:
                return

    reader = asyncio.create_task(read())
    # The stream pins "now" some time after it opens, and the client cannot see
    # when: writes go on until one of them arrives (so it was after the pin),
    # instead of assuming the pin takes less than some delay.
    async with asyncio.timeout(120):
        n = 0
        while not got:
            n += 1
            await propose(t.lifecycle, "n", f"after the stream {n}")
            await asyncio.sleep(0.1)
        await reader
    call.cancel()
    contents = [e.memory.content for e in got]
    assert "before the stream" not in contents
    assert contents[0] == contents[1] and contents[0].startswith("after the stream")


async def test_bad_cursor(make_tenant: Any) -> None:
    t = await make_tenant()
    call = t.lifecycle.WatchTransitions(lifecycle_pb2.WatchTransitionsRequest(cursor="abc"))
    try:
        async for _ in call:
            raise AssertionError("no event expected")
    except grpc.aio.AioRpcError as err:
        assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
