"""The bookkeeping behind `append_messages` (AppendMessages), shared by both clients.

Every message gets a request id when it is first taken from the caller's
iterable and stays in `unacknowledged` until its result arrives. When the stream
fails with UNAVAILABLE the client opens a new one that first resends the
unacknowledged requests (a replay where the server had already buffered them)
and then goes on with the caller's iterable, so every message is buffered once
and results come back in the caller's order.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from datetime import datetime

import grpc
from google.rpc import error_details_pb2

from engram import _convert as c
from engram import _requests, errors
from engram import types as t
from engram.v1 import lifecycle_pb2

MessageIn = t.SessionMessage | str

_END = object()


def request_for(
    space: str, session: str, message: object, field: str = "message"
) -> lifecycle_pb2.AppendMessagesRequest:
    """A stream request with a fresh request id; a bare string is a user message.
    Anything else than a string or a SessionMessage raises InvalidArgument at `field`."""
    if isinstance(message, str):
        message = t.SessionMessage(role="user", content=message)
    if not isinstance(message, t.SessionMessage):
        raise errors.invalid_argument(
            field, f"expected a str or an engram.SessionMessage, got {type(message).__name__}"
        )
    time: datetime | None = message.time
    return lifecycle_pb2.AppendMessagesRequest(
        space=space,
        session=session,
        message=c.session_message_in(
            message.role, message.content, time, message.metadata, f"{field}."
        ),
        request_id=_requests.request_id(None),
    )


def result_out(pb: lifecycle_pb2.AppendMessagesResult) -> t.AppendResult | errors.EngramError:
    """The AppendResult of a buffered message, or the error (not raised) of a
    refused one, of the class AppendMessage would have raised."""
    if pb.HasField("appended"):
        return c.append_out(pb.appended)
    code = next(
        (s for s in grpc.StatusCode if s.value[0] == pb.error.code), grpc.StatusCode.UNKNOWN
    )
    details = []
    if pb.error.field_violations:
        details.append(
            error_details_pb2.BadRequest(
                field_violations=[
                    error_details_pb2.BadRequest.FieldViolation(
                        field=v.field, description=v.description
                    )
                    for v in pb.error.field_violations
                ]
            )
        )
    return errors.error_class(code)(code, pb.error.message, details)


def lost_status(rpc_error: grpc.RpcError) -> bool:
    """Whether grpc.aio replaced the server's status with its own INTERNAL error.

    When the server ends a stream while the client is still sending, grpc.aio
    (through 1.8x) reports the failed send as `INTERNAL: Internal error from Core`
    instead of the status the server sent (grpc/grpc#36066). The stream is over
    and its real status unknown; resending is safe (every message has a request
    id), so the async client retries this like UNAVAILABLE, within its policy.
    """
    code = getattr(rpc_error, "code", None)
    debug = getattr(rpc_error, "debug_error_string", None)
    return (
        callable(code)
        and code() == grpc.StatusCode.INTERNAL
        and callable(debug)
        and "SendMessageOperation" in str(debug())
    )


class _Outbox:
    """What both outboxes share: the target, and turning the caller's next message
    into a request that stays unacknowledged until its result arrives."""

    def __init__(self, space: str, session: str) -> None:
        self._space = space
        self._session = session
        self.unacknowledged: deque[lifecycle_pb2.AppendMessagesRequest] = deque()
        # The caller's bad message, if one was met: the stream ends before it (the
        # messages before it are appended) and the client raises this afterwards.
        self.refused: errors.InvalidArgument | None = None
        self._taken = 0

    def _take(self, message: object) -> lifecycle_pb2.AppendMessagesRequest | None:
        """The request for the caller's next message, or None (and `refused` set)
        for a message that cannot be sent."""
        try:
            request = request_for(self._space, self._session, message, f"messages[{self._taken}]")
        except errors.InvalidArgument as error:
            self.refused = error
            return None
        self._taken += 1
        self.unacknowledged.append(request)
        return request


class SyncOutbox(_Outbox):
    """Requests of one `Client.append_messages`, across the streams it opens.

    gRPC pulls a stream's requests on a thread of its own, and a failed stream's
    thread may still be pulling while the next stream starts: a lock and a stream
    generation make sure each message is taken from the caller once and sent on
    the newest stream only.
    """

    def __init__(self, space: str, session: str, messages: Iterable[MessageIn]) -> None:
        super().__init__(space, session)
        self._source = iter(messages)
        self._lock = threading.Lock()
        self._generation = 0

    def requests(self) -> Iterator[lifecycle_pb2.AppendMessagesRequest]:
        """A new stream's requests: the unacknowledged ones again, then the rest."""
        with self._lock:
            self._generation += 1
            generation = self._generation
            replay = list(self.unacknowledged)
        return self._requests(generation, replay)

    def _requests(
        self, generation: int, replay: list[lifecycle_pb2.AppendMessagesRequest]
    ) -> Iterator[lifecycle_pb2.AppendMessagesRequest]:
        yield from replay
        while True:
            with self._lock:
                if generation != self._generation:
                    return
                message = next(self._source, _END)
                if message is _END:
                    return
                request = self._take(message)
            if request is None:
                return
            yield request

    def acknowledge(self) -> None:
        with self._lock:
            self.unacknowledged.popleft()


class AsyncOutbox(_Outbox):
    """Requests of one `AsyncClient.append_messages`, across the streams it opens.

    The caller's next message is awaited through `asyncio.shield`: a stream that
    fails while waiting for it cancels only its own wait, and the next stream
    picks up the same pending read, so the caller's async iterator is never
    cancelled or read twice.
    """

    def __init__(
        self, space: str, session: str, messages: Iterable[MessageIn] | AsyncIterable[MessageIn]
    ) -> None:
        super().__init__(space, session)
        self._source: AsyncIterator[MessageIn] = _aiter(messages)
        self._next: asyncio.Future[object] | None = None

    async def requests(self) -> AsyncIterator[lifecycle_pb2.AppendMessagesRequest]:
        for request in list(self.unacknowledged):
            yield request
        while True:
            if self._next is None:
                self._next = asyncio.ensure_future(anext(self._source, _END))
            message = await asyncio.shield(self._next)
            self._next = None
            if message is _END:
                return
            taken = self._take(message)
            if taken is None:
                return
            yield taken

    def acknowledge(self) -> None:
        self.unacknowledged.popleft()

    def close(self) -> None:
        if self._next is not None:
            self._next.cancel()


async def _aiter(
    messages: Iterable[MessageIn] | AsyncIterable[MessageIn],
) -> AsyncIterator[MessageIn]:
    if isinstance(messages, AsyncIterable):
        async for message in messages:
            yield message
    else:
        for message in messages:
            yield message
