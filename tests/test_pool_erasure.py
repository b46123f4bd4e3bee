"""A purged memory leaves nothing of its slot key or topic in pools: not on its
publication, not in the pool's slots, not in the pool's log; SyncPool still tells
followers which slot to drop, and SubscribeTopic which publication went."""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

from engram.v1 import lifecycle_pb2, pool_pb2

from tests.pool_helpers import READER, WRITER, make_agent

REMOVE = pool_pb2.SLOT_DELTA_OP_REMOVE
ADD = pool_pb2.SLOT_DELTA_OP_ADD
REPLACE = pool_pb2.SLOT_DELTA_OP_REPLACE
SECRET_KEY = "zebulon.okafor::employer"
SECRET_TOPIC = "zebulon-okafor-news"


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


async def _pool_text(raw_pg: Any, tenant_id: str) -> str:
    """Every row pools keep for the tenant, as text."""
    found = []
    for table in ("publications", "pool_slots", "pool_events"):
        cur = await raw_pg.execute(
            f"SELECT t::text FROM {table} t WHERE tenant_id = %s", (tenant_id,)
        )
        found.extend(r[0] for r in await cur.fetchall())
    return "\n".join(found)


async def _setup(make_tenant: Any) -> tuple[Any, Any, Any]:
    t = await make_tenant()
    owner = await make_agent(t, "owner")
    writer = await make_agent(t, "writer")
    reader = await make_agent(t, "reader")
    await owner.create_pool("p")
    await owner.add("pools/p", "writer", WRITER)
    await owner.add("pools/p", "reader", READER)
    return t, writer, reader


async def test_purge_erases_slot_key_and_topic_from_pools(make_tenant: Any, raw_pg: Any) -> None:
    t, writer, reader = await _setup(make_tenant)
    gone = await writer.remember(
        "users/zeb", "zebulon works at Acme", importance=0.9, slot_key=SECRET_KEY
    )
    kept = await writer.remember("w", "bob lives in Oslo", importance=0.9, slot_key="bob::city")
    await writer.publish("pools/p", gone.name, topic=SECRET_TOPIC)
    await writer.publish("pools/p", kept.name, topic="people")
    _, cursor = await _sync(reader)
    _, topic_cursor = await _sync(reader, topic=SECRET_TOPIC)
    assert SECRET_KEY in await _pool_text(raw_pg, t.tenant_id)

    await t.lifecycle.PurgeMemories(
        lifecycle_pb2.PurgeMemoriesRequest(space="users/zeb", reason="erasure request")
    )

    text = await _pool_text(raw_pg, t.tenant_id)
    assert "zebulon" not in text
    assert "bob::city" in text and "people" in text  # what was not purged stays
    # The follower learns which slot went: the memory that held it, under the
    # slot's label (a keyed hash of the key, per pool), nothing of its content.
    deltas, _ = await _sync(reader, cursor)
    assert len(deltas) == 1
    delta = deltas[0]
    assert delta.op == REMOVE
    assert delta.old_memory.name == gone.name and delta.old_memory.content == ""
    assert delta.slot_key.startswith("erased:") and "zebulon" not in str(delta)
    cur = await raw_pg.execute(
        "SELECT erasure_key FROM pools WHERE tenant_id = %s AND id = 'p'", (t.tenant_id,)
    )
    row = await cur.fetchone()
    assert row is not None
    label = hmac.new(bytes(row[0]), SECRET_KEY.encode(), hashlib.sha256).hexdigest()
    assert delta.slot_key == f"erased:{label}"
    # The withdrawn publication stays (the pool's history), keeping neither.
    cur = await raw_pg.execute(
        "SELECT state, slot_key, topic FROM publications WHERE tenant_id = %s AND memory_id = %s",
        (t.tenant_id, gone.name.split("/", 1)[1]),
    )
    assert await cur.fetchall() == [("WITHDRAWN", "", "")]
    # A subscriber that names the channel still gets its events, once each.
    events = []
    async for event in reader.pool.SubscribeTopic(
        pool_pb2.SubscribeTopicRequest(name=f"pools/p/topics/{SECRET_TOPIC}", cursor="0")
    ):
        events.append(event.event_type)
        if len(events) == 2:
            break
    assert events == [pool_pb2.TOPIC_EVENT_TYPE_PUBLISHED, pool_pb2.TOPIC_EVENT_TYPE_WITHDRAWN]
    filtered, _ = await _sync(reader, topic_cursor, topic=SECRET_TOPIC)
    assert [d.op for d in filtered] == [REMOVE]

    # The key used again: its slot continues the erased slot's version.
    again = await writer.remember(
        "w", "zebulon works at Initech", importance=0.9, slot_key=SECRET_KEY
    )
    await writer.publish("pools/p", again.name)
    latest, _ = await _sync(reader, cursor)
    back = [d for d in latest if d.slot_key == SECRET_KEY]
    assert [d.op for d in back] == [ADD] and back[0].version > delta.version


async def test_a_slot_another_memory_holds_keeps_its_key(make_tenant: Any, raw_pg: Any) -> None:
    t, writer, reader = await _setup(make_tenant)
    old = await writer.remember("w", "ana is on team red", importance=0.9, slot_key="ana::team")
    await writer.publish("pools/p", old.name)
    new = await writer.remember(
        "users/ana", "ana is on team blue", importance=0.9, slot_key="ana::team"
    )
    await writer.publish("pools/p", new.name)
    _, cursor = await _sync(reader)
    await t.lifecycle.PurgeMemories(
        lifecycle_pb2.PurgeMemoriesRequest(space="users/ana", reason="erasure request")
    )
    # The other memory (of another space) still holds the key: the slot keeps
    # its name and falls back to it.
    deltas, _ = await _sync(reader, cursor)
    assert [(d.slot_key, d.op) for d in deltas] == [("ana::team", REPLACE)]
    assert deltas[0].old_memory.name == new.name and deltas[0].new_memory.name == old.name
    assert "team blue" not in await _pool_text(raw_pg, t.tenant_id)


async def test_pools_forget_memories_purged_before_the_trigger(
    make_tenant: Any, raw_pg: Any
) -> None:
    """The migration's backfill: a publication whose memory was deleted without
    the trigger (as purges before it were) is forgotten."""
    t, writer, _ = await _setup(make_tenant)
    gone = await writer.remember(
        "users/zeb", "zebulon works at Acme", importance=0.9, slot_key=SECRET_KEY
    )
    await writer.publish("pools/p", gone.name, topic=SECRET_TOPIC)
    memory_id = gone.name.split("/", 1)[1]
    async with raw_pg.transaction():
        # Triggers off for this transaction only: the delete of an older purge.
        await raw_pg.execute("SET LOCAL session_replication_role = replica")
        await raw_pg.execute("DELETE FROM memories WHERE id = %s", (memory_id,))
    assert SECRET_KEY in await _pool_text(raw_pg, t.tenant_id)
    async with raw_pg.transaction():
        await raw_pg.execute("SELECT set_config('engram.platform', 'on', true)")
        await raw_pg.execute("SELECT engram_pool_forget_purged()")
    assert "zebulon" not in await _pool_text(raw_pg, t.tenant_id)
