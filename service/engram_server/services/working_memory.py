"""Working memory: per-session message buffers in Redis.

Interface used by AppendMessage, Engage, Reflect and Consolidate. Keys live under
the tenant's hash-tagged prefix (`engram:{tenant}:wm:...`, see
`store/working_memory.py`). Every write is one atomic Lua script, idempotent by
request id; a lost Redis connection raises `Unavailable`, never a silent drop.

Callers screen message text through the privacy boundary before appending
(`services/engage.py` `buffer_message` does both); this module stores what it is
given.
"""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from engram_server.errors import InvalidArgument, Violations
from engram_server.lifecycle.validation import check_request_id, check_space
from engram_server.platform.config import Settings
from engram_server.platform.observability import session_messages, session_tokens
from engram_server.recall.tokens import count_tokens, count_tokens_many
from engram_server.store.redis import RedisStore
from engram_server.store.working_memory import (
    AppendItem,
    AppendLimits,
    AppendOutcome,
    StoredEntry,
    WorkingMemoryStore,
)

ROLES = ("user", "assistant", "system", "tool")
MAX_SESSION_CHARS = 128
MAX_METADATA_ENTRIES = 32
MAX_METADATA_KEY = 64
MAX_METADATA_VALUE = 1024
# How long a request id is remembered: a retry within this window is a replay.
REQUEST_ID_TTL_SECONDS = 24 * 3600
# ListSessions has no paging; the most recently active sessions come first.
MAX_LISTED_SESSIONS = 1000
_SESSION_PATTERN = re.compile(r"^[^\s\x00-\x1f\x7f]+$")
# Token counting runs the WordPiece tokenizer; short texts are cheaper inline than
# a thread hop, long ones move off the event loop.
_INLINE_TOKENIZE_BYTES = 2048


@dataclass(frozen=True)
class BufferedMessage:
    role: str
    content: str
    time: datetime
    metadata: dict[str, str] = field(default_factory=dict)
    token_count: int = 0
    index: int = 0


@dataclass(frozen=True)
class PendingAppend:
    """A validated, screened message waiting for `WorkingMemory.append_many`."""

    space: str
    session: str
    message: BufferedMessage
    request_id: str = ""
    fingerprint: str = ""


@dataclass(frozen=True)
class SessionWindow:
    messages: tuple[BufferedMessage, ...]
    token_count: int
    # Name of the summary memory when the buffer was consolidated, else "".
    consolidated_as: str = ""

    @property
    def consolidated(self) -> bool:
        return bool(self.consolidated_as)


@dataclass(frozen=True)
class SessionSummary:
    """One row of ListSessions."""

    session: str
    message_count: int
    token_count: int
    last_activity: datetime


@dataclass(frozen=True)
class AppendResult:
    message: BufferedMessage
    buffered_messages: int
    buffered_tokens: int
    # True when the request id had been seen: nothing was written this time.
    replayed: bool = False
    # Oldest messages dropped to keep within the caps by this append.
    trimmed: int = 0


def check_session(v: Violations, path: str, session: str) -> None:
    if not session:
        v.add(path, "required")
    elif len(session) > MAX_SESSION_CHARS or not _SESSION_PATTERN.match(session):
        v.add(path, f"1-{MAX_SESSION_CHARS} characters, no whitespace or control characters")


def check_message(
    v: Violations, path: str, role: str, content: str, metadata: Mapping[str, str], max_bytes: int
) -> None:
    if role not in ROLES:
        v.add(f"{path}.role", f"must be one of {', '.join(ROLES)}")
    if not content.strip():
        v.add(f"{path}.content", "required and must not be blank")
    elif len(content.encode()) > max_bytes:
        v.add(f"{path}.content", f"larger than the limit of {max_bytes} bytes")
    if len(metadata) > MAX_METADATA_ENTRIES:
        v.add(f"{path}.metadata", f"at most {MAX_METADATA_ENTRIES} entries")
    for key, value in metadata.items():
        if not key or len(key) > MAX_METADATA_KEY or len(value) > MAX_METADATA_VALUE:
            v.add(
                f"{path}.metadata[{key}]",
                f"keys 1-{MAX_METADATA_KEY} characters, values at most {MAX_METADATA_VALUE}",
            )


def _to_message(entry: StoredEntry) -> BufferedMessage:
    body = entry.body
    return BufferedMessage(
        role=str(body["role"]),
        content=str(body["content"]),
        time=datetime.fromtimestamp(int(body["time_ms"]) / 1000, tz=UTC),
        metadata={str(k): str(v) for k, v in dict(body.get("metadata") or {}).items()},
        token_count=entry.token_count,
        index=entry.index,
    )


