"""Learning and curation RPCs of LifecycleService (Learn, Consolidate, Dream).

`LearningMethods` is a mixin: the LifecycleService servicer inherits it and
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


class LearningMethods:
    ctx: AppContext
    service: LifecycleService

    async def Learn(
        self, request: lifecycle_pb2.LearnRequest, context: Ctx
    ) -> lifecycle_pb2.LearnResponse:
        await answer_unimplemented(context, _SERVICE, "Learn")

    async def Consolidate(
        self, request: lifecycle_pb2.ConsolidateRequest, context: Ctx
    ) -> lifecycle_pb2.ConsolidateResponse:
        await answer_unimplemented(context, _SERVICE, "Consolidate")

    async def Dream(
        self, request: lifecycle_pb2.DreamRequest, context: Ctx
    ) -> lifecycle_pb2.DreamResponse:
        await answer_unimplemented(context, _SERVICE, "Dream")
