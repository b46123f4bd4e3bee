"""Postgres LISTEN/NOTIFY fan-out: one connection per process, many listeners.

Replicas use it to hear about each other's commits (a revoked key, a new audit
row) without polling. The connection is dedicated and in autocommit mode because
a pooled connection would be handed to queries that block its socket, and a
notification is delivered only between transactions anyway.

A notification sent while the connection is down is lost; listeners that cannot
afford that register a reconnect hook and resynchronise there.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

import psycopg
from psycopg import sql

from engram_server.store.postgres import APP_ROLE

log = logging.getLogger(__name__)

Listener = Callable[[str], None]
ReconnectHook = Callable[[], None]


class Notifier:
    """Dispatches NOTIFY payloads on each channel to the registered callbacks.

    Callbacks run on the event loop and must not block; they receive the payload.
    """

    def __init__(self, url: str = "", *, role: str = APP_ROLE, retry_seconds: float = 1.0) -> None:
        self.url = url
        self._role = role
        self._retry_seconds = retry_seconds
        self._listeners: dict[str, list[Listener]] = {}
        self._reconnect_hooks: list[ReconnectHook] = []
        self._conn: psycopg.AsyncConnection[tuple[object, ...]] | None = None
        self._listening: set[str] = set()
        self._changed = asyncio.Event()
        self._synced = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    # -- registration ---------------------------------------------------------

    def add_listener(self, channel: str, callback: Listener) -> None:
        """Calls `callback(payload)` for every notification on `channel`.

        The LISTEN itself is issued by the background task within moments; await
        `ready()` when the next notification must not be missed.
        """
        self._listeners.setdefault(channel, []).append(callback)
        if channel not in self._listening:
            self._synced.clear()
            self._changed.set()

    def remove_listener(self, channel: str, callback: Listener) -> None:
        callbacks = self._listeners.get(channel, [])
        with contextlib.suppress(ValueError):
            callbacks.remove(callback)
        if not callbacks:
            self._listeners.pop(channel, None)
            self._changed.set()

    def add_reconnect_hook(self, hook: ReconnectHook) -> None:
        """Calls `hook()` after the connection was lost and re-established."""
        self._reconnect_hooks.append(hook)

    def remove_reconnect_hook(self, hook: ReconnectHook) -> None:
        with contextlib.suppress(ValueError):
            self._reconnect_hooks.remove(hook)

    # -- lifecycle ------------------------------------------------------------

    @property
    def backend_pid(self) -> int | None:
        """The Postgres backend of the listening connection, when connected."""
        return self._conn.info.backend_pid if self._conn is not None else None

    async def start(self) -> None:
        """Connects and starts dispatching; fails if the first connection fails."""
        if self._task is not None:
            return
        if not self.url:
            raise ValueError("the notifier needs a database URL")
        self._stopping = False
        self._conn = await self._connect()
        self._task = asyncio.create_task(self._run(), name="engram-notifier")

    async def ready(self) -> None:
        """Waits until every registered channel is being listened to.

        Callers bound the wait themselves (`asyncio.timeout`).
        """
        await self._synced.wait()

    async def stop(self) -> None:
        self._stopping = True
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.wait({task})
        conn, self._conn = self._conn, None
        if conn is not None:
            await conn.close()

    # -- internals ------------------------------------------------------------

    async def _connect(self) -> psycopg.AsyncConnection[tuple[object, ...]]:
        conn = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
        try:
            await conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(self._role)))
        except BaseException:
            await conn.close()
            raise
        self._listening = set()
        return conn

    async def _sync_channels(self, conn: psycopg.AsyncConnection[tuple[object, ...]]) -> None:
        wanted = set(self._listeners)
        for channel in sorted(wanted - self._listening):
            await conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(channel)))
        for channel in sorted(self._listening - wanted):
            await conn.execute(sql.SQL("UNLISTEN {}").format(sql.Identifier(channel)))
        self._listening = wanted

    def _dispatch(self, channel: str, payload: str) -> None:
        for callback in list(self._listeners.get(channel, ())):
            try:
                callback(payload)
            except Exception:
                log.exception("listener on %s failed for payload %r", channel, payload)

    async def _drain(self, conn: psycopg.AsyncConnection[tuple[object, ...]]) -> None:
        async for notice in conn.notifies():
            self._dispatch(notice.channel, notice.payload)

    def _run_reconnect_hooks(self) -> None:
        log.info("notifier reconnected")
        for hook in list(self._reconnect_hooks):
            try:
                hook()
            except Exception:
                log.exception("notifier reconnect hook failed")

    async def _serve(
        self, conn: psycopg.AsyncConnection[tuple[object, ...]], reconnected: bool
    ) -> None:
        """Listens on one connection until it fails."""
        while True:
            self._changed.clear()
            await self._sync_channels(conn)
            self._synced.set()
            if reconnected:
                # Only now: a notice sent between the hook and LISTEN would be lost.
                self._run_reconnect_hooks()
                reconnected = False
            drain = asyncio.create_task(self._drain(conn))
            changed = asyncio.create_task(self._changed.wait())
            try:
                await asyncio.wait({drain, changed}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                changed.cancel()
                if not drain.done():
                    # Waiting for notifications holds the connection; stop waiting
                    # (harmless: the connection is idle) to send LISTEN/UNLISTEN.
                    drain.cancel()
                    # asyncio.wait, not `await drain`: suppressing the child's
                    # CancelledError would also swallow a cancel of this task.
                    await asyncio.wait({drain})
            if drain.done() and not drain.cancelled():
                drain.result()  # raises the connection error, if any
                raise psycopg.OperationalError("notification stream ended")

    async def _run(self) -> None:
        reconnected = False
        while not self._stopping:
            try:
                if self._conn is None:
                    self._conn = await self._connect()
                await self._serve(self._conn, reconnected)
            except (psycopg.Error, OSError) as exc:
                if self._stopping:
                    return
                log.warning("notifier connection lost (%s); retrying", exc)
                self._synced.clear()
                reconnected = True
                conn, self._conn = self._conn, None
                if conn is not None:
                    with contextlib.suppress(Exception):
                        await conn.close()
                await asyncio.sleep(self._retry_seconds)
