"""Redis layout and atomic scripts of working memory (session buffers).

Every key sits under the tenant's hash-tagged prefix (`engram:{<tenant>}:wm:...`),
so one tenant's keys share a Redis Cluster slot: the multi-key Lua scripts below
stay legal on a cluster, and purging a tenant (one SCAN over its prefix) removes
every buffer. Space and session are percent-encoded in keys, so a `:` inside a
space path can never make two different sessions collide.

A session owns three keys:

- `wm:s:<space>:<session>:msgs` — LIST of entries `<tokens>|<index>|<json>`,
  oldest first. The numeric prefix lets the trim loop in Lua read a message's
  token count without decoding JSON.
- `wm:s:<space>:<session>:meta` — HASH: `next_index`, `tokens`, `last` (ms since
  epoch of the last append), `consolidated_as`.
- `wm:s:<space>:<session>:sent` — SET of memory names Engage already sent.

plus the space's session index `wm:idx:<space>` (ZSET session → last append ms)
and idempotency records `wm:req:<request_id>` / `wm:sent-req:<request_id>`.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Awaitable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import quote

from redis.exceptions import NoScriptError

from engram_server.errors import Unavailable
from engram_server.store.redis import RedisStore, is_unreachable, tenant_key

T = TypeVar("T")

# Appends one or more messages to one session, in order. For each: replay a known
# request id (refused when the id came with a different request: the stored
# fingerprint differs), else push, trim oldest-first to the caps (never the
# message just pushed) and record the outcome under the request id. Then, once,
# stamp the session's last activity, index it and refresh the idle TTL. One
# script, so a crash or a racing append can never leave counters and list out of
# step; several messages per call, so a stream's batch costs one command.
#
# KEYS: msgs, meta, session index, sent set, then one request key per message.
# ARGV: session, now_ms, max_messages, max_tokens, ttl, request_ttl, then per
#       message: body JSON, tokens, fingerprint.
# Returns one string, a line per message: `<code>|<outcome>`, code 0 appended,
# 1 replayed, 2 refused (request id used for another request; no outcome); an
# appended message's outcome leaves out the body the caller just sent. One
# string rather than nested arrays: a batch's reply is then one bulk string to
# read instead of two replies per message. No line can contain a newline: the
# body is JSON, which escapes them.
_APPEND = """
local max_messages = tonumber(ARGV[3])
local max_tokens = tonumber(ARGV[4])
local request_ttl = tonumber(ARGV[6])
local lines = {}
local appended = false
for i = 1, #KEYS - 4 do
  local request_key = KEYS[4 + i]
  local body, tokens, fingerprint = ARGV[3 * i + 4], ARGV[3 * i + 5], ARGV[3 * i + 6]
  local prior = redis.call('GET', request_key)
  if prior then
    local sep = string.find(prior, '\\n', 1, true)
    if string.sub(prior, 1, sep - 1) ~= fingerprint then
      lines[i] = '2|'
    else
      lines[i] = '1|' .. string.sub(prior, sep + 1)
    end
  else
    local index = redis.call('HINCRBY', KEYS[2], 'next_index', 1) - 1
    local entry = tokens .. '|' .. index .. '|' .. body
    redis.call('RPUSH', KEYS[1], entry)
    local total = redis.call('HINCRBY', KEYS[2], 'tokens', tonumber(tokens))
    local count = redis.call('LLEN', KEYS[1])
    local trimmed = 0
    while count > 1 and ((max_messages > 0 and count > max_messages)
                         or (max_tokens > 0 and total > max_tokens)) do
      local oldest = redis.call('LPOP', KEYS[1])
      local t = tonumber(string.match(oldest, '^(%d+)|'))
      total = redis.call('HINCRBY', KEYS[2], 'tokens', -t)
      count = count - 1
      trimmed = trimmed + 1
    end
    local counts = count .. '|' .. total .. '|' .. trimmed .. '|' .. tokens .. '|' .. index .. '|'
    redis.call('SET', request_key, fingerprint .. '\\n' .. counts .. body, 'EX', request_ttl)
    lines[i] = '0|' .. counts
    appended = true
  end
end
if appended then
  redis.call('HSET', KEYS[2], 'last', ARGV[2])
  redis.call('HDEL', KEYS[2], 'consolidated_as')
  redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
  local ttl = tonumber(ARGV[5])
  if ttl > 0 then
    redis.call('EXPIRE', KEYS[1], ttl)
    redis.call('EXPIRE', KEYS[2], ttl)
    redis.call('EXPIRE', KEYS[3], ttl)
    redis.call('EXPIRE', KEYS[4], ttl)
  end
