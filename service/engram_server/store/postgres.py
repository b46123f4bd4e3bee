"""PostgreSQL access: a connection pool whose every transaction is tenant-scoped.

Connections switch to role `engram_app` (owner of nothing, subject to FORCE RLS)
as soon as they are opened, and `tenant_tx` sets `engram.tenant_id` for exactly one
transaction, so a query can only ever see the calling tenant's rows.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import psycopg
from opentelemetry import trace
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from engram_server.errors import Unavailable

APP_ROLE = "engram_app"
_tracer = trace.get_tracer("engram.store.postgres")

Conn = psycopg.AsyncConnection[dict[str, Any]]


async def _configure(conn: psycopg.AsyncConnection[Any]) -> None:
    await conn.execute(f"SET ROLE {APP_ROLE}")
    await conn.commit()


class Database:
    """The server's pool. Use `tenant_tx` for tenant data, `platform_tx` for tenants."""

    def __init__(self, url: str, min_size: int = 2, max_size: int = 16) -> None:
        self.url = url
        self.pool: AsyncConnectionPool[Conn] = AsyncConnectionPool(
            url,
            min_size=min_size,
            max_size=max_size,
            open=False,
            configure=_configure,
            kwargs={"row_factory": dict_row, "autocommit": False, "prepare_threshold": 5},
            check=AsyncConnectionPool.check_connection,
        )

    async def open(self) -> None:
        await self.pool.open(wait=True, timeout=30)

    async def close(self) -> None:
        await self.pool.close()

    @asynccontextmanager
    async def tenant_tx(self, tenant_id: str) -> AsyncIterator[Conn]:
        """One transaction that sees only `tenant_id`'s rows."""
        if not tenant_id:
            raise ValueError("tenant_tx needs a tenant id")
        with _tracer.start_as_current_span("postgres.transaction") as span:
            span.set_attribute("db.system", "postgresql")
            span.set_attribute("engram.tenant", tenant_id)
            try:
                async with self.pool.connection() as conn, conn.transaction():
                    await conn.execute(
                        "SELECT set_config('engram.tenant_id', %s, true)", (tenant_id,)
                    )
                    yield conn
            except psycopg.OperationalError as exc:
                raise Unavailable(f"database unavailable: {exc}") from exc

    @asynccontextmanager
    async def platform_tx(self) -> AsyncIterator[Conn]:
        """One transaction for platform-administrator work on tenants and keys.

        Memory tables stay tenant-scoped even here: their policies ignore the
        platform flag.
        """
        with _tracer.start_as_current_span("postgres.transaction") as span:
            span.set_attribute("db.system", "postgresql")
            span.set_attribute("engram.platform", True)
            try:
                async with self.pool.connection() as conn, conn.transaction():
                    await conn.execute("SELECT set_config('engram.platform', 'on', true)")
                    yield conn
            except psycopg.OperationalError as exc:
                raise Unavailable(f"database unavailable: {exc}") from exc

    @asynccontextmanager
    async def unscoped(self) -> AsyncIterator[Conn]:
        """A connection with no tenant set (RLS then shows no tenant rows)."""
        try:
            async with self.pool.connection() as conn:
                yield conn
        except psycopg.OperationalError as exc:
            raise Unavailable(f"database unavailable: {exc}") from exc
