"""The LISTEN/NOTIFY notifier against the real database."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from engram_server.platform.notify import Notifier


@pytest.fixture
async def notifier(database_url: str) -> AsyncIterator[Notifier]:
    notifier = Notifier(database_url, retry_seconds=0.1)
    await notifier.start()
    try:
        yield notifier
    finally:
        await notifier.stop()


async def _until(predicate: Any) -> None:
    async with asyncio.timeout(60):  # a bound for a loaded machine, not a latency claim
        while True:
            if predicate():
                return
            await asyncio.sleep(0.02)


async def test_delivers_payloads_to_every_listener_of_the_channel(
    notifier: Notifier, raw_pg: Any
) -> None:
    first: list[str] = []
    second: list[str] = []
    other: list[str] = []
    notifier.add_listener("engram_test_a", first.append)
    notifier.add_listener("engram_test_a", second.append)
    notifier.add_listener("engram_test_b", other.append)
    async with asyncio.timeout(5):
        await notifier.ready()
    await raw_pg.execute("SELECT pg_notify('engram_test_a', 'one')")
    await raw_pg.execute("SELECT pg_notify('engram_test_a', 'two')")
    await _until(lambda: len(first) == 2 and len(second) == 2)
    assert first == second == ["one", "two"]
    assert other == []


async def test_notices_commit_with_the_transaction(notifier: Notifier, raw_pg: Any) -> None:
    got: list[str] = []
    notifier.add_listener("engram_test_tx", got.append)
    async with asyncio.timeout(5):
        await notifier.ready()
    async with raw_pg.transaction():
        await raw_pg.execute("SELECT pg_notify('engram_test_tx', 'kept')")
    try:
        async with raw_pg.transaction():
            await raw_pg.execute("SELECT pg_notify('engram_test_tx', 'rolled back')")
            raise RuntimeError("abort")
    except RuntimeError:
        pass
    await _until(lambda: got == ["kept"])
    await asyncio.sleep(0.1)
    assert got == ["kept"]


async def test_removed_listener_hears_nothing_more(notifier: Notifier, raw_pg: Any) -> None:
    got: list[str] = []
    notifier.add_listener("engram_test_rm", got.append)
    async with asyncio.timeout(5):
        await notifier.ready()
    await raw_pg.execute("SELECT pg_notify('engram_test_rm', 'before')")
    await _until(lambda: got == ["before"])
    notifier.remove_listener("engram_test_rm", got.append)
    await raw_pg.execute("SELECT pg_notify('engram_test_rm', 'after')")
    await asyncio.sleep(0.2)
    assert got == ["before"]


async def test_a_failing_listener_does_not_stop_the_others(notifier: Notifier, raw_pg: Any) -> None:
    got: list[str] = []

    def broken(payload: str) -> None:
        raise ValueError(payload)

    notifier.add_listener("engram_test_err", broken)
    notifier.add_listener("engram_test_err", got.append)
    async with asyncio.timeout(5):
        await notifier.ready()
    await raw_pg.execute("SELECT pg_notify('engram_test_err', 'x')")
    await _until(lambda: got == ["x"])


async def test_listens_under_the_application_role(database_url: str) -> None:
    # The connection switches role before listening: an unknown role fails start.
    import psycopg

    with pytest.raises(psycopg.Error, match="no_such_role"):
        await Notifier(database_url, role="no_such_role").start()


async def test_reconnects_after_the_connection_drops(notifier: Notifier, raw_pg: Any) -> None:
    got: list[str] = []
    reconnects: list[bool] = []
    notifier.add_listener("engram_test_re", got.append)
    notifier.add_reconnect_hook(lambda: reconnects.append(True))
    async with asyncio.timeout(5):
        await notifier.ready()
    old_pid = notifier.backend_pid
    await raw_pg.execute("SELECT pg_terminate_backend(%s)", (old_pid,))
    await _until(lambda: reconnects == [True] and notifier.backend_pid not in (None, old_pid))
    await raw_pg.execute("SELECT pg_notify('engram_test_re', 'after reconnect')")
    await _until(lambda: got == ["after reconnect"])


async def test_start_needs_a_url() -> None:
    with pytest.raises(ValueError):
        await Notifier("").start()