def _record_size(result: AppendResult) -> None:
    session_messages.record(result.buffered_messages)
    session_tokens.record(result.buffered_tokens)


def _result(outcome: AppendOutcome | None) -> AppendResult:
    if outcome is None:
        raise InvalidArgument.field("request_id", "was already used for a different request")
    return AppendResult(
        message=_to_message(outcome.entry),
        buffered_messages=outcome.buffered_messages,
        buffered_tokens=outcome.buffered_tokens,
        replayed=outcome.replayed,
        trimmed=outcome.trimmed,
    )


async def _count(text: str) -> int:
    if len(text) <= _INLINE_TOKENIZE_BYTES:
        return count_tokens(text)
    return await asyncio.to_thread(count_tokens, text)


async def _count_many(texts: list[str]) -> list[int]:
    if sum(len(t) for t in texts) <= _INLINE_TOKENIZE_BYTES * 4:
        return count_tokens_many(texts)
    return await asyncio.to_thread(count_tokens_many, texts)


class WorkingMemory:
    """Session buffers of every tenant; each call names the tenant explicitly."""

    def __init__(self, redis: RedisStore, settings: Settings) -> None:
        self.store = WorkingMemoryStore(redis)
        self.settings = settings

    # -- validation -----------------------------------------------------------

    def check_target(self, v: Violations, space: str, session: str) -> None:
        check_space(v, "space", space)
        check_session(v, "session", session)

    def validate_append(
        self,
        space: str,
        session: str,
        message: BufferedMessage | None,
        request_id: str = "",
        *,
        path: str = "message",
    ) -> None:
        """Raises InvalidArgument naming every bad field (a missing message too);
        nothing is written before."""
        v = Violations()
        self.check_target(v, space, session)
        if message is None:
            v.add(path, "required")
        else:
            check_message(
                v,
                path,
                message.role,
                message.content,
                message.metadata,
                self.settings.working_memory_max_message_bytes,
            )
        check_request_id(v, "request_id", request_id)
        v.raise_if_any()

    # -- writes ---------------------------------------------------------------

    async def append(
        self,
        tenant_id: str,
        space: str,
        session: str,
        message: BufferedMessage,
        request_id: str = "",
    ) -> tuple[BufferedMessage, int, int]:
        """Buffers a message; returns (stored message, buffered messages, buffered tokens)."""
        result = await self.append_result(tenant_id, space, session, message, request_id)
        return result.message, result.buffered_messages, result.buffered_tokens

    async def append_result(
        self,
        tenant_id: str,
        space: str,
        session: str,
        message: BufferedMessage,
        request_id: str = "",
        *,
        path: str = "message",
        fingerprint: str = "",
    ) -> AppendResult:
        """`append` with the replay and trim details Engage and the API report.

        `fingerprint` identifies the request a `request_id` came with: a retry with
        the same id and fingerprint replays, the same id with another is refused.
        """
        self.validate_append(space, session, message, request_id, path=path)
        item = self._item(
            space, session, message, request_id, fingerprint, await _count(message.content)
        )
        result = _result(await self.store.append(tenant_id, item, self._limits()))
        _record_size(result)
        return result

    async def append_many(
        self, tenant_id: str, appends: Sequence[PendingAppend]
    ) -> list[AppendResult | InvalidArgument]:
        """Buffers already validated messages in order, in one Redis round trip.

        Each append is atomic and idempotent on its own, as `append_result`'s is;
        a request id reused for a different request fails that message alone.
        """
        counts = await _count_many([a.message.content for a in appends])
        items = [
            self._item(a.space, a.session, a.message, a.request_id, a.fingerprint, tokens)
            for a, tokens in zip(appends, counts, strict=True)
        ]
        results: list[AppendResult | InvalidArgument] = []
        for outcome in await self.store.append_many(tenant_id, items, self._limits()):
            try:
                result = _result(outcome)
                _record_size(result)
                results.append(result)
            except InvalidArgument as exc:
                results.append(exc)
        return results

    def _limits(self) -> AppendLimits:
        return AppendLimits(
            now_ms=int(datetime.now(UTC).timestamp() * 1000),
            max_messages=max(0, self.settings.working_memory_max_messages),
            max_tokens=max(0, self.settings.working_memory_max_tokens),
            ttl_seconds=max(0, self.settings.working_memory_idle_ttl_seconds),
            request_ttl_seconds=REQUEST_ID_TTL_SECONDS,
        )

    @staticmethod
    def _item(
        space: str,
        session: str,
        message: BufferedMessage,
        request_id: str,
        fingerprint: str,
        tokens: int,
    ) -> AppendItem:
        time = message.time
        if time.tzinfo is None:
            time = time.replace(tzinfo=UTC)
        # Without a client request id the append still gets one: the Redis client
        # may resend a script after a dropped connection, and the id makes that
        # resend a replay instead of a second copy.
        return AppendItem(
            space=space,
            session=session,
            body={
                "role": message.role,
                "content": message.content,
                "time_ms": int(time.timestamp() * 1000),
                "metadata": dict(message.metadata),
            },
            tokens=tokens,
            request_id=request_id or f"auto-{uuid.uuid4().hex}",
            fingerprint=fingerprint,
        )

    async def clear(self, tenant_id: str, space: str, session: str) -> int:
        """Deletes the buffer (and Engage's sent set); returns the messages removed."""
        v = Violations()
        self.check_target(v, space, session)
        v.raise_if_any()
        return await self.store.clear(tenant_id, space, session)

    async def clear_space(self, tenant_id: str, space: str) -> int:
        """Deletes every session buffer of a space (an erasure request's purge);
        returns the messages removed."""
        removed = 0
        while True:
            sessions = await self.list_sessions(tenant_id, space)
            if not sessions:
                return removed
            for s in sessions:
                removed += await self.store.clear(tenant_id, space, s.session)

    async def erase(self, tenant_id: str, space: str, session: str) -> int:
        """An erasure's part in Redis: the session's buffer (every session's of the
        space when `session` is empty), Engage's sent sets, and the idempotency
        records that keep a message to answer a retry with. Returns the messages
        removed."""
        if session:
            removed = await self.clear(tenant_id, space, session)
        else:
            removed = await self.clear_space(tenant_id, space)
        await self.store.forget_requests(tenant_id, space, session)
        return removed

    async def mark_consolidated(
        self, tenant_id: str, space: str, session: str, summary_name: str
    ) -> None:
        """Records the summary memory of the buffer; the next append clears the mark."""
        v = Violations()
        self.check_target(v, space, session)
        if not summary_name:
            v.add("summary_name", "required")
        v.raise_if_any()
        await self.store.mark_consolidated(tenant_id, space, session, summary_name)

    # -- reads ----------------------------------------------------------------

    async def window(
        self, tenant_id: str, space: str, session: str, last_n: int = 0
    ) -> SessionWindow:
        """The last `last_n` messages (0: all), oldest first. Unknown sessions are empty."""
        v = Violations()
        self.check_target(v, space, session)
        if last_n < 0:
            v.add("last_n", "must not be negative")
        v.raise_if_any()
        entries, consolidated_as = await self.store.window(tenant_id, space, session, last_n)
        messages = tuple(_to_message(e) for e in entries)
        return SessionWindow(
            messages=messages,
            token_count=sum(m.token_count for m in messages),
            consolidated_as=consolidated_as,
        )

    async def stats(self, tenant_id: str, space: str, session: str) -> tuple[int, int]:
        """(buffered messages, buffered tokens) of a session; (0, 0) when it has none."""
        return await self.store.stats(tenant_id, space, session)

    async def list_sessions(self, tenant_id: str, space: str) -> list[SessionSummary]:
        """Sessions of a space with a live buffer, most recently active first."""
        v = Violations()
        check_space(v, "space", space)
        v.raise_if_any()
        rows = await self.store.list_sessions(tenant_id, space, MAX_LISTED_SESSIONS)
        return [
            SessionSummary(
                session=r.session,
                message_count=r.message_count,
                token_count=r.token_count,
                last_activity=datetime.fromtimestamp(r.last_activity_ms / 1000, tz=UTC),
            )
            for r in rows
        ]

    # -- Engage's per-session "already sent" set --------------------------------

    async def sent(self, tenant_id: str, space: str, session: str) -> set[str]:
        """Memory names Engage already sent in this session."""
        return await self.store.sent(tenant_id, space, session)

    async def sent_for_request(
        self, tenant_id: str, space: str, session: str, request_id: str
    ) -> list[str] | None:
        """Names the first Engage with this request id sent, or None if unseen."""
        return await self.store.sent_for_request(tenant_id, space, session, request_id)

    async def mark_sent(
        self,
        tenant_id: str,
        space: str,
        session: str,
        names: Iterable[str],
        request_id: str,
    ) -> list[str]:
        """Adds names to the sent set, once per request id (a retry changes nothing)."""
        return await self.store.mark_sent(
            tenant_id,
            space,
            session,
            names,
            request_id=request_id,
            ttl_seconds=max(0, self.settings.working_memory_idle_ttl_seconds),
            request_ttl_seconds=REQUEST_ID_TTL_SECONDS,
        )
