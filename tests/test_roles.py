"""The API and indexer roles (`engram serve --role`), each a real process on one
PostgreSQL and one Redis.

The API process answers calls and leaves the outbox and due expiries alone; the
indexer process answers only health (every engram.v1 call is UNIMPLEMENTED), drains
the outbox, sweeps the expiries and exports the backlog gauge its autoscaler reads.
With ENGRAM_TEST_QDRANT_URL both use that Qdrant server, and the memories the
indexer embedded are recalled through the API process.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import grpc
import grpc.aio
import psycopg
import pytest
from engram.v1 import lifecycle_pb2, lifecycle_pb2_grpc, recall_pb2, recall_pb2_grpc
from google.protobuf import timestamp_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.deploy_helpers import free_port, start_serve
from tests.test_replicas import BOOTSTRAP_TOKEN, _env, _tenant, own_database, qdrant_settings

ENGRAM = Path(sys.executable).parent / "engram"


@pytest.fixture
def database_url(pg_server_url: str) -> Iterator[str]:
    """A database of this test's processes alone (see tests/test_replicas.py)."""
    with own_database(pg_server_url) as url:
        yield url


@pytest.fixture
def platform_key() -> str:
    return BOOTSTRAP_TOKEN


MEMORIES = 6


async def _pending(database_url: str, tenant: str) -> int:
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as pg:
        cur = await pg.execute(
            "SELECT count(*) FROM outbox WHERE tenant_id = %s AND processed_at IS NULL",
            (tenant,),
        )
        row = await cur.fetchone()
        assert row is not None
        return int(row[0])


async def _status(database_url: str, name: str) -> str:
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as pg:
        cur = await pg.execute(
            "SELECT status FROM memories WHERE id = %s", (name.removeprefix("memories/"),)
        )
        row = await cur.fetchone()
        assert row is not None
        return str(row[0])


def _gauge(exposition: str, name: str) -> float | None:
    for line in exposition.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    return None


async def test_api_serves_without_background_work_and_indexer_does_it(
    database_url: str, redis_url: str, platform_key: str, tmp_path: Path
) -> None:
    vectors = qdrant_settings(tmp_path)
    fast = {"ENGRAM_METRICS_SAMPLE_SECONDS": "0.2", **vectors}
    env_api = _env(database_url, redis_url, tmp_path / "api", ENGRAM_ROLE="api", **fast)
    metrics_port = free_port()
    env_indexer = _env(
        database_url,
        redis_url,
        tmp_path / "indexer",
        ENGRAM_METRICS_LISTEN=f"127.0.0.1:{metrics_port}",
        **fast,
    )
    api = start_serve(ENGRAM, env_api, tmp_path / "logs", "api")
    indexer = None
    try:
        await asyncio.to_thread(api.wait_serving, env_api)
        tenant = f"roles-{secrets.token_hex(4)}"
        secret = await _tenant(api.address, platform_key, tenant, ["read", "write"])
        auth = (("authorization", f"Bearer {secret}"),)
        soon = timestamp_pb2.Timestamp()
        soon.FromDatetime(datetime.now(UTC) + timedelta(seconds=1))
        async with grpc.aio.insecure_channel(api.address) as channel:
            lifecycle = lifecycle_pb2_grpc.LifecycleServiceStub(channel)
            names = []
            for i in range(MEMORIES):
                proposal = lifecycle_pb2.MemoryProposal(
                    space="roles/agent", content=f"the indexer embeds harbour fact {i}"
                )
                if i == 0:
                    proposal.expire_time.CopyFrom(soon)
                reply = await lifecycle.ProposeMemory(
                    lifecycle_pb2.ProposeMemoryRequest(proposal=proposal), metadata=auth
                )
                names.append(reply.result.memory.name)
        # The API process serves, but neither indexes nor sweeps: three sweep
        # intervals after the expiry, all is still waiting.
        await asyncio.sleep(2.0)
        assert await _pending(database_url, tenant) == MEMORIES
        assert await _status(database_url, names[0]) == "ACTIVE"
        assert api.process.poll() is None, api.logs()

        # The indexer: `--role indexer` on the command line (ENGRAM_ROLE unset).
        indexer = start_serve(
            ENGRAM, env_indexer, tmp_path / "logs", "indexer", args=["--role", "indexer"]
        )
        await asyncio.to_thread(indexer.wait_serving, env_indexer)
        async with grpc.aio.insecure_channel(indexer.address) as channel:
            # Health answers; the API does not.
            health = health_pb2_grpc.HealthStub(channel)
            reply = await health.Check(health_pb2.HealthCheckRequest(service=""))
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
            service = await health.Check(
                health_pb2.HealthCheckRequest(service="engram.v1.LifecycleService")
            )
            assert service.status == health_pb2.HealthCheckResponse.NOT_SERVING
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await lifecycle_pb2_grpc.LifecycleServiceStub(channel).GetMemory(
                    lifecycle_pb2.GetMemoryRequest(name=names[1]), metadata=auth
                )
            assert refused.value.code() == grpc.StatusCode.UNIMPLEMENTED
        # The backlog gauge, before the indexer has drained it or after: the
        # exposition carries it either way.
        exposition = await asyncio.to_thread(indexer.metrics)
        assert _gauge(exposition, "engram_outbox_backlog") is not None, exposition
        # It drains the outbox and sweeps the expiry.
        deadline = time.monotonic() + 120
        while await _pending(database_url, tenant) or (
            await _status(database_url, names[0]) != "EXPIRED"
        ):
            assert time.monotonic() < deadline, indexer.logs()
            await asyncio.sleep(0.2)
        # The gauge follows: the sampler sees the empty backlog.
        deadline = time.monotonic() + 30
        while _gauge(await asyncio.to_thread(indexer.metrics), "engram_outbox_backlog") != 0:
            assert time.monotonic() < deadline, indexer.logs()
            await asyncio.sleep(0.2)

        if vectors:
            # One Qdrant server: what the indexer embedded is recalled through the API
            # process (read-your-writes off: nothing is left for it to index itself).
            async with grpc.aio.insecure_channel(api.address) as channel:
                recalled = await recall_pb2_grpc.RecallServiceStub(channel).Recall(
                    recall_pb2.RecallRequest(query="harbour fact", k=10, spaces=["roles/agent"]),
                    metadata=auth,
                )
            assert {h.memory.name for h in recalled.hits} == set(names[1:])
        assert api.process.poll() is None, api.logs()
    finally:
        for process in (api, indexer):
            if process is not None:
                with contextlib.suppress(Exception):
                    await asyncio.to_thread(process.terminate)
    if indexer is not None:
        assert indexer.process.returncode == 0, indexer.logs()
    assert api.process.returncode == 0, api.logs()


def test_an_unknown_role_is_refused_naming_the_setting(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")}
    env.update(ENGRAM_ROLE="embedder", ENGRAM_DATA_DIR=str(tmp_path))
    done = subprocess.run(
        [str(ENGRAM), "serve"], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode != 0
    assert "ENGRAM_ROLE" in done.stderr and "'embedder'" in done.stderr, done.stderr
    assert "all, api, indexer" in done.stderr