end
return table.concat(lines, '\\n')
"""

# Engage's sent set: the first call for a request id adds the names and records
# them; a retry only reads the record, so it never changes the set.
_MARK_SENT = """
local prior = redis.call('GET', KEYS[2])
if prior then return prior end
local names = cjson.decode(ARGV[1])
if #names > 0 then
  redis.call('SADD', KEYS[1], unpack(names))
  local ttl = tonumber(ARGV[2])
  if ttl > 0 then redis.call('EXPIRE', KEYS[1], ttl) end
end
redis.call('SET', KEYS[2], ARGV[1], 'EX', tonumber(ARGV[3]))
return ARGV[1]
"""

# Marks a buffer consolidated only if it still exists (an expired session stays gone).
_MARK_CONSOLIDATED = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HSET', KEYS[1], 'consolidated_as', ARGV[1])
  return 1
end
return 0
"""

_CLEAR = """
local count = redis.call('LLEN', KEYS[1])
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
redis.call('ZREM', KEYS[4], ARGV[1])
return count
"""


@dataclass(frozen=True)
class StoredEntry:
    """One buffered message as Redis holds it (the JSON body still to decode)."""

    index: int
    token_count: int
    body: dict[str, Any]


@dataclass(frozen=True)
class AppendItem:
    """One message to append to a session."""

    space: str
    session: str
    body: dict[str, Any]
    tokens: int
    # Always set: the caller's, or one made up per append (see WorkingMemory).
    request_id: str
    # Identifies the request the request id came with.
    fingerprint: str = ""


@dataclass(frozen=True)
class AppendLimits:
    """What every append of a call is held to."""

    now_ms: int
    max_messages: int
    max_tokens: int
    ttl_seconds: int
    request_ttl_seconds: int


@dataclass(frozen=True)
class AppendOutcome:
    entry: StoredEntry
    buffered_messages: int
    buffered_tokens: int
    trimmed: int
    # True when the request id was seen before and nothing was written.
    replayed: bool


@dataclass(frozen=True)
class SessionRow:
    session: str
    message_count: int
    token_count: int
    last_activity_ms: int


# Characters `quote` never escapes: most spaces, sessions and request ids are
# made of them only, and a match is cheaper than quoting.
_UNQUOTED = re.compile(r"[A-Za-z0-9_.~-]*")
# `json.dumps` with arguments builds a new encoder on every call.
_body_json = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def _enc(value: str) -> str:
    return value if _UNQUOTED.fullmatch(value) else quote(value, safe="")


def parse_entry(raw: bytes | str) -> StoredEntry:
    text = raw.decode() if isinstance(raw, bytes) else raw
    tokens, index, body = text.split("|", 2)
    return StoredEntry(index=int(index), token_count=int(tokens), body=json.loads(body))


def _outcomes(reply: Any, items: Sequence[AppendItem]) -> list[AppendOutcome | None]:
    """Decodes the append script's reply to `items`, one outcome per message (None:
    the request id was used for another request)."""
    outcomes: list[AppendOutcome | None] = []
    for line, item in zip(_text(reply).split("\n"), items, strict=True):
        code, rest = line.split("|", 1)
        if code == "2":
            outcomes.append(None)
            continue
        count, total, trimmed, tokens, index, body = rest.split("|", 5)
        # A new entry stores the body just sent; only a replay's must be read back.
        stored = json.loads(body) if code == "1" else item.body
        outcomes.append(
            AppendOutcome(
                entry=StoredEntry(index=int(index), token_count=int(tokens), body=stored),
                buffered_messages=int(count),
                buffered_tokens=int(total),
                trimmed=int(trimmed),
                replayed=code == "1",
            )
        )
    return outcomes


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


_UNREACHABLE = (
    "working memory unavailable: Redis cannot be reached; "
    "nothing was buffered or changed, retry with the same request_id"
)


async def _guard(op: Awaitable[T]) -> T:
    """Turns a lost Redis connection into UNAVAILABLE with a message a caller can act on."""
    try:
        return await op
    except Exception as exc:
        if not is_unreachable(exc):
            raise
        raise Unavailable(_UNREACHABLE) from exc


async def _guard_iter(keys: AsyncIterator[T]) -> AsyncIterator[T]:
    """`_guard` for an async iteration (a SCAN)."""
    try:
        async for key in keys:
            yield key
    except Exception as exc:
        if not is_unreachable(exc):
            raise
        raise Unavailable(_UNREACHABLE) from exc


