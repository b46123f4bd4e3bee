"""Pool streams end when the caller's API key is revoked.

Keys are checked when a call starts; SyncPool and SubscribeTopic then run for as
long as the caller follows. A revoked key must not keep reading a pool through a
stream it opened before the revocation, although its agent is still a member.
"""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
from engram.v1 import admin_pb2, pool_pb2

from tests.pool_helpers import READER, WRITER, make_agent


async def _revoke(t: Any, secret: str) -> None:
    keys = await t.admin.ListApiKeys(admin_pb2.ListApiKeysRequest(parent=t.name))
    name = next(k.name for k in keys.api_keys if secret.startswith(k.secret_prefix))
    await t.admin.RevokeApiKey(admin_pb2.RevokeApiKeyRequest(name=name))


async def test_revoking_a_key_ends_its_pool_streams(make_tenant: Any) -> None:
    t = await make_tenant()
    owner = await make_agent(t, "owner")
    writer = await make_agent(t, "writer")
    reader = await make_agent(t, "reader")
    await owner.create_pool("p")
    await owner.add("pools/p", "writer", WRITER)
    await owner.add("pools/p", "reader", READER)

    received: list[str] = []
    errors: list[grpc.StatusCode] = []
    ready = asyncio.Event()

    async def sync() -> None:
        try:
            async for message in reader.pool.SyncPool(
                pool_pb2.SyncPoolRequest(pool="pools/p", follow=True)
            ):
                if message.caught_up:
                    ready.set()
                else:
                    received.append(message.delta.new_memory.content)
        except grpc.aio.AioRpcError as err:
            errors.append(err.code())

    async def subscribe() -> None:
        # From the start of the log: nothing published before the stream opened is missed.
        call = reader.pool.SubscribeTopic(
            pool_pb2.SubscribeTopicRequest(name="pools/p/topics/ops", cursor="0")
        )
        try:
            async for event in call:
                received.append(event.memory.content)
        except grpc.aio.AioRpcError as err:
            errors.append(err.code())

    streams = [asyncio.create_task(sync()), asyncio.create_task(subscribe())]
    await asyncio.wait_for(ready.wait(), 10)
    before = await writer.remember("w", "the on-call rota changes on Mondays", importance=0.9)
    await writer.publish("pools/p", before.name, topic="ops")
    for _ in range(200):
        if received.count(before.content) == 2:
            break
        await asyncio.sleep(0.05)
    assert received.count(before.content) == 2

    await _revoke(t, reader.secret)
    after = await writer.remember("w", "the incident channel is #ops-war-room", importance=0.9)
    await writer.publish("pools/p", after.name, topic="ops")
    await asyncio.wait_for(asyncio.gather(*streams), 5)
    assert errors == [grpc.StatusCode.UNAUTHENTICATED] * 2
    assert after.content not in received
