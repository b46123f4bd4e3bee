"""API key storage. Secrets are never stored: only their SHA-256 hash.

A secret looks like `egk_<key id>_<random>`; the hash of the whole string is the
lookup key. SHA-256 (not a slow password hash) is right here because secrets carry
256 bits of randomness, and it keeps authentication to one indexed lookup.
"""

from __future__ import annotations

import hashlib
import secrets as _secrets
from dataclasses import dataclass
from datetime import datetime

from engram_server.store.postgres import Conn

SECRET_PREFIX = "egk_"


def hash_secret(secret: str) -> bytes:
    return hashlib.sha256(secret.encode()).digest()


def new_key_id() -> str:
    return _secrets.token_hex(8)


def new_secret(key_id: str) -> str:
    return f"{SECRET_PREFIX}{key_id}_{_secrets.token_urlsafe(32)}"


@dataclass(frozen=True)
class KeyRecord:
    tenant_id: str
    key_id: str
    scopes: frozenset[str]
    agent: str | None
    expire_time: datetime | None
    revoke_time: datetime | None

    def usable_at(self, now: datetime) -> bool:
        if self.revoke_time is not None and self.revoke_time <= now:
            return False
        return self.expire_time is None or self.expire_time > now


async def lookup_by_secret(conn: Conn, secret: str) -> KeyRecord | None:
    """Finds a key by its secret, across tenants (the tenant is not known yet)."""
    cur = await conn.execute(
        "SELECT * FROM engram_authenticate(%s)", (hash_secret(secret),)
    )
    row = await cur.fetchone()
    if row is None:
        return None
    return KeyRecord(
        tenant_id=row["tenant_id"],
        key_id=row["id"],
        scopes=frozenset(row["scopes"]),
        agent=row["agent"],
        expire_time=row["expire_time"],
        revoke_time=row["revoke_time"],
    )
