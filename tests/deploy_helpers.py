"""Helpers of the deployment tests: the Dockerfile's image environment, free ports,
`engram serve` processes started from a given installation, a fresh database."""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import socket
import subprocess
import time
import urllib.request
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import sql

ROOT = Path(__file__).resolve().parents[1]
DOCKERFILE = ROOT / "deploy" / "Dockerfile"


def _instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of a Dockerfile, continuation lines joined."""
    out: list[tuple[str, str]] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = pending + line
        pending = ""
        keyword, _, args = line.partition(" ")
        out.append((keyword.upper(), args.strip()))
    return out


def final_stage() -> list[tuple[str, str]]:
    """The instructions of the image's last stage (the one that ships)."""
    instructions = _instructions(DOCKERFILE.read_text())
    last_from = max(i for i, (kw, _) in enumerate(instructions) if kw == "FROM")
    return instructions[last_from:]


def image_env() -> dict[str, str]:
    """The ENV of the shipped stage, in order (`$PATH` left for the caller)."""
    env: dict[str, str] = {}
    for keyword, args in final_stage():
        if keyword == "ENV":
            for token in shlex.split(args):
                key, _, value = token.partition("=")
                env[key] = value
    return env


def image_user() -> tuple[int, int]:
    (user,) = [args for kw, args in final_stage() if kw == "USER"]
    uid, _, gid = user.partition(":")
    return int(uid), int(gid or uid)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextlib.contextmanager
def fresh_database(server_url: str, prefix: str) -> Iterator[str]:
    """An empty database (not migrated), dropped afterwards."""
    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield urlunsplit(urlsplit(server_url)._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(server_url, autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


@dataclass
class ServeProcess:
    """A running `engram serve` with its logs in files."""

    process: subprocess.Popen[bytes]
    address: str
    metrics_port: int | None
    stdout: Path
    stderr: Path
    engram: Path

    def logs(self) -> str:
        return f"--- stdout\n{self.stdout.read_text()}\n--- stderr\n{self.stderr.read_text()}"

    def health(self, env: Mapping[str, str], user: tuple[int, int] | None = None) -> bool:
        """`engram health` (the image's HEALTHCHECK) answered SERVING."""
        done = subprocess.run(
            [str(self.engram), "health", "--address", self.address],
            env=dict(env),
            capture_output=True,
            check=False,
            **_as_user(user),
        )
        return done.returncode == 0

    def wait_serving(self, env: Mapping[str, str], user: tuple[int, int] | None = None) -> None:
        """Polls the health check until SERVING; fails if the process exits or stalls."""
        deadline = time.monotonic() + 240
        while not self.health(env, user):
            if self.process.poll() is not None:
                raise AssertionError(
                    f"engram serve exited with {self.process.returncode}\n" + self.logs()
                )
            if time.monotonic() > deadline:
                raise AssertionError("engram serve never answered SERVING\n" + self.logs())
            time.sleep(0.5)

    def metrics(self) -> str:
        assert self.metrics_port is not None
        url = f"http://127.0.0.1:{self.metrics_port}/metrics"
        with urllib.request.urlopen(url, timeout=10) as reply:
            text: str = reply.read().decode()
            return text

    def terminate(self, timeout: float = 60) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


def _as_user(user: tuple[int, int] | None) -> dict[str, int]:
    if user is None:
        return {}
    return {"user": user[0], "group": user[1]}


def start_serve(
    engram: Path,
    env: Mapping[str, str],
    logdir: Path,
    name: str,
    user: tuple[int, int] | None = None,
    args: Sequence[str] = (),
) -> ServeProcess:
    """Starts `<engram> serve [args]` with exactly `env` (ENGRAM_LISTEN must be set)."""
    logdir.mkdir(parents=True, exist_ok=True)
    stdout = logdir / f"{name}.out"
    stderr = logdir / f"{name}.err"
    with stdout.open("wb") as out, stderr.open("wb") as err:
        process = subprocess.Popen(
            [str(engram), "serve", *args],
            env=dict(env),
            stdout=out,
            stderr=err,
            **_as_user(user),
        )
    metrics = env.get("ENGRAM_METRICS_LISTEN", "")
    return ServeProcess(
        process=process,
        address=env["ENGRAM_LISTEN"],
        metrics_port=int(metrics.rsplit(":", 1)[1]) if metrics else None,
        stdout=stdout,
        stderr=stderr,
        engram=engram,
    )


def is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0
