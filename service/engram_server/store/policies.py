"""SQL for validation policies and the tenant limits the write path needs."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from psycopg.types.json import Jsonb

from engram_server.lifecycle.policy import Policy
from engram_server.store.postgres import Conn


@dataclass(frozen=True)
class WriteLimits:
    """The policy that applies to a space and the tenant's content quota."""

    policy: Policy
    quota_max_content_bytes: int


def _etag(data: dict[str, object]) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:20]


async def effective_policy(conn: Conn, space: str) -> WriteLimits:
    """The space's own policy if it has one, else the tenant default, else built-ins."""
    cur = await conn.execute(
        "SELECT p.space, p.policy, p.etag, p.update_time, t.quota_max_content_bytes"
        " FROM tenants t LEFT JOIN LATERAL ("
        "   SELECT space, policy, etag, update_time FROM policies"
        "    WHERE space IN (%s, '') ORDER BY space DESC LIMIT 1) p ON true",
        (space,),
    )
    row = await cur.fetchone()
    if row is None:
        return WriteLimits(Policy(space=space), 0)
    if row["policy"] is None:
        policy = Policy(space="")
    else:
        policy = Policy.from_json(row["space"], row["policy"], row["etag"], row["update_time"])
    return WriteLimits(policy, row["quota_max_content_bytes"])


async def get_policy(conn: Conn, space: str) -> Policy:
    """The policy GetPolicy reports for `space` ("" = tenant default)."""
    limits = await effective_policy(conn, space)
    return limits.policy


async def put_policy(conn: Conn, tenant_id: str, policy: Policy) -> Policy:
    data = policy.to_json()
    etag = _etag(data)
    cur = await conn.execute(
        "INSERT INTO policies (tenant_id, space, policy, etag, update_time)"
        " VALUES (%s, %s, %s, %s, now())"
        " ON CONFLICT (tenant_id, space) DO UPDATE"
        "   SET policy = EXCLUDED.policy, etag = EXCLUDED.etag, update_time = now()"
        " RETURNING etag, update_time",
        (tenant_id, policy.space, Jsonb(data), etag),
    )
    row = await cur.fetchone()
    assert row is not None
    return Policy.from_json(policy.space, data, row["etag"], row["update_time"])


async def lock_policy_etag(conn: Conn, space: str) -> str | None:
    """The stored etag of exactly this policy row (locked), or None if absent."""
    cur = await conn.execute("SELECT etag FROM policies WHERE space = %s FOR UPDATE", (space,))
    row = await cur.fetchone()
    return row["etag"] if row else None
