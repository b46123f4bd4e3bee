"""A live `engram serve` for the client test suites (TypeScript, Go, Java, Python).

    .venv/bin/python clients/testing/engram_test_server.py

creates a fresh database on the test PostgreSQL (`ENGRAM_TEST_PG_URL`, default the
machine's at 127.0.0.1:5432), starts `engram serve` on a free port against it and the
test Redis (`ENGRAM_TEST_REDIS_URL`, default 127.0.0.1:6379), creates two tenants
`A` and `B` with a read/write/admin key each through AdminService, and prints ONE
line of JSON on stdout:

    {"address": "127.0.0.1:PORT", "platform_key": "...",
     "tenants": {"A": {"id": "...", "key": "..."}, "B": {...}}}

It then runs until its stdin closes (the test that started it exited) or it gets
SIGTERM/SIGINT, stops the server and drops the database. A test suite started by
scripts/test-clients finds that line in `ENGRAM_TEST_SERVER` instead and shares one
server with the other suites.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import grpc
import psycopg
from engram.v1 import admin_pb2, admin_pb2_grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from psycopg import sql

DEFAULT_PG_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
START_TIMEOUT_SECONDS = 120.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _engram_command() -> list[str]:
    engram = Path(sys.executable).with_name("engram")
    if engram.exists():
        return [str(engram)]
    return [sys.executable, "-m", "engram_server.cli"]


def _wait_serving(address: str, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    with grpc.insecure_channel(address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < deadline:
            if server.poll() is not None:
                raise SystemExit(f"engram serve exited ({server.returncode}):\n{log.read_text()}")
            try:
                reply = health.Check(health_pb2.HealthCheckRequest(), timeout=2)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
            time.sleep(0.2)
    raise SystemExit(f"engram serve did not start in {START_TIMEOUT_SECONDS}s:\n{log.read_text()}")


def _tenant(admin: admin_pb2_grpc.AdminServiceStub, platform_key: str) -> dict[str, str]:
    auth = (("authorization", f"Bearer {platform_key}"),)
    tenant_id = f"clients-{secrets.token_hex(5)}"
    admin.CreateTenant(
        admin_pb2.CreateTenantRequest(
            tenant_id=tenant_id, tenant=admin_pb2.Tenant(display_name=tenant_id)
        ),
        metadata=auth,
    )
    created = admin.CreateApiKey(
        admin_pb2.CreateApiKeyRequest(
            parent=f"tenants/{tenant_id}",
            api_key=admin_pb2.ApiKey(scopes=["read", "write", "admin"], display_name="clients"),
        ),
        metadata=auth,
    )
    return {"id": tenant_id, "key": created.secret}


def main() -> None:
    pg_url = os.environ.get("ENGRAM_TEST_PG_URL", DEFAULT_PG_URL)
    redis_url = os.environ.get("ENGRAM_TEST_REDIS_URL", DEFAULT_REDIS_URL)
    database = f"engram_clients_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))
    workdir = Path(tempfile.mkdtemp(prefix="engram-clients-"))
    log = workdir / "server.log"
    address = f"127.0.0.1:{_free_port()}"
    platform_key = f"clients-bootstrap-{secrets.token_hex(16)}"
    env = dict(os.environ)
    env.update(
        ENGRAM_LISTEN=address,
        ENGRAM_DATABASE_URL=urlunsplit(urlsplit(pg_url)._replace(path=f"/{database}")),
        ENGRAM_REDIS_URL=redis_url,
        ENGRAM_DATA_DIR=str(workdir / "data"),
        ENGRAM_BOOTSTRAP_TOKEN=platform_key,
        ENGRAM_LOG_LEVEL="WARNING",
    )
    server = subprocess.Popen(
        [*_engram_command(), "serve"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    try:
        _wait_serving(address, server, log)
        with grpc.insecure_channel(address) as channel:
            admin = admin_pb2_grpc.AdminServiceStub(channel)
            tenants = {name: _tenant(admin, platform_key) for name in ("A", "B")}
        line = {"address": address, "platform_key": platform_key, "tenants": tenants}
        print(json.dumps(line), flush=True)

        def watch_stdin() -> None:
            sys.stdin.buffer.read()
            stop.set()

        threading.Thread(target=watch_stdin, daemon=True).start()
        while not stop.wait(0.5):
            if server.poll() is not None:
                sys.stderr.write(f"engram serve exited:\n{log.read_text()}")
                break
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(15)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(database))
            )
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
