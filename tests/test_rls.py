"""Row-level security checked in the database itself, as the server's role."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

from tests.lifecycle_helpers import propose

TENANT_TABLES = (
    "memories",
    "memory_revisions",
    "audit_log",
    "outbox",
    "idempotency",
    "policies",
    "edges",
    "embedding_cache",
    "snapshots",
    "snapshot_memories",
    "erasure_epochs",
)


async def _as_app(database_url: str, tenant: str | None) -> psycopg.AsyncConnection[Any]:
    conn = await psycopg.AsyncConnection.connect(database_url, autocommit=True)
    await conn.execute("SET ROLE engram_app")
    if tenant is not None:
        await conn.execute("SELECT set_config('engram.tenant_id', %s, false)", (tenant,))
    return conn


async def test_server_role_sees_only_its_tenant(make_tenant: Any, database_url: str) -> None:
    a = await make_tenant()
    b = await make_tenant()
    await propose(a.lifecycle, "s", "belongs to A")
    await propose(b.lifecycle, "s", "belongs to B")
    for tenant, other in ((a.tenant_id, b.tenant_id), (None, a.tenant_id)):
        conn = await _as_app(database_url, tenant)
        try:
            for table in TENANT_TABLES:
                cur = await conn.execute(
                    f"SELECT count(*) FROM {table} WHERE tenant_id = %s", (other,)
                )
                row = await cur.fetchone()
                assert row is not None and row[0] == 0, (table, tenant)
            # Even the platform flag opens nothing for the server role.
            await conn.execute("SELECT set_config('engram.platform', 'on', false)")
            cur = await conn.execute("SELECT count(*) FROM memories WHERE tenant_id = %s", (other,))
            row = await cur.fetchone()
            assert row is not None and row[0] == 0
        finally:
            await conn.close()


async def test_server_role_cannot_write_for_another_tenant(
    make_tenant: Any, database_url: str
) -> None:
    a = await make_tenant()
    b = await make_tenant()
    conn = await _as_app(database_url, a.tenant_id)
    try:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            await conn.execute(
                "INSERT INTO policies (tenant_id, space, policy, etag) VALUES (%s, 'x', '{}', 'e')",
                (b.tenant_id,),
            )
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            await conn.execute("ALTER TABLE memories DISABLE ROW LEVEL SECURITY")
    finally:
        await conn.close()


async def test_lookups_by_id_use_the_tenant_in_the_index(database_url: str) -> None:
    conn = await _as_app(database_url, "some-tenant")
    try:
        cur = await conn.execute(
            "EXPLAIN SELECT * FROM memories WHERE id = '00000000-0000-0000-0000-000000000000'"
        )
        plan = "\n".join(row[0] for row in await cur.fetchall())
    finally:
        await conn.close()
    assert "tenant_id = " in plan and " OR " not in plan, plan


async def test_prepared_reads_stay_tenant_scoped_and_survive_a_lost_statement(
    make_tenant: Any, database_url: str
) -> None:
    # A prepared read is planned once per connection and then executed for any
    # tenant: the plan must not carry the first tenant's scope, and a statement
    # the session lost (or kept after a failed read) must not break later reads.
    from engram_server.store.postgres import Database

    a = await make_tenant()
    b = await make_tenant()
    await propose(a.lifecycle, "s", "belongs to A")
    await propose(b.lifecycle, "s", "belongs to B")
    db = Database(database_url, min_size=1, max_size=1)  # one connection: every read reuses it
    await db.open()
    query = "SELECT content FROM memories WHERE space = %s AND status = %s ORDER BY content"

    async def read(tenant: str) -> list[str]:
        rows = await db.tenant_read(tenant, query, ("s", "ACTIVE"), prepared_as="engram_test_read")
        return [r["content"] for r in rows]

    try:
        for _ in range(8):  # past PostgreSQL's switch to a generic plan
            assert await read(a.tenant_id) == ["belongs to A"]
            assert await read(b.tenant_id) == ["belongs to B"]
        async with db.pool.connection() as conn:
            cur = await conn.execute(
                "SELECT count(*) AS n FROM pg_prepared_statements WHERE name = 'engram_test_read'"
            )
            assert (await cur.fetchone())["n"] == 1  # prepared once, on the one connection
            await conn.execute("DEALLOCATE engram_test_read")
            await conn.commit()
        assert await read(a.tenant_id) == ["belongs to A"]  # prepared again
        db._prepared.clear()  # the statement exists but is not known as prepared
        assert await read(b.tenant_id) == ["belongs to B"]
        # The same rows as an unprepared read.
        rows = await db.tenant_read(b.tenant_id, query, ("s", "ACTIVE"))
        assert [r["content"] for r in rows] == ["belongs to B"]
    finally:
        await db.close()
