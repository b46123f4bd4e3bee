"""`engram serve --workers N`: N server processes on one port, as real processes.

Workers need the Qdrant server (the embedded engine is one process's), so the run
itself needs ENGRAM_TEST_QDRANT_URL; the refusals do not.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import grpc
import grpc.aio
import pytest
from engram.v1 import lifecycle_pb2, lifecycle_pb2_grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.deploy_helpers import free_port, start_serve
from tests.test_replicas import (
    BOOTSTRAP_TOKEN,
    _env,
    _tenant,
    drop_collection,
    need_qdrant,
    own_database,
    qdrant_settings,
)

ENGRAM = Path(sys.executable).parent / "engram"


@pytest.fixture
def database_url(pg_server_url: str) -> Iterator[str]:
    """A database of this test's processes alone (see tests/test_replicas.py)."""
    with own_database(pg_server_url) as url:
        yield url


@pytest.fixture
def platform_key() -> str:
    return BOOTSTRAP_TOKEN


def _refusal(tmp_path: Path, *args: str, **env_extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")}
    env.update(ENGRAM_DATA_DIR=str(tmp_path), **env_extra)
    return subprocess.run(
        [str(ENGRAM), "serve", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_workers_are_refused_with_the_embedded_engine(tmp_path: Path) -> None:
    done = _refusal(
        tmp_path,
        "--workers",
        "2",
        ENGRAM_DATABASE_URL="postgresql://x@127.0.0.1:1/x",
        ENGRAM_REDIS_URL="redis://127.0.0.1:1/0",
    )
    assert done.returncode == 2, done.stderr
    assert "--workers 2 needs the Qdrant server" in done.stderr
    assert "ENGRAM_VECTOR_BACKEND=qdrant" in done.stderr
    # The same through the setting; and with --dev, and with a port of 0.
    done = _refusal(tmp_path, ENGRAM_WORKERS="3")
    assert done.returncode == 2 and "--workers 3 needs the Qdrant server" in done.stderr
    qdrant = {"ENGRAM_VECTOR_BACKEND": "qdrant", "ENGRAM_QDRANT_URL": "http://127.0.0.1:1"}
    done = _refusal(tmp_path, "--workers", "2", "--dev", **qdrant)
    assert done.returncode == 2 and "cannot run with --dev" in done.stderr
    done = _refusal(
        tmp_path,
        "--workers",
        "2",
        "--listen",
        "127.0.0.1:0",
        ENGRAM_DATABASE_URL="postgresql://x@127.0.0.1:1/x",
        ENGRAM_REDIS_URL="redis://127.0.0.1:1/0",
        **qdrant,
    )
    assert done.returncode == 2 and "needs a fixed port" in done.stderr
    done = _refusal(tmp_path, "--workers", "0")
    assert done.returncode == 2 and "at least 1" in done.stderr


def _instance(exposition: str) -> str:
    match = re.search(r'^target_info\{[^}]*service_instance_id="([^"]+)"', exposition, re.M)
    assert match is not None, exposition
    return match.group(1)


def _calls(exposition: str) -> float:
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in exposition.splitlines()
        if line.startswith("rpc_server_call_duration_seconds_count")
        and 'rpc_method="ListMemories"' in line
    )


def _scrape(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as reply:
        text: str = reply.read().decode()
        return text


async def test_workers_share_a_port_and_each_drains_restarts_and_reports(
    database_url: str, redis_url: str, platform_key: str, tmp_path: Path
) -> None:
    need_qdrant()
    metrics = free_port()
    while free_port() == metrics + 1:  # the second worker's metrics port must be free
        metrics = free_port()
    vectors = qdrant_settings(tmp_path)
    env = _env(
        database_url,
        redis_url,
        tmp_path / "data",
        ENGRAM_METRICS_LISTEN=f"127.0.0.1:{metrics}",
        **vectors,
    )
    server = start_serve(ENGRAM, env, tmp_path / "logs", "workers", args=["--workers", "2"])
    try:
        await asyncio.to_thread(server.wait_serving, env)
        # Both workers up: each serves its own metrics, as its own instance.
        deadline = time.monotonic() + 120
        while True:
            try:
                first, second = _scrape(metrics), _scrape(metrics + 1)
                break
            except OSError:
                assert time.monotonic() < deadline, server.logs()
                await asyncio.sleep(0.5)
        instances = {_instance(first), _instance(second)}
        assert len(instances) == 2
        pids = {int(i.rsplit("/", 1)[1]) for i in instances}

        # Calls over separate connections reach both workers (the kernel spreads
        # connections over the sockets sharing the port).
        secret = await _tenant(server.address, platform_key, "workers-t", ["read"])
        for _ in range(24):
            async with grpc.aio.insecure_channel(
                server.address, options=[("grpc.use_local_subchannel_pool", 1)]
            ) as channel:
                await lifecycle_pb2_grpc.LifecycleServiceStub(channel).ListMemories(
                    lifecycle_pb2.ListMemoriesRequest(page_size=1),
                    metadata=(("authorization", f"Bearer {secret}"),),
                )
        assert _calls(_scrape(metrics)) > 0 and _calls(_scrape(metrics + 1)) > 0

        # A worker that dies is replaced; the port keeps answering meanwhile.
        victim = pids.pop()
        os.kill(victim, signal.SIGKILL)
        deadline = time.monotonic() + 120
        while True:
            try:
                now = {_instance(_scrape(metrics)), _instance(_scrape(metrics + 1))}
            except OSError:
                now = set()
            if len(now) == 2 and victim not in {int(i.rsplit("/", 1)[1]) for i in now}:
                break
            assert server.process.poll() is None, server.logs()
            assert time.monotonic() < deadline, server.logs()
            await asyncio.sleep(0.5)
        async with grpc.aio.insecure_channel(server.address) as channel:
            reply = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
        workers = [int(i.rsplit("/", 1)[1]) for i in now]
    finally:
        code = await asyncio.to_thread(server.terminate)
        await drop_collection(env)
    # SIGTERM to the parent drains every worker; all exit, the port is free again.
    assert code == 0, server.logs()
    assert not [pid for pid in workers if _running(pid)]
    assert "draining" in server.stderr.read_text()


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False
