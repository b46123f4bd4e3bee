"""Working-memory RPCs of LifecycleService (session buffers and Reflect).

`WorkingMemoryMethods` is a mixin: the LifecycleService servicer inherits it and
provides `self.ctx` and `self.service`. Buffers are tenant-scoped by the caller's
key; a session of another tenant is simply an empty, unknown session.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable
from datetime import UTC, datetime
from typing import Any, TypeVar

import grpc
from engram.v1 import lifecycle_pb2
from google.protobuf.message import Message

from engram_server.api import convert
from engram_server.api.timestamps import optional_time
from engram_server.errors import EngramError, InvalidArgument, Unavailable, Violations
from engram_server.lifecycle.validation import check_proposal, check_request_id
from engram_server.platform.context import AppContext
from engram_server.platform.errors_mapping import to_rich_status
from engram_server.platform.principal import current_principal
from engram_server.privacy.model import PrivacyFinding
from engram_server.services.engage import Buffered, buffer_message
from engram_server.services.lifecycle import LifecycleService
from engram_server.services.message_stream import StreamedMessage, buffer_messages
from engram_server.services.working_memory import BufferedMessage, WorkingMemory

Ctx = grpc.aio.ServicerContext[Any, Any]
T = TypeVar("T")

# AppendMessages: the most requests answered by one response (and appended in one
# Redis round trip), and how many may be read ahead of the one being handled.
STREAM_BATCH_MAX = 128
STREAM_READ_AHEAD = 512


def message_from_proto(
    m: lifecycle_pb2.SessionMessage, field_path: str = "message"
) -> BufferedMessage:
    return BufferedMessage(
        role=m.role,
        content=m.content,
        time=optional_time(m, "time", f"{field_path}.time") or datetime.now(UTC),
        metadata=dict(m.metadata),
    )


def message_to_proto(m: BufferedMessage) -> lifecycle_pb2.SessionMessage:
    out = lifecycle_pb2.SessionMessage()
    fill_message(out, m)
    return out


def fill_message(out: lifecycle_pb2.SessionMessage, m: BufferedMessage) -> None:
    """Writes `m` into `out` in place (a response's field, without building a copy)."""
    out.role = m.role
    out.content = m.content
    convert.set_time(out.time, m.time)
    if m.metadata:
        out.metadata.update(m.metadata)
    out.token_count = m.token_count
    out.index = m.index


def findings_to_proto(
    findings: Iterable[PrivacyFinding],
) -> list[lifecycle_pb2.PrivacyFinding]:
    return [
        lifecycle_pb2.PrivacyFinding(
            category=f.category, type=f.type, action=f.action, field=f.field
        )
        for f in findings
    ]


def working_memory_of(ctx: AppContext) -> WorkingMemory:
    if ctx.working_memory is None:
        raise Unavailable("working memory is not configured on this server")
    return ctx.working_memory


def request_id_for(method: str, request_id: str) -> str:
    # Namespaced per method: reusing an id across AppendMessage and Engage never
    # turns one into a replay of the other.
    return f"{method}:{request_id}" if request_id else ""


def fingerprint_of(method: str, request: Message) -> str:
    """The body fingerprint a request_id is bound to ("" without a request_id)."""
    key = convert.request_key(method, request)
    return key.fingerprint if key is not None else ""


def appended_to_proto(buffered: Buffered) -> lifecycle_pb2.AppendMessageResponse:
    response = lifecycle_pb2.AppendMessageResponse()
    fill_appended(response, buffered)
    return response


def fill_appended(out: lifecycle_pb2.AppendMessageResponse, buffered: Buffered) -> None:
    out.buffered_messages = buffered.buffered_messages
    out.buffered_tokens = buffered.buffered_tokens
    if buffered.findings:
        out.privacy_findings.extend(findings_to_proto(buffered.findings))
    if buffered.result is not None:
        fill_message(out.message, buffered.result.message)


def streamed_message(request: lifecycle_pb2.AppendMessagesRequest) -> StreamedMessage:
    """One stream request, with the request id and fingerprint AppendMessage would
    give the same fields, so a message may be retried through either RPC. The two
    request messages share field numbers and types, so their encodings (and with
    them the fingerprints) are the same."""
    has_message = request.HasField("message")
    return StreamedMessage(
        space=request.space,
        session=request.session,
        message=message_from_proto(request.message) if has_message else None,
        request_id=request_id_for("append", request.request_id),
        fingerprint=fingerprint_of("AppendMessage", request),
    )


def stream_error(exc: EngramError) -> lifecycle_pb2.AppendMessageError:
    """The status AppendMessage would have ended with, as one stream result."""
    status = to_rich_status(exc)
    error = lifecycle_pb2.AppendMessageError(code=status.code, message=status.message)
    if isinstance(exc, InvalidArgument):
        error.field_violations.extend(
            lifecycle_pb2.AppendMessageFieldViolation(field=v.field, description=v.description)
            for v in exc.violations
        )
    return error


async def read_batches(requests: AsyncIterator[T], max_batch: int) -> AsyncIterator[list[T]]:
    """The stream's requests in batches of whatever arrived while the previous
    batch was being handled (at least one, at most `max_batch`).

    A reader task keeps pulling requests off the stream while the caller works,
    bounded by `STREAM_READ_AHEAD` so a fast sender meets flow control instead of
    filling memory.
    """
    queue: asyncio.Queue[T | None] = asyncio.Queue(maxsize=STREAM_READ_AHEAD)
    failure: list[BaseException] = []

    async def read() -> None:
        # Cancellation (the consumer is gone) ends the task at once; anything else
        # that ends the stream is handed to the consumer after what was read.
        try:
            async for request in requests:
                await queue.put(request)
        except Exception as exc:
            failure.append(exc)
        await queue.put(None)

    reader = asyncio.create_task(read())
    try:
        while True:
            first = await queue.get()
            if first is None:
                break
            batch = [first]
            ended = False
            while len(batch) < max_batch and not queue.empty():
                request = queue.get_nowait()
                if request is None:
                    ended = True
                    break
                batch.append(request)
            yield batch
            if ended:
                break
        if failure:
            raise failure[0]
    finally:
        reader.cancel()


class WorkingMemoryMethods:
    ctx: AppContext
    service: LifecycleService

    async def AppendMessage(
        self, request: lifecycle_pb2.AppendMessageRequest, context: Ctx
    ) -> lifecycle_pb2.AppendMessageResponse:
        wm = working_memory_of(self.ctx)
        if not request.HasField("message"):
            wm.validate_append(request.space, request.session, None, request.request_id)
        check = Violations()
        check_request_id(check, "request_id", request.request_id)
        check.raise_if_any()
        buffered = await buffer_message(
            self.service,
            wm,
            current_principal().tenant_id,
            request.space,
            request.session,
            message_from_proto(request.message),
            request_id_for("append", request.request_id),
            fingerprint=fingerprint_of("AppendMessage", request),
        )
        return appended_to_proto(buffered)

    async def AppendMessages(
        self,
        request_iterator: AsyncIterator[lifecycle_pb2.AppendMessagesRequest],
        context: Ctx,
    ) -> AsyncIterator[lifecycle_pb2.AppendMessagesResponse]:
        wm = working_memory_of(self.ctx)
        tenant = current_principal().tenant_id
        sequence = 0
        async for batch in read_batches(request_iterator, STREAM_BATCH_MAX):
            outcomes = await buffer_messages(
                self.service,
                wm,
                self.ctx.rate_limit,
                tenant,
                [streamed_message(request) for request in batch],
            )
            response = lifecycle_pb2.AppendMessagesResponse()
            for request, outcome in zip(batch, outcomes, strict=True):
                result = response.results.add(sequence=sequence, request_id=request.request_id)
                sequence += 1
                if isinstance(outcome, EngramError):
                    result.error.CopyFrom(stream_error(outcome))
                else:
                    result.appended.SetInParent()  # set even when every field is empty
                    fill_appended(result.appended, outcome)
            yield response

    async def GetSessionWindow(
        self, request: lifecycle_pb2.GetSessionWindowRequest, context: Ctx
    ) -> lifecycle_pb2.GetSessionWindowResponse:
        window = await working_memory_of(self.ctx).window(
            current_principal().tenant_id, request.space, request.session, request.last_n
        )
        return lifecycle_pb2.GetSessionWindowResponse(
            messages=[message_to_proto(m) for m in window.messages],
            token_count=window.token_count,
            consolidated=window.consolidated,
        )

    async def ListSessions(
        self, request: lifecycle_pb2.ListSessionsRequest, context: Ctx
    ) -> lifecycle_pb2.ListSessionsResponse:
        sessions = await working_memory_of(self.ctx).list_sessions(
            current_principal().tenant_id, request.space
        )
        return lifecycle_pb2.ListSessionsResponse(
            sessions=[
                lifecycle_pb2.SessionInfo(
                    session=s.session,
                    message_count=s.message_count,
                    token_count=s.token_count,
                    last_activity_time=convert.dt_to_ts(s.last_activity),
                )
                for s in sessions
            ]
        )

    async def ClearSession(
        self, request: lifecycle_pb2.ClearSessionRequest, context: Ctx
    ) -> lifecycle_pb2.ClearSessionResponse:
        cleared = await working_memory_of(self.ctx).clear(
            current_principal().tenant_id, request.space, request.session
        )
        return lifecycle_pb2.ClearSessionResponse(cleared_messages=cleared)

    async def Reflect(
        self, request: lifecycle_pb2.ReflectRequest, context: Ctx
    ) -> lifecycle_pb2.ReflectResponse:
        wm = working_memory_of(self.ctx)
        principal = current_principal()
        v = Violations()
        wm.check_target(v, request.space, request.session)
        check_request_id(v, "request_id", request.request_id)
        reply = request.response
        max_bytes = self.ctx.settings.working_memory_max_message_bytes
        if not reply.strip():
            if not request.captures:
                v.add("response", "required (or captures)")
        elif len(reply.encode()) > max_bytes:
            v.add("response", f"larger than the limit of {max_bytes} bytes")
        proposals = []
        for i, capture in enumerate(request.captures):
            # Captures default to the session they came from.
            filled = lifecycle_pb2.MemoryProposal()
            filled.CopyFrom(capture)
            if not filled.space:
                filled.space = request.space
            if not filled.session:
                filled.session = request.session
            proposal = convert.proposal_from_proto(filled, f"captures[{i}]", v)
            check_proposal(v, f"captures[{i}]", proposal, self.service.max_content_bytes)
            proposals.append(proposal)
        v.raise_if_any()

        buffered: Buffered | None = None
        if reply.strip():
            buffered = await buffer_message(
                self.service,
                wm,
                principal.tenant_id,
                request.space,
                request.session,
                BufferedMessage(role="assistant", content=reply, time=datetime.now(UTC)),
                request_id_for("reflect", request.request_id),
                content_field="response",
                fingerprint=fingerprint_of("Reflect", request),
            )
        response = lifecycle_pb2.ReflectResponse()
        if buffered is not None:
            response.privacy_findings.extend(findings_to_proto(buffered.findings))
        if proposals:
            results = await self.service.propose(
                principal,
                proposals,
                convert.request_key("Reflect", request),
                field_prefix="captures",
                batch=True,
            )
            for result in results:
                out = convert.result_to_proto(result)
                response.results.append(out)
                # The per-capture findings are also listed once for the whole call.
                response.privacy_findings.extend(getattr(out, "privacy_findings", ()))
        return response
