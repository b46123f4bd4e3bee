"""The gRPC server: `EngramServer`, `build_context` and `serve`.

`serve` is what `engram serve` runs: open the stores (embedded ones with
--dev), ensure the bootstrap / dev keys, serve until SIGTERM or SIGINT, then
drain: health turns NOT_SERVING, new calls are refused, in-flight calls get
`shutdown_grace_seconds` to finish, background tasks stop, pools close.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import errno
import logging
import os
import signal
import socket
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import grpc
import grpc.aio
from engram.v1 import (
    admin_pb2,
    admin_pb2_grpc,
    decisions_pb2,
    decisions_pb2_grpc,
    evidence_pb2,
    evidence_pb2_grpc,
    lifecycle_pb2,
    lifecycle_pb2_grpc,
    pool_pb2,
    pool_pb2_grpc,
    recall_pb2,
    recall_pb2_grpc,
)
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from opentelemetry.trace import TracerProvider

from engram_server import page_tokens
from engram_server.api.admin import AdminServicer
from engram_server.api.decisions import DecisionsServicer
from engram_server.api.evidence import EvidenceServicer
from engram_server.api.lifecycle import LifecycleServicer
from engram_server.api.pool import PoolServicer
from engram_server.api.recall import RecallServicer
from engram_server.llm.registry import LLMRegistry
from engram_server.platform import auth, logscrub
from engram_server.platform.config import Settings
from engram_server.platform.context import AppContext
from engram_server.platform.decoding import ValidatingServer
from engram_server.platform.embedded import EmbeddedServices, start_embedded
from engram_server.platform.eventloop import loop_name
from engram_server.platform.interceptors import server_interceptors
from engram_server.platform.notify import Notifier
from engram_server.platform.observability import BacklogSampler, setup_metrics
from engram_server.platform.reflection import add_reflection
from engram_server.platform.roles import Role, role_of, runs_background, serves_api
from engram_server.platform.scopes import ScopeTable
from engram_server.platform.telemetry import setup_tracing, shutdown_tracing
from engram_server.services.working_memory import WorkingMemory
from engram_server.store.migrate import migrate
from engram_server.store.postgres import Database
from engram_server.store.redis import RedisStore
from engram_server.tenancy.bootstrap import ensure_bootstrap_token, ensure_dev_key

log = logging.getLogger(__name__)


def listen_failure(listen: str) -> str:
    """Why `listen` cannot be bound, found by binding it with a plain socket: gRPC's
    own error only says "Failed to bind" and points at GRPC_VERBOSITY. Empty when
    the plain bind works (the failure was gRPC's own)."""
    host, _, port = listen.rpartition(":")
    try:
        address = host.strip("[]") or "0.0.0.0"
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        with socket.create_server((address, int(port)), family=family):
            return ""
    except ValueError:
        return f"expected host:port, got {listen!r}"
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            return (
                "the address is in use (is an Engram server already running there?);"
                " choose another with ENGRAM_LISTEN or --listen"
            )
        return exc.strerror or str(exc)


class StartupError(RuntimeError):
    """The server cannot start with this configuration; the message says why."""


@runtime_checkable
class BackgroundService(Protocol):
    """A servicer with background work (sweepers, watch hubs) to start and stop."""

    async def start(self) -> None: ...

    async def stop(self) -> None: ...


@dataclass(frozen=True)
class Registration:
    """One servicer and how to add it to a grpc.aio server.

    `serving` says whether the health service reports the service SERVING: a
    registration that only answers UNIMPLEMENTED (so clients get that instead of an
    unknown service) passes False and is reported NOT_SERVING.
    """

    service_name: str
    servicer: object
    # A generated `add_*_to_server`; it is given a `ValidatingServer` standing in
    # for the grpc.aio server.
    add_to_server: Callable[[Any, Any], None]
    serving: bool = True

    @property
    def served(self) -> bool:
        return self.serving


def _service_name(module: Any, service: str) -> str:
    name: str = module.DESCRIPTOR.services_by_name[service].full_name
    return name


def default_registrations(ctx: AppContext) -> list[Registration]:
    """Every engram.v1 service with the servicer that implements it."""
    lifecycle = LifecycleServicer(ctx)
    ctx.lifecycle = lifecycle.service
    return [
        Registration(
            _service_name(lifecycle_pb2, "LifecycleService"),
            lifecycle,
            lifecycle_pb2_grpc.add_LifecycleServiceServicer_to_server,
        ),
        Registration(
            _service_name(recall_pb2, "RecallService"),
            RecallServicer(ctx),
            recall_pb2_grpc.add_RecallServiceServicer_to_server,
        ),
        Registration(
            _service_name(evidence_pb2, "EvidenceService"),
            EvidenceServicer(ctx),
            evidence_pb2_grpc.add_EvidenceServiceServicer_to_server,
        ),
        Registration(
            _service_name(pool_pb2, "PoolService"),
            PoolServicer(ctx),
            pool_pb2_grpc.add_PoolServiceServicer_to_server,
        ),
        Registration(
            _service_name(decisions_pb2, "DecisionsService"),
            DecisionsServicer(ctx),
            decisions_pb2_grpc.add_DecisionsServiceServicer_to_server,
        ),
        Registration(
            _service_name(admin_pb2, "AdminService"),
            AdminServicer(ctx),
            admin_pb2_grpc.add_AdminServiceServicer_to_server,
        ),
    ]


def transport_receive_limit(settings: Settings) -> int:
    return min(max(4 * settings.max_request_bytes, 1024 * 1024), 2**31 - 1)


def grpc_options(settings: Settings) -> list[tuple[str, Any]]:
    return [
        # The transport refuses (bare RESOURCE_EXHAUSTED) only requests far over the
        # limit; one up to four times over it reaches the deserializer, which refuses
        # it with a message naming the setting (platform/decoding.py).
        ("grpc.max_receive_message_length", transport_receive_limit(settings)),
        # Replies (batch results, pages) may be larger than requests.
        ("grpc.max_send_message_length", max(settings.max_request_bytes, 16 * 1024 * 1024)),
        # Off, so that a second server on a taken port fails instead of sharing it;
        # on with several workers (`engram serve --workers`), which share the port.
        ("grpc.so_reuseport", 1 if settings.workers > 1 else 0),
        ("grpc.keepalive_permit_without_calls", 1),
        ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
    ]


class EngramServer:
    """A grpc.aio server with every Engram service, health and reflection."""

    def __init__(
        self,
        settings: Settings,
        ctx: AppContext,
        *,
        registrations: Iterable[Registration] | None = None,
        extra_scopes: Mapping[str, Iterable[str]] | None = None,
        tracer_provider: TracerProvider | None = None,
    ) -> None:
        logscrub.install()
        self.settings = settings
        self.ctx = ctx
        self.scopes = ScopeTable(extra_scopes)
        self.registrations = (
            list(registrations) if registrations is not None else default_registrations(ctx)
        )
        self.health = health.aio.HealthServicer()
        # The indexer role runs the servicers' background work but answers only health.
        self.serves_api = serves_api(settings)
        self.port: int | None = None
        self._started: list[BackgroundService] = []
        self._stopped = False
        self._server = grpc.aio.server(
            interceptors=server_interceptors(ctx, self.scopes, tracer_provider),
            options=grpc_options(settings),
        )
        if self.serves_api:
            for registration in self.registrations:
                registration.add_to_server(
                    registration.servicer,
                    ValidatingServer(self._server, settings.max_request_bytes),
                )
        # Health and reflection need no key, so their requests get the same decoding
        # and size checks as everything else.
        unauthenticated = ValidatingServer(self._server, settings.max_request_bytes)
        health_pb2_grpc.add_HealthServicer_to_server(self.health, unauthenticated)
        served = self.service_names if self.serves_api else []
        add_reflection([*served, health.SERVICE_NAME], unauthenticated)

    @property
    def service_names(self) -> list[str]:
        return [r.service_name for r in self.registrations]

    @property
    def address(self) -> str:
        """`host:port` actually bound (after `start`)."""
        host = self.settings.listen.rsplit(":", 1)[0]
        return f"{host}:{self.port}"

    def add_generic_rpc_handlers(self, handlers: Iterable[grpc.GenericRpcHandler]) -> None:
        """Adds more handlers (before `start`); give their scopes in `extra_scopes`."""
        ValidatingServer(self._server, self.settings.max_request_bytes).add_generic_rpc_handlers(
            handlers
        )

    async def start(self) -> int:
        """Binds `settings.listen`, starts background work, and returns the port."""
        try:
            port = self._server.add_insecure_port(self.settings.listen)
        except RuntimeError as exc:
            reason = listen_failure(self.settings.listen) or str(exc)
            raise StartupError(f"cannot listen on {self.settings.listen}: {reason}") from exc
        if port == 0:
            reason = listen_failure(self.settings.listen) or "bind failed"
            raise StartupError(f"cannot listen on {self.settings.listen}: {reason}")
        self.ctx.notifier.add_listener(auth.KEYS_CHANNEL, auth.on_key_notice)
        self.ctx.notifier.add_reconnect_hook(auth.on_notifier_reconnect)
        try:
            for registration in self.registrations:
                servicer = registration.servicer
                if isinstance(servicer, BackgroundService):
                    await servicer.start()
                    self._started.append(servicer)
            await self._server.start()
        except BaseException:
            await self.stop(grace=0)
            raise
        self.port = port
        serving = health_pb2.HealthCheckResponse.SERVING
        not_serving = health_pb2.HealthCheckResponse.NOT_SERVING
        await self.health.set("", serving)
        for registration in self.registrations:
            served = self.serves_api and registration.served
            await self.health.set(registration.service_name, serving if served else not_serving)
        log.info(
            "serving on %s (role: %s, event loop: %s)",
            self.address,
            role_of(self.settings),
            loop_name(asyncio.get_running_loop()),
        )
        return port

    async def stop(self, grace: float | None = None) -> None:
        """Drains: NOT_SERVING, refuse new calls, let in-flight ones finish."""
        if self._stopped:
            return
        self._stopped = True
        grace = self.settings.shutdown_grace_seconds if grace is None else grace
        await self.health.enter_graceful_shutdown()
        await self._server.stop(grace)
        for service in reversed(self._started):
            try:
                await service.stop()
            except Exception:
                log.exception("stopping %s failed", type(service).__name__)
        self._started.clear()
        self.ctx.notifier.remove_listener(auth.KEYS_CHANNEL, auth.on_key_notice)
        self.ctx.notifier.remove_reconnect_hook(auth.on_notifier_reconnect)

    async def wait(self) -> None:
        """Returns when the server has stopped."""
        # Shielded: cancelling grpc's own wait would also cancel its shutdown.
        await asyncio.shield(self._server.wait_for_termination())


async def build_context(settings: Settings) -> AppContext:
    """Migrates (if configured), then opens Postgres, Redis and the notifier."""
    if not settings.database_url:
        raise StartupError("no database: set ENGRAM_DATABASE_URL (or run `engram serve --dev`)")
    if not settings.redis_url:
        raise StartupError("no Redis: set ENGRAM_REDIS_URL (or run `engram serve --dev`)")
    if settings.migrate_on_start:
        applied = await asyncio.to_thread(migrate, settings.database_url)
        for migration in applied:
            log.info("applied migration %04d_%s", migration.version, migration.name)
    db = Database(settings.database_url, settings.db_pool_min, settings.db_pool_max)
    redis = RedisStore(settings.redis_url)
    notifier = Notifier(settings.database_url)
    try:
        llm = LLMRegistry(settings, db, notifier=notifier)
    except ValueError as exc:
        raise StartupError(f"LLM settings: {exc}") from exc
    try:
        await db.open()
        await redis.ping()
        await notifier.start()
    except BaseException:
        with contextlib.suppress(Exception):
            await notifier.stop()
        with contextlib.suppress(Exception):
            await redis.close()
        with contextlib.suppress(Exception):
            await db.close()
        raise
    try:
        await configure_page_tokens(settings, db)
    except BaseException:
        await asyncio.gather(notifier.stop(), redis.close(), db.close(), return_exceptions=True)
        raise
    ctx = AppContext(settings=settings, db=db, redis=redis, notifier=notifier, llm=llm)
    ctx.working_memory = WorkingMemory(redis, settings)
    return ctx


async def configure_page_tokens(settings: Settings, db: Database) -> None:
    """Signs page tokens with the configured secret, else the key every replica
    reads from PostgreSQL."""
    if settings.page_token_secret:
        page_tokens.configure(page_tokens.key_from_secret(settings.page_token_secret))
        return
    async with db.platform_tx() as conn:
        cur = await conn.execute("SELECT value FROM server_secrets WHERE name = 'page_tokens'")
        row = await cur.fetchone()
    if row is None:
        raise StartupError("no page-token key in server_secrets: run the migrations")
    page_tokens.configure(bytes(row["value"]))


def _banner(
    address: str,
    dev_key: str | None,
    embedded: EmbeddedServices | None,
    data_dir: str = "",
    role: Role = Role.ALL,
) -> str:
    lines = ["", f"Engram is serving on {address}"]
    if role is Role.API:
        lines.append("  Role: api (no background indexing, expiry sweeps or assessments)")
    elif role is Role.INDEXER:
        lines.append("  Role: indexer (background work; this address answers health only)")
    if embedded is not None and embedded.postgres_dir is not None:
        lines.append(f"  PostgreSQL: embedded, data in {embedded.postgres_dir}")
    if embedded is not None and embedded.redis_dir is not None:
        lines.append(f"  Redis:      embedded, data in {embedded.redis_dir}")
    if dev_key:
        key_file = Path(data_dir or ".") / DEV_KEY_FILE
        lines += [
            "",
            "Dev API key (tenant 'dev'; scopes read, write, admin, operator):",
            f"  {dev_key}",
            f"(kept in {key_file}, mode 0600, across restarts; `--new-key` rotates it)",
            "",
            "Use it from another shell, in this directory:",
            f"  export ENGRAM_ADDRESS={address} ENGRAM_API_KEY=$(cat {key_file})",
            "  .venv/bin/engram memory list",
            "  .venv/bin/engram memory --help",
            "(or `source .venv/bin/activate` once, then plain `engram ...`),",
            "or send it as gRPC metadata 'authorization: Bearer <key>'.",
            "",
            "A platform-admin key (create tenants, any tenant's keys): restart with",
            "  ENGRAM_BOOTSTRAP_TOKEN=<a secret of 16+ characters> scripts/dev",
            "and use that token as ENGRAM_API_KEY for `.venv/bin/engram admin ...`.",
        ]
    lines += ["", "Stop with Ctrl-C (or SIGTERM): in-flight calls are drained.", ""]
    return "\n".join(lines)


@contextlib.contextmanager
def _stop_on_signals(stop: asyncio.Event) -> Iterator[None]:
    """SIGTERM / SIGINT set `stop` (instead of killing the process) while inside."""
    if threading.current_thread() is not threading.main_thread():
        # Only the main thread receives signals (an embedding app stops us itself).
        yield
        return
    loop = asyncio.get_running_loop()
    signals = (signal.SIGTERM, signal.SIGINT)
    for sig in signals:
        loop.add_signal_handler(sig, stop.set)
    try:
        yield
    finally:
        for sig in signals:
            loop.remove_signal_handler(sig)


DEV_KEY_FILE = "dev-key"


def read_dev_key(data_dir: str) -> str | None:
    """The dev key an earlier `engram serve --dev` stored under the data dir."""
    path = Path(data_dir) / DEV_KEY_FILE
    try:
        text = path.read_text().strip()
    except FileNotFoundError:
        return None
    return text or None


def write_dev_key(data_dir: str, secret: str) -> Path:
    """Stores the dev key for the next start, readable by its owner only (0600)."""
    path = Path(data_dir) / DEV_KEY_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(secret + "\n")
    os.chmod(path, 0o600)  # an older file may have had other bits
    return path


async def _dev_key(ctx: AppContext, data_dir: str, new_key: bool) -> str:
    kept = None if new_key else read_dev_key(data_dir)
    secret = await ensure_dev_key(ctx, keep=kept)
    if secret != kept:
        write_dev_key(data_dir, secret)
    return secret


async def serve(
    settings: Settings,
    dev: bool,
    new_key: bool = False,
    on_serving: Callable[[], None] | None = None,
) -> None:
    """Runs the server until SIGTERM/SIGINT, then drains and closes everything.

    The signal handlers are installed first, so a signal during start-up stops
    the server as soon as it is up instead of killing it half-started.
    `on_serving` is called once the server is up (a worker tells its supervisor).
    """
    missing = [
        name
        for name, value in (
            ("ENGRAM_DATABASE_URL", settings.database_url),
            ("ENGRAM_REDIS_URL", settings.redis_url),
        )
        if not value
    ]
    try:
        role_of(settings)
    except ValueError as exc:
        raise StartupError(str(exc)) from exc
    if missing and not dev:
        raise StartupError(
            f"{' and '.join(missing)} not set; set them, or run `engram serve --dev` "
            "to start embedded PostgreSQL and Redis"
        )
    stop = asyncio.Event()
    with _stop_on_signals(stop):
        await _serve_until(settings, dev, stop, new_key, on_serving)


async def _serve_until(
    settings: Settings,
    dev: bool,
    stop: asyncio.Event,
    new_key: bool = False,
    on_serving: Callable[[], None] | None = None,
) -> None:
    embedded: EmbeddedServices | None = None
    if not (settings.database_url and settings.redis_url):
        embedded = await asyncio.to_thread(start_embedded, settings)
        settings = dataclasses.replace(
            settings, database_url=embedded.database_url, redis_url=embedded.redis_url
        )
    if dev:
        # A dev server always brings its schema up to date.
        settings = dataclasses.replace(settings, migrate_on_start=True)
    provider = setup_tracing(settings)
    metrics_endpoint = setup_metrics(settings)
    try:
        ctx = await build_context(settings)
        sampler = BacklogSampler(ctx.db, settings.metrics_sample_seconds)
        try:
            if settings.bootstrap_token:
                await ensure_bootstrap_token(ctx, settings.bootstrap_token)
            dev_key = await _dev_key(ctx, settings.data_dir, new_key) if dev else None
            server = EngramServer(settings, ctx, tracer_provider=provider)
            await server.start()
            # The backlog gauges are the indexers' scaling signal: sampled where the
            # background work runs.
            if metrics_endpoint is not None and runs_background(settings):
                sampler.start()
            print(
                _banner(server.address, dev_key, embedded, settings.data_dir, role_of(settings)),
                flush=True,
                file=sys.stdout,
            )
            if on_serving is not None:
                on_serving()
            await stop.wait()
            log.info("draining (up to %.1fs)", settings.shutdown_grace_seconds)
            await server.stop(settings.shutdown_grace_seconds)
        finally:
            await sampler.stop()
            await ctx.close()
    finally:
        shutdown_tracing(provider)
        if metrics_endpoint is not None:
            metrics_endpoint.shutdown()
        if embedded is not None:
            await asyncio.to_thread(embedded.stop)