class WorkingMemoryStore:
    """Session buffers in Redis; every method takes the tenant and builds its keys."""

    def __init__(self, redis: RedisStore) -> None:
        self.redis = redis
        client = redis.client
        self._append = client.register_script(_APPEND)
        self._mark_sent = client.register_script(_MARK_SENT)
        self._mark_consolidated = client.register_script(_MARK_CONSOLIDATED)
        self._clear = client.register_script(_CLEAR)

    # -- keys ---------------------------------------------------------------

    @staticmethod
    def session_key(tenant: str, space: str, session: str, part: str) -> str:
        return tenant_key(tenant, "wm", "s", _enc(space), _enc(session), part)

    @staticmethod
    def index_key(tenant: str, space: str) -> str:
        return tenant_key(tenant, "wm", "idx", _enc(space))

    @staticmethod
    def request_key(tenant: str, kind: str, request_id: str) -> str:
        return tenant_key(tenant, "wm", kind, _enc(request_id))

    # -- operations ---------------------------------------------------------

    def _append_call(
        self, tenant: str, items: Sequence[AppendItem], limits: AppendLimits
    ) -> tuple[list[str], list[str | int]]:
        """Keys and arguments of one append script call: `items` share one session."""
        space, session = items[0].space, items[0].session
        keys = [
            self.session_key(tenant, space, session, "msgs"),
            self.session_key(tenant, space, session, "meta"),
            self.index_key(tenant, space),
            self.session_key(tenant, space, session, "sent"),
        ]
        args: list[str | int] = [
            session,
            limits.now_ms,
            limits.max_messages,
            limits.max_tokens,
            limits.ttl_seconds,
            limits.request_ttl_seconds,
        ]
        # request_key(tenant, "req", f"{space}:{session}:{request_id}"), with the
        # part every message shares built once (quoting is character by character).
        shared = self.request_key(tenant, "req", f"{_enc(space)}:{_enc(session)}:")
        for item in items:
            keys.append(shared + _enc(item.request_id))
            args.append(_body_json(item.body))
            args.append(item.tokens)
            args.append(item.fingerprint)
        return keys, args

    async def append(
        self, tenant: str, item: AppendItem, limits: AppendLimits
    ) -> AppendOutcome | None:
        """The outcome, or None when `item.request_id` was used for a different request."""
        keys, args = self._append_call(tenant, [item], limits)
        return _outcomes(await _guard(self._append(keys=keys, args=args)), [item])[0]

    async def append_many(
        self, tenant: str, items: Sequence[AppendItem], limits: AppendLimits
    ) -> list[AppendOutcome | None]:
        """Appends `items` in one round trip; outcomes in the order given.

        Items are grouped by session, one script call per session (its messages
        in their order), the calls pipelined. Each call is atomic as `append` is;
        the calls are not one transaction. Every item carries a request id, which
        makes re-sending the pipeline (after Redis lost its script cache, or after
        a dropped connection) a replay of what already ran.
        """
        if not items:
            return []
        groups: dict[tuple[str, str], list[int]] = {}
        for i, item in enumerate(items):
            groups.setdefault((item.space, item.session), []).append(i)
        calls = [
            self._append_call(tenant, [items[i] for i in positions], limits)
            for positions in groups.values()
        ]
        sha = self._append.sha

        async def run() -> list[Any]:
            pipe = self.redis.client.pipeline(transaction=False)
            for keys, args in calls:
                pipe.evalsha(sha, len(keys), *keys, *args)
            return list(await pipe.execute(raise_on_error=False))

        replies = await _guard(run())
        if any(isinstance(r, NoScriptError) for r in replies):
            await _guard(self.redis.client.script_load(_APPEND))
            replies = await _guard(run())
        outcomes: list[AppendOutcome | None] = [None] * len(items)
        for positions, reply in zip(groups.values(), replies, strict=True):
            if isinstance(reply, Exception):
                raise reply
            sent = [items[i] for i in positions]
            for i, outcome in zip(positions, _outcomes(reply, sent), strict=True):
                outcomes[i] = outcome
        return outcomes

    async def window(
        self, tenant: str, space: str, session: str, last_n: int
    ) -> tuple[list[StoredEntry], str]:
        start = -last_n if last_n > 0 else 0
        pipe = self.redis.client.pipeline(transaction=True)
        pipe.lrange(self.session_key(tenant, space, session, "msgs"), start, -1)
        pipe.hget(self.session_key(tenant, space, session, "meta"), "consolidated_as")
        raw, consolidated = await _guard(pipe.execute())
        return [parse_entry(r) for r in raw], _text(consolidated or b"")

    async def stats(self, tenant: str, space: str, session: str) -> tuple[int, int]:
        """(messages, tokens) buffered now."""
        pipe = self.redis.client.pipeline(transaction=True)
        pipe.llen(self.session_key(tenant, space, session, "msgs"))
        pipe.hget(self.session_key(tenant, space, session, "meta"), "tokens")
        count, tokens = await _guard(pipe.execute())
        return int(count or 0), int(tokens or 0) if count else 0

    async def list_sessions(self, tenant: str, space: str, limit: int) -> list[SessionRow]:
        index = self.index_key(tenant, space)
        client = self.redis.client
        ranked: list[Any] = list(
            await _guard(client.zrevrange(index, 0, limit - 1, withscores=True))
        )
        if not ranked:
            return []
        pipe = client.pipeline(transaction=False)
        for member, _ in ranked:
            session = _text(member)
            pipe.hmget(self.session_key(tenant, space, session, "meta"), "tokens", "last")
            pipe.llen(self.session_key(tenant, space, session, "msgs"))
        replies: list[Any] = await _guard(pipe.execute())
        rows: list[SessionRow] = []
        stale: list[bytes] = []
        for i, (member, score) in enumerate(ranked):
            (tokens, last), count = replies[2 * i], replies[2 * i + 1]
            if not count:
                # The buffer expired (idle TTL) after its last append indexed it.
                stale.append(member)
                continue
            rows.append(
                SessionRow(
                    session=_text(member),
                    message_count=int(count),
                    token_count=int(tokens or 0),
                    last_activity_ms=int(last or score),
                )
            )
        if stale:
            await _guard(client.zrem(index, *stale))
        return rows

    async def clear(self, tenant: str, space: str, session: str) -> int:
        keys = [
            self.session_key(tenant, space, session, "msgs"),
            self.session_key(tenant, space, session, "meta"),
            self.session_key(tenant, space, session, "sent"),
            self.index_key(tenant, space),
        ]
        return int(await _guard(self._clear(keys=keys, args=[session])))

    async def forget_requests(self, tenant: str, space: str, session: str) -> int:
        """Deletes the idempotency records of a session's appends and Engage calls
        (of every session of the space when `session` is empty); returns how many.

        An append's record holds the message it answers a retry with, so an
        erasure must take it with the buffer. Records are keyed by request id, so
        they are found by their `<space>:<session>:` prefix (`_enc` leaves no `:`
        inside a part, and `quote` no glob character in the pattern).
        """
        scope = f"{_enc(space)}:{_enc(session)}:" if session else f"{_enc(space)}:"
        client = self.redis.client
        deleted = 0
        for kind in ("req", "sent-req"):
            pattern = self.request_key(tenant, kind, scope) + "*"
            batch: list[bytes] = []
            async for key in _guard_iter(client.scan_iter(match=pattern, count=1000)):
                batch.append(key)
                if len(batch) >= 500:
                    deleted += int(await _guard(client.unlink(*batch)))
                    batch.clear()
            if batch:
                deleted += int(await _guard(client.unlink(*batch)))
        return deleted

    async def mark_consolidated(
        self, tenant: str, space: str, session: str, summary_name: str
    ) -> bool:
        key = self.session_key(tenant, space, session, "meta")
        return bool(await _guard(self._mark_consolidated(keys=[key], args=[summary_name])))

    async def sent(self, tenant: str, space: str, session: str) -> set[str]:
        key = self.session_key(tenant, space, session, "sent")
        members = await _guard(self.redis.client.smembers(key))
        return {_text(m) for m in members}

    async def mark_sent(
        self,
        tenant: str,
        space: str,
        session: str,
        names: Iterable[str],
        *,
        request_id: str,
        ttl_seconds: int,
        request_ttl_seconds: int,
    ) -> list[str]:
        """Adds names to the sent set once per request id; returns the names recorded
        for that request id (on a retry: the first call's names)."""
        keys = [
            self.session_key(tenant, space, session, "sent"),
            self.request_key(tenant, "sent-req", f"{_enc(space)}:{_enc(session)}:{request_id}"),
        ]
        payload = json.dumps(list(names))
        raw = await _guard(
            self._mark_sent(keys=keys, args=[payload, ttl_seconds, request_ttl_seconds])
        )
        recorded: list[str] = json.loads(raw)
        return recorded

    async def sent_for_request(
        self, tenant: str, space: str, session: str, request_id: str
    ) -> list[str] | None:
        key = self.request_key(tenant, "sent-req", f"{_enc(space)}:{_enc(session)}:{request_id}")
        raw = await _guard(self.redis.client.get(key))
        if raw is None:
            return None
        names: list[str] = json.loads(raw)
        return names
