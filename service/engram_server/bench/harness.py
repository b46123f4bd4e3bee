"""What every benchmark stands on: its command-line options, scratch databases, a
server in its own process (or a running one), progress lines, the facts a results
file records, and writing the results."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit, urlunsplit

import grpc
import grpc.aio
import psycopg
from grpc_health.v1 import health_pb2, health_pb2_grpc
from psycopg import sql

HEALTH_TIMEOUT_SECONDS = 90.0
HEALTH_POLL_SECONDS = 0.1
STOP_TIMEOUT_SECONDS = 20.0
DEFAULT_PG_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"


def with_database(server_url: str, database: str) -> str:
    """`server_url` pointing at another database of the same server."""
    parts = urlsplit(server_url)
    return urlunsplit(parts._replace(path=f"/{database}"))


def create_database(server_url: str, prefix: str) -> str:
    """Creates `<prefix>_<hex>` on the server of `server_url`; returns its URL."""
    name = f"{prefix}_{secrets.token_hex(6)}"
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return with_database(server_url, name)


def drop_database(server_url: str, database_url: str) -> None:
    name = urlsplit(database_url).path.lstrip("/")
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )


@contextlib.contextmanager
def scratch_database(server_url: str, prefix: str) -> Iterator[str]:
    """A fresh database on the server of `server_url` for the block, dropped after it."""
    url = create_database(server_url, prefix)
    try:
        yield url
    finally:
        drop_database(server_url, url)


def settle(server_url: str, databases: dict[str, tuple[str, ...]]) -> None:
    """VACUUM (ANALYZE) the given tables of each database, then one CHECKPOINT.

    Without it, autovacuum and a checkpoint triggered by a bulk load land in the
    middle of whatever is measured next, on whichever side happens to be running.
    """
    for database_url, tables in databases.items():
        with psycopg.connect(database_url, autocommit=True) as conn:
            conn.execute(
                sql.SQL("VACUUM (ANALYZE) {}").format(
                    sql.SQL(", ").join(map(sql.Identifier, tables))
                )
            )
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute("CHECKPOINT")


def postgres_facts(server_url: str) -> dict[str, Any]:
    """The PostgreSQL settings a run measured on; against a running server the bench
    may not reach its database (another host, no password given), which is noted
    rather than failing the run after it measured."""
    try:
        return _postgres_settings(server_url)
    except psycopg.OperationalError as error:
        return {"unavailable": str(error).strip().splitlines()[-1]}


def _postgres_settings(server_url: str) -> dict[str, Any]:
    with psycopg.connect(server_url, autocommit=True) as conn:
        facts: dict[str, Any] = {}
        for setting in ("server_version", "synchronous_commit", "fsync", "shared_buffers"):
            row = conn.execute(sql.SQL("SHOW {}").format(sql.Identifier(setting))).fetchone()
            facts[setting] = row[0] if row else None
        return facts


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def server_env(
    database_url: str,
    redis_url: str,
    bootstrap_token: str,
    address: str,
    data_dir: Path,
    **extra: str,
) -> dict[str, str]:
    """The environment of an `engram serve` child: this process's own, without its
    ENGRAM_* settings (its database, its keys stay out of the scratch server), then
    the scratch stores, and `extra` last. A settings file named by ENGRAM_CONFIG is
    passed on, so a run can compare settings; the variables override the file."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")}
    if os.environ.get("ENGRAM_CONFIG"):
        env["ENGRAM_CONFIG"] = os.environ["ENGRAM_CONFIG"]
    env.update(
        ENGRAM_DATABASE_URL=database_url,
        ENGRAM_REDIS_URL=redis_url,
        ENGRAM_BOOTSTRAP_TOKEN=bootstrap_token,
        ENGRAM_LISTEN=address,
        ENGRAM_DATA_DIR=str(data_dir),
        ENGRAM_LOG_LEVEL="WARNING",
    )
    env.update(extra)
    return env


async def wait_until_serving(
    address: str,
    process: subprocess.Popen[bytes],
    wait_seconds: float,
    poll_seconds: float,
    failure: Callable[[str], str],
) -> None:
    """Polls the health service at `address` until SERVING; fails fast if `process`
    exits. `failure` words the error from what went wrong."""
    deadline = time.monotonic() + wait_seconds
    async with grpc.aio.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while True:
            if process.poll() is not None:
                raise RuntimeError(failure(f"exited with status {process.returncode}"))
            try:
                reply = await stub.Check(health_pb2.HealthCheckRequest(), timeout=1.0)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.aio.AioRpcError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(failure(f"not SERVING after {wait_seconds:.0f}s"))
            await asyncio.sleep(poll_seconds)


