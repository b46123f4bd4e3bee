"""PoolService servicer: pools, members, publishing, trust, sync and topics.

Parses names and enums, then calls `services.pools` (unary RPCs) and
`services.pool_streams` (SyncPool, SubscribeTopic). The servicer owns the hub that wakes
streams on `engram_pool` notifications.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any, TypeVar

import grpc
from engram.v1 import pool_pb2, pool_pb2_grpc
from google.protobuf import empty_pb2

from engram_server.api import convert
from engram_server.errors import Violations
from engram_server.platform.context import AppContext
from engram_server.platform.observability import pool_streams
from engram_server.platform.principal import current_principal
from engram_server.pools import model
from engram_server.services.lifecycle import parse_memory_name
from engram_server.services.pool_access import POOL_CHANNEL, visibility_from_proto
from engram_server.services.pool_streams import PoolHub, PoolStreams
from engram_server.services.pools import PoolOperations

Ctx = grpc.aio.ServicerContext[Any, Any]
T = TypeVar("T")


async def _counted(kind: str, stream: AsyncGenerator[T, None]) -> AsyncIterator[T]:
    """A stream's messages, counted in engram_pool_streams while it is open; closing
    it (the client went away) closes the stream at once."""
    pool_streams.add(1, {"kind": kind})
    try:
        async for message in stream:
            yield message
    finally:
        pool_streams.add(-1, {"kind": kind})
        await stream.aclose()


class PoolServicer(pool_pb2_grpc.PoolServiceServicer):
    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx
        self.ops = PoolOperations(ctx.db)
        self.hub = PoolHub()
        self.streams = PoolStreams(ctx.db, self.hub)

    async def start(self) -> None:
        self.ctx.notifier.add_listener(POOL_CHANNEL, self.hub.notify)
        self.ctx.notifier.add_reconnect_hook(self.hub.wake_all)

    async def stop(self) -> None:
        self.ctx.notifier.remove_listener(POOL_CHANNEL, self.hub.notify)
        self.ctx.notifier.remove_reconnect_hook(self.hub.wake_all)

    async def CreatePool(self, request: pool_pb2.CreatePoolRequest, context: Ctx) -> pool_pb2.Pool:
        return await self.ops.create_pool(
            current_principal(),
            request.pool_id,
            request.pool,
            convert.request_key("CreatePool", request),
        )

    async def GetPool(self, request: pool_pb2.GetPoolRequest, context: Ctx) -> pool_pb2.Pool:
        return await self.ops.get_pool(current_principal(), model.parse_pool_name(request.name))

    async def ListPools(
        self, request: pool_pb2.ListPoolsRequest, context: Ctx
    ) -> pool_pb2.ListPoolsResponse:
        return await self.ops.list_pools(current_principal(), request.page_size, request.page_token)

    async def UpdatePool(self, request: pool_pb2.UpdatePoolRequest, context: Ctx) -> pool_pb2.Pool:
        return await self.ops.update_pool(
            current_principal(),
            request.pool,
            list(request.update_mask.paths),
            convert.request_key("UpdatePool", request),
        )

    async def DeletePool(
        self, request: pool_pb2.DeletePoolRequest, context: Ctx
    ) -> empty_pb2.Empty:
        await self.ops.delete_pool(
            current_principal(),
            model.parse_pool_name(request.name),
            request.etag,
            convert.request_key("DeletePool", request),
        )
        return empty_pb2.Empty()

    async def AddPoolMember(
        self, request: pool_pb2.AddPoolMemberRequest, context: Ctx
    ) -> pool_pb2.PoolMember:
        return await self.ops.add_member(
            current_principal(),
            model.parse_pool_name(request.parent, "parent"),
            request.member,
            convert.request_key("AddPoolMember", request),
        )

    async def RemovePoolMember(
        self, request: pool_pb2.RemovePoolMemberRequest, context: Ctx
    ) -> empty_pb2.Empty:
        pool_id, member = model.parse_member_name(request.name)
        await self.ops.remove_member(
            current_principal(), pool_id, member, convert.request_key("RemovePoolMember", request)
        )
        return empty_pb2.Empty()

    async def ListPoolMembers(
        self, request: pool_pb2.ListPoolMembersRequest, context: Ctx
    ) -> pool_pb2.ListPoolMembersResponse:
        return await self.ops.list_members(
            current_principal(),
            model.parse_pool_name(request.parent, "parent"),
            request.principal,
            request.role,
            request.page_size,
            request.page_token,
        )

    async def PublishMemory(
        self, request: pool_pb2.PublishMemoryRequest, context: Ctx
    ) -> pool_pb2.PublishMemoryResponse:
        v = Violations()
        pool_id = v.collect(model.parse_pool_name, request.pool, "pool")
        memory_id = v.collect(parse_memory_name, request.memory, "memory")
        model.check_topic(v, "topic", request.topic)
        visibility = visibility_from_proto(request.visibility, "visibility", v)
        v.raise_if_any()
        assert pool_id is not None and memory_id is not None
        return await self.ops.publish(
            current_principal(),
            pool_id,
            memory_id,
            request.topic,
            visibility,
            convert.request_key("PublishMemory", request),
        )

    async def UnpublishMemory(
        self, request: pool_pb2.UnpublishMemoryRequest, context: Ctx
    ) -> pool_pb2.Publication:
        pool_id, publication_id = model.parse_publication_name(request.name)
        return await self.ops.unpublish(
            current_principal(),
            pool_id,
            publication_id,
            request.reason,
            convert.request_key("UnpublishMemory", request),
        )

    async def ReviewPublication(
        self, request: pool_pb2.ReviewPublicationRequest, context: Ctx
    ) -> pool_pb2.Publication:
        v = Violations()
        pool_id, publication_id = v.collect(model.parse_publication_name, request.name) or (
            None,
            None,
        )
        if request.decision not in (
            pool_pb2.REVIEW_DECISION_APPROVE,
            pool_pb2.REVIEW_DECISION_REJECT,
        ):
            v.add("decision", "required: APPROVE or REJECT")
        if request.decision == pool_pb2.REVIEW_DECISION_REJECT and not request.note.strip():
            v.add("note", "required when rejecting")
        v.raise_if_any()
        assert pool_id is not None and publication_id is not None
        return await self.ops.review(
            current_principal(),
            pool_id,
            publication_id,
            request.decision == pool_pb2.REVIEW_DECISION_APPROVE,
            request.note,
            convert.request_key("ReviewPublication", request),
        )

    async def GetPublication(
        self, request: pool_pb2.GetPublicationRequest, context: Ctx
    ) -> pool_pb2.Publication:
        pool_id, publication_id = model.parse_publication_name(request.name)
        return await self.ops.get_publication(current_principal(), pool_id, publication_id)

    async def ListPublications(
        self, request: pool_pb2.ListPublicationsRequest, context: Ctx
    ) -> pool_pb2.ListPublicationsResponse:
        v = Violations()
        pool_id = v.collect(model.parse_pool_name, request.parent, "parent")
        states = []
        for i, s in enumerate(request.states):
            name = convert.enum_name(
                pool_pb2.PublicationState, s, "PUBLICATION_STATE_", f"states[{i}]", v
            )
            if name and name != "UNSPECIFIED":
                states.append(name)
        memory_id = (
            v.collect(parse_memory_name, request.memory, "memory") if request.memory else None
        )
        model.check_topic(v, "topic", request.topic)
        v.raise_if_any()
        assert pool_id is not None
        return await self.ops.list_publications(
            current_principal(),
            pool_id,
            sorted(set(states)),
            request.topic,
            request.publisher,
            memory_id,
            request.page_size,
            request.page_token,
        )

    async def GetAgentTrust(
        self, request: pool_pb2.GetAgentTrustRequest, context: Ctx
    ) -> pool_pb2.AgentTrust:
        pool_id, member = model.parse_trust_name(request.name)
        return await self.ops.get_trust(current_principal(), pool_id, member)

    async def ListAgentTrusts(
        self, request: pool_pb2.ListAgentTrustsRequest, context: Ctx
    ) -> pool_pb2.ListAgentTrustsResponse:
        return await self.ops.list_trusts(
            current_principal(),
            model.parse_pool_name(request.parent, "parent"),
            request.page_size,
            request.page_token,
        )

    async def SyncPool(
        self, request: pool_pb2.SyncPoolRequest, context: Ctx
    ) -> AsyncIterator[pool_pb2.SyncPoolResponse]:
        v = Violations()
        model.check_topic(v, "topic", request.topic)
        v.raise_if_any()
        pool_id = model.parse_pool_name(request.pool, "pool")
        async for message in _counted(
            "sync",
            self.streams.sync(
                current_principal(),
                pool_id,
                request.cursor,
                request.topic,
                request.follow,
                request.omit_old_content,
            ),
        ):
            yield message

    async def ListTopics(
        self, request: pool_pb2.ListTopicsRequest, context: Ctx
    ) -> pool_pb2.ListTopicsResponse:
        return await self.ops.list_topics(
            current_principal(),
            model.parse_pool_name(request.parent, "parent"),
            request.page_size,
            request.page_token,
        )

    async def SubscribeTopic(
        self, request: pool_pb2.SubscribeTopicRequest, context: Ctx
    ) -> AsyncIterator[pool_pb2.SubscribeTopicResponse]:
        pool_id, topic = model.parse_topic_name(request.name)
        async for message in _counted(
            "topic", self.streams.subscribe(current_principal(), pool_id, topic, request.cursor)
        ):
            yield message
