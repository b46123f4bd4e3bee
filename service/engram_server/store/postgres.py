"""PostgreSQL access: a connection pool whose every transaction is tenant-scoped.

Connections switch to role `engram_app` (owner of nothing, subject to FORCE RLS)
as soon as they are opened, and `tenant_tx` sets `engram.tenant_id` for exactly one
transaction, so a query can only ever see the calling tenant's rows.

Round trips are the main cost of a short transaction on a loopback server, so the
transaction helpers issue BEGIN themselves (the connection is switched to
autocommit for the duration) and send it together with the tenant setting: one
round trip instead of two. `tenant_tx(..., pipeline=True)` goes further and runs
the whole transaction in libpq pipeline mode, where a statement whose result is
not read costs no round trip of its own; `tenant_read` runs one query in a single
round trip (BEGIN, tenant, query and COMMIT sent together).
"""

from __future__ import annotations

import contextlib
import json
import weakref
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import orjson
import psycopg
from opentelemetry import trace
from psycopg import sql
from psycopg.pq import TransactionStatus
from psycopg.rows import dict_row
from psycopg.types.json import set_json_dumps
from psycopg_pool import AsyncConnectionPool

from engram_server.errors import Unavailable

APP_ROLE = "engram_app"
# What a caller reads when the database cannot be reached; the driver's text (host,
# port) stays in the log through the exception's cause.
DATABASE_UNAVAILABLE = "the database is unavailable; retry later"
_tracer = trace.get_tracer("engram.store.postgres")

Conn = psycopg.AsyncConnection[dict[str, Any]]

_BEGIN = "BEGIN"
_COMMIT = "COMMIT"
_SET_TENANT = "SELECT set_config('engram.tenant_id', %s, true)"
_SET_PLATFORM = "SELECT set_config('engram.platform', 'on', true)"
# The same, prefixed with BEGIN, for one simple-protocol round trip (no parameters
# there: the tenant id is sent as a quoted literal).
_BEGIN_TENANT = sql.SQL("BEGIN; SELECT set_config('engram.tenant_id', {}, true)")
_BEGIN_PLATFORM = sql.SQL("BEGIN; SELECT set_config('engram.platform', 'on', true)")


def _json_dumps(value: Any) -> bytes:
    """JSON for jsonb parameters: orjson, 10x faster than the standard library on a
    batch's rows (0.39 -> 0.03 ms for a hundred memories); values it refuses
    (integers beyond 64 bits) fall back to the standard library."""
    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError:
        return json.dumps(value).encode()


# Every jsonb parameter of the process is encoded by it. Results keep the standard
# library's decoder: orjson reads an integer beyond 64 bits as a float, which would
# silently change a stored value on its way back.
set_json_dumps(_json_dumps)


async def _configure(conn: psycopg.AsyncConnection[Any]) -> None:
    await conn.execute(f"SET ROLE {APP_ROLE}")
    await conn.commit()