def stop_process(process: subprocess.Popen[bytes], timeout: float) -> None:
    """SIGTERM (a server drains), then SIGKILL if it does not exit in `timeout`."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


class SpawnedServer:
    """`engram serve` in a child process with its own fresh database."""

    def __init__(self, database_url: str, redis_url: str) -> None:
        self.database_url = database_url
        self.redis_url = redis_url
        self.bootstrap_token = f"bench-{secrets.token_hex(24)}"
        self.address = f"127.0.0.1:{free_port()}"
        self._workdir = tempfile.TemporaryDirectory(prefix="engram-bench-")
        self.log_path = Path(self._workdir.name) / "server.log"
        self._log: IO[bytes] | None = None
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = server_env(
            self.database_url,
            self.redis_url,
            self.bootstrap_token,
            self.address,
            Path(self._workdir.name) / "data",
        )
        self._log = self.log_path.open("wb")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import sys; from engram_server.cli import main; sys.exit(main(['serve']))",
            ],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )

    @property
    def pid(self) -> int:
        return self.process.pid if self.process else 0

    def log_tail(self, lines: int = 30) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    async def wait_serving(self, wait_seconds: float = HEALTH_TIMEOUT_SECONDS) -> None:
        """Polls the health service until SERVING; fails fast if the child exits."""
        assert self.process is not None, "start() first"
        await wait_until_serving(
            self.address,
            self.process,
            wait_seconds,
            HEALTH_POLL_SECONDS,
            lambda problem: f"engram serve {problem}:\n" + self.log_tail(),
        )

    def stop(self) -> None:
        """SIGTERM (the server drains), then SIGKILL if it does not exit in time."""
        if self.process is not None:
            stop_process(self.process, STOP_TIMEOUT_SECONDS)
        if self._log is not None:
            self._log.close()
            self._log = None
        with contextlib.suppress(OSError):
            self._workdir.cleanup()


# -- the server a benchmark runs against ------------------------------------------


@dataclass(frozen=True)
class ServerChoice:
    """A running server (address and a platform-admin key), or none: the bench then
    starts one on a scratch database of `database_url`'s PostgreSQL server."""

    address: str
    api_key: str
    database_url: str
    redis_url: str


def add_store_arguments(parser: argparse.ArgumentParser) -> None:
    """The PostgreSQL and Redis servers a bench starts its servers on."""
    parser.add_argument(
        "--database-url",
        default=DEFAULT_PG_URL,
        help="superuser URL of the PostgreSQL server for the scratch databases"
        " (the one a started server uses, so any floor runs on the same server)",
    )
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL, help="Redis for a started server")


def add_server_arguments(parser: argparse.ArgumentParser) -> None:
    """A running server to measure, or the stores to start one on."""
    parser.add_argument(
        "--address", help="a running server (HOST:PORT); default: start one in a child process"
    )
    parser.add_argument(
        "--api-key",
        help="with --address: a platform-admin key (e.g. the ENGRAM_BOOTSTRAP_TOKEN);"
        " default $ENGRAM_API_KEY",
    )
    add_store_arguments(parser)


