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
from typing import Any

from engram_server.store.postgres import Conn
from engram_server.tenancy.model import ApiKey, ApiKeySpec, secret_prefix

SECRET_PREFIX = "egk_"

# The channel every replica's auth cache listens on; payload `<tenant>/<key id>`.
KEY_CHANNEL = "engram_keys"


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
    cur = await conn.execute("SELECT * FROM engram_authenticate(%s)", (hash_secret(secret),))
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


_KEY_COLUMNS = (
    "tenant_id, id, display_name, scopes, agent, expire_time, revoke_time, create_time,"
    " secret_prefix, create_request_id"
)


def _api_key(row: dict[str, Any]) -> ApiKey:
    return ApiKey(
        tenant_id=row["tenant_id"],
        key_id=row["id"],
        display_name=row["display_name"],
        scopes=frozenset(row["scopes"]),
        agent=row["agent"],
        expire_time=row["expire_time"],
        revoke_time=row["revoke_time"],
        create_time=row["create_time"],
        secret_prefix=row["secret_prefix"],
        create_request_id=row["create_request_id"],
    )


async def notify_key_change(conn: Conn, tenant_id: str, key_id: str) -> None:
    """Tells every replica's auth cache to forget a key, when this transaction commits."""
    await conn.execute("SELECT pg_notify(%s, %s)", (KEY_CHANNEL, f"{tenant_id}/{key_id}"))


async def notify_tenant_keys_gone(conn: Conn, tenant_id: str) -> None:
    """Tells every replica to forget all of a tenant's keys, at commit."""
    await conn.execute("SELECT pg_notify(%s, %s)", (KEY_CHANNEL, f"{tenant_id}/*"))


async def insert_key(conn: Conn, spec: ApiKeySpec, key_id: str, secret: str) -> ApiKey | None:
    """Stores a new key (its secret only as a hash).

    None when a concurrent call with the same request_id stored its key first.
    """
    cur = await conn.execute(
        f"INSERT INTO api_keys (tenant_id, id, display_name, scopes, agent, secret_hash,"
        f" secret_prefix, expire_time, create_request_id)"
        f" VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
        f" ON CONFLICT (tenant_id, create_request_id) WHERE create_request_id IS NOT NULL"
        f" DO NOTHING RETURNING {_KEY_COLUMNS}",
        (
            spec.tenant_id,
            key_id,
            spec.display_name,
            sorted(spec.scopes),
            spec.agent,
            hash_secret(secret),
            secret_prefix(secret),
            spec.expire_time,
            spec.request_id,
        ),
    )
    row = await cur.fetchone()
    return None if row is None else _api_key(row)


async def get_key(
    conn: Conn, tenant_id: str, key_id: str, *, for_update: bool = False
) -> ApiKey | None:
    lock = " FOR UPDATE" if for_update else ""
    cur = await conn.execute(
        f"SELECT {_KEY_COLUMNS} FROM api_keys WHERE tenant_id = %s AND id = %s{lock}",
        (tenant_id, key_id),
    )
    row = await cur.fetchone()
    return None if row is None else _api_key(row)


async def find_by_request_id(conn: Conn, tenant_id: str, request_id: str) -> ApiKey | None:
    """The key a CreateApiKey call with this request_id created, locked for a re-issue."""
    cur = await conn.execute(
        f"SELECT {_KEY_COLUMNS} FROM api_keys WHERE tenant_id = %s AND create_request_id = %s"
        " FOR UPDATE",
        (tenant_id, request_id),
    )
    row = await cur.fetchone()
    return None if row is None else _api_key(row)


async def list_keys(
    conn: Conn,
    tenant_id: str,
    *,
    after: tuple[datetime, str] | None,
    limit: int,
    show_revoked: bool,
) -> list[ApiKey]:
    """Keys ordered by (create_time, id), strictly after `after`, at most `limit`."""
    after_time, after_id = after if after is not None else (None, None)
    cur = await conn.execute(
        f"SELECT {_KEY_COLUMNS} FROM api_keys WHERE tenant_id = %s"
        " AND (%s OR revoke_time IS NULL)"
        " AND (%s::timestamptz IS NULL OR (create_time, id) > (%s::timestamptz, %s::text))"
        " ORDER BY create_time, id LIMIT %s",
        (tenant_id, show_revoked, after_time, after_time, after_id, limit),
    )
    return [_api_key(row) for row in await cur.fetchall()]


