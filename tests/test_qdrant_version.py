"""The supported Qdrant server versions: the range, the check at start and after a
lost connection, on a real Qdrant server when `ENGRAM_TEST_QDRANT_URL` names one.

Without a real server, the start and reconnect paths are also driven through a
stand-in that answers only Qdrant's gRPC health check (which is where the client
reads the version): that shows the refusal in CI, the real-server tests show that
the version is read from a real Qdrant."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
import grpc.aio
import httpx
import pytest
from engram_server.services.recall_runtime import RecallRuntime
from engram_server.store.vectors import qdrant_version
from engram_server.store.vectors.qdrant_version import (
    SUPPORTED,
    UnsupportedQdrantVersion,
    VersionRange,
    check_version,
    parse_version,
)
from engram_server.store.vectors.server import ServerVectorIndex
from qdrant_client.grpc import qdrant_pb2, qdrant_pb2_grpc

from tests.conftest import (
    QDRANT_SKIP_REASON,
    QDRANT_URL_ENV,
    delete_collection,
    new_collection_name,
    real_qdrant_client,
    real_qdrant_grpc_port,
    real_qdrant_url,
    skip_allowed_in_ci,
)

DIM = 4
MODEL = "test-model"


def test_the_supported_range_is_16_up_to_20() -> None:
    for ok in ("1.16.0", "1.16.3", "v1.17.1", "1.18.0", "1.19.0", "1.19.9-dev"):
        assert check_version(ok) == parse_version(ok)
    for refused in ("1.15.5", "1.9.0", "1.20.0", "2.0.0", "0.16.0", "", "latest", "v"):
        with pytest.raises(UnsupportedQdrantVersion) as caught:
            check_version(refused, "http://qdrant:6333")
        message = str(caught.value)
        # The version found, the range supported, and the setting to change.
        assert f"version {refused or '(unreported)'}," in message
        assert ">= 1.16.0, < 1.20" in message
        assert "ENGRAM_QDRANT_URL" in message and "http://qdrant:6333" in message
    assert str(SUPPORTED) == ">= 1.16.0, < 1.20"
    assert parse_version("v1.18.2") == (1, 18, 2) and parse_version("1.17") == (1, 17, 0)


# -- a real Qdrant server --------------------------------------------------------------


def real_index(collection: str, **kw: Any) -> ServerVectorIndex:
    return ServerVectorIndex.connect(
        real_qdrant_url(), collection=collection, grpc_port=real_qdrant_grpc_port(), **kw
    )


async def rest_version() -> str:
    """The version the real server's REST root endpoint reports."""
    async with httpx.AsyncClient() as http:
        response = await http.get(real_qdrant_url().rstrip("/") + "/")
    response.raise_for_status()
    return str(response.json()["version"])


def excluding(version: str) -> VersionRange:
    """A range that starts just above `version`."""
    parsed = parse_version(version)
    assert parsed is not None
    major, minor, _ = parsed
    return VersionRange(lowest=(major, minor + 1, 0), below=(major, minor + 5, 0))


async def collection_exists(name: str) -> bool:
    client = real_qdrant_client()
    try:
        return bool(await client.collection_exists(name))
    finally:
        await client.close()


async def test_the_real_servers_version_is_read_at_start() -> None:
    collection = new_collection_name()
    index = real_index(collection)
    try:
        assert index.server_version is None
        await index.ensure_collection(DIM, MODEL)
        assert index.server_version == await rest_version()
        assert parse_version(index.server_version) in SUPPORTED
    finally:
        await index.client.delete_collection(collection)
        await index.close()


