"""Working-memory RPCs of LifecycleService (session buffers and Reflect).

`WorkingMemoryMethods` is a mixin: the LifecycleService servicer inherits it and
provides `self.ctx` and `self.service`.
"""

from __future__ import annotations

from typing import Any

import grpc
from engram.v1 import lifecycle_pb2

from engram_server.api.unimplemented import answer_unimplemented
from engram_server.platform.context import AppContext
from engram_server.services.lifecycle import LifecycleService

Ctx = grpc.aio.ServicerContext[Any, Any]
_SERVICE = "engram.v1.LifecycleService"


class WorkingMemoryMethods:
    ctx: AppContext
    service: LifecycleService

    async def AppendMessage(
        self, request: lifecycle_pb2.AppendMessageRequest, context: Ctx
    ) -> lifecycle_pb2.AppendMessageResponse:
        await answer_unimplemented(context, _SERVICE, "AppendMessage")

    async def GetSessionWindow(
        self, request: lifecycle_pb2.GetSessionWindowRequest, context: Ctx
    ) -> lifecycle_pb2.GetSessionWindowResponse:
        await answer_unimplemented(context, _SERVICE, "GetSessionWindow")

    async def ListSessions(
        self, request: lifecycle_pb2.ListSessionsRequest, context: Ctx
    ) -> lifecycle_pb2.ListSessionsResponse:
        await answer_unimplemented(context, _SERVICE, "ListSessions")

    async def ClearSession(
        self, request: lifecycle_pb2.ClearSessionRequest, context: Ctx
    ) -> lifecycle_pb2.ClearSessionResponse:
        await answer_unimplemented(context, _SERVICE, "ClearSession")

    async def Reflect(
        self, request: lifecycle_pb2.ReflectRequest, context: Ctx
    ) -> lifecycle_pb2.ReflectResponse:
        await answer_unimplemented(context, _SERVICE, "Reflect")
