"""Servicers of the services whose implementations land in later work.

EvidenceService and PoolService are part of the
API from the start, so clients in every language are generated against the whole
contract. Until the work that implements a service lands, each of its RPCs answers
UNIMPLEMENTED with a message naming the method; that work then replaces the class
here with a real servicer in its own module.

Every method aborts explicitly instead of inheriting the generated base class's
body. That body raises NotImplementedError, which the error-mapping interceptor
rightly treats as a bug and answers with INTERNAL; an explicit abort reaches the
caller as UNIMPLEMENTED. Overriding every method also makes the classes concrete
for mypy, whose generated stubs declare the base methods abstract.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, NoReturn

import grpc
from engram.v1 import (
    evidence_pb2,
    evidence_pb2_grpc,
    pool_pb2,
    pool_pb2_grpc,
    types_pb2,
)
from google.protobuf import empty_pb2

from engram_server.platform.context import AppContext

Ctx = grpc.aio.ServicerContext[Any, Any]


async def answer_unimplemented(context: Ctx, service: str, method: str) -> NoReturn:
    """Ends the call with UNIMPLEMENTED, naming the RPC the server does not serve yet."""
    await context.abort(
        grpc.StatusCode.UNIMPLEMENTED,
        f"{service}.{method} is not implemented by this server yet",
    )


class EvidenceServicer(evidence_pb2_grpc.EvidenceServiceServicer):
    """EvidenceService: evidence grades, the assessor, conflicts, edges and space profiles."""

    def __init__(self, ctx: AppContext) -> None:
        self._ctx = ctx

    async def SetEvidenceLevel(
        self, request: evidence_pb2.SetEvidenceLevelRequest, context: Ctx
    ) -> types_pb2.Memory:
        await answer_unimplemented(context, "engram.v1.EvidenceService", "SetEvidenceLevel")

    async def AssessMemory(
        self, request: evidence_pb2.AssessMemoryRequest, context: Ctx
    ) -> evidence_pb2.AssessMemoryResponse:
        await answer_unimplemented(context, "engram.v1.EvidenceService", "AssessMemory")

    async def GetConflict(
        self, request: evidence_pb2.GetConflictRequest, context: Ctx
    ) -> evidence_pb2.Conflict:
        await answer_unimplemented(context, "engram.v1.EvidenceService", "GetConflict")

    async def ListConflicts(
        self, request: evidence_pb2.ListConflictsRequest, context: Ctx
    ) -> evidence_pb2.ListConflictsResponse:
        await answer_unimplemented(context, "engram.v1.EvidenceService", "ListConflicts")

    async def ResolveConflict(
        self, request: evidence_pb2.ResolveConflictRequest, context: Ctx
    ) -> evidence_pb2.ResolveConflictResponse:
        await answer_unimplemented(context, "engram.v1.EvidenceService", "ResolveConflict")

    async def CreateEdge(
        self, request: evidence_pb2.CreateEdgeRequest, context: Ctx
    ) -> types_pb2.Edge:
        await answer_unimplemented(context, "engram.v1.EvidenceService", "CreateEdge")

    async def GetEdge(self, request: evidence_pb2.GetEdgeRequest, context: Ctx) -> types_pb2.Edge:
        await answer_unimplemented(context, "engram.v1.EvidenceService", "GetEdge")

    async def ListEdges(
        self, request: evidence_pb2.ListEdgesRequest, context: Ctx
    ) -> evidence_pb2.ListEdgesResponse:
        await answer_unimplemented(context, "engram.v1.EvidenceService", "ListEdges")

    async def DeleteEdge(
        self, request: evidence_pb2.DeleteEdgeRequest, context: Ctx
    ) -> empty_pb2.Empty:
        await answer_unimplemented(context, "engram.v1.EvidenceService", "DeleteEdge")

    async def GetSpaceProfile(
        self, request: evidence_pb2.GetSpaceProfileRequest, context: Ctx
    ) -> evidence_pb2.SpaceProfile:
        await answer_unimplemented(context, "engram.v1.EvidenceService", "GetSpaceProfile")


class PoolServicer(pool_pb2_grpc.PoolServiceServicer):
    """PoolService: pools, members, publish gating, trust, slot-delta sync and topic channels."""

    def __init__(self, ctx: AppContext) -> None:
        self._ctx = ctx

    async def CreatePool(self, request: pool_pb2.CreatePoolRequest, context: Ctx) -> pool_pb2.Pool:
        await answer_unimplemented(context, "engram.v1.PoolService", "CreatePool")

    async def GetPool(self, request: pool_pb2.GetPoolRequest, context: Ctx) -> pool_pb2.Pool:
        await answer_unimplemented(context, "engram.v1.PoolService", "GetPool")

    async def ListPools(
        self, request: pool_pb2.ListPoolsRequest, context: Ctx
    ) -> pool_pb2.ListPoolsResponse:
        await answer_unimplemented(context, "engram.v1.PoolService", "ListPools")

    async def UpdatePool(self, request: pool_pb2.UpdatePoolRequest, context: Ctx) -> pool_pb2.Pool:
        await answer_unimplemented(context, "engram.v1.PoolService", "UpdatePool")

    async def DeletePool(
        self, request: pool_pb2.DeletePoolRequest, context: Ctx
    ) -> empty_pb2.Empty:
        await answer_unimplemented(context, "engram.v1.PoolService", "DeletePool")

    async def AddPoolMember(
        self, request: pool_pb2.AddPoolMemberRequest, context: Ctx
    ) -> pool_pb2.PoolMember:
        await answer_unimplemented(context, "engram.v1.PoolService", "AddPoolMember")

    async def RemovePoolMember(
        self, request: pool_pb2.RemovePoolMemberRequest, context: Ctx
    ) -> empty_pb2.Empty:
        await answer_unimplemented(context, "engram.v1.PoolService", "RemovePoolMember")

    async def ListPoolMembers(
        self, request: pool_pb2.ListPoolMembersRequest, context: Ctx
    ) -> pool_pb2.ListPoolMembersResponse:
        await answer_unimplemented(context, "engram.v1.PoolService", "ListPoolMembers")

    async def PublishMemory(
        self, request: pool_pb2.PublishMemoryRequest, context: Ctx
    ) -> pool_pb2.PublishMemoryResponse:
        await answer_unimplemented(context, "engram.v1.PoolService", "PublishMemory")

    async def UnpublishMemory(
        self, request: pool_pb2.UnpublishMemoryRequest, context: Ctx
    ) -> pool_pb2.Publication:
        await answer_unimplemented(context, "engram.v1.PoolService", "UnpublishMemory")

    async def ReviewPublication(
        self, request: pool_pb2.ReviewPublicationRequest, context: Ctx
    ) -> pool_pb2.Publication:
        await answer_unimplemented(context, "engram.v1.PoolService", "ReviewPublication")

    async def GetPublication(
        self, request: pool_pb2.GetPublicationRequest, context: Ctx
    ) -> pool_pb2.Publication:
        await answer_unimplemented(context, "engram.v1.PoolService", "GetPublication")

    async def ListPublications(
        self, request: pool_pb2.ListPublicationsRequest, context: Ctx
    ) -> pool_pb2.ListPublicationsResponse:
        await answer_unimplemented(context, "engram.v1.PoolService", "ListPublications")

    async def GetAgentTrust(
        self, request: pool_pb2.GetAgentTrustRequest, context: Ctx
    ) -> pool_pb2.AgentTrust:
        await answer_unimplemented(context, "engram.v1.PoolService", "GetAgentTrust")

    async def ListAgentTrusts(
        self, request: pool_pb2.ListAgentTrustsRequest, context: Ctx
    ) -> pool_pb2.ListAgentTrustsResponse:
        await answer_unimplemented(context, "engram.v1.PoolService", "ListAgentTrusts")

    async def SyncPool(
        self, request: pool_pb2.SyncPoolRequest, context: Ctx
    ) -> AsyncIterator[pool_pb2.SyncPoolResponse]:
        await answer_unimplemented(context, "engram.v1.PoolService", "SyncPool")
        yield pool_pb2.SyncPoolResponse()  # never reached; makes this a streaming handler

    async def ListTopics(
        self, request: pool_pb2.ListTopicsRequest, context: Ctx
    ) -> pool_pb2.ListTopicsResponse:
        await answer_unimplemented(context, "engram.v1.PoolService", "ListTopics")

    async def SubscribeTopic(
        self, request: pool_pb2.SubscribeTopicRequest, context: Ctx
    ) -> AsyncIterator[pool_pb2.SubscribeTopicResponse]:
        await answer_unimplemented(context, "engram.v1.PoolService", "SubscribeTopic")
        yield pool_pb2.SubscribeTopicResponse()  # never reached; makes this a streaming handler
