"""The container image's install path, replayed without a Docker engine.

This machine has a Docker client but no engine, so the image itself cannot be
built here. What the Dockerfile does is replayed instead, step by step: copy the
files its COPY lines name, build the wheel (`pip wheel --no-deps`), install it into
an empty virtual environment, remove pip and setuptools as the image does, then,
as the image's unprivileged user (when the tests run as root) and with exactly
the image's ENV, run `engram migrate` (the migration job) and `engram serve`
against the real PostgreSQL and Redis until the image's HEALTHCHECK command
(`engram health`) answers SERVING; then one authenticated call, the metrics
endpoint and the JSON access log, and a clean drain on SIGTERM.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from engram.v1 import admin_pb2, admin_pb2_grpc

from tests.deploy_helpers import (
    ROOT,
    final_stage,
    free_port,
    fresh_database,
    image_env,
    image_user,
    is_root,
    start_serve,
)

# What the build stage copies (deploy/Dockerfile: COPY lines).
BUILD_CONTEXT = ("pyproject.toml", "README.md", "service", "clients/python")
TOKEN = "image-install-test-bootstrap-token"
# PEP 517's sdist hook, called as a build frontend calls it; its last line is the file name.
BUILD_SDIST = "import sys, setuptools.build_meta as b; print(b.build_sdist(sys.argv[1]))"
SDK_IMPORT = (
    "import importlib.metadata as m, engram, engram.v1.lifecycle_pb2_grpc as g;"
    "print(m.distribution('engram-grpc').metadata['Name'], engram.Client.__name__,"
    " g.LifecycleServiceStub.__name__)"
)


def _wheel_metadata(wheel: Path) -> dict[str, list[str]]:
    """The wheel's METADATA headers, each with every value it has."""
    from email.parser import HeaderParser
    from zipfile import ZipFile

    with ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        headers = HeaderParser().parsestr(archive.read(name).decode())
    return {key: headers.get_all(key) or [] for key in set(headers.keys())}