async def test_a_real_server_outside_the_range_is_refused_at_start(
    app: Any, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The real server's own version, against a range that leaves it out: the
    # server's start path (RecallRuntime.start) refuses before touching Qdrant.
    found = await rest_version()
    monkeypatch.setattr(qdrant_version, "SUPPORTED", excluding(found))
    collection = new_collection_name()
    configured = dataclasses.replace(
        settings,
        vector_backend="qdrant",
        qdrant_url=real_qdrant_url(),
        qdrant_grpc_port=real_qdrant_grpc_port(),
        qdrant_collection=collection,
        index_worker=False,
    )
    runtime = RecallRuntime.build(configured, app.db)
    try:
        with pytest.raises(UnsupportedQdrantVersion) as caught:
            await runtime.start(app.notifier)
        assert f"version {found}," in str(caught.value)
        assert str(excluding(found)) in str(caught.value)
        assert "ENGRAM_QDRANT_URL" in str(caught.value)
        assert not await collection_exists(collection)
    finally:
        await runtime.index.close()
        await runtime.embedder.close()


class TcpProxy:
    """A TCP forwarder to 127.0.0.1:`target_port`, which can go away (every
    connection cut, the port closed) and come back on the same port: to the client,
    a lost connection to the server and a reconnect."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = 0
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._pipes: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        for writer in list(self._writers):
            writer.close()
        self._writers.clear()
        for pipe in list(self._pipes):
            pipe.cancel()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        self._writers.update((writer, up_writer))
        for pipe in (self._pump(reader, up_writer), self._pump(up_reader, writer)):
            task = asyncio.ensure_future(pipe)
            self._pipes.add(task)
            task.add_done_callback(self._pipes.discard)

    @staticmethod
    async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(Exception):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.close()


async def test_a_reconnect_to_the_real_server_reads_its_version_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    found = await rest_version()
    collection = new_collection_name()
    proxy = TcpProxy(real_qdrant_grpc_port())
    await proxy.start()
    index = ServerVectorIndex.connect(
        real_qdrant_url(), collection=collection, grpc_port=proxy.port, timeout=5
    )
    try:
        await index.ensure_collection(DIM, MODEL)
        assert index.server_version == found
        # While connected, the version is not read again.
        monkeypatch.setattr(qdrant_version, "SUPPORTED", excluding(found))
        assert await index.count("t") == 0
        # The server goes away: a call fails, and the first call after the
        # reconnect reads the version again, here outside the (narrowed) range.
        await proxy.stop()
        with pytest.raises(grpc.RpcError) as caught:
            await index.count("t")
        assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
        assert index.server_version is None
        await proxy.start()
        with pytest.raises(UnsupportedQdrantVersion, match=re.escape(f"version {found},")):
            await once_reconnected(lambda: index.count("t"))
        monkeypatch.setattr(qdrant_version, "SUPPORTED", SUPPORTED)
        assert await index.count("t") == 0
        assert index.server_version == found
    finally:
        await proxy.stop()
        await delete_collection(collection)
        await index.close()


# -- a stand-in of the version endpoint (runs everywhere) -------------------------------


class _HealthOnly(qdrant_pb2_grpc.QdrantServicer):  # type: ignore[misc]
    def __init__(self) -> None:
        self.version = "1.16.0"

    async def HealthCheck(self, request: Any, context: Any) -> Any:
        return qdrant_pb2.HealthCheckReply(title="qdrant", version=self.version)


@contextlib.asynccontextmanager
async def health_only_server(servicer: _HealthOnly, port: int = 0) -> AsyncIterator[int]:
    server = grpc.aio.server()
    qdrant_pb2_grpc.add_QdrantServicer_to_server(servicer, server)
    bound = server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    try:
        yield bound
    finally:
        await server.stop(None)


async def test_the_start_path_refuses_an_old_server(app: Any, settings: Any) -> None:
    stand_in = _HealthOnly()
    stand_in.version = "1.15.5"
    async with health_only_server(stand_in) as port:
        configured = dataclasses.replace(
            settings,
            vector_backend="qdrant",
            qdrant_url="http://127.0.0.1:1",
            qdrant_grpc_port=port,
            index_worker=False,
        )
        runtime = RecallRuntime.build(configured, app.db)
        try:
            with pytest.raises(UnsupportedQdrantVersion) as caught:
                await runtime.start(app.notifier)
        finally:
            await runtime.index.close()
            await runtime.embedder.close()
    message = str(caught.value)
    assert "version 1.15.5," in message and ">= 1.16.0, < 1.20" in message
    assert "ENGRAM_QDRANT_URL" in message and "http://127.0.0.1:1" in message


async def once_reconnected(call: Callable[[], Awaitable[object]]) -> None:
    """Makes `call` until the client's channel has reconnected: gRPC backs off
    between attempts after a refused connection, answering UNAVAILABLE meanwhile."""
    for _ in range(100):
        try:
            await call()
            return
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.UNAVAILABLE:
                raise
        await asyncio.sleep(0.1)
    raise AssertionError("the client did not reconnect")


async def test_after_a_lost_connection_the_version_is_read_again() -> None:
    stand_in = _HealthOnly()
    index: ServerVectorIndex | None = None
    try:
        async with health_only_server(stand_in) as port:
            index = ServerVectorIndex.connect("http://127.0.0.1:1", grpc_port=port, timeout=5)
            # The stand-in knows no collections: the call fails after the check.
            with pytest.raises(grpc.RpcError) as caught:
                await index.ensure_collection(DIM, MODEL)
            assert caught.value.code() == grpc.StatusCode.UNIMPLEMENTED
            assert index.server_version == "1.16.0"
        # The server is gone: the next call fails, and the version must be read again.
        with pytest.raises(grpc.RpcError) as caught:
            await index.ensure_collection(DIM, MODEL)
        assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
        assert index.server_version is None
        # Another server comes up on the same port, of an unsupported version.
        stand_in.version = "1.15.0"
        async with health_only_server(stand_in, port):
            with pytest.raises(UnsupportedQdrantVersion, match=r"version 1\.15\.0,"):
                await once_reconnected(lambda: index.ensure_collection(DIM, MODEL))
            stand_in.version = "1.18.1"
            with pytest.raises(grpc.RpcError):
                await index.ensure_collection(DIM, MODEL)
            assert index.server_version == "1.18.1"
    finally:
        if index is not None:
            await index.close()


def test_ci_lets_through_only_the_skip_of_an_unset_qdrant_url(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def skipped(reason: str) -> pytest.TestReport:
        return pytest.TestReport(
            "t.py::t", ("t.py", 1, "t"), {}, "skipped", ("t.py", 1, f"Skipped: {reason}"), "setup"
        )

    monkeypatch.delenv(QDRANT_URL_ENV, raising=False)
    assert skip_allowed_in_ci(skipped(QDRANT_SKIP_REASON))
    assert not skip_allowed_in_ci(skipped("redis-server is not installed"))
    assert not skip_allowed_in_ci(skipped(f"{QDRANT_SKIP_REASON}, and something else"))
    # With a server configured, nothing about it may skip either.
    monkeypatch.setenv(QDRANT_URL_ENV, "http://127.0.0.1:6333")
    assert not skip_allowed_in_ci(skipped(QDRANT_SKIP_REASON))
