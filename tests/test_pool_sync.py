"""SyncPool slot deltas and topic channels: catch-up, follow, resume, cut on removal."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import grpc
from engram.v1 import lifecycle_pb2, pool_pb2, types_pb2
from google.protobuf import field_mask_pb2

from tests.pool_helpers import READER, WRITER, expect, make_admin, make_agent, make_group

ADD = pool_pb2.SLOT_DELTA_OP_ADD
REPLACE = pool_pb2.SLOT_DELTA_OP_REPLACE
REMOVE = pool_pb2.SLOT_DELTA_OP_REMOVE


async def _until(check: Any, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not check() and time.monotonic() < deadline:  # noqa: ASYNC110
        await asyncio.sleep(0.02)


async def _sync(agent: Any, cursor: str = "", **kw: Any) -> tuple[list[Any], str]:
    deltas: list[Any] = []
    last = cursor
    async for message in agent.pool.SyncPool(
        pool_pb2.SyncPoolRequest(pool="pools/p", cursor=cursor, **kw)
    ):
        last = message.cursor
        if message.caught_up:
            break
        deltas.append(message.delta)
    return deltas, last


async def _setup(make_tenant: Any) -> tuple[Any, Any, Any, Any]:
    t = await make_tenant()
    owner = await make_agent(t, "owner")
    writer = await make_agent(t, "writer")
    reader = await make_agent(t, "reader")
    await owner.create_pool("p")
    await owner.add("pools/p", "writer", WRITER)
    await owner.add("pools/p", "reader", READER)
    return t, owner, writer, reader


async def test_sync_catch_up_and_resume(make_tenant: Any) -> None:
    _, _owner, writer, reader = await _setup(make_tenant)
    a1 = await writer.remember(
        "w", "alice works at Acme", importance=0.9, slot_key="alice::employer"
    )
    b1 = await writer.remember("w", "bob lives in Oslo", importance=0.9, slot_key="bob::city")
    loose = await writer.remember("w", "lunch is at noon", importance=0.9)
    for m in (a1, b1, loose):
        await writer.publish("pools/p", m.name, topic="people")
    deltas, cursor = await _sync(reader)
    assert sorted((d.slot_key, d.op) for d in deltas) == sorted(
        [("alice::employer", ADD), ("bob::city", ADD), (loose.name, ADD)]
    )
    assert {d.new_memory.content for d in deltas} == {a1.content, b1.content, loose.content}
    # Churn: alice's slot rewritten twice, bob's retracted.
    a2 = await writer.remember(
        "w", "alice works at Initech", importance=0.9, slot_key="alice::employer"
    )
    await writer.publish("pools/p", a2.name)
    a3 = await writer.remember(
        "w", "alice works at Hooli", importance=0.9, slot_key="alice::employer"
    )
    await writer.publish("pools/p", a3.name)
    await writer.lifecycle.RetractMemory(
        lifecycle_pb2.RetractMemoryRequest(name=b1.name, reason="moved")
    )
    deltas, cursor2 = await _sync(reader, cursor)
    by = {d.slot_key: d for d in deltas}
    assert set(by) == {"alice::employer", "bob::city"}  # one delta per changed slot
    assert by["alice::employer"].op == REPLACE
    assert by["alice::employer"].old_memory.name == a1.name
    assert by["alice::employer"].new_memory.content == a3.content
    assert by["bob::city"].op == REMOVE and by["bob::city"].old_memory.name == b1.name
    # The old memories as they were when their slots held them: whole, and ACTIVE
    # (bob's is retracted now).
    for delta, then in ((by["alice::employer"], a1), (by["bob::city"], b1)):
        assert delta.old_memory.content == then.content
        assert delta.old_memory.revision == then.revision
        assert delta.old_memory.status == types_pb2.MEMORY_STATUS_ACTIVE
        assert delta.old_memory.slot_key == then.slot_key
    # Or their identity only, for a follower that keeps what it was sent.
    lean, _ = await _sync(reader, cursor, omit_old_content=True)
    lean_by = {d.slot_key: d for d in lean}
    assert lean_by["alice::employer"].old_memory.name == a1.name
    assert lean_by["alice::employer"].old_memory.revision == a1.revision
    assert lean_by["alice::employer"].old_memory.content == ""
    assert lean_by["alice::employer"].new_memory.content == a3.content
    assert lean_by["alice::employer"].ByteSize() < by["alice::employer"].ByteSize()
    # Nothing changed since: an empty catch-up.
    assert (await _sync(reader, cursor2))[0] == []
    # A revision in the home space moves the slot: the new text, a higher version.
    current = await writer.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=a3.name))
    await writer.lifecycle.ReviseMemory(
        lifecycle_pb2.ReviseMemoryRequest(
            memory=types_pb2.Memory(
                name=a3.name, content="alice works at Hooli (since May)", etag=current.etag
            ),
            update_mask=field_mask_pb2.FieldMask(paths=["content"]),
        )
    )
    revised, cursor2 = await _sync(reader, cursor2)
    assert [(d.slot_key, d.op) for d in revised] == [("alice::employer", REPLACE)]
    assert revised[0].new_memory.content == "alice works at Hooli (since May)"
    assert revised[0].version > by["alice::employer"].version
    # The same memory before and after: the old one at the revision the slot held.
    assert revised[0].old_memory.name == a3.name
    assert revised[0].old_memory.content == a3.content
    assert revised[0].old_memory.revision == current.revision
    assert revised[0].new_memory.revision > current.revision
    # Resuming mid catch-up sends the rest, no gaps, no duplicates.
    full, _ = await _sync(reader)
    first, mid = None, ""
    async for message in reader.pool.SyncPool(pool_pb2.SyncPoolRequest(pool="pools/p")):
        first, mid = message.delta, message.cursor
        break
    rest, _ = await _sync(reader, mid)
    assert first is not None
    assert sorted([first.slot_key, *[d.slot_key for d in rest]]) == sorted(d.slot_key for d in full)
    # A forged or foreign cursor is refused naming the field.
    err = await expect(grpc.StatusCode.INVALID_ARGUMENT, _sync(reader, "not-a-cursor"))
    assert "cursor" in err.details()
    err = await expect(grpc.StatusCode.INVALID_ARGUMENT, _sync(reader, cursor, topic="people"))
    assert "cursor" in err.details()


async def test_follow_live_and_cut_on_removal(make_tenant: Any) -> None:
    _t, owner, writer, reader = await _setup(make_tenant)
    received: list[Any] = []
    caught_up = asyncio.Event()
    errors: list[grpc.StatusCode] = []

    async def follow() -> None:
        try:
            async for message in reader.pool.SyncPool(
                pool_pb2.SyncPoolRequest(pool="pools/p", follow=True)
            ):
                if message.caught_up:
                    caught_up.set()
                else:
                    received.append((time.monotonic(), message.delta))
        except grpc.aio.AioRpcError as err:
            errors.append(err.code())

    task = asyncio.create_task(follow())
    await asyncio.wait_for(caught_up.wait(), 10)
    m = await writer.remember(
        "w", "the build runs on arm64", importance=0.9, slot_key="build::arch"
    )
    await writer.publish("pools/p", m.name)
    await _until(lambda: received)
    assert received and received[0][1].op == ADD and received[0][1].new_memory.content == m.content
    # A live REPLACE carries the old text as it was, and the new one.
    await writer.lifecycle.ReviseMemory(
        lifecycle_pb2.ReviseMemoryRequest(
            memory=types_pb2.Memory(name=m.name, content="the build runs on x86", etag=m.etag),
            update_mask=field_mask_pb2.FieldMask(paths=["content"]),
        )
    )
    await _until(lambda: len(received) >= 2)
    live = received[1][1]
    assert live.op == REPLACE and live.old_memory.content == m.content
    assert live.old_memory.revision == m.revision
    assert live.new_memory.content == "the build runs on x86"
    # Removing the member ends its stream with PERMISSION_DENIED within a second.
    member = (
        await owner.pool.ListPoolMembers(
            pool_pb2.ListPoolMembersRequest(parent="pools/p", principal="reader")
        )
    ).members[0]
    removed_at = time.monotonic()
    await owner.pool.RemovePoolMember(pool_pb2.RemovePoolMemberRequest(name=member.name))
    await asyncio.wait_for(task, 5)
    assert errors == [grpc.StatusCode.PERMISSION_DENIED]
    assert time.monotonic() - removed_at < 1.0


async def test_group_member_removal_cuts_topic_stream(make_tenant: Any) -> None:
    t, owner, writer, _ = await _setup(make_tenant)
    admin = await make_admin(t)
    erin = await make_agent(t, "team-e/erin")
    await make_group(admin, "team-e", ["team-e/erin"])
    await owner.add("pools/p", "groups/team-e", READER)
    first = await writer.remember("w", "release 1.2 shipped", importance=0.9)
    await writer.publish("pools/p", first.name, topic="releases")
    events: list[Any] = []
    errors: list[grpc.StatusCode] = []

    async def subscribe() -> None:
        try:
            async for event in erin.pool.SubscribeTopic(
                pool_pb2.SubscribeTopicRequest(name="pools/p/topics/releases", cursor="0")
            ):
                events.append(event)
        except grpc.aio.AioRpcError as err:
            errors.append(err.code())

    task = asyncio.create_task(subscribe())
    second = await writer.remember("w", "release 1.3 shipped", importance=0.9)
    pub = (await writer.publish("pools/p", second.name, topic="releases")).publication
    await writer.pool.UnpublishMemory(pool_pb2.UnpublishMemoryRequest(name=pub.name))
    await _until(lambda: len(events) >= 3)
    assert [e.event_type for e in events] == [
        pool_pb2.TOPIC_EVENT_TYPE_PUBLISHED,
        pool_pb2.TOPIC_EVENT_TYPE_PUBLISHED,
        pool_pb2.TOPIC_EVENT_TYPE_WITHDRAWN,
    ]
    assert events[0].memory.content == first.content
    # Resume after the first event: the other two, once each.
    again: list[Any] = []
    async for event in erin.pool.SubscribeTopic(
        pool_pb2.SubscribeTopicRequest(name="pools/p/topics/releases", cursor=events[0].cursor)
    ):
        again.append(event)
        if len(again) == 2:
            break
    assert [e.cursor for e in again] == [e.cursor for e in events[1:]]
    topics = await erin.pool.ListTopics(pool_pb2.ListTopicsRequest(parent="pools/p"))
    assert [(x.topic, x.publication_count) for x in topics.topics] == [("releases", 1)]
    from engram.v1 import admin_pb2

    removed_at = time.monotonic()
    await admin.admin.RemoveGroupMember(
        admin_pb2.RemoveGroupMemberRequest(group="groups/team-e", principal="team-e/erin")
    )
    await asyncio.wait_for(task, 5)
    assert errors == [grpc.StatusCode.PERMISSION_DENIED]
    assert time.monotonic() - removed_at < 1.0
