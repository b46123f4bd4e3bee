"""The synchronous Engram client."""

from __future__ import annotations

import builtins
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

import grpc

from engram import _convert as c
from engram import _message_stream, _requests, errors
from engram import types as t
from engram._base import ClientBase, PageRequest, PageResponse, _Transport, rpc
from engram.admin import AdminClient, AdminMethods
from engram.decisions import DecisionsMixin
from engram.evidence import EvidenceClient, EvidenceMixin
from engram.pool import PoolClient, PoolMixin
from engram.recall import RecallMethods
from engram.v1 import evidence_pb2_grpc, lifecycle_pb2

# Re-exported: code written against earlier versions imports them from here.
__all__ = ["AdminClient", "Client", "PageRequest", "PageResponse", "_Transport"]


class Client(
    PoolMixin,
    EvidenceMixin,
    DecisionsMixin,
    RecallMethods,
    AdminMethods,
    ClientBase,
):
    """A synchronous client of an Engram server.

    ``Client(address, api_key)`` connects to `address` (default: `ENGRAM_ADDRESS`, else
    ``127.0.0.1:50051``) and sends `api_key` (default: `ENGRAM_API_KEY`) as
    ``authorization: Bearer <key>`` on every call. `timeout` bounds each attempt of a
    unary call in seconds; `watch` streams have no deadline.

    Retries: a call that fails with UNAVAILABLE is retried with exponential backoff,
    up to `max_attempts` attempts in all, but only when repeating it is safe: reads,
    and writes that carry a `request_id`. Every write whose RPC takes one sends one:
    yours when you pass `request_id=`, otherwise a fresh UUID generated once per SDK
    call, so the server answers a retried write with its first outcome instead of
    writing twice. Pass your own `request_id` to make retries across processes safe
    too. Calls whose RPC has no request_id (`expire_due`, deletes, key revocation)
    are never retried.

    Every failure raises an `engram.EngramError` subclass (see `engram.errors`).
    Use it as a context manager, or call `close()`.
    """

    def __init__(
        self,
        address: str | None = None,
        api_key: str | None = None,
        *,
        secure: bool = False,
        timeout: float | None = 10.0,
        credentials: grpc.ChannelCredentials | None = None,
        channel: grpc.Channel | None = None,
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
        # The admin methods are on the client itself too; `client.admin` stays for
        # code written against it, on the same connection.
        self.admin = AdminClient._sharing(self)
        # EvidenceService: grades, the assessor, conflicts, edges, space profiles.
        self.evidence = EvidenceClient(
            self._stub_of(evidence_pb2_grpc.EvidenceServiceStub), self._transport
        )
        # Pools shared across agents and teams, and groups (engram.pool).
        self.pools = PoolClient(self._channel, self._transport)

    # -- writes ---------------------------------------------------------------

    @rpc("engram.v1.LifecycleService.ProposeMemory")
    def propose(
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
        """Proposes one memory; the result says whether it was accepted, held, rejected
        or is a duplicate. `confidence` defaults to 1.0 (the caller asserts it);
        `origin` says how it came to be known and `valid_from`/`valid_to` when it held
        in the world (bi-temporal; a slot's successor closes its `valid_to`).
        `expected_slot_memory` makes a slotted write a compare-and-set (see
        `MemoryProposal`)."""
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
        response = self._transport.unary(
            self._stub.ProposeMemory, _requests.propose(item, request_id), retryable=True
        )
        return c.proposal_result_out(response.result)

    @rpc("engram.v1.LifecycleService.BatchProposeMemories")
    def batch_propose(
        self,
        proposals: Iterable[t.MemoryProposal | Mapping[str, Any]],
        *,
        request_id: str | None = None,
    ) -> builtins.list[t.ProposalResult]:
        """Proposes many memories in one transaction (all or nothing), results in order.
        Items are `MemoryProposal`s or mappings of `propose`'s keyword arguments."""
        response = self._transport.unary(
            self._stub.BatchProposeMemories,
            _requests.batch_propose(proposals, request_id),
            retryable=True,
        )
        return [c.proposal_result_out(r) for r in response.results]

    @rpc("engram.v1.LifecycleService.ConfirmMemory")
    def confirm(self, name: str, reason: str = "", *, request_id: str | None = None) -> t.Memory:
        """PENDING_CONFIRMATION -> ACTIVE."""
        request = _requests.confirm(name, reason, request_id)
        return c.memory_out(
            self._transport.unary(self._stub.ConfirmMemory, request, retryable=True)
        )

    @rpc("engram.v1.LifecycleService.RejectMemory")
    def reject(self, name: str, reason: str = "", *, request_id: str | None = None) -> t.Memory:
        """Turns down a memory awaiting confirmation."""
        request = _requests.reject(name, reason, request_id)
        return c.memory_out(self._transport.unary(self._stub.RejectMemory, request, retryable=True))

    @rpc("engram.v1.LifecycleService.RetractMemory")
    def retract(
        self, name: str, reason: str, cascade: bool = False, *, request_id: str | None = None
    ) -> t.RetractResult:
        """Retracts an ACTIVE or PENDING_CONFIRMATION memory (and, with `cascade`,
        every live memory that depends on it)."""
        request = _requests.retract(name, reason, cascade, request_id)
        return c.retract_out(
            self._transport.unary(self._stub.RetractMemory, request, retryable=True)
        )

    @rpc("engram.v1.LifecycleService.ReviseMemory")
    def revise(
        self,
        name: str,
        etag: str,
        *,
        reason: str = "",
        request_id: str | None = None,
        **changes: Any,
    ) -> t.Memory:
        """Changes the given fields (the update_mask is built from their names); `etag`
        must be the memory's current etag, else `engram.Aborted`."""
        request = _requests.revise(name, etag, changes, request_id, reason)
        return c.memory_out(self._transport.unary(self._stub.ReviseMemory, request, retryable=True))

    @rpc("engram.v1.LifecycleService.UpdateMemoryConfidence")
    def update_confidence(
        self, name: str, confidence: float, reason: str = "", *, request_id: str | None = None
    ) -> t.Memory:
        """Raises a memory's confidence; lowering it raises `engram.FailedPrecondition`."""
        request = _requests.update_confidence(name, confidence, reason, request_id)
        return c.memory_out(
            self._transport.unary(self._stub.UpdateMemoryConfidence, request, retryable=True)
        )

    @rpc("engram.v1.LifecycleService.ExpireDueMemories")
    def expire_due(
        self, *, as_of: datetime | None = None, limit: int = 0, space: str = ""
    ) -> t.ExpireResult:
        """Expires every ACTIVE memory whose expire_time has passed."""
        request = _requests.expire_due(as_of, limit, space)
        return c.expire_out(
            self._transport.unary(self._stub.ExpireDueMemories, request, retryable=False)
        )

    @rpc("engram.v1.LifecycleService.PurgeMemories")
    def purge(
        self, space: str, session: str = "", *, reason: str, request_id: str | None = None
    ) -> t.PurgeResult:
        """Hard-deletes a space (or one session of it); the audit log keeps a tombstone."""
        request = _requests.purge(space, session, reason, request_id)
        return c.purge_out(self._transport.unary(self._stub.PurgeMemories, request, retryable=True))

    @rpc("engram.v1.LifecycleService.SetPolicy")
    def set_policy(
        self, policy: t.Policy, *, space: str | None = None, request_id: str | None = None
    ) -> t.Policy:
        """Replaces the tenant's policy, or a space's (`space=` or `policy.name`)."""
        request = _requests.set_policy(policy, space, request_id)
        return c.policy_out(self._transport.unary(self._stub.SetPolicy, request, retryable=True))

    # -- reads ----------------------------------------------------------------

    @rpc("engram.v1.LifecycleService.GetMemory")
    def get(self, name: str) -> t.Memory:
        """One memory by name (`memories/{id}` or the bare id)."""
        return c.memory_out(
            self._transport.unary(self._stub.GetMemory, _requests.get(name), retryable=True)
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
    ) -> Iterator[t.Memory]:
        """Iterates over matching memories, fetching pages as the iteration needs them."""
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
    ) -> Iterator[t.AuditEntry]:
        """Iterates over audit entries (of one memory or space), oldest first."""
        request = _requests.audit_entries(memory, space, page_size)
        return self._transport.pages(
            self._stub.ListAuditEntries, request, lambda r: map(c.audit_entry_out, r.entries)
        )

    @rpc("engram.v1.LifecycleService.ListMemoryRevisions")
    def revisions(self, name: str, *, page_size: int = 0) -> Iterator[t.MemoryRevision]:
        """Iterates over a memory's kept revisions, newest first."""
        request = _requests.revisions(name, page_size)
        return self._transport.pages(
            self._stub.ListMemoryRevisions, request, lambda r: map(c.revision_out, r.revisions)
        )

    @rpc("engram.v1.LifecycleService.GetPolicy")
    def get_policy(self, space: str | None = None) -> t.Policy:
        """The tenant's policy, or the one that applies to `space`."""
        request = _requests.get_policy(space)
        return c.policy_out(self._transport.unary(self._stub.GetPolicy, request, retryable=True))

    @rpc("engram.v1.LifecycleService.WatchTransitions")
    def watch(
        self,
        space: str | None = None,
        statuses: Iterable[t.MemoryStatus | str] = (),
        cursor: str | None = None,
        *,
        resume: bool = True,
    ) -> Iterator[t.TransitionEvent]:
        """Iterates over committed transitions as they happen, in commit order.

        `cursor=None` starts at the live end, `"0"` replays the whole log, an event's
        `cursor` resumes after it. With `resume`, a stream cut by UNAVAILABLE reconnects
        after the last event it delivered, so nothing is lost or repeated (before the
        first event there is no cursor yet: the reconnect starts at the live end).
        Closing the iterator (`break`, `.close()`) cancels the stream.
        """
        request = _requests.watch(space, statuses, cursor)
        return self._watch(request, c.flag(resume, "resume"))

    def _watch(
        self, request: lifecycle_pb2.WatchTransitionsRequest, resume: bool
    ) -> Iterator[t.TransitionEvent]:
        retry = self._transport.retry
        failures = 0
        while True:
            call = self._stub.WatchTransitions(request, metadata=self._transport.metadata)
            try:
                for response in call:
                    failures = 0
                    request.cursor = response.cursor
                    yield c.event_out(response)
                return
            except grpc.RpcError as rpc_error:
                error = errors.from_rpc_error(rpc_error)
                if resume and retry.should_retry(error.code, True, failures):
                    time.sleep(retry.delay(failures))
                    failures += 1
                    continue
                raise error from rpc_error
            finally:
                call.cancel()

    # -- working memory and conversation learning ---------------------------------

    @rpc("engram.v1.LifecycleService.AppendMessage")
    def append_message(
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
            self._transport.unary(self._stub.AppendMessage, request, retryable=True)
        )

    @rpc("engram.v1.LifecycleService.AppendMessages")
    def append_messages(
        self, space: str, session: str, messages: Iterable[t.SessionMessage | str]
    ) -> Iterator[t.AppendResult | errors.EngramError]:
        """Appends many messages over one stream (AppendMessages), without a round
        trip per message: for importing a conversation or streaming a live one.

        Yields one item per message, in order, as the server answers: the
        `AppendResult`, or the error AppendMessage would have raised for that
        message (returned, not raised: the others go on). A bare string is a user
        message. Each message gets a request id, and a stream cut by UNAVAILABLE
        is reopened with the unanswered messages resent, so none is buffered twice
        or lost. Only errors that end the stream (authentication, an outage longer
        than the retries) are raised.
        """
        outbox = _message_stream.SyncOutbox(
            space, session, _requests.messages(space, session, messages)
        )
        return self._append_messages(outbox)

    def _append_messages(
        self, outbox: _message_stream.SyncOutbox
    ) -> Iterator[t.AppendResult | errors.EngramError]:
        retry = self._transport.retry
        failures = 0
        while True:
            call = self._stub.AppendMessages(outbox.requests(), metadata=self._transport.metadata)
            try:
                for response in call:
                    failures = 0
                    for result in response.results:
                        outbox.acknowledge()
                        yield _message_stream.result_out(result)
                if outbox.refused is not None:
                    raise outbox.refused
                return
            except grpc.RpcError as rpc_error:
                error = errors.from_rpc_error(rpc_error)
                if retry.should_retry(error.code, True, failures):
                    time.sleep(retry.delay(failures))
                    failures += 1
                    continue
                raise error from rpc_error
            finally:
                call.cancel()

    @rpc("engram.v1.LifecycleService.GetSessionWindow")
    def get_session_window(self, space: str, session: str, *, last_n: int = 0) -> t.SessionWindow:
        """The last `last_n` buffered messages (0: all), oldest first."""
        request = _requests.session_window(space, session, last_n)
        return c.window_out(
            self._transport.unary(self._stub.GetSessionWindow, request, retryable=True)
        )

    @rpc("engram.v1.LifecycleService.ListSessions")
    def list_sessions(self, space: str) -> builtins.list[t.SessionInfo]:
        """Sessions of `space` with a live buffer, most recently active first."""
        request = _requests.list_sessions(space)
        response = self._transport.unary(self._stub.ListSessions, request, retryable=True)
        return [c.session_info_out(s) for s in response.sessions]

    @rpc("engram.v1.LifecycleService.ClearSession")
    def clear_session(self, space: str, session: str) -> int:
        """Deletes a session's buffer; returns how many messages it held. Clearing is
        naturally idempotent (a repeat clears nothing), so it is retried."""
        request = _requests.clear_session(space, session)
        response = self._transport.unary(self._stub.ClearSession, request, retryable=True)
        return response.cleared_messages

    @rpc("engram.v1.RecallService.Engage")
    def engage(
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
        return c.engage_out(self._transport.unary(self._recall.Engage, request, retryable=True))

    @rpc("engram.v1.LifecycleService.Reflect")
    def reflect(
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
        return c.reflect_out(self._transport.unary(self._stub.Reflect, request, retryable=True))

    @rpc("engram.v1.LifecycleService.Learn")
    def learn(
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
        return c.learn_out(self._transport.unary(self._stub.Learn, request, retryable=True))

    @rpc("engram.v1.LifecycleService.Consolidate")
    def consolidate(
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
            self._transport.unary(self._stub.Consolidate, request, retryable=True)
        )

    @rpc("engram.v1.LifecycleService.Dream")
    def dream(
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
        return c.dream_out(self._transport.unary(self._stub.Dream, request, retryable=dry_run))
