"""The Engram side of a benchmark: tenants and timed calls through gRPC.

Every figure is taken the way a client sees it: a `grpc.aio` call from this
process to a server in another one, authentication and all.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import grpc
import grpc.aio
from engram.v1 import (
    admin_pb2,
    admin_pb2_grpc,
    lifecycle_pb2,
    lifecycle_pb2_grpc,
    recall_pb2,
    recall_pb2_grpc,
    types_pb2,
)
from grpc_health.v1 import health_pb2, health_pb2_grpc

from engram_server.bench.workload import SOURCE, Item

# Enough for the deep-page walk, whose pages may hold up to 1,000 memories.
_CHANNEL_OPTIONS = [("grpc.max_receive_message_length", 64 * 1024 * 1024)]
BENCH_SCOPES = ("read", "write")
WALK_PAGE_SIZE = 1000
INDEX_POLL_SECONDS = 1.0


def proposal(item: Item) -> lifecycle_pb2.MemoryProposal:
    return lifecycle_pb2.MemoryProposal(
        space=item.space,
        session=item.session,
        kind=types_pb2.MEMORY_KIND_SEMANTIC,
        content=item.content,
        source=SOURCE,
        confidence=item.confidence,
        tags=list(item.tags),
        attributes=item.attributes,
    )


def batch_requests(
    items: Sequence[Item], batch_size: int
) -> list[lifecycle_pb2.BatchProposeMemoriesRequest]:
    return [
        lifecycle_pb2.BatchProposeMemoriesRequest(
            proposals=[proposal(it) for it in items[i : i + batch_size]]
        )
        for i in range(0, len(items), batch_size)
    ]


def _accepted(result: lifecycle_pb2.ProposalResult) -> str:
    if result.outcome != lifecycle_pb2.PROPOSAL_OUTCOME_ACCEPTED:
        outcome = lifecycle_pb2.ProposalOutcome.Name(result.outcome)
        raise RuntimeError(f"proposal not accepted: {outcome} {list(result.failures)}")
    name: str = result.memory.name
    return name


@dataclass
class EngramTenant:
    """A tenant made for the run, its key, and its memories' resource names."""

    tenant_id: str
    metadata: tuple[tuple[str, str], ...]
    stub: lifecycle_pb2_grpc.LifecycleServiceAsyncStub
    names: list[str]

    async def batch_propose(self, request: lifecycle_pb2.BatchProposeMemoriesRequest) -> float:
        """One BatchProposeMemories call; returns its seconds."""
        start = time.perf_counter()
        response = await self.stub.BatchProposeMemories(request, metadata=self.metadata)
        elapsed = time.perf_counter() - start
        self.names.extend(_accepted(r) for r in response.results)
        return elapsed

    async def load(
        self, proposals: Iterable[lifecycle_pb2.MemoryProposal], batch_size: int
    ) -> list[str]:
        """Proposes memories in BatchProposeMemories calls of `batch_size` (the way
        a bench fills a tenant with 100k memories quickly); returns their names."""
        first = len(self.names)
        batch: list[lifecycle_pb2.MemoryProposal] = []
        for item in proposals:
            batch.append(item)
            if len(batch) >= batch_size:
                await self.batch_propose(lifecycle_pb2.BatchProposeMemoriesRequest(proposals=batch))
                batch = []
        if batch:
            await self.batch_propose(lifecycle_pb2.BatchProposeMemoriesRequest(proposals=batch))
        return self.names[first:]

    async def propose(self, request: lifecycle_pb2.ProposeMemoryRequest) -> float:
        """One ProposeMemory call; returns its seconds."""
        start = time.perf_counter()
        response = await self.stub.ProposeMemory(request, metadata=self.metadata)
        elapsed = time.perf_counter() - start
        self.names.append(_accepted(response.result))
        return elapsed

    async def get(self, name: str) -> float:
        request = lifecycle_pb2.GetMemoryRequest(name=name)
        start = time.perf_counter()
        await self.stub.GetMemory(request, metadata=self.metadata)
        return time.perf_counter() - start

    async def list_page(self, page_size: int, page_token: str) -> float:
        request = lifecycle_pb2.ListMemoriesRequest(page_size=page_size, page_token=page_token)
        start = time.perf_counter()
        response = await self.stub.ListMemories(request, metadata=self.metadata)
        elapsed = time.perf_counter() - start
        if len(response.memories) != page_size:
            raise RuntimeError(f"expected a full page of {page_size}")
        return elapsed

    async def token_at(self, offset: int) -> str:
        """The page token of the position `offset` memories from the newest.

        Page tokens record a position, not a page size, so the walk takes big
        pages and the measured calls then ask for small ones from there.
        """
        token = ""
        remaining = offset
        while remaining > 0:
            size = min(WALK_PAGE_SIZE, remaining)
            response = await self.stub.ListMemories(
                lifecycle_pb2.ListMemoriesRequest(page_size=size, page_token=token),
                metadata=self.metadata,
            )
            token = response.next_page_token
            if not token:
                raise RuntimeError(f"the tenant holds fewer than {offset} memories")
            remaining -= size
        return token


