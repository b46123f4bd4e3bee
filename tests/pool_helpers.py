"""Helpers for pool tests: agents with their own keys and stubs, a team setup."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import grpc
import pytest
from engram.v1 import (
    admin_pb2,
    admin_pb2_grpc,
    lifecycle_pb2,
    lifecycle_pb2_grpc,
    pool_pb2,
    pool_pb2_grpc,
    recall_pb2,
    recall_pb2_grpc,
)

from tests.lifecycle_helpers import proposal

T = TypeVar("T")
RYW = recall_pb2.READ_CONSISTENCY_READ_YOUR_WRITES
READER = pool_pb2.POOL_ROLE_READER
WRITER = pool_pb2.POOL_ROLE_WRITER
OWNER = pool_pb2.POOL_ROLE_OWNER


@dataclass
class Agent:
    """One principal of a tenant: its key, identity and stubs."""

    name: str  # the agent identity ("" for a key bound to no agent)
    secret: str
    channel: grpc.aio.Channel
    pool: Any = field(init=False)
    lifecycle: Any = field(init=False)
    recall: Any = field(init=False)
    admin: Any = field(init=False)

    def __post_init__(self) -> None:
        self.pool = pool_pb2_grpc.PoolServiceStub(self.channel)
        self.lifecycle = lifecycle_pb2_grpc.LifecycleServiceStub(self.channel)
        self.recall = recall_pb2_grpc.RecallServiceStub(self.channel)
        self.admin = admin_pb2_grpc.AdminServiceStub(self.channel)

    async def remember(self, space: str, content: str, **kw: Any) -> Any:
        response = await self.lifecycle.ProposeMemory(
            lifecycle_pb2.ProposeMemoryRequest(proposal=proposal(space, content, **kw))
        )
        return response.result.memory

    async def create_pool(self, pool_id: str, **kw: Any) -> Any:
        return await self.pool.CreatePool(
            pool_pb2.CreatePoolRequest(
                pool_id=pool_id,
                pool=pool_pb2.Pool(display_name=kw.pop("display_name", pool_id), **kw),
            )
        )

    async def publish(self, pool: str, memory: str, **kw: Any) -> Any:
        return await self.pool.PublishMemory(
            pool_pb2.PublishMemoryRequest(pool=pool, memory=memory, **kw)
        )

    async def add(self, pool: str, principal: str, role: int) -> Any:
        return await self.pool.AddPoolMember(
            pool_pb2.AddPoolMemberRequest(
                parent=pool, member=pool_pb2.PoolMember(principal=principal, role=role)
            )
        )

    async def recall_pools(self, query: str, pools: list[str], **kw: Any) -> Any:
        return await self.recall.Recall(
            recall_pb2.RecallRequest(query=query, pools=pools, consistency=RYW, **kw)
        )


async def make_agent(tenant: Any, name: str, scopes: tuple[str, ...] = ("read", "write")) -> Agent:
    secret = await tenant.new_key(scopes=scopes, agent=name or None)
    return Agent(name, secret, tenant.channel_for(secret))


async def make_admin(tenant: Any) -> Agent:
    return Agent("", tenant.secret, tenant.channel)


async def code_of(call: Awaitable[Any]) -> grpc.StatusCode:
    """The status code a call ends with (OK when it succeeds)."""
    try:
        await call
    except grpc.aio.AioRpcError as err:
        return err.code()
    return grpc.StatusCode.OK


async def expect(code: grpc.StatusCode, call: Awaitable[Any]) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call
    assert info.value.code() == code, info.value.details()
    return info.value


async def eventually(check: Callable[[], Awaitable[T]], seconds: float = 5.0) -> T:
    """Polls `check` until it returns a truthy value (or fails at the end)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while True:
        result = await check()
        if result or loop.time() >= deadline:
            assert result, "condition not met in time"
            return result
        await asyncio.sleep(0.05)


async def make_group(admin: Agent, group_id: str, members: list[str]) -> Any:
    await admin.admin.CreateGroup(
        admin_pb2.CreateGroupRequest(
            group_id=group_id, group=admin_pb2.Group(display_name=group_id)
        )
    )
    group = None
    for m in members:
        group = await admin.admin.AddGroupMember(
            admin_pb2.AddGroupMemberRequest(group=f"groups/{group_id}", principal=m)
        )
    return group
