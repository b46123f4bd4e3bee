"""The asyncio Engram client (`grpc.aio`), with the same surface as `engram.Client`."""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

import grpc
import grpc.aio

from engram import _convert as c
from engram import _message_stream, _requests, errors
from engram import types as t
from engram._base import AsyncClientBase, _AsyncTransport, rpc
from engram.admin import AsyncAdminClient, AsyncAdminMethods
from engram.decisions import AsyncDecisionsMixin
from engram.evidence import AsyncEvidenceClient, AsyncEvidenceMixin
from engram.pool import AsyncPoolMixin
from engram.recall import AsyncRecallMethods
from engram.v1 import evidence_pb2_grpc, lifecycle_pb2

__all__ = ["AsyncAdminClient", "AsyncClient", "_AsyncTransport"]


class AsyncClient(
    AsyncPoolMixin,
    AsyncEvidenceMixin,
    AsyncDecisionsMixin,
    AsyncRecallMethods,
    AsyncAdminMethods,
    AsyncClientBase,
):
    """An asyncio client of an Engram server; see `engram.Client` for connection,
    authentication, retry and error behaviour, which are the same.

    Methods are coroutines, except `list`, `transitions`, `revisions`, `watch` and the
    admin listings, which return async iterators (``async for m in client.list(...)``).
    Use it as an async context manager, or await `close()`.
    """

    def __init__(
        self,
        address: str | None = None,
        api_key: str | None = None,
        *,
        secure: bool = False,
        timeout: float | None = 10.0,
        credentials: grpc.ChannelCredentials | None = None,
        channel: grpc.aio.Channel | None = None,
        max_attempts: int = 3,
    ) -> None:
        super().__init__(
            address,
            api_key,
            secure=secure,
            timeout=timeout,
            credentials=credentials,
            channel=channel,
            max_attempts=max_attempts,
        )
        self.admin = AsyncAdminClient._sharing(self)
        # EvidenceService: grades, the assessor, conflicts, edges, space profiles.
        self.evidence = AsyncEvidenceClient(
            self._stub_of(evidence_pb2_grpc.EvidenceServiceStub), self._transport
        )

    # -- writes ---------------------------------------------------------------

    @rpc("engram.v1.LifecycleService.ProposeMemory")
    async def propose(
        self,
        space: str,
        content: str,
        *,
        kind: t.MemoryKind | str | None = None,
        confidence: float = 1.0,
        importance: float | None = None,
        session: str = "",
        thread: str = "",
        source: str = "",
        tags: Sequence[str] = (),
        slot_key: str = "",
        topic: str = "",
        depends_on: Sequence[str] = (),
        structured: Mapping[str, Any] | None = None,
        expire_time: datetime | timedelta | None = None,
        evidence_level: t.EvidenceLevel | str | None = None,
        attributes: Mapping[str, str] | None = None,
        origin: t.MemoryOrigin | str | None = None,
        valid_from: datetime | None = None,
        valid_to: datetime | None = None,
        expected_slot_memory: str | None = None,
        request_id: str | None = None,
    ) -> t.ProposalResult:
        """Proposes one memory (see `engram.Client.propose`)."""
        item = t.MemoryProposal(
            space=space,
            content=content,
            kind=kind,
            confidence=confidence,
            importance=importance,
            session=session,
            thread=thread,
            source=source,
            tags=tags,
            slot_key=slot_key,
            topic=topic,
            depends_on=depends_on,
            structured=structured,
            expire_time=expire_time,
            evidence_level=evidence_level,
            attributes=attributes,
            origin=origin,
            valid_from=valid_from,
            valid_to=valid_to,
            expected_slot_memory=expected_slot_memory,
        )
        response = await self._transport.unary(
            self._stub.ProposeMemory, _requests.propose(item, request_id), retryable=True
        )
        return c.proposal_result_out(response.result)

    @rpc("engram.v1.LifecycleService.BatchProposeMemories")
    async def batch_propose(
        self,
        proposals: Iterable[t.MemoryProposal | Mapping[str, Any]],
        *,
        request_id: str | None = None,
    ) -> builtins.list[t.ProposalResult]:
        """Proposes many memories in one transaction (all or nothing), results in order."""
        response = await self._transport.unary(
            self._stub.BatchProposeMemories,
            _requests.batch_propose(proposals, request_id),
            retryable=True,
        )
        return [c.proposal_result_out(r) for r in response.results]

    @rpc("engram.v1.LifecycleService.ConfirmMemory")
    async def confirm(
        self, name: str, reason: str = "", *, request_id: str | None = None
    ) -> t.Memory:
        request = _requests.confirm(name, reason, request_id)
        return c.memory_out(
            await self._transport.unary(self._stub.ConfirmMemory, request, retryable=True)
        )

    @rpc("engram.v1.LifecycleService.RejectMemory")
    async def reject(
        self, name: str, reason: str = "", *, request_id: str | None = None
    ) -> t.Memory:
        request = _requests.reject(name, reason, request_id)
        return c.memory_out(
            await self._transport.unary(self._stub.RejectMemory, request, retryable=True)
        )

    @rpc("engram.v1.LifecycleService.RetractMemory")
    async def retract(
        self, name: str, reason: str, cascade: bool = False, *, request_id: str | None = None
    ) -> t.RetractResult:
        request = _requests.retract(name, reason, cascade, request_id)
        return c.retract_out(
            await self._transport.unary(self._stub.RetractMemory, request, retryable=True)
        )

    @rpc("engram.v1.LifecycleService.ReviseMemory")
    async def revise(
        self,
        name: str,
        etag: str,
        *,
        reason: str = "",
        request_id: str | None = None,
        **changes: Any,
    ) -> t.Memory:
        request = _requests.revise(name, etag, changes, request_id, reason)
        return c.memory_out(
            await self._transport.unary(self._stub.ReviseMemory, request, retryable=True)
        )

    @rpc("engram.v1.LifecycleService.UpdateMemoryConfidence")
    async def update_confidence(
        self, name: str, confidence: float, reason: str = "", *, request_id: str | None = None
    ) -> t.Memory:
        request = _requests.update_confidence(name, confidence, reason, request_id)
        return c.memory_out(
            await self._transport.unary(self._stub.UpdateMemoryConfidence, request, retryable=True)
        )

    @rpc("engram.v1.LifecycleService.ExpireDueMemories")
    async def expire_due(
        self, *, as_of: datetime | None = None, limit: int = 0, space: str = ""
    ) -> t.ExpireResult:
        request = _requests.expire_due(as_of, limit, space)
        return c.expire_out(
            await self._transport.unary(self._stub.ExpireDueMemories, request, retryable=False)
        )

    @rpc("engram.v1.LifecycleService.PurgeMemories")
    async def purge(
        self, space: str, session: str = "", *, reason: str, request_id: str | None = None
    ) -> t.PurgeResult:
        request = _requests.purge(space, session, reason, request_id)
        return c.purge_out(
            await self._transport.unary(self._stub.PurgeMemories, request, retryable=True)
        )

    @rpc("engram.v1.LifecycleService.SetPolicy")
    async def set_policy(
        self, policy: t.Policy, *, space: str | None = None, request_id: str | None = None
    ) -> t.Policy:
        request = _requests.set_policy(policy, space, request_id)
        return c.policy_out(
            await self._transport.unary(self._stub.SetPolicy, request, retryable=True)
        )

    # -- reads ----------------------------------------------------------------

    @rpc("engram.v1.LifecycleService.GetMemory")
    async def get(self, name: str) -> t.Memory:
        return c.memory_out(
            await self._transport.unary(self._stub.GetMemory, _requests.get(name), retryable=True)
        )

    @rpc("engram.v1.LifecycleService.ListMemories")
    def list(
        self,
        space: str | None = None,
        *,
        statuses: Iterable[t.MemoryStatus | str] = (),
        kinds: Iterable[t.MemoryKind | str] = (),
        tags: Iterable[str] = (),
        session: str | None = None,
        created_after: datetime | None = None,
        created_before: datetime | None = None,
        order: t.MemoryOrder | str | None = None,
        page_size: int = 0,
        include_subspaces: bool = False,
    ) -> AsyncIterator[t.Memory]:
        """Async-iterates over matching memories, fetching pages as needed."""
        request = _requests.list_memories(
            space=space,
            statuses=statuses,
            kinds=kinds,
            tags=tags,
            session=session,
            created_after=created_after,
            created_before=created_before,
            order=order,
            page_size=page_size,
            include_subspaces=include_subspaces,
        )
        return self._transport.pages(
            self._stub.ListMemories, request, lambda r: map(c.memory_out, r.memories)
        )

    @rpc("engram.v1.LifecycleService.ListAuditEntries")
    def transitions(
        self, memory: str | None = None, space: str | None = None, *, page_size: int = 0
    ) -> AsyncIterator[t.AuditEntry]:
        request = _requests.audit_entries(memory, space, page_size)
        return self._transport.pages(
            self._stub.ListAuditEntries, request, lambda r: map(c.audit_entry_out, r.entries)
        )

    @rpc("engram.v1.LifecycleService.ListMemoryRevisions")
    def revisions(self, name: str, *, page_size: int = 0) -> AsyncIterator[t.MemoryRevision]:
        request = _requests.revisions(name, page_size)
        return self._transport.pages(
            self._stub.ListMemoryRevisions, request, lambda r: map(c.revision_out, r.revisions)
        )

    @rpc("engram.v1.LifecycleService.GetPolicy")
    async def get_policy(self, space: str | None = None) -> t.Policy:
        request = _requests.get_policy(space)
        return c.policy_out(
            await self._transport.unary(self._stub.GetPolicy, request, retryable=True)
        )

    @rpc("engram.v1.LifecycleService.WatchTransitions")
    def watch(
        self,
        space: str | None = None,
        statuses: Iterable[t.MemoryStatus | str] = (),
        cursor: str | None = None,
        *,
        resume: bool = True,
    ) -> AsyncIterator[t.TransitionEvent]:
        """Async-iterates over committed transitions (see `engram.Client.watch`).

        Wrap it in `contextlib.aclosing` to cancel the stream as soon as you stop
        iterating rather than when the iterator is garbage-collected.
        """
        request = _requests.watch(space, statuses, cursor)
        return self._watch(request, c.flag(resume, "resume"))

    async def _watch(
        self, request: lifecycle_pb2.WatchTransitionsRequest, resume: bool
    ) -> AsyncIterator[t.TransitionEvent]:
        retry = self._transport.retry
        failures = 0
        while True:
            call = self._stub.WatchTransitions(request, metadata=self._transport.metadata)
            try:
                async for response in call:
                    failures = 0
                    request.cursor = response.cursor
                    yield c.event_out(response)
                return
            except grpc.RpcError as rpc_error:
                error = errors.from_rpc_error(rpc_error)
                if resume and retry.should_retry(error.code, True, failures):
                    await asyncio.sleep(retry.delay(failures))
                    failures += 1
                    continue
                raise error from rpc_error
            finally:
                call.cancel()

    # -- working memory and conversation learning ---------------------------------

    @rpc("engram.v1.LifecycleService.AppendMessage")
    async def append_message(
        self,
        space: str,
        session: str,
        content: str,
        *,
        role: str = "user",
        time: datetime | None = None,
        metadata: Mapping[str, str] | None = None,
        request_id: str | None = None,
    ) -> t.AppendResult:
        """Appends a message (role "user", "assistant", "system" or "tool") to a
        session's working-memory buffer. The oldest messages are trimmed past the
        server's caps; `result.message` is None when the privacy boundary dropped the
        whole message (see `result.privacy_findings`)."""
        request = _requests.append_message(
            space, session, content, role, time, metadata, request_id
        )
        return c.append_out(
            await self._transport.unary(self._stub.AppendMessage, request, retryable=True)
        )

    @rpc("engram.v1.LifecycleService.AppendMessages")
    def append_messages(
        self,
        space: str,
        session: str,
        messages: Iterable[t.SessionMessage | str] | AsyncIterable[t.SessionMessage | str],
    ) -> AsyncIterator[t.AppendResult | errors.EngramError]:
        """Appends many messages over one stream (AppendMessages); `messages` may be
        a plain or an async iterable. See `Client.append_messages`."""
        return self._append_messages(
            _message_stream.AsyncOutbox(
                space, session, _requests.messages(space, session, messages)
            )
        )

    async def _append_messages(
        self, outbox: _message_stream.AsyncOutbox
    ) -> AsyncIterator[t.AppendResult | errors.EngramError]:
        retry = self._transport.retry
        failures = 0
        try:
            while True:
                call = self._stub.AppendMessages(
                    outbox.requests(), metadata=self._transport.metadata
                )
                try:
                    async for response in call:
                        failures = 0
                        for result in response.results:
                            outbox.acknowledge()
                            yield _message_stream.result_out(result)
                    if outbox.refused is not None:
                        raise outbox.refused
                    return
                except grpc.RpcError as rpc_error:
                    error = errors.from_rpc_error(rpc_error)
                    code = error.code
                    if _message_stream.lost_status(rpc_error):
                        code = grpc.StatusCode.UNAVAILABLE
                    if retry.should_retry(code, True, failures):
                        await asyncio.sleep(retry.delay(failures))
                        failures += 1
                        continue
                    raise error from rpc_error
                finally:
                    call.cancel()
        finally:
            outbox.close()

    @rpc("engram.v1.LifecycleService.GetSessionWindow")
    async def get_session_window(
        self, space: str, session: str, *, last_n: int = 0
    ) -> t.SessionWindow:
        """The last `last_n` buffered messages (0: all), oldest first."""
        request = _requests.session_window(space, session, last_n)
        return c.window_out(
            await self._transport.unary(self._stub.GetSessionWindow, request, retryable=True)
        )

    @rpc("engram.v1.LifecycleService.ListSessions")
    async def list_sessions(self, space: str) -> builtins.list[t.SessionInfo]:
        """Sessions of `space` with a live buffer, most recently active first."""
        request = _requests.list_sessions(space)
        response = await self._transport.unary(self._stub.ListSessions, request, retryable=True)
        return [c.session_info_out(s) for s in response.sessions]

    @rpc("engram.v1.LifecycleService.ClearSession")
    async def clear_session(self, space: str, session: str) -> int:
        """Deletes a session's buffer; returns how many messages it held. Clearing is
        naturally idempotent (a repeat clears nothing), so it is retried."""
        request = _requests.clear_session(space, session)
        response = await self._transport.unary(self._stub.ClearSession, request, retryable=True)
        return response.cleared_messages

    @rpc("engram.v1.RecallService.Engage")
    async def engage(
        self,
        space: str,
        session: str,
        content: str,
        *,
        role: str = "user",
        time: datetime | None = None,
        metadata: Mapping[str, str] | None = None,
        recall_spaces: Iterable[str] = (),
        include_subspaces: bool = False,
        pools: str | Iterable[str] | None = None,
        kinds: Iterable[t.MemoryKind | str] = (),
        tags: Iterable[str] = (),
        k: int = 0,
        min_score: float = 0.0,
        token_budget: int = 0,
        format: t.ContextFormat | str | None = None,
        group_by_kind: bool = True,
        include_citations: bool = True,
        include_evidence_badges: bool = False,
        resend: bool = False,
        read_your_writes: bool = False,
        request_id: str | None = None,
        valid_at: datetime | None = None,
        known_at: datetime | None = None,
    ) -> t.EngageResult:
        """Buffers an incoming message and returns the long-term context it calls for,
        in one round trip. A memory already sent in this session is not sent again
        unless `resend`; `suppressed_count` says how many were held back. `valid_at`
        and `known_at` bound what is recalled, as in `recall`."""
        request = _requests.engage(
            space,
            session,
            content,
            role=role,
            time=time,
            metadata=metadata,
            recall_spaces=recall_spaces,
            include_subspaces=include_subspaces,
            pools=pools,
            kinds=kinds,
            tags=tags,
            k=k,
            min_score=min_score,
            token_budget=token_budget,
            format=format,
            group_by_kind=group_by_kind,
            include_citations=include_citations,
            include_evidence_badges=include_evidence_badges,
            resend=resend,
            read_your_writes=read_your_writes,
            rid=request_id,
            valid_at=valid_at,
            known_at=known_at,
        )
        return c.engage_out(
            await self._transport.unary(self._recall.Engage, request, retryable=True)
        )

    @rpc("engram.v1.LifecycleService.Reflect")
    async def reflect(
        self,
        space: str,
        session: str,
        response: str = "",
        *,
        captures: Iterable[t.MemoryProposal | Mapping[str, Any]] = (),
        request_id: str | None = None,
    ) -> t.ReflectResult:
        """Buffers the agent's reply as an assistant message and proposes `captures`
        through the governed write path (captures default to this space and session)."""
        request = _requests.reflect(space, session, response, captures, request_id)
        return c.reflect_out(
            await self._transport.unary(self._stub.Reflect, request, retryable=True)
        )

    @rpc("engram.v1.LifecycleService.Learn")
    async def learn(
        self,
        space: str,
        turns: Iterable[t.ConversationTurn | tuple[str, str] | Mapping[str, Any]],
        *,
        session: str = "",
        use_llm: bool = False,
        request_id: str | None = None,
    ) -> t.LearnResult:
        """Extracts facts from conversation turns (`(role, content)` tuples work) and
        proposes them; `use_llm` picks the configured LLM over the deterministic path."""
        request = _requests.learn(space, turns, session, use_llm, request_id)
        return c.learn_out(await self._transport.unary(self._stub.Learn, request, retryable=True))

    @rpc("engram.v1.LifecycleService.Consolidate")
    async def consolidate(
        self,
        space: str,
        session: str,
        *,
        use_llm: bool = False,
        request_id: str | None = None,
    ) -> t.ConsolidateResult:
        """Turns a session buffer into a summary memory plus typed records."""
        request = _requests.consolidate(space, session, use_llm, request_id)
        return c.consolidate_out(
            await self._transport.unary(self._stub.Consolidate, request, retryable=True)
        )

    @rpc("engram.v1.LifecycleService.Dream")
    async def dream(
        self,
        space: str,
        *,
        dry_run: bool = True,
        max_deprecation_ratio: float = 0.0,
        policy_text: str = "",
        use_llm: bool = False,
    ) -> t.DreamResult:
        """Runs the Dream State curation pass over a space: a report by default,
        applied with `dry_run=False` (not retried: the RPC has no request_id)."""
        request = _requests.dream(space, dry_run, max_deprecation_ratio, policy_text, use_llm)
        return c.dream_out(
            await self._transport.unary(self._stub.Dream, request, retryable=dry_run)
        )
