"""Engram's side of the evaluation: ingest the turns and ask Recall, through gRPC.

Everything goes through the public API the way an agent would use it: a scratch
tenant made with a platform-admin key, one space per conversation, every turn a
memory (its `valid_from` the time it was said), then one Recall per question
with read-your-writes consistency.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

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
from google.protobuf import timestamp_pb2

from engram_server.evaluation.dataset import Conversation, Question

SOURCE = "engram-eval"
SCOPES = ("read", "write")
BATCH_SIZE = 250
POLL_SECONDS = 0.5
_CHANNEL_OPTIONS = [("grpc.max_receive_message_length", 64 * 1024 * 1024)]


def said_at(time_text: str) -> timestamp_pb2.Timestamp | None:
    """A turn's time as the memory's `valid_from` (when it was said, so a question
    naming a day can find it); None when the text is not ISO 8601."""
    try:
        when = datetime.fromisoformat(time_text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    out = timestamp_pb2.Timestamp()
    out.FromDatetime(when)
    return out


class RecallUnavailable(RuntimeError):
    """The server answers Recall with UNIMPLEMENTED."""


def space_of(conversation: Conversation) -> str:
    return f"eval/{conversation.id}"


@dataclass
class Ingested:
    """What storing the turns produced."""

    turns_by_memory: dict[str, list[str]] = field(default_factory=dict)
    outcomes: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    @property
    def turns(self) -> int:
        return sum(self.outcomes.values())

    @property
    def memories(self) -> int:
        return len(self.turns_by_memory)

    @property
    def merged_turns(self) -> int:
        """Turns stored as a memory that another turn of the run already was."""
        return sum(len(turns) - 1 for turns in self.turns_by_memory.values())


@dataclass(frozen=True)
class IndexWait:
    seconds: float
    status_available: bool
    embedding_model: str = ""
    vector_backend: str = ""


class RemoteEngram:
    """A channel to a server and a scratch tenant for one evaluation run."""

    def __init__(self, address: str, platform_key: str, deadline_seconds: float = 60.0) -> None:
        self.address = address
        self.deadline = deadline_seconds
        self.channel = grpc.aio.insecure_channel(address, options=_CHANNEL_OPTIONS)
        self._admin_metadata = (("authorization", f"Bearer {platform_key}"),)
        self._metadata: tuple[tuple[str, str], ...] = ()
        self.admin = admin_pb2_grpc.AdminServiceStub(self.channel)
        self.lifecycle = lifecycle_pb2_grpc.LifecycleServiceStub(self.channel)
        self.recall = recall_pb2_grpc.RecallServiceStub(self.channel)
        self.tenant_id = ""
        self.embedding_model = ""

    async def create_tenant(self) -> str:
        tenant_id = f"eval-{secrets.token_hex(4)}"
        await self.admin.CreateTenant(
            admin_pb2.CreateTenantRequest(
                tenant_id=tenant_id, tenant=admin_pb2.Tenant(display_name="engram eval")
            ),
            metadata=self._admin_metadata,
            timeout=self.deadline,
        )
        self.tenant_id = tenant_id
        created = await self.admin.CreateApiKey(
            admin_pb2.CreateApiKeyRequest(
                parent=f"tenants/{tenant_id}",
                api_key=admin_pb2.ApiKey(scopes=list(SCOPES), display_name="engram eval"),
            ),
            metadata=self._admin_metadata,
            timeout=self.deadline,
        )
        self._metadata = (("authorization", f"Bearer {created.secret}"),)
        return tenant_id

    async def delete_tenant(self) -> None:
        if self.tenant_id:
            await self.admin.DeleteTenant(
                admin_pb2.DeleteTenantRequest(name=f"tenants/{self.tenant_id}"),
                metadata=self._admin_metadata,
                timeout=self.deadline,
            )
            self.tenant_id = ""

    async def check_recall(self) -> None:
        """Fails fast, before any ingestion, when Recall is not served."""
        try:
            await self.recall.Recall(
                recall_pb2.RecallRequest(query="is recall served?", spaces=["eval/probe"], k=1),
                metadata=self._metadata,
                timeout=self.deadline,
            )
        except grpc.aio.AioRpcError as error:
            if error.code() == grpc.StatusCode.UNIMPLEMENTED:
                raise RecallUnavailable(
                    f"the server at {self.address} answers Recall with UNIMPLEMENTED:"
                    f" {error.details()}"
                ) from error
            raise

    async def ingest(
        self, conversations: Sequence[Conversation], say: Callable[[str], None]
    ) -> Ingested:
        """Stores every turn as an EPISODIC memory of its conversation's space."""
        result = Ingested()
        start = time.perf_counter()
        for number, conversation in enumerate(conversations, 1):
            turns = conversation.turns
            for offset in range(0, len(turns), BATCH_SIZE):
                batch = turns[offset : offset + BATCH_SIZE]
                response = await self.lifecycle.BatchProposeMemories(
                    lifecycle_pb2.BatchProposeMemoriesRequest(
                        proposals=[
                            lifecycle_pb2.MemoryProposal(
                                space=space_of(conversation),
                                session=turn.session,
                                kind=types_pb2.MEMORY_KIND_EPISODIC,
                                content=turn.text,
                                source=SOURCE,
                                confidence=1.0,
                                valid_from=said_at(turn.time),
                                attributes={
                                    "turn_id": turn.id,
                                    "role": turn.role,
                                    "time": turn.time,
                                },
                            )
                            for turn in batch
                        ],
                        request_id=f"{self.tenant_id}-{conversation.id}-{offset}",
                    ),
                    metadata=self._metadata,
                    timeout=self.deadline,
                )
                for turn, outcome in zip(batch, response.results, strict=True):
                    result.outcomes[lifecycle_pb2.ProposalOutcome.Name(outcome.outcome)] += 1
                    if outcome.memory.name:
                        result.turns_by_memory.setdefault(outcome.memory.name, []).append(turn.id)
            if number % 6 == 0 or number == len(conversations):
                say(f"ingested {number}/{len(conversations)} conversations")
        result.seconds = time.perf_counter() - start
        return result

    async def wait_indexed(self, wait_seconds: float, say: Callable[[str], None]) -> IndexWait:
        """Waits until the tenant's index backlog is empty (both legs).

        Without GetIndexStatus, one read-your-writes Recall bounded by `wait_seconds`
        does the waiting instead: it returns once every write is searchable.
        """
        start = time.perf_counter()
        last_report = 0.0
        while True:
            try:
                status = await self.recall.GetIndexStatus(
                    recall_pb2.GetIndexStatusRequest(),
                    metadata=self._metadata,
                    timeout=self.deadline,
                )
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.UNIMPLEMENTED:
                    raise
                await self._recall(["eval/probe"], "wait for the index", 1, wait_seconds)
                return IndexWait(time.perf_counter() - start, status_available=False)
            pending = status.pending_dense_items + status.pending_lexical_items
            elapsed = time.perf_counter() - start
            if pending == 0:
                return IndexWait(elapsed, True, status.embedding_model, status.vector_backend)
            if elapsed > wait_seconds:
                raise TimeoutError(f"index backlog still {pending} items after {wait_seconds:.0f}s")
            if elapsed - last_report >= 10:
                last_report = elapsed
                say(f"waiting for the index: {pending} items pending")
            await asyncio.sleep(POLL_SECONDS)

    async def _recall(
        self, spaces: list[str], query: str, k: int, deadline_seconds: float, deep: bool = False
    ) -> recall_pb2.RecallResponse:
        response: recall_pb2.RecallResponse = await self.recall.Recall(
            recall_pb2.RecallRequest(
                query=query,
                spaces=spaces,
                k=k,
                consistency=recall_pb2.READ_CONSISTENCY_READ_YOUR_WRITES,
                skip_access_tracking=True,
                depth=recall_pb2.RECALL_DEPTH_DEEP if deep else recall_pb2.RECALL_DEPTH_UNSPECIFIED,
            ),
            metadata=self._metadata,
            timeout=deadline_seconds,
        )
        return response

    async def rank(
        self, conversation: Conversation, question: Question, k: int, deep: bool = False
    ) -> tuple[list[tuple[str, dict[str, str]]], float]:
        """Recall's hits for `question` as (memory name, attributes), best first,
        and the call's seconds; `deep`: in depth mode."""
        start = time.perf_counter()
        response = await self._recall(
            [space_of(conversation)], question.text, k, self.deadline, deep
        )
        seconds = time.perf_counter() - start
        if response.embedding_model:
            self.embedding_model = response.embedding_model
        return [(hit.memory.name, dict(hit.memory.attributes)) for hit in response.hits], seconds

    async def close(self) -> None:
        await self.channel.close()