def add_output_arguments(parser: argparse.ArgumentParser, default_out: str | Path) -> None:
    parser.add_argument(
        "--out", type=Path, default=Path(default_out), help="JSON results (markdown beside it)"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")


def sizes(text: str) -> tuple[int, ...]:
    """An argparse type: `10000,100_000` as strictly ascending positive sizes."""
    try:
        parsed = tuple(int(part.replace("_", "")) for part in text.split(",") if part.strip())
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not a list of sizes: {text!r}") from exc
    if not parsed or any(s <= 0 for s in parsed) or list(parsed) != sorted(set(parsed)):
        raise argparse.ArgumentTypeError("sizes must be positive and strictly ascending")
    return parsed


def server_choice(args: argparse.Namespace) -> ServerChoice:
    api_key = args.api_key or os.environ.get("ENGRAM_API_KEY", "")
    if args.address and not api_key:
        raise ValueError("--address needs --api-key (a platform-admin key) or $ENGRAM_API_KEY")
    return ServerChoice(args.address or "", api_key, args.database_url, args.redis_url)


# How a server the bench starts is described in its results, unless a bench says more.
STARTED_SERVER = (
    "`engram serve` started by the bench in a child process (default settings),"
    " fresh database on the same PostgreSQL server, the machine's Redis"
)


@dataclass(frozen=True)
class BenchServer:
    address: str
    platform_key: str
    # How the server was run, for the results file.
    mode: str
    # The scratch database of a server the bench started ("" for a running one).
    database_url: str
    # The started server's process id, to profile it (0 for a running one).
    pid: int = 0


@contextlib.asynccontextmanager
async def bench_server(
    choice: ServerChoice,
    prefix: str,
    started: str = STARTED_SERVER,
    say: Callable[[str], None] | None = None,
) -> AsyncIterator[BenchServer]:
    """The chosen server, or `engram serve` started on a fresh scratch database
    (stopped and dropped on exit). `started` describes a started server in the
    results; `say`, when given, reports its start."""
    if choice.address:
        yield BenchServer(
            choice.address, choice.api_key, f"an already running server at {choice.address}", ""
        )
        return
    with scratch_database(choice.database_url, prefix) as url:
        server = SpawnedServer(url, choice.redis_url)
        try:
            server.start()
            if say is not None:
                say(f"starting engram serve (pid {server.pid}) on {server.address}")
            await server.wait_serving()
            yield BenchServer(server.address, server.bootstrap_token, started, url, server.pid)
        finally:
            server.stop()


class Run:
    """One bench run from its start: progress lines on stderr with the seconds since
    then, and what its results file records about when and where it ran."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.clock = time.monotonic()
        self.wall = time.perf_counter()
        self.started_at = datetime.now(UTC)
        self.load_before = load_average()

    def __call__(self, message: str) -> None:
        if not self.quiet:
            print(f"[{time.monotonic() - self.clock:7.1f}s] {message}", file=sys.stderr, flush=True)

    def seconds(self) -> float:
        """Wall seconds since the start."""
        return time.perf_counter() - self.wall

    def started(self) -> str:
        return self.started_at.isoformat(timespec="seconds")

    def machine(self, server_url: str) -> dict[str, Any]:
        """`machine_facts`, with the load average taken at the start."""
        return machine_facts(server_url, self.load_before)


def run_and_write(
    out: Path,
    measure: Coroutine[Any, Any, dict[str, Any]],
    render: Callable[[dict[str, Any]], str],
) -> int:
    """Runs a bench's measurement, writes its report and markdown (`write_results`)."""
    report = asyncio.run(measure)
    write_results(out, report, render(report))
    return 0


# -- what every results file records ---------------------------------------------


def load_average() -> list[float]:
    """The 1, 5 and 15 minute load averages: other work on the machine skews every
    figure, and the load before and after a run says how much."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def git_commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip()


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory_gb() -> float:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return 0.0


def machine_facts(server_url: str, load_before: list[float]) -> dict[str, Any]:
    """The machine and software a run measured on, with the load before and after."""
    return {
        "cpu_count": os.cpu_count(),
        "cpu_model": _cpu_model(),
        "memory_gb": _memory_gb(),
        "load_average": {"before": load_before, "after": load_average()},
        "platform": platform.platform(),
        "python": platform.python_version(),
        "grpcio": grpc.__version__,
        "psycopg": psycopg.__version__,
        "postgres": postgres_facts(server_url),
    }


def write_results(out: Path, report: dict[str, Any], markdown: str) -> Path:
    """Writes the JSON report to `out` and the markdown beside it; prints the markdown,
    and where both went on stderr."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    markdown_path = out.with_suffix(".md")
    markdown_path.write_text(markdown)
    print(markdown)
    print(f"results: {out} and {markdown_path}", file=sys.stderr)
    return markdown_path


# -- profiling ---------------------------------------------------------------


def py_spy() -> str:
    """py-spy on PATH, or installed beside this interpreter (a virtualenv's bin/)."""
    beside = Path(sys.executable).parent / "py-spy"
    return shutil.which("py-spy") or (str(beside) if beside.exists() else "")


@contextlib.contextmanager
def profiling(pid: int, path: Path | None) -> Iterator[None]:
    """py-spy records `pid` for the duration of the block (when a path is given)."""
    if path is None:
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    recorder = subprocess.Popen(
        [py_spy(), "record", "--pid", str(pid), "--format", "raw", "--rate", "250",
         "--output", str(path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    time.sleep(1.0)  # py-spy attaches before the first timed call
    try:
        yield
    finally:
        recorder.send_signal(signal.SIGINT)
        try:
            recorder.wait(30)
        except subprocess.TimeoutExpired:
            recorder.kill()
            recorder.wait()