async def key_ids(conn: Conn, tenant_id: str) -> list[str]:
    cur = await conn.execute("SELECT id FROM api_keys WHERE tenant_id = %s", (tenant_id,))
    return [row["id"] for row in await cur.fetchall()]


async def revoke_key(conn: Conn, tenant_id: str, key_id: str) -> ApiKey | None:
    """Revokes a key (a second revoke keeps the first time) and notifies every replica."""
    cur = await conn.execute(
        f"UPDATE api_keys SET revoke_time = coalesce(revoke_time, now())"
        f" WHERE tenant_id = %s AND id = %s RETURNING {_KEY_COLUMNS}",
        (tenant_id, key_id),
    )
    row = await cur.fetchone()
    if row is None:
        return None
    await notify_key_change(conn, tenant_id, key_id)
    return _api_key(row)


async def delete_key(conn: Conn, tenant_id: str, key_id: str) -> bool:
    """Deletes a key record and notifies every replica; False if there was none."""
    cur = await conn.execute(
        "DELETE FROM api_keys WHERE tenant_id = %s AND id = %s", (tenant_id, key_id)
    )
    if cur.rowcount == 0:
        return False
    await notify_key_change(conn, tenant_id, key_id)
    return True


async def replace_secret(conn: Conn, tenant_id: str, key_id: str, secret: str) -> ApiKey | None:
    """Gives a key a new secret; the old one stops working on every replica."""
    cur = await conn.execute(
        f"UPDATE api_keys SET secret_hash = %s, secret_prefix = %s"
        f" WHERE tenant_id = %s AND id = %s RETURNING {_KEY_COLUMNS}",
        (hash_secret(secret), secret_prefix(secret), tenant_id, key_id),
    )
    row = await cur.fetchone()
    if row is None:
        return None
    await notify_key_change(conn, tenant_id, key_id)
    return _api_key(row)


async def put_fixed_key(
    conn: Conn,
    tenant_id: str,
    key_id: str,
    *,
    display_name: str,
    scopes: frozenset[str],
    secret: str,
    shown_prefix: str,
) -> bool:
    """Makes `key_id` exist with exactly this secret and these scopes, unrevoked.

    For keys whose secret comes from configuration (the bootstrap token). Returns
    True when anything changed; a change is announced to every replica.
    """
    digest = hash_secret(secret)
    cur = await conn.execute(
        "SELECT secret_hash, scopes, revoke_time, expire_time, display_name FROM api_keys"
        " WHERE tenant_id = %s AND id = %s FOR UPDATE",
        (tenant_id, key_id),
    )
    row = await cur.fetchone()
    if (
        row is not None
        and bytes(row["secret_hash"]) == digest
        and frozenset(row["scopes"]) == scopes
        and row["revoke_time"] is None
        and row["expire_time"] is None
        and row["display_name"] == display_name
    ):
        return False
    await conn.execute(
        "INSERT INTO api_keys (tenant_id, id, display_name, scopes, secret_hash, secret_prefix)"
        " VALUES (%s, %s, %s, %s, %s, %s)"
        " ON CONFLICT (tenant_id, id) DO UPDATE SET display_name = EXCLUDED.display_name,"
        " scopes = EXCLUDED.scopes, agent = NULL, secret_hash = EXCLUDED.secret_hash,"
        " secret_prefix = EXCLUDED.secret_prefix, expire_time = NULL, revoke_time = NULL",
        (tenant_id, key_id, display_name, sorted(scopes), digest, shown_prefix),
    )
    if row is not None:
        await notify_key_change(conn, tenant_id, key_id)
    return True


async def delete_keys_named(conn: Conn, tenant_id: str, display_name: str) -> list[str]:
    """Deletes a tenant's keys with this display name (the dev keys of earlier starts)."""
    cur = await conn.execute(
        "DELETE FROM api_keys WHERE tenant_id = %s AND display_name = %s RETURNING id",
        (tenant_id, display_name),
    )
    deleted = [row["id"] for row in await cur.fetchall()]
    for key_id in deleted:
        await notify_key_change(conn, tenant_id, key_id)
    return deleted
