"""Tenant rows: create, read, list, delete, usage.

Functions take a connection inside a transaction the caller opened: `platform_tx`
for cross-tenant work, `tenant_tx` when one tenant's own rows are enough (RLS then
backs up the authorization already done in code).
"""

from __future__ import annotations

from typing import Any

from engram_server.errors import AlreadyExists, InvalidArgument
from engram_server.store import llm_usage
from engram_server.store.postgres import Conn
from engram_server.tenancy.model import Quota, Tenant, TenantSpec, Usage, tenant_name

MEMORY_STATUSES = (
    "PROPOSED",
    "ACTIVE",
    "PENDING_CONFIRMATION",
    "REJECTED",
    "RETRACTED",
    "EXPIRED",
    "SUPERSEDED",
)

_TENANT_COLUMNS = (
    "id, display_name, quota_requests_per_second, quota_max_memories, "
    "quota_max_content_bytes, create_time, create_request_id"
)


def _tenant(row: dict[str, Any]) -> Tenant:
    return Tenant(
        tenant_id=row["id"],
        display_name=row["display_name"],
        quota=Quota(
            requests_per_second=row["quota_requests_per_second"],
            max_memories=row["quota_max_memories"],
            max_content_bytes=row["quota_max_content_bytes"],
        ),
        create_time=row["create_time"],
        create_request_id=row["create_request_id"],
    )


async def create_tenant(conn: Conn, spec: TenantSpec) -> Tenant:
    """Inserts the tenant and its state row (platform transaction).

    A retry carrying the request_id that created the tenant returns it as it is;
    any other existing tenant of that id is ALREADY_EXISTS.
    """
    if spec.request_id is not None:
        cur = await conn.execute(
            f"SELECT {_TENANT_COLUMNS} FROM tenants WHERE create_request_id = %s",
            (spec.request_id,),
        )
        previous = await cur.fetchone()
        if previous is not None:
            if previous["id"] != spec.tenant_id:
                raise InvalidArgument.field(
                    "request_id", "was already used to create a different tenant"
                )
            return _tenant(previous)
    cur = await conn.execute(
        f"INSERT INTO tenants (id, display_name, quota_requests_per_second, quota_max_memories,"
        f" quota_max_content_bytes, create_request_id) VALUES (%s, %s, %s, %s, %s, %s)"
        f" ON CONFLICT DO NOTHING RETURNING {_TENANT_COLUMNS}",
        (
            spec.tenant_id,
            spec.display_name,
            spec.quota.requests_per_second,
            spec.quota.max_memories,
            spec.quota.max_content_bytes,
            spec.request_id,
        ),
    )
    row = await cur.fetchone()
    if row is None:
        # A concurrent retry with the same request_id may have won the race.
        existing = await get_tenant(conn, spec.tenant_id)
        if (
            existing is not None
            and spec.request_id is not None
            and existing.create_request_id == spec.request_id
        ):
            return existing
        raise AlreadyExists("tenant", tenant_name(spec.tenant_id))
    await conn.execute(
        "INSERT INTO tenant_state (tenant_id) VALUES (%s) ON CONFLICT DO NOTHING",
        (spec.tenant_id,),
    )
    return _tenant(row)


async def ensure_tenant(conn: Conn, tenant_id: str, display_name: str) -> None:
    """Creates the tenant if it is missing; leaves an existing one untouched."""
    await conn.execute(
        "INSERT INTO tenants (id, display_name) VALUES (%s, %s) ON CONFLICT DO NOTHING",
        (tenant_id, display_name),
    )
    await conn.execute(
        "INSERT INTO tenant_state (tenant_id) VALUES (%s) ON CONFLICT DO NOTHING",
        (tenant_id,),
    )


async def get_tenant(conn: Conn, tenant_id: str) -> Tenant | None:
    cur = await conn.execute(f"SELECT {_TENANT_COLUMNS} FROM tenants WHERE id = %s", (tenant_id,))
    row = await cur.fetchone()
    return None if row is None else _tenant(row)


async def list_tenants(conn: Conn, after: str | None, limit: int) -> list[Tenant]:
    """Tenants ordered by id, strictly after `after`, at most `limit`."""
    cur = await conn.execute(
        f"SELECT {_TENANT_COLUMNS} FROM tenants WHERE %s::text IS NULL OR id > %s"
        " ORDER BY id LIMIT %s",
        (after, after, limit),
    )
    return [_tenant(row) for row in await cur.fetchall()]


async def delete_tenant(conn: Conn, tenant_id: str) -> dict[str, int]:
    """Deletes every row the tenant owns, audit log included; counts per table.

    The rows of a tenant span tables that RLS hides from the server role even in a
    platform transaction, so the work is done by the SECURITY DEFINER function
    `engram_delete_tenant`.
    """
    cur = await conn.execute("SELECT engram_delete_tenant(%s) AS counts", (tenant_id,))
    row = await cur.fetchone()
    counts: dict[str, Any] = row["counts"] if row is not None else {}
    return {table: int(n) for table, n in counts.items()}


async def read_usage(conn: Conn, tenant_id: str) -> Usage | None:
    """The tenant's usage; the connection must be in `tenant_tx(tenant_id)`.

    None when the tenant does not exist.
    """
    cur = await conn.execute(
        "SELECT audit_seq, live_memories FROM tenant_state WHERE tenant_id = %s", (tenant_id,)
    )
    state = await cur.fetchone()
    if state is None:
        return None
    cur = await conn.execute(
        "SELECT status, count(*) AS n FROM memories WHERE tenant_id = %s GROUP BY status",
        (tenant_id,),
    )
    by_status = dict.fromkeys(MEMORY_STATUSES, 0)
    for row in await cur.fetchall():
        by_status[row["status"]] = int(row["n"])
    cur = await conn.execute(
        "SELECT count(*) AS n FROM api_keys WHERE tenant_id = %s AND revoke_time IS NULL"
        " AND (expire_time IS NULL OR expire_time > now())",
        (tenant_id,),
    )
    keys = await cur.fetchone()
    return Usage(
        tenant_id=tenant_id,
        memories_by_status=by_status,
        live_memories=int(state["live_memories"]),
        active_api_keys=int(keys["n"]) if keys is not None else 0,
        audit_entries=int(state["audit_seq"]),
        llm_tokens=await llm_usage.tokens_by_provider(conn, tenant_id),
    )


async def update_tenant(
    conn: Conn, tenant_id: str, display_name: str | None, quota: Quota | None
) -> Tenant | None:
    """Sets the given fields (None: unchanged); platform transaction. None if missing."""
    cur = await conn.execute(
        "UPDATE tenants SET display_name = coalesce(%s, display_name),"
        " quota_requests_per_second = coalesce(%s, quota_requests_per_second),"
        " quota_max_memories = coalesce(%s, quota_max_memories),"
        " quota_max_content_bytes = coalesce(%s, quota_max_content_bytes)"
        f" WHERE id = %s RETURNING {_TENANT_COLUMNS}",
        (
            display_name,
            None if quota is None else quota.requests_per_second,
            None if quota is None else quota.max_memories,
            None if quota is None else quota.max_content_bytes,
            tenant_id,
        ),
    )
    row = await cur.fetchone()
    return None if row is None else _tenant(row)
