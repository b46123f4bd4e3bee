"""Learning and curation RPCs of LifecycleService (Learn, Consolidate, Dream).

`LearningMethods` is a mixin: the LifecycleService servicer inherits it and
provides `self.ctx` and `self.service`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import grpc
from engram.v1 import lifecycle_pb2

from engram_server.api import convert
from engram_server.api.timestamps import optional_time
from engram_server.learning.dream import PlannedAction
from engram_server.platform.context import AppContext
from engram_server.platform.principal import current_principal
from engram_server.privacy import PrivacyFinding
from engram_server.services.consolidate import ConsolidateService
from engram_server.services.dream import DreamService
from engram_server.services.learn import LearnService, TurnInput
from engram_server.services.lifecycle import LifecycleService

Ctx = grpc.aio.ServicerContext[Any, Any]


def _findings(found: Sequence[PrivacyFinding]) -> list[lifecycle_pb2.PrivacyFinding]:
    return [
        lifecycle_pb2.PrivacyFinding(
            category=f.category, type=f.type, action=f.action, field=f.field
        )
        for f in found
    ]


def _action(a: PlannedAction) -> lifecycle_pb2.DreamAction:
    out = lifecycle_pb2.DreamAction(
        action=a.action, memories=[m.name for m in a.memories], reason=a.reason
    )
    if a.detail:
        out.detail.CopyFrom(convert.dict_to_struct(a.detail))
    return out


class LearningMethods:
    ctx: AppContext
    service: LifecycleService

    async def Learn(
        self, request: lifecycle_pb2.LearnRequest, context: Ctx
    ) -> lifecycle_pb2.LearnResponse:
        turns = [
            TurnInput(t.role, t.content, optional_time(t, "time", f"turns[{i}].time"))
            for i, t in enumerate(request.turns)
        ]
        outcome = await LearnService(self.service, self.ctx.llm).learn(
            current_principal(),
            request.space,
            request.session,
            turns,
            request.use_llm,
            convert.request_key("Learn", request),
        )
        return lifecycle_pb2.LearnResponse(
            results=[convert.result_to_proto(r) for r in outcome.results],
            privacy_findings=_findings(outcome.findings),
            unverified_count=outcome.unverified_count,
        )

    async def Consolidate(
        self, request: lifecycle_pb2.ConsolidateRequest, context: Ctx
    ) -> lifecycle_pb2.ConsolidateResponse:
        service = ConsolidateService(self.service, self.ctx.working_memory, self.ctx.llm)
        outcome = await service.consolidate(
            current_principal(),
            request.space,
            request.session,
            request.use_llm,
            convert.request_key("Consolidate", request),
        )
        return lifecycle_pb2.ConsolidateResponse(
            summary=convert.memory_to_proto(outcome.summary),
            records=[convert.memory_to_proto(m) for m in outcome.records],
            already_consolidated=outcome.already_consolidated,
            privacy_findings=_findings(outcome.findings),
        )

    async def Dream(
        self, request: lifecycle_pb2.DreamRequest, context: Ctx
    ) -> lifecycle_pb2.DreamResponse:
        outcome = await DreamService(self.service, self.ctx.llm).dream(
            current_principal(),
            request.space,
            request.dry_run,
            request.max_deprecation_ratio,
            request.policy_text,
            request.use_llm,
        )
        return lifecycle_pb2.DreamResponse(
            actions=[_action(a) for a in outcome.actions], applied=outcome.applied
        )