class Database:
    """The server's pool. Use `tenant_tx` for tenant data, `platform_tx` for tenants."""

    def __init__(self, url: str, min_size: int = 2, max_size: int = 16) -> None:
        self.url = url
        # Names of the statements each pooled connection has prepared (tenant_read).
        self._prepared: weakref.WeakKeyDictionary[Conn, set[str]] = weakref.WeakKeyDictionary()
        # No `check=`: probing every connection on checkout costs a round trip per
        # transaction. A connection that died while idle fails its first statement
        # instead, which surfaces as UNAVAILABLE (retryable) and the pool replaces it.
        self.pool: AsyncConnectionPool[Conn] = AsyncConnectionPool(
            url,
            min_size=min_size,
            max_size=max_size,
            open=False,
            configure=_configure,
            kwargs={"row_factory": dict_row, "autocommit": False, "prepare_threshold": 5},
        )

    async def open(self) -> None:
        await self.pool.open(wait=True, timeout=30)

    async def close(self) -> None:
        await self.pool.close()

    @asynccontextmanager
    async def tenant_tx(self, tenant_id: str, *, pipeline: bool = False) -> AsyncIterator[Conn]:
        """One transaction that sees only `tenant_id`'s rows.

        With `pipeline=True` the body runs in pipeline mode: statements are sent
        without waiting and a database error surfaces at the next result read (or
        at commit), not at the statement that caused it. Only bodies that do not
        catch errors of individual statements should ask for it.
        """
        if not tenant_id:
            raise ValueError("tenant_tx needs a tenant id")
        with _tracer.start_as_current_span("postgres.transaction") as span:
            span.set_attribute("db.system", "postgresql")
            span.set_attribute("engram.tenant", tenant_id)
            begin = _BEGIN_TENANT.format(sql.Literal(tenant_id))
            async with self._transaction(begin, _SET_TENANT, (tenant_id,), pipeline) as conn:
                yield conn

    @asynccontextmanager
    async def platform_tx(self) -> AsyncIterator[Conn]:
        """One transaction for platform-administrator work on tenants and keys.

        Memory tables stay tenant-scoped even here: their policies ignore the
        platform flag.
        """
        with _tracer.start_as_current_span("postgres.transaction") as span:
            span.set_attribute("db.system", "postgresql")
            span.set_attribute("engram.platform", True)
            async with self._transaction(_BEGIN_PLATFORM, _SET_PLATFORM, (), False) as conn:
                yield conn

    async def tenant_read(
        self,
        tenant_id: str,
        query: str,
        params: Sequence[Any],
        *,
        prepared_as: str | None = None,
    ) -> list[dict[str, Any]]:
        """The rows of one read-only query in `tenant_id`'s scope, in one round trip.

        BEGIN, the tenant setting, the query and COMMIT travel as one simple-protocol
        message, the parameters bound client-side (psycopg's own quoting); that is
        both one round trip and far less client work than a pipeline of four.

        With `prepared_as`, the query runs as a server-side prepared statement of
        that name, prepared on each connection by its first such read (in the same
        message), so PostgreSQL plans it once per connection instead of on every call
        (for Recall's candidate read, planning was 0.3-0.5 ms of its 0.8-1.1 ms in
        the server). The query's `%s` placeholders become the statement's `$n`.
        """
        if not tenant_id:
            raise ValueError("tenant_read needs a tenant id")
        with _tracer.start_as_current_span("postgres.transaction") as span:
            span.set_attribute("db.system", "postgresql")
            span.set_attribute("engram.tenant", tenant_id)
            async with self._connection() as conn:
                await conn.set_autocommit(True)
                try:
                    return await self._read(conn, tenant_id, query, params, prepared_as)
                finally:
                    await _restore(conn)

    async def _read(
        self,
        conn: Conn,
        tenant_id: str,
        query: str,
        params: Sequence[Any],
        prepared_as: str | None,
    ) -> list[dict[str, Any]]:
        client = psycopg.AsyncClientCursor(conn)
        if prepared_as is None:
            statement = client.mogrify(
                f"{_BEGIN}; {_SET_TENANT}; {query}; {_COMMIT}", (tenant_id, *params)
            )
            return await _rows_after(conn, statement)
        known = self._prepared.setdefault(conn, set())
        # The tenant setting and the EXECUTE, bound together; PREPARE (when needed)
        # goes before them, outside the client-side binding.
        scoped_execute = client.mogrify(
            f"{_SET_TENANT}; EXECUTE {prepared_as}({', '.join(['%s'] * len(params))})",
            (tenant_id, *params),
        )
        run_prepared = f"{_BEGIN}; {scoped_execute}; {_COMMIT}"
        if prepared_as in known:
            try:
                return await _rows_after(conn, run_prepared)
            except psycopg.errors.InvalidSqlStatementName:
                # The session lost it (a reset connection): prepare it again below.
                known.discard(prepared_as)
                await _restart(conn)
        prepare = f"PREPARE {prepared_as} AS {_numbered(query)}"
        try:
            rows = await _rows_after(
                conn, f"{_BEGIN}; {prepare}; {scoped_execute}; {_COMMIT}", skip=3
            )
        except psycopg.errors.DuplicatePreparedStatement:
            # Prepared by an earlier read whose transaction then failed (PREPARE is
            # not undone by a rollback).
            await _restart(conn)
            rows = await _rows_after(conn, run_prepared)
        known.add(prepared_as)
        return rows

    @asynccontextmanager
    async def _transaction(
        self, begin: sql.Composable, setting: str, params: Sequence[Any], pipeline: bool
    ) -> AsyncIterator[Conn]:
        async with self._connection() as conn:
            await conn.set_autocommit(True)
            try:
                if pipeline:
                    async with conn.pipeline():
                        await conn.execute(_BEGIN)
                        await conn.execute(setting, params)
                        yield conn
                        await conn.execute(_COMMIT)
                else:
                    await conn.execute(begin.as_string(conn), prepare=False)
                    yield conn
                    await conn.execute(_COMMIT)
            finally:
                await _restore(conn)

    @asynccontextmanager
    async def unscoped(self) -> AsyncIterator[Conn]:
        """A connection with no tenant set (RLS then shows no tenant rows)."""
        async with self._connection() as conn:
            yield conn

    @asynccontextmanager
    async def _connection(self) -> AsyncIterator[Conn]:
        """A pooled connection that is closed, not reused, after a database error.

        A statement that failed (in the server, or in psycopg while binding its
        parameters) can leave psycopg's cache of the statements it prepared on the
        connection out of step with the server: the next caller, of any tenant,
        would then execute a prepared statement the server no longer has. A closed
        connection is dropped by the pool, which opens a fresh one in its place.
        """
        try:
            async with self.pool.connection() as conn:
                try:
                    yield conn
                except psycopg.Error:
                    await conn.close()
                    raise
        except psycopg.OperationalError as exc:
            raise Unavailable(DATABASE_UNAVAILABLE) from exc


async def _rows_after(conn: Conn, statement: str, skip: int = 2) -> list[dict[str, Any]]:
    """Runs a multi-statement message and returns the rows of its result number
    `skip` + 1 (after BEGIN, a PREPARE when there is one, and the tenant setting)."""
    cur = await conn.execute(statement, prepare=False)
    for _ in range(skip):
        cur.nextset()
    return await cur.fetchall()


async def _restart(conn: Conn) -> None:
    """Rolls back a failed read's transaction and readies the connection for the next."""
    await _restore(conn)
    await conn.set_autocommit(True)


def _numbered(query: str) -> str:
    """A psycopg query's `%s` placeholders as PostgreSQL's `$1`, `$2`, ..."""
    if "%%" in query or "%(" in query:
        raise ValueError("prepared reads take plain %s placeholders only")
    head, *rest = query.split("%s")
    return head + "".join(f"${n}{part}" for n, part in enumerate(rest, start=1))


async def _restore(conn: Conn) -> None:
    """Ends whatever transaction is still open and puts the connection back in the
    pool's mode. A body that raised leaves its transaction open: roll it back."""
    if conn.closed or conn.broken:
        return
    with contextlib.suppress(psycopg.Error):
        if conn.info.transaction_status != TransactionStatus.IDLE:
            await conn.execute("ROLLBACK")
        await conn.set_autocommit(False)
