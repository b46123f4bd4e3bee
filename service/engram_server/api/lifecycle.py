"""LifecycleService servicer: protobuf in, domain calls, protobuf out.

Working memory and Reflect live in the `WorkingMemoryMethods` mixin
(`api/working_memory.py`); Learn, Consolidate and Dream in `LearningMethods`
(`api/learning.py`).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator
from typing import Any

import grpc
from engram.v1 import lifecycle_pb2, lifecycle_pb2_grpc, types_pb2

from engram_server.api import convert
from engram_server.api.learning import LearningMethods
from engram_server.api.timestamps import optional_time
from engram_server.api.working_memory import WorkingMemoryMethods
from engram_server.errors import InvalidArgument, Violations
from engram_server.lifecycle.model import Kind, ProposalResult, Status
from engram_server.platform.background import BackgroundTask
from engram_server.platform.context import AppContext
from engram_server.platform.egress import EgressPolicy
from engram_server.platform.principal import current_principal
from engram_server.platform.roles import runs_background
from engram_server.platform.webhooks import HttpWebhookCaller
from engram_server.services.lifecycle import SYSTEM_ACTOR, LifecycleService, parse_memory_name
from engram_server.services.policy_cache import POLICY_CHANNEL
from engram_server.services.reads import MemoryReads
from engram_server.services.watch import TransitionHub, validate_watch, watch
from engram_server.store.memories import AUDIT_CHANNEL, MemoryFilter

log = logging.getLogger(__name__)
Ctx = grpc.aio.ServicerContext[Any, Any]
_SERVICE = "engram.v1.LifecycleService"

_ORDERS = {
    lifecycle_pb2.MEMORY_ORDER_UNSPECIFIED: "CREATE_TIME_DESC",
    lifecycle_pb2.MEMORY_ORDER_CREATE_TIME_DESC: "CREATE_TIME_DESC",
    lifecycle_pb2.MEMORY_ORDER_CREATE_TIME_ASC: "CREATE_TIME_ASC",
    lifecycle_pb2.MEMORY_ORDER_UPDATE_TIME_DESC: "UPDATE_TIME_DESC",
}


class _Prerendered:
    """A write's response messages, rendered while the database finishes the write.

    The service hands its results over before it reads the insert's outcome
    (`on_results`); rendering them then overlaps PostgreSQL's work (for a batch of
    a hundred, about 2 ms of conversion that used to follow it). The rendering is
    used only if the service returns that same list: a redone write or a merged
    result (the privacy boundary dropped a proposal) is rendered afresh.
    """

    def __init__(self) -> None:
        self._results: list[ProposalResult] | None = None
        self._protos: list[lifecycle_pb2.ProposalResult] = []

    def render(self, results: list[ProposalResult]) -> None:
        self._results = results
        self._protos = [convert.result_to_proto(r) for r in results]

    def protos(self, results: list[ProposalResult]) -> list[lifecycle_pb2.ProposalResult]:
        if results is self._results:
            return self._protos
        return [convert.result_to_proto(r) for r in results]


class LifecycleServicer(
    WorkingMemoryMethods, LearningMethods, lifecycle_pb2_grpc.LifecycleServiceServicer
):
    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx
        egress = EgressPolicy.from_settings(ctx.settings)
        self.webhooks = HttpWebhookCaller(egress)
        self.service = LifecycleService(
            ctx.db,
            self.webhooks,
            ctx.settings.max_content_bytes,
            self._near_duplicate,
            url_refusal=egress.refusal,
        )
        self.reads = MemoryReads(ctx.db)
        self.hub = TransitionHub()
        self._sweeper = BackgroundTask("expiry-sweeper", self._sweep_forever)

    async def _near_duplicate(
        self, tenant: str, space: str, content: str, threshold: float, session: str | None
    ) -> uuid.UUID | None:
        if self.ctx.recall is None:
            return None
        return await self.ctx.recall.service.near_duplicate(
            tenant, space, content, threshold, session
        )

    # --- background work ---------------------------------------------------------

    async def start(self) -> None:
        self.ctx.notifier.add_listener(AUDIT_CHANNEL, self.hub.notify)
        self.ctx.notifier.add_listener(POLICY_CHANNEL, self.service.policies.invalidate_tenant)
        if self.ctx.settings.expiry_sweep_seconds > 0 and runs_background(self.ctx.settings):
            self._sweeper.start()

    async def stop(self) -> None:
        self.ctx.notifier.remove_listener(AUDIT_CHANNEL, self.hub.notify)
        self.ctx.notifier.remove_listener(POLICY_CHANNEL, self.service.policies.invalidate_tenant)
        await self._sweeper.stop()
        await self.webhooks.close()

    async def _sweep_forever(self) -> None:
        from engram_server.services.expiry import sweep_once

        while True:
            try:
                await sweep_once(self.ctx.db, self.service)
            except Exception:  # keep sweeping; the next round retries
                log.exception("expiry sweep failed")
            await asyncio.sleep(self.ctx.settings.expiry_sweep_seconds)

    # --- proposals -----------------------------------------------------------------

    async def ProposeMemory(
        self, request: lifecycle_pb2.ProposeMemoryRequest, context: Ctx
    ) -> lifecycle_pb2.ProposeMemoryResponse:
        v = Violations()
        if not request.HasField("proposal"):
            raise InvalidArgument.field("proposal", "required")
        proposal = convert.proposal_from_proto(request.proposal, "proposal", v)
        v.raise_if_any()
        rendered = _Prerendered()
        results = await self.service.propose(
            current_principal(),
            [proposal],
            convert.request_key("ProposeMemory", request),
            on_results=rendered.render,
        )
        return lifecycle_pb2.ProposeMemoryResponse(result=rendered.protos(results)[0])

    async def BatchProposeMemories(
        self, request: lifecycle_pb2.BatchProposeMemoriesRequest, context: Ctx
    ) -> lifecycle_pb2.BatchProposeMemoriesResponse:
        v = Violations()
        proposals = [
            convert.proposal_from_proto(p, f"proposals[{i}]", v)
            for i, p in enumerate(request.proposals)
        ]
        v.raise_if_any()
        rendered = _Prerendered()
        results = await self.service.propose(
            current_principal(),
            proposals,
            convert.request_key("BatchProposeMemories", request),
            field_prefix="proposals",
            batch=True,
            on_results=rendered.render,
        )
        return lifecycle_pb2.BatchProposeMemoriesResponse(results=rendered.protos(results))

    # --- transitions -----------------------------------------------------------------

    async def ConfirmMemory(
        self, request: lifecycle_pb2.ConfirmMemoryRequest, context: Ctx
    ) -> types_pb2.Memory:
        memory = await self.service.confirm(
            current_principal(),
            parse_memory_name(request.name),
            request.reason,
            convert.request_key("ConfirmMemory", request),
        )
        return convert.memory_to_proto(memory)

    async def RejectMemory(
        self, request: lifecycle_pb2.RejectMemoryRequest, context: Ctx
    ) -> types_pb2.Memory:
        memory = await self.service.reject(
            current_principal(),
            parse_memory_name(request.name),
            request.reason,
            convert.request_key("RejectMemory", request),
        )
        return convert.memory_to_proto(memory)

    async def RetractMemory(
        self, request: lifecycle_pb2.RetractMemoryRequest, context: Ctx
    ) -> lifecycle_pb2.RetractMemoryResponse:
        memory, cascaded = await self.service.retract(
            current_principal(),
            parse_memory_name(request.name),
            request.reason,
            request.cascade,
            convert.request_key("RetractMemory", request),
        )
        return lifecycle_pb2.RetractMemoryResponse(
            memory=convert.memory_to_proto(memory),
            cascaded=[convert.memory_to_proto(m) for m in cascaded],
        )

    async def ReviseMemory(
        self, request: lifecycle_pb2.ReviseMemoryRequest, context: Ctx
    ) -> types_pb2.Memory:
        if not request.HasField("memory"):
            raise InvalidArgument.field("memory", "required")
        memory_id = parse_memory_name(request.memory.name, "memory.name")
        changes = _revision_changes(request)
        memory = await self.service.revise(
            current_principal(),
            memory_id,
            request.memory.etag,
            changes,
            convert.request_key("ReviseMemory", request),
            request.reason,
        )
        return convert.memory_to_proto(memory)

    async def UpdateMemoryConfidence(
        self, request: lifecycle_pb2.UpdateMemoryConfidenceRequest, context: Ctx
    ) -> types_pb2.Memory:
        memory = await self.service.update_confidence(
            current_principal(),
            parse_memory_name(request.name),
            request.confidence,
            request.reason,
            convert.request_key("UpdateMemoryConfidence", request),
        )
        return convert.memory_to_proto(memory)

    async def ExpireDueMemories(
        self, request: lifecycle_pb2.ExpireDueMemoriesRequest, context: Ctx
    ) -> lifecycle_pb2.ExpireDueMemoriesResponse:
        principal = current_principal()
        as_of = optional_time(request, "as_of", "as_of")
        expired = await self.service.expire_due(
            principal.tenant_id, principal.actor, as_of, request.limit, request.space
        )
        return lifecycle_pb2.ExpireDueMemoriesResponse(
            expired_count=len(expired), names=[m.name for m in expired]
        )

    # --- reads ---------------------------------------------------------------------------

    async def GetMemory(
        self, request: lifecycle_pb2.GetMemoryRequest, context: Ctx
    ) -> types_pb2.Memory:
        memory = await self.reads.get(
            current_principal().tenant_id, parse_memory_name(request.name)
        )
        return convert.memory_to_proto(memory)

    async def ListMemories(
        self, request: lifecycle_pb2.ListMemoriesRequest, context: Ctx
    ) -> lifecycle_pb2.ListMemoriesResponse:
        v = Violations()
        statuses = [
            convert.enum_name(types_pb2.MemoryStatus, s, "MEMORY_STATUS_", f"statuses[{i}]", v)
            for i, s in enumerate(request.statuses)
        ]
        kinds = [
            convert.enum_name(types_pb2.MemoryKind, k, "MEMORY_KIND_", f"kinds[{i}]", v)
            for i, k in enumerate(request.kinds)
        ]
        order = _ORDERS.get(request.order_by)
        if order is None:
            v.add("order_by", f"unknown enum value {request.order_by}")
        v.raise_if_any()
        f = MemoryFilter(
            space=request.space,
            include_subspaces=request.include_subspaces,
            statuses=tuple(Status(s) for s in statuses if s and s != "UNSPECIFIED"),
            session=request.session,
            kinds=tuple(Kind(k) for k in kinds if k and k != "UNSPECIFIED"),
            tags=tuple(request.tags),
            create_time_start=optional_time(request, "create_time_start", "create_time_start"),
            create_time_end=optional_time(request, "create_time_end", "create_time_end"),
        )
        assert order is not None
        page, token = await self.reads.list_memories(
            current_principal().tenant_id, f, order, request.page_size, request.page_token
        )
        return lifecycle_pb2.ListMemoriesResponse(
            memories=[convert.memory_to_proto(m) for m in page], next_page_token=token
        )

    async def ListMemoryRevisions(
        self, request: lifecycle_pb2.ListMemoryRevisionsRequest, context: Ctx
    ) -> lifecycle_pb2.ListMemoryRevisionsResponse:
        page, token = await self.reads.revisions(
            current_principal().tenant_id,
            parse_memory_name(request.name),
            request.page_size,
            request.page_token,
        )
        return lifecycle_pb2.ListMemoryRevisionsResponse(
            revisions=[convert.revision_to_proto(r) for r in page], next_page_token=token
        )

    async def ListAuditEntries(
        self, request: lifecycle_pb2.ListAuditEntriesRequest, context: Ctx
    ) -> lifecycle_pb2.ListAuditEntriesResponse:
        memory_id = parse_memory_name(request.memory, "memory") if request.memory else None
        page, token = await self.reads.audit(
            current_principal().tenant_id,
            memory_id,
            request.space,
            request.page_size,
            request.page_token,
        )
        return lifecycle_pb2.ListAuditEntriesResponse(
            entries=[convert.audit_to_proto(e) for e in page], next_page_token=token
        )

    async def PurgeMemories(
        self, request: lifecycle_pb2.PurgeMemoriesRequest, context: Ctx
    ) -> lifecycle_pb2.PurgeMemoriesResponse:
        principal = current_principal()
        wm = self.ctx.working_memory

        async def erase_buffers() -> object:
            # An erasure covers the conversation buffers too, inside the purge's
            # transaction: if Redis is unreachable the call answers UNAVAILABLE and
            # nothing is purged; a retry does all of it.
            assert wm is not None
            return await wm.erase(principal.tenant_id, request.space, request.session)

        count, tombstone = await self.service.purge(
            principal,
            request.space,
            request.session,
            request.reason,
            convert.request_key("PurgeMemories", request),
            erase_buffers if wm is not None else None,
        )
        return lifecycle_pb2.PurgeMemoriesResponse(
            purged_count=count, tombstone=convert.audit_to_proto(tombstone)
        )

    async def WatchTransitions(
        self, request: lifecycle_pb2.WatchTransitionsRequest, context: Ctx
    ) -> AsyncIterator[lifecycle_pb2.WatchTransitionsResponse]:
        v = Violations()
        statuses = [
            convert.enum_name(types_pb2.MemoryStatus, s, "MEMORY_STATUS_", f"statuses[{i}]", v)
            for i, s in enumerate(request.statuses)
        ]
        v.raise_if_any()
        validate_watch(request.space, request.cursor)
        wanted = frozenset(Status(s) for s in statuses if s and s != "UNSPECIFIED")
        stream = watch(
            self.ctx.db,
            self.hub,
            current_principal().tenant_id,
            request.space,
            wanted,
            request.cursor,
        )
        async for event in stream:
            response = lifecycle_pb2.WatchTransitionsResponse(
                cursor=event.cursor, entry=convert.audit_to_proto(event.entry)
            )
            if event.memory is not None:
                response.memory.CopyFrom(convert.memory_to_proto(event.memory))
            yield response

    # --- policies ------------------------------------------------------------------------------

    async def GetPolicy(
        self, request: lifecycle_pb2.GetPolicyRequest, context: Ctx
    ) -> lifecycle_pb2.Policy:
        space = convert.parse_policy_name(request.name)
        policy = await self.service.get_policy(current_principal().tenant_id, space)
        return convert.policy_to_proto(policy)

    async def SetPolicy(
        self, request: lifecycle_pb2.SetPolicyRequest, context: Ctx
    ) -> lifecycle_pb2.Policy:
        if not request.HasField("policy"):
            raise InvalidArgument.field("policy", "required")
        v = Violations()
        policy = convert.policy_from_proto(request.policy, v)
        v.raise_if_any()
        saved = await self.service.set_policy(
            current_principal(), policy, convert.request_key("SetPolicy", request)
        )
        return convert.policy_to_proto(saved)


def _revision_changes(request: lifecycle_pb2.ReviseMemoryRequest) -> dict[str, Any]:
    """The fields named by update_mask, converted to domain values."""
    m = request.memory
    v = Violations()
    changes: dict[str, Any] = {}
    for path in request.update_mask.paths:
        if path == "content":
            changes["content"] = m.content
        elif path == "structured_content":
            changes["structured_content"] = (
                convert.struct_to_dict(m.structured_content, "memory.structured_content", v)
                if m.HasField("structured_content")
                else None
            )
        elif path in ("source", "slot_key", "topic", "session", "thread"):
            changes[path] = getattr(m, path)
        elif path == "importance":
            changes["importance"] = m.importance
        elif path == "tags":
            changes["tags"] = tuple(m.tags)
        elif path == "attributes":
            changes["attributes"] = dict(m.attributes)
        elif path == "expire_time":
            changes["expire_time"] = optional_time(m, "expire_time", "memory.expire_time")
        elif path == "kind":
            name = convert.enum_name(types_pb2.MemoryKind, m.kind, "MEMORY_KIND_", "memory.kind", v)
            if name and name != "UNSPECIFIED":
                changes["kind"] = Kind(name)
            elif name:
                v.add("memory.kind", "must be set when named in update_mask")
        else:
            v.add("update_mask", f"field {path!r} cannot be revised")
    v.raise_if_any()
    return changes


__all__ = ["SYSTEM_ACTOR", "LifecycleServicer"]
