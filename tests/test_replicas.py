"""Two `engram serve` processes on one PostgreSQL and one Redis, one killed mid-load.

With ENGRAM_TEST_QDRANT_URL naming a Qdrant server, both replicas use it (a
collection of this module's own) and both index, as a Helm install with
`replicaCount: 2` runs: a write through one is recalled through the other with
read-your-writes, and `engram reindex` runs while both serve. Without it, replica A
indexes into the embedded engine and replica B runs with its indexing worker off
(the embedded engine belongs to one process), and the tests that need the shared
index skip. Either way watch streams, pool sync and topic subscriptions deliver
whichever replica the write and the stream reach.

Both run the expiry sweeper. The kill test drives proposals through both
(each with a request id; calls cut off by the kill are retried on A with the same
id, as the SDK does), watches transitions on both (the watcher on B resumes on A
from its last cursor when B dies), lets short-lived memories expire under both
sweepers, and spends a shared rate quota through both. Then it checks, in
PostgreSQL: one memory per request id, one EXPIRED transition per expired memory,
every audit entry delivered to the watchers exactly once and in order, the outbox
drained (and, on Qdrant, one point per live memory, each recalled once), and no more
calls admitted per second than the quota.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import sys
import time
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import psycopg
import pytest
from engram.v1 import (
    admin_pb2,
    admin_pb2_grpc,
    lifecycle_pb2,
    lifecycle_pb2_grpc,
    pool_pb2,
    pool_pb2_grpc,
    recall_pb2,
    recall_pb2_grpc,
)
from google.protobuf import timestamp_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.deploy_helpers import ServeProcess, free_port, fresh_database, start_serve

WRITES = 48
EXPIRING_EVERY = 4  # every 4th proposal expires a moment after it is written
RATE_QUOTA = 3
RYW = recall_pb2.READ_CONSISTENCY_READ_YOUR_WRITES
QDRANT_URL_ENV = "ENGRAM_TEST_QDRANT_URL"
# The one skip CI allows (tests/conftest.py): no real Qdrant server configured.
QDRANT_SKIP_REASON = f"{QDRANT_URL_ENV} is unset: no real Qdrant server to run against"


def qdrant_url() -> str:
    return os.environ.get(QDRANT_URL_ENV, "").strip()


def qdrant_grpc_port() -> str:
    return os.environ.get("ENGRAM_TEST_QDRANT_GRPC_PORT", "").strip() or "6334"


def qdrant_settings(tmp_path: Path) -> dict[str, str]:
    """The server backend on the test Qdrant server, in a collection of its own
    (named after `tmp_path`); empty (the embedded engine) without one."""
    url = qdrant_url()
    if not url:
        return {}
    return {
        "ENGRAM_VECTOR_BACKEND": "qdrant",
        "ENGRAM_QDRANT_URL": url,
        "ENGRAM_QDRANT_GRPC_PORT": qdrant_grpc_port(),
        "ENGRAM_QDRANT_COLLECTION": f"engram_test_{secrets.token_hex(6)}",
    }


def need_qdrant() -> None:
    if not qdrant_url():
        pytest.skip(QDRANT_SKIP_REASON)


async def drop_collection(env: dict[str, str]) -> None:
    from qdrant_client import AsyncQdrantClient

    name = env.get("ENGRAM_QDRANT_COLLECTION")
    if not name:
        return
    client = AsyncQdrantClient(
        url=env["ENGRAM_QDRANT_URL"],
        prefer_grpc=True,
        grpc_port=int(env["ENGRAM_QDRANT_GRPC_PORT"]),
        check_compatibility=False,
    )
    try:
        with contextlib.suppress(Exception):
            await client.delete_collection(name)
    finally:
        await client.close()


# The platform-admin key of the replicas' own database.
BOOTSTRAP_TOKEN = f"replicas-bootstrap-{secrets.token_hex(16)}"


@contextlib.contextmanager
def own_database(pg_server_url: str) -> Iterator[str]:
    """A migrated database for these processes alone: no server of the test session
    indexes its outbox or sweeps its expiries behind their backs."""
    from engram_server.store.migrate import migrate

    with fresh_database(pg_server_url, "replicas") as url:
        migrate(url)
        yield url


@pytest.fixture(scope="module")
def database_url(pg_server_url: str) -> Iterator[str]:
    with own_database(pg_server_url) as url:
        yield url


@pytest.fixture
def platform_key() -> str:
    """The replicas ensure it at start (ENGRAM_BOOTSTRAP_TOKEN)."""
    return BOOTSTRAP_TOKEN


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
        ENGRAM_BOOTSTRAP_TOKEN=BOOTSTRAP_TOKEN,
    )
    env.update(extra)
    return env


@pytest.fixture(scope="module")
async def replicas(
    database_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[tuple[ServeProcess, ServeProcess, dict[str, str]]]:
    """Both replicas, for the module: the kill test runs last."""
    tmp_path = tmp_path_factory.mktemp("replicas")
    engram = Path(sys.executable).parent / "engram"
    vectors = qdrant_settings(tmp_path)
    env_a = _env(database_url, redis_url, tmp_path / "a", **vectors)
    # On the Qdrant server both replicas index; the embedded engine is A's alone.
    index_b = {} if vectors else {"ENGRAM_INDEX_WORKER": "false"}
    env_b = _env(database_url, redis_url, tmp_path / "b", **vectors, **index_b)
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
        await drop_collection(env_a)


async def _tenant(address: str, platform_key: str, name: str, scopes: list[str]) -> str:
    async with grpc.aio.insecure_channel(address) as channel:
        admin = admin_pb2_grpc.AdminServiceStub(channel)
        auth = (("authorization", f"Bearer {platform_key}"),)
        await admin.CreateTenant(
            admin_pb2.CreateTenantRequest(tenant_id=name, tenant=admin_pb2.Tenant()),
            metadata=auth,
        )
    return await _key(address, platform_key, name, scopes)


async def _key(
    address: str, platform_key: str, tenant: str, scopes: list[str], agent: str = ""
) -> str:
    async with grpc.aio.insecure_channel(address) as channel:
        created = await admin_pb2_grpc.AdminServiceStub(channel).CreateApiKey(
            admin_pb2.CreateApiKeyRequest(
                parent=f"tenants/{tenant}", api_key=admin_pb2.ApiKey(scopes=scopes, agent=agent)
            ),
            metadata=(("authorization", f"Bearer {platform_key}"),),
        )
    secret: str = created.secret
    return secret


def _auth(secret: str) -> tuple[tuple[str, str]]:
    return (("authorization", f"Bearer {secret}"),)


async def _recalled(address: str, secret: str, query: str, space: str, k: int = 50) -> list[str]:
    """Names recalled through `address` with read-your-writes."""
    async with grpc.aio.insecure_channel(address) as channel:
        reply = await recall_pb2_grpc.RecallServiceStub(channel).Recall(
            recall_pb2.RecallRequest(query=query, spaces=[space], k=k, consistency=RYW),
            metadata=_auth(secret),
            timeout=60,
        )
    return [hit.memory.name for hit in reply.hits]


async def _propose(address: str, secret: str, space: str, content: str, rid: str = "") -> str:
    async with grpc.aio.insecure_channel(address) as channel:
        reply = await lifecycle_pb2_grpc.LifecycleServiceStub(channel).ProposeMemory(
            lifecycle_pb2.ProposeMemoryRequest(
                proposal=lifecycle_pb2.MemoryProposal(space=space, content=content),
                request_id=rid,
            ),
            metadata=_auth(secret),
            timeout=60,
        )
    name: str = reply.result.memory.name
    return name


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


async def test_a_write_through_one_replica_is_recalled_through_the_other(
    replicas: tuple[ServeProcess, ServeProcess, dict[str, str]], platform_key: str
) -> None:
    need_qdrant()
    a, b, _ = replicas
    tenant = f"ryw-{secrets.token_hex(4)}"
    secret = await _tenant(a.address, platform_key, tenant, ["read", "write"])
    for writer, reader in ((a, b), (b, a), (a, a), (b, b)):
        content = f"lighthouse keeper log {writer.address} to {reader.address}"
        name = await _propose(writer.address, secret, "crew/logs", content)
        # Read-your-writes: the reading replica's answer includes the write, whoever
        # indexes it (both replicas' workers race for it; the reader may take it).
        assert name in await _recalled(reader.address, secret, content, "crew/logs")
    # Another tenant on the same replicas recalls none of it.
    other = await _tenant(b.address, platform_key, f"ryw-other-{secrets.token_hex(4)}", ["read"])
    assert await _recalled(b.address, other, "lighthouse keeper log", "crew/logs") == []


async def test_streams_deliver_whichever_replica_the_client_reaches(
    replicas: tuple[ServeProcess, ServeProcess, dict[str, str]], platform_key: str
) -> None:
    """Pool sync and a topic subscription on one replica see what is published
    through the other (the change notices travel through PostgreSQL)."""
    a, b, _ = replicas
    tenant = f"streams-{secrets.token_hex(4)}"
    await _tenant(a.address, platform_key, tenant, ["read"])
    owner = await _key(a.address, platform_key, tenant, ["read", "write"], agent="owner")
    reader = await _key(a.address, platform_key, tenant, ["read"], agent="reader")
    async with grpc.aio.insecure_channel(a.address) as channel:
        pools = pool_pb2_grpc.PoolServiceStub(channel)
        await pools.CreatePool(
            pool_pb2.CreatePoolRequest(pool_id="crew", pool=pool_pb2.Pool(display_name="crew")),
            metadata=_auth(owner),
        )
        await pools.AddPoolMember(
            pool_pb2.AddPoolMemberRequest(
                parent="pools/crew",
                member=pool_pb2.PoolMember(principal="reader", role=pool_pb2.POOL_ROLE_READER),
            ),
            metadata=_auth(owner),
        )

    for publisher, follower in ((a, b), (b, a)):
        synced: list[str] = []
        topics: list[str] = []
        caught_up = asyncio.Event()

        async def follow(address: str, synced: list[str], caught_up: asyncio.Event) -> None:
            async with grpc.aio.insecure_channel(address) as channel:
                stream = pool_pb2_grpc.PoolServiceStub(channel).SyncPool(
                    pool_pb2.SyncPoolRequest(pool="pools/crew", follow=True),
                    metadata=_auth(reader),
                )
                async for message in stream:
                    if message.caught_up:
                        caught_up.set()
                    else:
                        synced.append(message.delta.new_memory.name)

        async def subscribe(address: str, topics: list[str]) -> None:
            async with grpc.aio.insecure_channel(address) as channel:
                stream = pool_pb2_grpc.PoolServiceStub(channel).SubscribeTopic(
                    pool_pb2.SubscribeTopicRequest(name="pools/crew/topics/watch", cursor="0"),
                    metadata=_auth(reader),
                )
                async for event in stream:
                    topics.append(event.memory.name)

        sync_task = asyncio.ensure_future(follow(follower.address, synced, caught_up))
        await asyncio.wait_for(caught_up.wait(), 30)
        synced.clear()  # what earlier rounds published
        topic_task = asyncio.ensure_future(subscribe(follower.address, topics))
        try:
            memory = await _propose(
                publisher.address, owner, "crew/shared", f"shift change at {publisher.address}"
            )
            async with grpc.aio.insecure_channel(publisher.address) as channel:
                await pool_pb2_grpc.PoolServiceStub(channel).PublishMemory(
                    pool_pb2.PublishMemoryRequest(pool="pools/crew", memory=memory, topic="watch"),
                    metadata=_auth(owner),
                )
            deadline = time.monotonic() + 30
            while memory not in synced or memory not in topics:
                assert time.monotonic() < deadline, (synced, topics)
                await asyncio.sleep(0.05)
            assert synced.count(memory) == 1 and topics.count(memory) == 1
        finally:
            for task in (sync_task, topic_task):
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
                    await task


async def _serving(address: str) -> bool:
    async with grpc.aio.insecure_channel(address) as channel:
        reply = await health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(), timeout=10
        )
    return reply.status == health_pb2.HealthCheckResponse.SERVING


async def test_reindex_runs_while_both_replicas_serve(
    replicas: tuple[ServeProcess, ServeProcess, dict[str, str]], platform_key: str
) -> None:
    need_qdrant()
    a, b, env = replicas
    tenant = f"reindex-{secrets.token_hex(4)}"
    secret = await _tenant(a.address, platform_key, tenant, ["read", "write"])
    before = [
        await _propose((a, b)[i % 2].address, secret, "yard/notes", f"hull inspection note {i}")
        for i in range(12)
    ]
    assert set(before) <= set(await _recalled(b.address, secret, "hull inspection", "yard/notes"))

    reindex = await asyncio.create_subprocess_exec(
        str(Path(sys.executable).parent / "engram"),
        "reindex",
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    during: list[str] = []
    outcomes: list[str] = []
    i = 0
    while reindex.returncode is None:
        replica = (a, b)[i % 2]
        # Writes keep landing (the outbox holds them for whichever worker comes next),
        # as many as one Recall page can show afterwards.
        if len(during) < 80:
            during.append(
                await _propose(replica.address, secret, "yard/notes", f"hull inspection late {i}")
            )
        try:
            await _recalled(replica.address, secret, "hull inspection", "yard/notes")
            outcomes.append("OK")
        except grpc.aio.AioRpcError as err:
            outcomes.append(err.code().name)
        assert await _serving(a.address) and await _serving(b.address)
        i += 1
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(reindex.wait(), 0.05)
    out, err = await reindex.communicate()
    assert reindex.returncode == 0, (out.decode(), err.decode())
    assert during, "reindex finished before a single write went through"
    # Afterwards both replicas recall everything, the writes made during it included.
    # Items whose indexing failed while the collection was being recreated wait out
    # their backoff: read-your-writes says UNAVAILABLE (retry) until then.
    for replica in (a, b):
        deadline = time.monotonic() + 90
        while True:
            try:
                found = await _recalled(
                    replica.address, secret, "hull inspection", "yard/notes", k=100
                )
                break
            except grpc.aio.AioRpcError as err:
                assert err.code() == grpc.StatusCode.UNAVAILABLE, err
                assert time.monotonic() < deadline, err
                await asyncio.sleep(1.0)
        assert set(before + during) <= set(found)
        assert len(found) == len(set(found))
    print(f"reindex: {len(during)} writes while it ran; recall outcomes meanwhile: {outcomes}")


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

        if qdrant_url():
            # Both indexed into one Qdrant collection, B killed mid-batch: every live
            # memory is recalled, once, through the survivor.
            live = {n for n, status in stored.items() if status == "ACTIVE"}
            found: list[str] = []
            for agent in range(3):
                found += await _recalled(
                    a.address, secret, "replica fact number", f"fleet/agent-{agent}"
                )
            assert len(found) == len(set(found))
            assert set(found) == live
    finally:
        stop.set()
        await channel_a.close()
        await channel_b.close()
    assert a.process.poll() is None, a.logs()
    print(f"writes retried on A after B was killed: {retried_after_kill}")