class EngramSide:
    """A channel to the server and a platform-admin key to make tenants with."""

    def __init__(self, address: str, platform_key: str) -> None:
        self.address = address
        self.channel = grpc.aio.insecure_channel(address, options=_CHANNEL_OPTIONS)
        self._admin_metadata = (("authorization", f"Bearer {platform_key}"),)
        self.admin = admin_pb2_grpc.AdminServiceStub(self.channel)
        self.lifecycle = lifecycle_pb2_grpc.LifecycleServiceStub(self.channel)
        self.health = health_pb2_grpc.HealthStub(self.channel)
        self.tenants: list[EngramTenant] = []

    async def round_trip(self) -> float:
        """Seconds of one gRPC health check: a call's round trip through the
        server, with no authentication and no database."""
        start = time.perf_counter()
        await self.health.Check(health_pb2.HealthCheckRequest())
        return time.perf_counter() - start

    async def agent_key(
        self, tenant_id: str, agent: str, scopes: Sequence[str] = BENCH_SCOPES
    ) -> tuple[tuple[str, str], ...]:
        """Call metadata of a new key of the tenant bound to the agent identity."""
        created = await self.admin.CreateApiKey(
            admin_pb2.CreateApiKeyRequest(
                parent=f"tenants/{tenant_id}",
                api_key=admin_pb2.ApiKey(scopes=list(scopes), agent=agent),
            ),
            metadata=self._admin_metadata,
        )
        return (("authorization", f"Bearer {created.secret}"),)

    async def new_tenant(self, label: str) -> EngramTenant:
        tenant_id = f"bench-{label}-{secrets.token_hex(4)}"
        await self.admin.CreateTenant(
            admin_pb2.CreateTenantRequest(
                tenant_id=tenant_id,
                tenant=admin_pb2.Tenant(display_name=f"engram bench ({label})"),
            ),
            metadata=self._admin_metadata,
        )
        created = await self.admin.CreateApiKey(
            admin_pb2.CreateApiKeyRequest(
                parent=f"tenants/{tenant_id}",
                api_key=admin_pb2.ApiKey(scopes=list(BENCH_SCOPES), display_name="engram bench"),
            ),
            metadata=self._admin_metadata,
        )
        tenant = EngramTenant(
            tenant_id=tenant_id,
            metadata=(("authorization", f"Bearer {created.secret}"),),
            stub=self.lifecycle,
            names=[],
        )
        self.tenants.append(tenant)
        return tenant

    async def wait_indexed(
        self,
        limit_seconds: float,
        tenants: Sequence[EngramTenant] | None = None,
        poll_seconds: float = INDEX_POLL_SECONDS,
    ) -> tuple[float, bool]:
        """Waits until the search index has caught up with the tenants' writes
        (default: every tenant of the run).

        Proposals reach the index through the outbox, in the background: right
        after a bulk load the server is still embedding the backlog, and timing
        anything then would measure that. Returns (seconds waited, caught up).
        """
        recall = recall_pb2_grpc.RecallServiceStub(self.channel)
        start = time.perf_counter()
        while True:
            pending = 0
            for tenant in self.tenants if tenants is None else tenants:
                try:
                    status = await recall.GetIndexStatus(
                        recall_pb2.GetIndexStatusRequest(), metadata=tenant.metadata
                    )
                except grpc.aio.AioRpcError as error:
                    if error.code() == grpc.StatusCode.UNIMPLEMENTED:
                        return 0.0, True  # a server without a search index
                    raise
                pending += status.pending_dense_items + status.pending_lexical_items
            waited = time.perf_counter() - start
            if pending == 0:
                return waited, True
            if waited > limit_seconds:
                return waited, False
            await asyncio.sleep(poll_seconds)

    async def first_recall(self, tenant: EngramTenant) -> float:
        """One untimed Recall in the tenant; returns its seconds (0 without a search
        index). After a bulk load the embedded index builds its search graphs once
        the backlog is empty, holding the server process while it does: this call
        waits that out, so the figures after it do not measure it."""
        recall = recall_pb2_grpc.RecallServiceStub(self.channel)
        start = time.perf_counter()
        try:
            await recall.Recall(
                recall_pb2.RecallRequest(
                    query="settle", spaces=["settle"], k=1, skip_access_tracking=True
                ),
                metadata=tenant.metadata,
            )
        except grpc.aio.AioRpcError as error:
            if error.code() == grpc.StatusCode.UNIMPLEMENTED:
                return 0.0
            raise
        return time.perf_counter() - start

    async def delete_tenants(self) -> None:
        """Removes every tenant this run made (for a server the bench does not own)."""
        for tenant in self.tenants:
            await self.admin.DeleteTenant(
                admin_pb2.DeleteTenantRequest(name=f"tenants/{tenant.tenant_id}"),
                metadata=self._admin_metadata,
            )
        self.tenants.clear()

    async def close(self) -> None:
        await self.channel.close()
