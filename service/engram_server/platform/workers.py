"""`engram serve --workers N`: N server processes sharing one port.

One server process runs its calls on one event loop thread, so a host with more
cores than one serves more with more processes. Each worker is a whole `engram
serve` of its own (its stores' connections, its background work, its gRPC server)
bound to the same `listen` address with SO_REUSEPORT: the kernel spreads incoming
connections over the workers. They share nothing in memory, which is why the
embedded vector engine (one process's files) cannot be used: workers need the
Qdrant server, like replicas.

The parent only supervises. SIGTERM / SIGINT are passed on to every worker, which
drains as a single server does (health NOT_SERVING, in-flight calls finish), and
the parent exits once they all have. A worker that dies after it was serving is
started again; one that fails before it serves stops them all (a configuration or
store problem that a restart would only repeat). Worker i (from 0) serves metrics
on the port of `metrics_listen` plus i, each worker's own instruments.
"""

from __future__ import annotations

import dataclasses
import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import time
from dataclasses import dataclass
from multiprocessing.context import SpawnProcess
from multiprocessing.synchronize import Event
from types import FrameType

from engram_server.platform.config import Settings

log = logging.getLogger(__name__)

# Seconds between a worker's death and its replacement, so a worker that keeps
# crashing does not spin the host.
RESTART_DELAY_SECONDS = 1.0
# Beyond the drain of the workers, before the parent kills what is left.
STOP_MARGIN_SECONDS = 10.0
POLL_SECONDS = 0.2


class WorkersRefused(ValueError):
    """These settings cannot run several workers; the message says why."""


def check_workers(settings: Settings, dev: bool) -> None:
    """Refuses settings under which workers could not share the work."""
    n = settings.workers
    if n < 1:
        raise WorkersRefused(f"--workers / ENGRAM_WORKERS must be at least 1, got {n}")
    if n == 1:
        return
    if settings.vector_backend != "qdrant":
        raise WorkersRefused(
            f"--workers {n} needs the Qdrant server (ENGRAM_VECTOR_BACKEND=qdrant and "
            f"ENGRAM_QDRANT_URL): the embedded vector engine ({settings.vector_backend!r}) "
            "keeps its index in one process's files, so a second worker could neither "
            "open it nor see what the first one indexed"
        )
    if dev:
        raise WorkersRefused(
            f"--workers {n} cannot run with --dev: a dev server and its embedded stores "
            "are one process; run several workers against PostgreSQL, Redis and Qdrant"
        )
    if not (settings.database_url and settings.redis_url):
        raise WorkersRefused(
            f"--workers {n} needs ENGRAM_DATABASE_URL and ENGRAM_REDIS_URL: the workers "
            "share their stores"
        )
    port = settings.listen.rpartition(":")[2]
    if not port.isdigit() or int(port) == 0:
        raise WorkersRefused(
            f"--workers {n} needs a fixed port in ENGRAM_LISTEN (got {settings.listen!r}): "
            "the workers share it"
        )


def worker_settings(settings: Settings, index: int) -> Settings:
    """Worker `index`'s settings: its own metrics port (the base port plus index)."""
    if not settings.metrics_listen:
        return settings
    host, _, port = settings.metrics_listen.rpartition(":")
    if not port.isdigit():
        raise WorkersRefused(
            f"ENGRAM_METRICS_LISTEN: expected host:port, got {settings.metrics_listen!r}"
        )
    base = int(port)
    return dataclasses.replace(settings, metrics_listen=f"{host}:{base + index if base else 0}")


def _die_with_parent(parent: int) -> None:
    """A worker ends when the parent dies, even by SIGKILL (Linux)."""
    if sys.platform.startswith("linux"):
        import ctypes

        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)
    if os.getppid() != parent:  # it died before the line above
        os.kill(os.getpid(), signal.SIGTERM)


def _worker_main(settings: Settings, index: int, parent: int, serving: Event) -> None:
    """What a worker process runs: one ordinary server."""
    from engram_server.platform.eventloop import loop_factory
    from engram_server.platform.eventloop import run as run_on_loop
    from engram_server.platform.observability import configure_logging
    from engram_server.platform.server import serve

    _die_with_parent(parent)
    configure_logging(settings)
    log.info("worker %d of %d (pid %d)", index, settings.workers, os.getpid())
    try:
        run_on_loop(
            serve(settings, dev=False, on_serving=serving.set), loop_factory(settings.event_loop)
        )
    except KeyboardInterrupt:
        pass
    except Exception as exc:
        print(f"engram: error: worker {index}: {exc}", file=sys.stderr, flush=True)
        raise SystemExit(1) from None


@dataclass
class _Worker:
    index: int
    process: SpawnProcess
    serving: Event


class Supervisor:
    """Starts the workers, passes signals on, replaces the ones that die."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._context = multiprocessing.get_context("spawn")
        self._workers: dict[int, _Worker] = {}
        self._stop_requested = False

    def _start(self, index: int) -> None:
        serving = self._context.Event()
        process = self._context.Process(
            target=_worker_main,
            args=(worker_settings(self.settings, index), index, os.getpid(), serving),
            name=f"engram-worker-{index}",
        )
        process.start()
        self._workers[index] = _Worker(index, process, serving)

    def _request_stop(self, signum: int, _frame: FrameType | None) -> None:
        self._stop_requested = True

    def run(self) -> int:
        """Runs until a signal stops the workers; the exit status of the whole."""
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, self._request_stop)
        for index in range(self.settings.workers):
            self._start(index)
        status = 0
        stopping_since: float | None = None
        killed = False
        while self._workers:
            sentinels = [w.process.sentinel for w in self._workers.values()]
            multiprocessing.connection.wait(sentinels, timeout=POLL_SECONDS)
            if self._stop_requested and stopping_since is None:
                stopping_since = time.monotonic()
                self._signal_all(signal.SIGTERM)
            for worker in [w for w in self._workers.values() if not w.process.is_alive()]:
                del self._workers[worker.index]
                code = worker.process.exitcode
                if stopping_since is not None:
                    if code not in (0, -signal.SIGTERM, -signal.SIGINT):
                        status = 1
                    continue
                if not worker.serving.is_set():
                    log.error("worker %d failed to start (exit %s): stopping", worker.index, code)
                    status = 1
                    self._stop_requested = True
                    continue
                log.warning("worker %d died (exit %s): starting it again", worker.index, code)
                time.sleep(RESTART_DELAY_SECONDS)
                if not self._stop_requested:
                    self._start(worker.index)
            limit = self.settings.shutdown_grace_seconds + STOP_MARGIN_SECONDS
            if stopping_since is not None and not killed:
                if time.monotonic() - stopping_since > limit:
                    log.error("workers still running %.0fs after SIGTERM: killing them", limit)
                    self._signal_all(signal.SIGKILL)
                    status = 1
                    killed = True
        return status

    def _signal_all(self, sig: int) -> None:
        for worker in self._workers.values():
            if worker.process.pid is not None and worker.process.is_alive():
                try:
                    os.kill(worker.process.pid, sig)
                except ProcessLookupError:
                    pass


def run_workers(settings: Settings) -> int:
    """`engram serve --workers N` (N > 1): supervises N workers; the exit status."""
    return Supervisor(settings).run()
