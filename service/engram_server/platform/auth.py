"""API key authentication: bearer secret -> Principal, with an in-process cache.

Every RPC carries its key, so looking it up in Postgres each time would put a
query in front of every call. Resolved keys are cached for
`settings.auth_cache_seconds`; revocation must not wait for that, so whoever
revokes or deletes a key sends `NOTIFY engram_keys, '<tenant>/<key id>'` in the
same transaction, and every replica's notifier drops the key at commit
(`'<tenant>/*'` drops all of a tenant's keys). Expiry is checked on every call,
cached or not.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from datetime import UTC, datetime

from engram_server.errors import Unauthenticated
from engram_server.platform.principal import Principal
from engram_server.store.api_keys import KEY_CHANNEL, KeyRecord, hash_secret, lookup_by_secret
from engram_server.store.postgres import Database

log = logging.getLogger(__name__)

# Channel on which key revocations and deletions are announced.
KEYS_CHANNEL = KEY_CHANNEL
# Bounds memory use when many distinct keys are in play.
_MAX_CACHED_KEYS = 10_000
_BEARER = "bearer "


@dataclass(frozen=True)
class _Entry:
    record: KeyRecord
    cached_at: float


class KeyCache:
    """Resolved keys by secret hash, evicted by age, by notice or when full."""

    def __init__(self, max_entries: int = _MAX_CACHED_KEYS) -> None:
        self._entries: OrderedDict[bytes, _Entry] = OrderedDict()
        self._max_entries = max_entries
        # Callbacks may arrive from the notifier task while another coroutine
        # iterates; a lock keeps the dict consistent even if used from threads.
        self._lock = threading.Lock()

    def get(self, secret_hash: bytes, max_age: float) -> KeyRecord | None:
        with self._lock:
            entry = self._entries.get(secret_hash)
            if entry is None:
                return None
            if time.monotonic() - entry.cached_at > max_age:
                del self._entries[secret_hash]
                return None
            self._entries.move_to_end(secret_hash)
            return entry.record

    def put(self, secret_hash: bytes, record: KeyRecord) -> None:
        with self._lock:
            self._entries[secret_hash] = _Entry(record, time.monotonic())
            self._entries.move_to_end(secret_hash)
            while len(self._entries) > self._max_entries:
                self._entries.popitem(last=False)

    def invalidate(self, tenant_id: str, key_id: str | None = None) -> int:
        """Drops one key (or every key of the tenant when key_id is None)."""
        with self._lock:
            doomed = [
                h
                for h, e in self._entries.items()
                if e.record.tenant_id == tenant_id and (key_id is None or e.record.key_id == key_id)
            ]
            for h in doomed:
                del self._entries[h]
            return len(doomed)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


# One cache per process: every server in it authenticates against the same keys.
key_cache = KeyCache()


def invalidate_key(tenant_id: str, key_id: str) -> None:
    """Forgets a cached key at once (on this replica; NOTIFY reaches the others)."""
    key_cache.invalidate(tenant_id, key_id)


def on_key_notice(payload: str) -> None:
    """Handles a NOTIFY on KEYS_CHANNEL: `<tenant>/<key id>` or `<tenant>/*`."""
    tenant_id, _, key_id = payload.partition("/")
    if not tenant_id:
        log.warning("ignoring malformed %s notice %r", KEYS_CHANNEL, payload)
        return
    key_cache.invalidate(tenant_id, None if key_id in ("", "*") else key_id)


def on_notifier_reconnect() -> None:
    """Notices sent while the listener was down are lost: forget everything."""
    key_cache.clear()


def bearer_secret(authorization: str | None) -> str:
    """The secret of an `authorization: Bearer <secret>` header value."""
    if not authorization:
        raise Unauthenticated("missing API key: send metadata 'authorization: Bearer <api-key>'")
    if authorization[: len(_BEARER)].lower() != _BEARER:
        raise Unauthenticated("malformed authorization metadata: expected 'Bearer <api-key>'")
    secret = authorization[len(_BEARER) :].strip()
    if not secret:
        raise Unauthenticated("missing API key: send metadata 'authorization: Bearer <api-key>'")
    return secret


class Authenticator:
    """Resolves secrets to principals through the cache and Postgres."""

    def __init__(self, db: Database, cache_seconds: float, cache: KeyCache | None = None) -> None:
        self._db = db
        self._cache_seconds = cache_seconds
        self._cache = cache if cache is not None else key_cache

    async def authenticate(self, authorization: str | None) -> Principal:
        secret = bearer_secret(authorization)
        secret_hash = hash_secret(secret)
        record = self._cache.get(secret_hash, self._cache_seconds)
        if record is None:
            async with self._db.unscoped() as conn, conn.transaction():
                record = await lookup_by_secret(conn, secret)
            if record is None:
                raise Unauthenticated("unknown API key")
            if self._cache_seconds > 0:
                self._cache.put(secret_hash, record)
        now = datetime.now(UTC)
        if record.revoke_time is not None and record.revoke_time <= now:
            raise Unauthenticated("API key revoked")
        if record.expire_time is not None and record.expire_time <= now:
            raise Unauthenticated("API key expired")
        return Principal(
            tenant_id=record.tenant_id,
            key_id=record.key_id,
            scopes=record.scopes,
            agent=record.agent,
        )
