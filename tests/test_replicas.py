"""Two `engram serve` processes on one PostgreSQL and one Redis, one killed mid-load.

Replica A indexes; replica B runs with its indexing worker off (the embedded
vector engine belongs to one process; in production both would use the Qdrant
server). Both run the expiry sweeper. The test drives proposals through both
(each with a request id; calls cut off by the kill are retried on A with the same
id, as the SDK does), watches transitions on both (the watcher on B resumes on A
from its last cursor when B dies), lets short-lived memories expire under both
sweepers, and spends a shared rate quota through both. Then it checks, in
PostgreSQL: one memory per request id, one EXPIRED transition per expired memory,
every audit entry delivered to the watchers exactly once and in order, the outbox
drained, and no more calls admitted per second than the quota.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import sys
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import psycopg
import pytest
from engram.v1 import admin_pb2, admin_pb2_grpc, lifecycle_pb2, lifecycle_pb2_grpc
from google.protobuf import timestamp_pb2

from tests.deploy_helpers import ServeProcess, free_port, start_serve

WRITES = 48
EXPIRING_EVERY = 4  # every 4th proposal expires a moment after it is written
RATE_QUOTA = 3


def _env(database_url: str, redis_url: str, data_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ENGRAM_", "OTEL_"))}
    env.update(
        ENGRAM_DATABASE_URL=database_url,
        ENGRAM_REDIS_URL=redis_url,
        ENGRAM_DATA_DIR=str(data_dir),
        ENGRAM_LISTEN=f"127.0.0.1:{free_port()}",
        ENGRAM_MIGRATE_ON_START="false",
        ENGRAM_EXPIRY_SWEEP_SECONDS="0.3",
        ENGRAM_SHUTDOWN_GRACE_SECONDS="2",
        ENGRAM_ACCESS_LOG="false",
    )
    env.update(extra)
    return env


@pytest.fixture(scope="module")
async def replicas(
    database_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[tuple[ServeProcess, ServeProcess, dict[str, str]]]:
    # No ENGRAM_BOOTSTRAP_TOKEN here: a different token would rotate the session's
    # platform key (tests/conftest.py) that later tests create tenants with.
    """Both replicas, for the module: the quota test runs first, then the kill."""
    tmp_path = tmp_path_factory.mktemp("replicas")
    engram = Path(sys.executable).parent / "engram"
    env_a = _env(database_url, redis_url, tmp_path / "a")
    env_b = _env(database_url, redis_url, tmp_path / "b", ENGRAM_INDEX_WORKER="false")
    a = start_serve(engram, env_a, tmp_path / "logs", "a")
    b = start_serve(engram, env_b, tmp_path / "logs", "b")
    try:
        await asyncio.gather(
            asyncio.to_thread(a.wait_serving, env_a), asyncio.to_thread(b.wait_serving, env_b)
        )
        yield a, b, env_a
    finally:
        for replica in (a, b):
            with contextlib.suppress(Exception):
                await asyncio.to_thread(replica.terminate)


async def _tenant(address: str, platform_key: str, name: str, scopes: list[str]) -> str:
    async with grpc.aio.insecure_channel(address) as channel:
        admin = admin_pb2_grpc.AdminServiceStub(channel)
        auth = (("authorization", f"Bearer {platform_key}"),)
        await admin.CreateTenant(
            admin_pb2.CreateTenantRequest(tenant_id=name, tenant=admin_pb2.Tenant()),
            metadata=auth,
        )
        created = await admin.CreateApiKey(
            admin_pb2.CreateApiKeyRequest(
                parent=f"tenants/{name}", api_key=admin_pb2.ApiKey(scopes=scopes)
            ),
            metadata=auth,
        )
    secret: str = created.secret
    return secret


def _proposal(i: int) -> lifecycle_pb2.MemoryProposal:
    proposal = lifecycle_pb2.MemoryProposal(
        space=f"fleet/agent-{i % 3}", content=f"replica fact number {i}", confidence=0.9
    )
    if i % EXPIRING_EVERY == 0:
        stamp = timestamp_pb2.Timestamp()
        stamp.FromDatetime(datetime.now(UTC) + timedelta(seconds=1))
        proposal.expire_time.CopyFrom(stamp)
    return proposal


async def _watch(
    address: str, secret: str, cursor: str, events: list[int], stop: asyncio.Event
) -> str:
    """Collects audit sequences from `cursor` until `stop` or the stream breaks;
    returns the last cursor seen."""
    async with grpc.aio.insecure_channel(address) as channel:
        stream = lifecycle_pb2_grpc.LifecycleServiceStub(channel).WatchTransitions(
            lifecycle_pb2.WatchTransitionsRequest(cursor=cursor),
            metadata=(("authorization", f"Bearer {secret}"),),
        )
        reader = asyncio.ensure_future(_read_all(stream, events))
        stopper = asyncio.ensure_future(stop.wait())
        try:
            await asyncio.wait({reader, stopper}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stream.cancel()
            stopper.cancel()
            with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
                await reader
    return str(events[-1]) if events else cursor


async def _read_all(stream: Any, events: list[int]) -> None:
    with contextlib.suppress(grpc.aio.AioRpcError):
        async for event in stream:
            events.append(int(event.cursor))


async def test_rate_quota_is_shared_by_replicas(
    replicas: tuple[ServeProcess, ServeProcess, dict[str, str]],
    database_url: str,
    platform_key: str,
) -> None:
    a, b, _ = replicas
    tenant = f"quota-{secrets.token_hex(4)}"
    secret = await _tenant(a.address, platform_key, tenant, ["read"])
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as pg:
        await pg.execute(
            "UPDATE tenants SET quota_requests_per_second = %s WHERE id = %s",
            (RATE_QUOTA, tenant),
        )
    auth = (("authorization", f"Bearer {secret}"),)
    # The replicas cache a tenant's quota for a few seconds: the first calls of a
    # tenant they have not seen read it fresh (nothing was cached before the update).
    outcomes: list[grpc.StatusCode] = []
    async with (
        grpc.aio.insecure_channel(a.address) as ca,
        grpc.aio.insecure_channel(b.address) as cb,
    ):
        stubs = [lifecycle_pb2_grpc.LifecycleServiceStub(c) for c in (ca, cb)]

        async def call(i: int) -> None:
            try:
                await stubs[i % 2].ListMemories(
                    lifecycle_pb2.ListMemoriesRequest(page_size=1), metadata=auth, timeout=30
                )
                outcomes.append(grpc.StatusCode.OK)
            except grpc.aio.AioRpcError as err:
                outcomes.append(err.code())

        first_second = int(time.time())
        await asyncio.gather(*(call(i) for i in range(8 * RATE_QUOTA)))
        seconds = int(time.time()) - first_second + 1
    admitted = outcomes.count(grpc.StatusCode.OK)
    refused = outcomes.count(grpc.StatusCode.RESOURCE_EXHAUSTED)
    assert admitted + refused == len(outcomes), outcomes
    # Counted in Redis per wall-clock second, shared by both replicas.
    assert admitted <= RATE_QUOTA * seconds, (admitted, seconds)
    if len(outcomes) > RATE_QUOTA * seconds:
        assert refused > 0


async def test_two_replicas_share_the_work_and_survive_a_kill(
    replicas: tuple[ServeProcess, ServeProcess, dict[str, str]],
    database_url: str,
    platform_key: str,
) -> None:
    a, b, _ = replicas
    tenant = f"replicas-{secrets.token_hex(4)}"
    secret = await _tenant(a.address, platform_key, tenant, ["read", "write"])
    auth = (("authorization", f"Bearer {secret}"),)

    # Watchers on both replicas, from the start of the log.
    stop = asyncio.Event()
    seen_a: list[int] = []
    seen_b: list[int] = []
    watch_a = asyncio.ensure_future(_watch(a.address, secret, "0", seen_a, stop))
    watch_b = asyncio.ensure_future(_watch(b.address, secret, "0", seen_b, stop))

    channel_a = grpc.aio.insecure_channel(a.address)
    channel_b = grpc.aio.insecure_channel(b.address)
    stub_a = lifecycle_pb2_grpc.LifecycleServiceStub(channel_a)
    stub_b = lifecycle_pb2_grpc.LifecycleServiceStub(channel_b)
    names: dict[str, str] = {}  # request id -> memory name
    retried_after_kill = 0
    b_answered_in_second_half = asyncio.Event()

    async def propose(i: int, first: Any) -> None:
        nonlocal retried_after_kill
        request = lifecycle_pb2.ProposeMemoryRequest(
            proposal=_proposal(i), request_id=f"{tenant}-write-{i}"
        )
        try:
            reply = await first.ProposeMemory(request, metadata=auth, timeout=60)
        except grpc.aio.AioRpcError as err:
            # B was killed under this call: the SDK's retry, with the same id, on A.
            assert err.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED), err
            retried_after_kill += 1
            reply = await stub_a.ProposeMemory(request, metadata=auth, timeout=60)
        names[request.request_id] = reply.result.memory.name
        if first is stub_b and i >= WRITES // 2:
            b_answered_in_second_half.set()
        # A client that lost the reply retries on the other replica: same memory.
        if i % 5 == 0:
            again = await stub_a.ProposeMemory(request, metadata=auth, timeout=60)
            assert again.result.memory.name == reply.result.memory.name

    try:
        # First half through both replicas, concurrently.
        await asyncio.gather(*(propose(i, stub_a if i % 2 else stub_b) for i in range(WRITES // 2)))
        # Second half: B is killed while its share is in flight.
        in_flight = [
            asyncio.ensure_future(propose(i, stub_a if i % 2 else stub_b))
            for i in range(WRITES // 2, WRITES)
        ]
        # Killed once B has answered one of them: the rest are in flight or queued.
        await b_answered_in_second_half.wait()
        b.process.send_signal(signal.SIGKILL)
        await asyncio.to_thread(b.process.wait)
        await asyncio.gather(*in_flight)
        # The watcher on B broke with it: resume on A from its last cursor.
        resume_from = await watch_b
        resumed: list[int] = []
        watch_resumed = asyncio.ensure_future(_watch(a.address, secret, resume_from, resumed, stop))

        expiring = {f"{tenant}-write-{i}" for i in range(0, WRITES, EXPIRING_EVERY)}
        async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as pg:
            # Every short-lived memory expires (under the sweepers), once.
            deadline = time.monotonic() + 120
            while True:
                cur = await pg.execute(
                    "SELECT count(*) FROM memories WHERE tenant_id = %s AND status = 'EXPIRED'",
                    (tenant,),
                )
                row = await cur.fetchone()
                assert row is not None
                if row[0] >= len(expiring) or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.2)
            # The watchers have caught up with the audit log's head.
            cur = await pg.execute(
                "SELECT seq FROM audit_log WHERE tenant_id = %s ORDER BY seq",
                (tenant,),
            )
            audit = [r[0] for r in await cur.fetchall()]
            deadline = time.monotonic() + 60
            while (not seen_a or seen_a[-1] < audit[-1]) or (
                not resumed or resumed[-1] < audit[-1]
            ):
                assert time.monotonic() < deadline, (audit[-1], seen_a[-1:], resumed[-1:])
                await asyncio.sleep(0.1)
            stop.set()
            await asyncio.gather(watch_a, watch_resumed)

            # Indexing (A alone) drained the whole outbox, B's writes included.
            deadline = time.monotonic() + 120
            while True:
                cur = await pg.execute(
                    "SELECT count(*) FROM outbox WHERE tenant_id = %s AND processed_at IS NULL",
                    (tenant,),
                )
                row = await cur.fetchone()
                assert row is not None
                if row[0] == 0:
                    break
                assert time.monotonic() < deadline, f"{row[0]} outbox items never indexed"
                await asyncio.sleep(0.2)

            # -- nothing lost, nothing duplicated ---------------------------------
            cur = await pg.execute(
                "SELECT 'memories/' || id::text, status FROM memories WHERE tenant_id = %s",
                (tenant,),
            )
            stored = dict(await cur.fetchall())
            assert len(names) == WRITES
            assert set(names.values()) == set(stored)  # one memory per request id
            assert len(stored) == WRITES
            expired = {names[rid] for rid in expiring}
            assert {n for n, s in stored.items() if s == "EXPIRED"} == expired
            cur = await pg.execute(
                "SELECT memory_id::text, count(*) FROM audit_log"
                " WHERE tenant_id = %s AND to_status = 'EXPIRED' GROUP BY memory_id",
                (tenant,),
            )
            expirations = dict(await cur.fetchall())
            assert len(expirations) == len(expiring)
            assert set(expirations.values()) == {1}  # each expired exactly once

            # -- every transition delivered once, in order ---------------------------
            assert seen_a == audit  # A's watcher: the whole log, once each
            assert seen_b + resumed == audit  # B's watcher, resumed on A after the kill
            assert len(set(seen_b + resumed)) == len(audit)
    finally:
        stop.set()
        await channel_a.close()
        await channel_b.close()
    assert a.process.poll() is None, a.logs()
    print(f"writes retried on A after B was killed: {retried_after_kill}")
