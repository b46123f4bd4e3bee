"""Servicers of the services whose implementations land in later work.

DecisionsService is part of the
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
)

from engram_server.platform.context import AppContext

Ctx = grpc.aio.ServicerContext[Any, Any]


async def answer_unimplemented(context: Ctx, service: str, method: str) -> NoReturn:
    """Ends the call with UNIMPLEMENTED, naming the RPC the server does not serve yet."""
    await context.abort(
        grpc.StatusCode.UNIMPLEMENTED,
        f"{service}.{method} is not implemented by this server yet",
    )


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
