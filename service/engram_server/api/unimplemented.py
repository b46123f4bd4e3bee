"""Servicers of the services whose implementations land in later work.

EvidenceService and DecisionsService are part of the
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

from typing import Any, NoReturn

import grpc
from engram.v1 import (
    decisions_pb2,
    decisions_pb2_grpc,
    evidence_pb2,
    evidence_pb2_grpc,
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


class DecisionsServicer(decisions_pb2_grpc.DecisionsServiceServicer):
    """DecisionsService: decisions mined from commits and the code they explain."""

    def __init__(self, ctx: AppContext) -> None:
        self._ctx = ctx

    async def IngestCommits(
        self, request: decisions_pb2.IngestCommitsRequest, context: Ctx
    ) -> decisions_pb2.IngestCommitsResponse:
        await answer_unimplemented(context, "engram.v1.DecisionsService", "IngestCommits")

    async def CreateDecision(
        self, request: decisions_pb2.CreateDecisionRequest, context: Ctx
    ) -> decisions_pb2.Decision:
        await answer_unimplemented(context, "engram.v1.DecisionsService", "CreateDecision")

    async def GetDecision(
        self, request: decisions_pb2.GetDecisionRequest, context: Ctx
    ) -> decisions_pb2.Decision:
        await answer_unimplemented(context, "engram.v1.DecisionsService", "GetDecision")

    async def ListDecisions(
        self, request: decisions_pb2.ListDecisionsRequest, context: Ctx
    ) -> decisions_pb2.ListDecisionsResponse:
        await answer_unimplemented(context, "engram.v1.DecisionsService", "ListDecisions")

    async def SearchDecisions(
        self, request: decisions_pb2.SearchDecisionsRequest, context: Ctx
    ) -> decisions_pb2.SearchDecisionsResponse:
        await answer_unimplemented(context, "engram.v1.DecisionsService", "SearchDecisions")

    async def ExplainCode(
        self, request: decisions_pb2.ExplainCodeRequest, context: Ctx
    ) -> decisions_pb2.ExplainCodeResponse:
        await answer_unimplemented(context, "engram.v1.DecisionsService", "ExplainCode")