def test_dockerfile_copies_what_the_test_copies() -> None:
    from tests.deploy_helpers import DOCKERFILE, _instructions

    instructions = _instructions(DOCKERFILE.read_text())
    build_copies = [
        args.split()[:-1]
        for kw, args in instructions
        if kw == "COPY" and not args.startswith("--from")
    ]
    assert {source for sources in build_copies for source in sources} == set(BUILD_CONTEXT)
    keywords = [kw for kw, _ in final_stage()]
    assert "HEALTHCHECK" in keywords and "USER" in keywords
    assert image_user()[0] != 0


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A directory the image's user can read (pytest's tmp dirs are root-only)."""
    path = Path(tempfile.mkdtemp(prefix="engram-image-"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _base_python() -> tuple[str, tuple[int, int] | None]:
    """An interpreter for the empty venv, and the user to run it as.

    As root, the server runs as the image's user; that user must be able to run
    the venv's interpreter (a Python under /root is out of its reach), so a
    system Python is preferred. Without one it reaches, or when not root, the
    server runs as the current user.
    """
    candidates = ["/usr/local/bin/python3", "/usr/bin/python3", sys.executable]
    version_ok = "import sys; sys.exit(sys.version_info < (3, 11))"
    usable = [
        c
        for c in candidates
        if Path(c).exists()
        and subprocess.run([c, "-c", version_ok], capture_output=True).returncode == 0
        and subprocess.run([c, "-m", "venv", "--help"], capture_output=True).returncode == 0
    ]
    assert usable, "no Python 3.11+ with venv"
    if is_root():
        user = image_user()
        for candidate in usable:
            reachable = subprocess.run(
                [candidate, "-c", "pass"], capture_output=True, user=user[0], group=user[1]
            )
            if reachable.returncode == 0:
                return candidate, user
    return usable[0], None


def _run(*argv: str | Path, **kwargs: object) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(a) for a in argv], capture_output=True, text=True, check=False, **kwargs
    )  # type: ignore[call-overload]
    assert done.returncode == 0, f"{argv}:\n{done.stdout}\n{done.stderr}"
    return done  # type: ignore[no-any-return]


def test_wheel_installed_as_the_image_does_serves_as_the_image_user(
    shared_dir: Path, pg_server_url: str, redis_url: str
) -> None:
    # 1. The build context: only what the Dockerfile copies (and .dockerignore keeps).
    src = shared_dir / "src"
    for path in BUILD_CONTEXT:
        source = ROOT / path
        target = src / path
        if source.is_dir():
            shutil.copytree(
                source, target, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
            )
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    # 2. The build stage: the wheel, an empty venv without pip, the wheel with its
    # dependencies installed into it by the outer pip. (Here without build
    # isolation and byte-compilation: the same files, minutes sooner.) The wheel is
    # built from the sdist, so the sdist is proved complete as well.
    wheels = shared_dir / "wheels"
    pip = (sys.executable, "-m", "pip", "--disable-pip-version-check")
    sdist = wheels / _run(sys.executable, "-c", BUILD_SDIST, wheels, cwd=src).stdout.split()[-1]
    assert sdist.name.startswith("engram_grpc-") and sdist.name.endswith(".tar.gz")
    unpacked = shared_dir / "sdist"
    shutil.unpack_archive(sdist, unpacked)
    (sdist_root,) = unpacked.iterdir()
    _run(
        *pip,
        "wheel",
        "--no-build-isolation",
        "--no-deps",
        "--wheel-dir",
        wheels,
        ".",
        cwd=sdist_root,
    )
    (wheel,) = wheels.glob("engram_grpc-*.whl")
    metadata = _wheel_metadata(wheel)
    assert metadata["Name"] == ["engram-grpc"]
    assert {"embedded", "mcp", "langgraph"} <= set(metadata["Provides-Extra"])
    base, user = _base_python()
    venv = shared_dir / "opt-engram"
    _run(base, "-m", "venv", "--without-pip", venv)
    _run(*pip, "--python", venv / "bin" / "python", "install", "--no-compile", wheel)
    assert not (venv / "bin" / "pip").exists()
    # The SDK and its generated stubs import from the installed wheel alone.
    imported = _run(venv / "bin" / "python", "-I", "-c", SDK_IMPORT)
    assert imported.stdout.split() == ["engram-grpc", "Client", "LifecycleServiceStub"]

    # 3. The final stage's environment and user.
    home = shared_dir / "home"
    home.mkdir()
    if user is not None:
        os.chown(home, *user)
    env = image_env()
    env["PATH"] = (
        env["PATH"]
        .replace("/opt/engram/bin", str(venv / "bin"))
        .replace("$PATH", "/usr/local/bin:/usr/bin:/bin")
    )
    env["HOME"] = env["ENGRAM_DATA_DIR"] = str(home)
    env["LANG"] = "C.UTF-8"
    assert env["ENGRAM_MIGRATE_ON_START"] == "false"
    engram = venv / "bin" / "engram"

    with fresh_database(pg_server_url, "engram_image") as database_url:
        env.update(
            ENGRAM_DATABASE_URL=database_url,
            ENGRAM_REDIS_URL=redis_url,
            ENGRAM_BOOTSTRAP_TOKEN=TOKEN,
            ENGRAM_LISTEN=f"127.0.0.1:{free_port()}",
            ENGRAM_METRICS_LISTEN=f"127.0.0.1:{free_port()}",
            ENGRAM_SHUTDOWN_GRACE_SECONDS="2",
        )
        # 4. The migration job, then the server, as the image's user.
        as_user = {} if user is None else {"user": user[0], "group": user[1]}
        migrated = _run(engram, "migrate", env=env, **as_user)
        assert "applied 0001_init" in migrated.stdout
        serve = start_serve(engram, env, shared_dir / "logs", "image", user)
        try:
            serve.wait_serving(env, user)
            with grpc.insecure_channel(serve.address) as channel:
                tenants = admin_pb2_grpc.AdminServiceStub(channel).ListTenants(
                    admin_pb2.ListTenantsRequest(),
                    metadata=(("authorization", f"Bearer {TOKEN}"), ("x-request-id", "req-1")),
                    timeout=30,
                )
            assert "tenants/default" in {t.name for t in tenants.tenants}
            exposition = serve.metrics()
            assert 'rpc_method="ListTenants"' in exposition
            assert "rpc_server_call_duration_seconds_bucket" in exposition
        finally:
            code = serve.terminate()
        assert code == 0, serve.logs()
        # The image logs JSON: the access line of that call, without the key.
        lines = [json.loads(line) for line in serve.stderr.read_text().splitlines() if line]
        (access,) = [entry for entry in lines if entry.get("logger") == "engram.access"]
        assert access["method"] == "/engram.v1.AdminService/ListTenants"
        assert access["code"] == "OK"
        assert access["tenant"] == "default"
        assert access["request_id"] == "req-1"
        assert TOKEN not in serve.stderr.read_text()
