"""`engram bench scale`: does a second worker or a second indexer pay on this host?

    engram bench scale --qdrant-url http://127.0.0.1:6333 [--seconds 15] [--memories 3000]

Both halves start real `engram serve` processes on a scratch database of the given
PostgreSQL server, the machine's Redis and a Qdrant server (workers need it), and
measure each configuration against the other in the same run, alternating them
round by round so that a change in the machine's load hits both:

- Serving: `engram serve --role api --workers 1` and then `--workers 2`, under a
  fixed mixed workload, one call of each in turn: Engage, AppendMessage,
  ProposeMemory, Recall, GetMemory. Client processes keep many connections open (so
  the kernel spreads them over the workers) and count the calls completed in a
  fixed window after a warm-up. The CPU time of the server processes, of the load
  generator and of the whole machine is read over the same window: what a call
  costs each, and so the most two workers could reach on these cores.
- Index catch-up: a backlog of new memories (texts the embedding cache has never
  seen) drained by one `engram serve --role indexer` and then by two. The backlog is
  queued while no indexer runs and held back (`available_at`) until every indexer
  is up, so that start-up is not timed; the time runs from its release to an empty
  outbox. Run once per `--index-threads` value: 0 is the default (each indexer
  embeds on every core), 1 gives each indexer one core, as a pod with a one-CPU
  limit has. The floor beside it: the same embedder alone, in this process, on one
  core and on all of them: no number of indexers embeds faster than that.

Writes its JSON and markdown to `--out` (default bench/results/scale.json).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import grpc
import grpc.aio
import psycopg
from engram.v1 import (
    admin_pb2,
    admin_pb2_grpc,
    lifecycle_pb2,
    lifecycle_pb2_grpc,
    recall_pb2,
    recall_pb2_grpc,
)

from engram_server import __version__
from engram_server.bench import corpus, harness
from engram_server.bench.harness import free_port, git_commit
from engram_server.bench.stats import percentile

CALLS = ("Engage", "AppendMessage", "ProposeMemory", "Recall", "GetMemory")
SERVE_START_SECONDS = 180.0
STOP_SECONDS = 30.0
DRAIN_LIMIT_SECONDS = 900.0
CATCHUP_SPACE = "catchup"
GOAL_RATIO = 1.5


@dataclass(frozen=True)
class Options:
    database_url: str
    redis_url: str
    qdrant_url: str
    qdrant_grpc_port: int
    seconds: float
    warmup: float
    processes: int
    connections: int
    memories: int
    rounds: int
    index_threads: tuple[int, ...]
    out: Path
    quiet: bool


def add_arguments(parser: argparse.ArgumentParser) -> None:
    harness.add_store_arguments(parser)
    parser.add_argument(
        "--qdrant-url",
        default=os.environ.get("ENGRAM_QDRANT_URL", ""),
        help="Qdrant server (default: $ENGRAM_QDRANT_URL); required",
    )
    parser.add_argument(
        "--qdrant-grpc-port",
        type=int,
        default=int(os.environ.get("ENGRAM_QDRANT_GRPC_PORT", "") or 6334),
        help="its gRPC port (default: $ENGRAM_QDRANT_GRPC_PORT, else 6334)",
    )
    parser.add_argument("--seconds", type=float, default=15.0, help="measured window per run")
    parser.add_argument("--warmup", type=float, default=3.0, help="unmeasured seconds first")
    parser.add_argument("--processes", type=int, default=2, help="load generator processes")
    parser.add_argument(
        "--connections",
        type=int,
        default=12,
        help="connections (each one call at a time) per process",
    )
    parser.add_argument("--memories", type=int, default=3000, help="backlog per catch-up run")
    parser.add_argument("--rounds", type=int, default=2, help="alternations of each pair")
    parser.add_argument(
        "--index-threads",
        default="0,1",
        help="ENGRAM_EMBEDDING_INDEX_THREADS values to measure catch-up with (0: every core)",
    )
    harness.add_output_arguments(parser, "bench/results/scale.json")


def options_from(args: argparse.Namespace) -> Options:
    if not args.qdrant_url:
        raise ValueError(
            "--qdrant-url (or ENGRAM_QDRANT_URL) is required: several workers or indexers "
            "share one vector index, which the embedded engine cannot be"
        )
    threads = tuple(int(t) for t in str(args.index_threads).split(",") if t.strip())
    if not threads or min(threads) < 0:
        raise ValueError("--index-threads: comma-separated numbers of threads, 0 or more")
    for name in ("seconds", "processes", "connections", "memories", "rounds"):
        if getattr(args, name) <= 0:
            raise ValueError(f"--{name} must be positive")
    return Options(
        database_url=args.database_url,
        redis_url=args.redis_url,
        qdrant_url=args.qdrant_url,
        qdrant_grpc_port=args.qdrant_grpc_port,
        seconds=args.seconds,
        warmup=args.warmup,
        processes=args.processes,
        connections=args.connections,
        memories=args.memories,
        rounds=args.rounds,
        index_threads=threads,
        out=args.out,
        quiet=args.quiet,
    )


def run_command(args: argparse.Namespace) -> int:
    options = options_from(args)
    return harness.run_and_write(options.out, run(options), markdown)


# -- server processes -------------------------------------------------------------


_SERVE = "import sys; from engram_server.cli import main; sys.exit(main(sys.argv[1:]))"


class Serve:
    """One `engram serve` child (with its workers, if any) and its log."""

    def __init__(self, env: dict[str, str], args: Sequence[str], log_path: Path) -> None:
        self.address = env["ENGRAM_LISTEN"]
        self.log_path = log_path
        self._log: IO[bytes] = log_path.open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "-c", _SERVE, "serve", *args],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )

    def cpu_seconds(self) -> float:
        """User + system CPU of the process and its workers so far."""
        return tree_cpu_seconds(self.process.pid)

    async def wait_serving(self) -> None:
        await harness.wait_until_serving(
            self.address,
            self.process,
            SERVE_START_SECONDS,
            0.2,
            lambda problem: f"engram serve {problem}; see {self.log_path}",
        )

    def stop(self) -> None:
        harness.stop_process(self.process, STOP_SECONDS)
        self._log.close()


@dataclass
class Stack:
    """The scratch stores and what every server of the run is started with."""

    options: Options
    database_url: str
    workdir: Path
    token: str = field(default_factory=lambda: f"bench-{secrets.token_hex(24)}")
    collection: str = field(default_factory=lambda: f"engram_bench_{secrets.token_hex(6)}")

    def env(self, **extra: str) -> dict[str, str]:
        return harness.server_env(
            self.database_url,
            self.options.redis_url,
            self.token,
            f"127.0.0.1:{free_port()}",
            self.workdir / "data",
            **{
                "ENGRAM_VECTOR_BACKEND": "qdrant",
                "ENGRAM_QDRANT_URL": self.options.qdrant_url,
                "ENGRAM_QDRANT_GRPC_PORT": str(self.options.qdrant_grpc_port),
                "ENGRAM_QDRANT_COLLECTION": self.collection,
                "ENGRAM_ACCESS_LOG": "false",
                **extra,
            },
        )

    @contextlib.asynccontextmanager
    async def serving(
        self, args: Sequence[str], count: int = 1, **extra: str
    ) -> AsyncIterator[list[Serve]]:
        servers = [
            Serve(self.env(**extra), args, self.workdir / f"serve-{secrets.token_hex(3)}.log")
            for _ in range(count)
        ]
        try:
            await asyncio.gather(*(s.wait_serving() for s in servers))
            yield servers
        finally:
            await asyncio.gather(*(asyncio.to_thread(s.stop) for s in servers))


async def _tenant(address: str, token: str, tenant: str) -> str:
    async with grpc.aio.insecure_channel(address) as channel:
        admin = admin_pb2_grpc.AdminServiceStub(channel)
        auth = (("authorization", f"Bearer {token}"),)
        await admin.CreateTenant(
            admin_pb2.CreateTenantRequest(tenant_id=tenant, tenant=admin_pb2.Tenant()),
            metadata=auth,
        )
        created = await admin.CreateApiKey(
            admin_pb2.CreateApiKeyRequest(
                parent=f"tenants/{tenant}", api_key=admin_pb2.ApiKey(scopes=["read", "write"])
            ),
            metadata=auth,
        )
    secret: str = created.secret
    return secret


async def _seed(address: str, secret: str, texts: list[str], space: str) -> list[str]:
    names: list[str] = []
    async with grpc.aio.insecure_channel(address) as channel:
        stub = lifecycle_pb2_grpc.LifecycleServiceStub(channel)
        for start in range(0, len(texts), 100):
            batch = [
                lifecycle_pb2.MemoryProposal(space=space, content=text)
                for text in texts[start : start + 100]
            ]
            reply = await stub.BatchProposeMemories(
                lifecycle_pb2.BatchProposeMemoriesRequest(proposals=batch),
                metadata=(("authorization", f"Bearer {secret}"),),
                timeout=120,
            )
            names.extend(r.memory.name for r in reply.results if r.memory.name)
    return names


# -- index catch-up -------------------------------------------------------------------


async def _hold(database_url: str, tenant: str) -> int:
    """Holds back the tenant's queued items (no indexer may claim them yet)."""
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as pg:
        cur = await pg.execute(
            "UPDATE outbox SET available_at = 'infinity' WHERE tenant_id = %s"
            " AND processed_at IS NULL",
            (tenant,),
        )
        return cur.rowcount


async def _release_and_drain(database_url: str, tenant: str) -> float:
    """Releases the held items, wakes the indexers; seconds until none is pending."""
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as pg:
        await pg.execute(
            "UPDATE outbox SET available_at = now() WHERE tenant_id = %s AND processed_at IS NULL",
            (tenant,),
        )
        started = time.monotonic()
        await pg.execute("SELECT pg_notify('engram_outbox', %s)", (tenant,))
        while True:
            cur = await pg.execute(
                "SELECT count(*) FROM outbox WHERE tenant_id = %s AND processed_at IS NULL",
                (tenant,),
            )
            row = await cur.fetchone()
            if row is not None and row[0] == 0:
                return time.monotonic() - started
            if time.monotonic() - started > DRAIN_LIMIT_SECONDS:
                raise RuntimeError(f"{row[0] if row else '?'} items still pending")
            await asyncio.sleep(0.05)


async def catch_up(
    stack: Stack, api: Serve, indexers: int, threads: int, label: str
) -> dict[str, Any]:
    tenant = f"catchup-{label}"
    secret = await _tenant(api.address, stack.token, tenant)
    texts = corpus.memories(f"scale-{label}", stack.options.memories)
    names = await _seed(api.address, secret, texts, CATCHUP_SPACE)
    held = await _hold(stack.database_url, tenant)
    async with stack.serving(
        ["--role", "indexer"], indexers, ENGRAM_EMBEDDING_INDEX_THREADS=str(threads)
    ) as servers:
        cpu_before = sum(s.cpu_seconds() for s in servers)
        seconds = await _release_and_drain(stack.database_url, tenant)
        cpu = sum(s.cpu_seconds() for s in servers) - cpu_before
    return {
        "indexers": indexers,
        "index_threads": threads,
        "memories": len(names),
        "queued": held,
        "seconds": round(seconds, 3),
        "per_second": round(held / seconds, 1),
        "indexer_cpu_seconds": round(cpu, 2),
    }


def embedder_floor(texts: list[str], threads: int) -> float:
    """Texts a second the in-process embedder alone embeds with `threads` (0: every
    core): the ceiling of any number of indexers on this machine."""
    from engram_server.embeddings.factory import build_embedder
    from engram_server.platform.config import Settings

    embedder = build_embedder(Settings(embedding_index_threads=threads))

    async def measure() -> float:
        await embedder.load()
        try:
            await embedder.embed(texts[:32])  # warm
            start = time.perf_counter()
            for at in range(0, len(texts), 256):
                await embedder.embed(texts[at : at + 256])
            return len(texts) / (time.perf_counter() - start)
        finally:
            await embedder.close()

    return asyncio.run(measure())


# -- serving ------------------------------------------------------------------------


@dataclass(frozen=True)
class LoadPlan:
    address: str
    secret: str
    warmup: float
    seconds: float
    connections: int
    queries: list[str]
    names: list[str]
    label: str


def _requests(plan: LoadPlan, process: int, connection: int) -> Iterator[tuple[str, Any]]:
    """The endless mix of one connection: one of each call in turn."""
    i = 0
    session = f"{plan.label}-{process}-{connection}"
    offset = (process * 7 + connection) % len(CALLS)
    while True:
        query = plan.queries[(i + connection) % len(plan.queries)]
        kind = CALLS[(i + offset) % len(CALLS)]
        if kind == "Engage":
            yield (
                kind,
                recall_pb2.EngageRequest(
                    space="serving/chat",
                    session=session,
                    message=lifecycle_pb2.SessionMessage(role="user", content=query),
                    recall_spaces=[CATCHUP_SPACE],
                    k=10,
                ),
            )
        elif kind == "AppendMessage":
            yield (
                kind,
                lifecycle_pb2.AppendMessageRequest(
                    space="serving/chat",
                    session=session,
                    message=lifecycle_pb2.SessionMessage(
                        role="assistant", content=f"noted: {query}"
                    ),
                ),
            )
        elif kind == "ProposeMemory":
            yield (
                kind,
                lifecycle_pb2.ProposeMemoryRequest(
                    proposal=lifecycle_pb2.MemoryProposal(
                        space="serving/notes", content=f"{query} (note {session}-{i})"
                    )
                ),
            )
        elif kind == "Recall":
            yield kind, recall_pb2.RecallRequest(query=query, spaces=[CATCHUP_SPACE], k=10)
        else:
            yield kind, lifecycle_pb2.GetMemoryRequest(name=plan.names[i % len(plan.names)])
        i += 1


async def _drive(plan: LoadPlan, process: int) -> dict[str, Any]:
    auth = (("authorization", f"Bearer {plan.secret}"),)
    loop = asyncio.get_running_loop()
    begin = loop.time()
    window = (begin + plan.warmup, begin + plan.warmup + plan.seconds)
    done: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    latencies: list[float] = []
    cpu: dict[str, float] = {}

    async def connection(index: int) -> None:
        # A subchannel of its own: otherwise gRPC shares one connection between
        # channels to the same address, and one worker would take every call.
        async with grpc.aio.insecure_channel(
            plan.address, options=[("grpc.use_local_subchannel_pool", 1)]
        ) as channel:
            methods: dict[str, Any] = {
                "Engage": recall_pb2_grpc.RecallServiceStub(channel).Engage,
                "Recall": recall_pb2_grpc.RecallServiceStub(channel).Recall,
                "AppendMessage": lifecycle_pb2_grpc.LifecycleServiceStub(channel).AppendMessage,
                "ProposeMemory": lifecycle_pb2_grpc.LifecycleServiceStub(channel).ProposeMemory,
                "GetMemory": lifecycle_pb2_grpc.LifecycleServiceStub(channel).GetMemory,
            }
            for kind, request in _requests(plan, process, index):
                started = loop.time()
                if started >= window[1]:
                    return
                try:
                    await methods[kind](request, metadata=auth, timeout=30)
                    ok = True
                except grpc.aio.AioRpcError:
                    ok = False
                ended = loop.time()
                if window[0] <= started and ended <= window[1]:
                    (done if ok else failed)[kind] += 1
                    if ok:
                        latencies.append(ended - started)

    async def clock() -> None:
        await asyncio.sleep(max(0.0, window[0] - loop.time()))
        cpu["start"] = time.process_time()
        await asyncio.sleep(max(0.0, window[1] - loop.time()))
        cpu["end"] = time.process_time()

    await asyncio.gather(clock(), *(connection(i) for i in range(plan.connections)))
    return {
        "done": dict(done),
        "failed": dict(failed),
        "latencies": latencies,
        "cpu_seconds": cpu.get("end", 0.0) - cpu.get("start", 0.0),
    }


def _load_process(plan: LoadPlan, process: int, results: Any) -> None:
    results.put(asyncio.run(_drive(plan, process)))


def _busy_seconds() -> float:
    """CPU seconds the whole machine spent busy so far (Linux /proc/stat; 0 elsewhere)."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    except OSError:
        return 0.0
    ticks = [int(f) for f in fields]
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)  # idle + iowait
    # guest time is counted in user time already
    return (sum(ticks[:8]) - idle) / _TICKS


_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _stat(pid: int) -> list[str]:
    text = Path(f"/proc/{pid}/stat").read_text()
    # The command name (field 2) may hold spaces; the fields after it may not.
    return text[text.rindex(")") + 2 :].split()


def tree_cpu_seconds(root: int) -> float:
    """User + system CPU of `root` and its descendants that are alive (Linux /proc;
    0 elsewhere)."""
    parents: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else ():
        if not entry.name.isdigit():
            continue
        try:
            fields = _stat(int(entry.name))
        except (OSError, ValueError):
            continue
        # After the name: state, ppid, ... utime (14th field overall) and stime.
        parents[int(entry.name)] = int(fields[1])
        cpu[int(entry.name)] = (int(fields[11]) + int(fields[12])) / _TICKS
    tree = {root}
    grew = True
    while grew:
        grew = False
        for pid, parent in parents.items():
            if parent in tree and pid not in tree:
                tree.add(pid)
                grew = True
    return sum(cpu.get(pid, 0.0) for pid in tree)


async def serving(
    stack: Stack, workers: int, secret: str, names: list[str], label: str
) -> dict[str, Any]:
    options = stack.options
    async with stack.serving(["--role", "api", "--workers", str(workers)]) as (server,):
        await asyncio.sleep(2.0)  # every worker past its start-up (SERVING is the first's)
        plan = LoadPlan(
            server.address,
            secret,
            options.warmup,
            options.seconds,
            options.connections,
            corpus.queries(f"scale-q-{label}", 200),
            names,
            label,
        )
        context = multiprocessing.get_context("spawn")
        results = context.Queue()
        processes = [
            context.Process(target=_load_process, args=(plan, p, results))
            for p in range(options.processes)
        ]
        for p in processes:
            p.start()
        await asyncio.sleep(options.warmup)
        server_cpu, busy, wall = server.cpu_seconds(), _busy_seconds(), time.monotonic()
        await asyncio.sleep(options.seconds)
        server_cpu = server.cpu_seconds() - server_cpu
        busy = _busy_seconds() - busy
        wall = time.monotonic() - wall
        outcomes = [await asyncio.to_thread(results.get, True, 120) for _ in processes]
        for p in processes:
            await asyncio.to_thread(p.join, 30)
    done: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    latencies: list[float] = []
    load_cpu = 0.0
    for outcome in outcomes:
        done.update(outcome["done"])
        failed.update(outcome["failed"])
        latencies.extend(outcome["latencies"])
        load_cpu += outcome["cpu_seconds"]
    calls = sum(done.values())
    if not calls:
        raise RuntimeError(f"no call succeeded ({dict(failed)}); see {server.log_path}")
    other = max(0.0, busy - server_cpu - load_cpu)
    return {
        "workers": workers,
        "calls": calls,
        "per_second": round(calls / options.seconds, 1),
        "by_call": dict(done),
        "failed": dict(failed),
        "p50_ms": round(percentile(latencies, 50) * 1000, 2),
        "p99_ms": round(percentile(latencies, 99) * 1000, 2),
        "cpu_ms_per_call": {
            "server": round(server_cpu / calls * 1000, 3),
            "load_generator": round(load_cpu / calls * 1000, 3),
            "everything_else": round(other / calls * 1000, 3),
        },
        "machine_busy_cores": round(busy / wall, 2),
    }


# -- the run --------------------------------------------------------------------------


def _median(values: list[float]) -> float:
    return float(statistics.median(values)) if values else 0.0


async def run(options: Options) -> dict[str, Any]:
    say = harness.Run(options.quiet)
    database_url = harness.create_database(options.database_url, "bench_scale")
    workdir = Path(tempfile.mkdtemp(prefix="engram-bench-scale-"))
    stack = Stack(options, database_url, workdir)
    catchups: list[dict[str, Any]] = []
    servings: list[dict[str, Any]] = []
    floors: dict[str, float] = {}
    try:
        async with stack.serving(["--role", "api"]) as (api,):
            for threads in options.index_threads:
                for r in range(options.rounds):
                    for indexers in (1, 2):
                        label = f"t{threads}-r{r}-n{indexers}"
                        say(
                            f"catch-up: {indexers} indexer(s), threads {threads}",
                        )
                        result = await catch_up(stack, api, indexers, threads, label)
                        say(f"  {result['per_second']} memories/s")
                        catchups.append(result)
            secret = await _tenant(api.address, stack.token, "serving")
            seeded = await _seed(
                api.address, secret, corpus.memories("scale-serving", 500), CATCHUP_SPACE
            )
            await _release_and_drain_with_indexer(stack)
        for r in range(options.rounds):
            for workers in (1, 2):
                say(f"serving: {workers} worker(s), round {r + 1}")
                result = await serving(stack, workers, secret, seeded, f"r{r}-w{workers}")
                say(f"  {result['per_second']} calls/s")
                servings.append(result)
        texts = corpus.memories("scale-floor", 768)
        for threads in sorted({1, 0}):
            floors[str(threads)] = round(await asyncio.to_thread(embedder_floor, texts, threads), 1)
    finally:
        harness.drop_database(options.database_url, database_url)
        await _drop_collection(options.qdrant_url, options.qdrant_grpc_port, stack.collection)
    return summarize(options, catchups, servings, floors, say.load_before)


async def _release_and_drain_with_indexer(stack: Stack) -> None:
    """Indexes the serving tenant's memories (Recall and Engage find them)."""
    async with stack.serving(["--role", "indexer"]):
        async with await psycopg.AsyncConnection.connect(stack.database_url, autocommit=True) as pg:
            deadline = time.monotonic() + DRAIN_LIMIT_SECONDS
            while True:
                cur = await pg.execute("SELECT count(*) FROM outbox WHERE processed_at IS NULL")
                row = await cur.fetchone()
                if row is not None and row[0] == 0:
                    return
                if time.monotonic() > deadline:
                    raise RuntimeError("the serving tenant's memories were never indexed")
                await asyncio.sleep(0.2)


async def _drop_collection(url: str, grpc_port: int, name: str) -> None:
    from qdrant_client import AsyncQdrantClient

    client = AsyncQdrantClient(
        url=url, prefer_grpc=True, grpc_port=grpc_port, check_compatibility=False
    )
    try:
        with contextlib.suppress(Exception):
            await client.delete_collection(name)
    finally:
        await client.close()


def summarize(
    options: Options,
    catchups: list[dict[str, Any]],
    servings: list[dict[str, Any]],
    floors: dict[str, float],
    load_before: list[float],
) -> dict[str, Any]:
    def median_of(rows: list[dict[str, Any]], key: str, **match: int) -> float:
        return _median([r[key] for r in rows if all(r[k] == v for k, v in match.items())])

    serving_one = median_of(servings, "per_second", workers=1)
    serving_two = median_of(servings, "per_second", workers=2)
    one_worker = [r for r in servings if r["workers"] == 1]
    cores = os.cpu_count() or 1
    # The most any number of workers could serve here: every core busy, each call
    # costing what it cost with one worker (server, load generator and the rest).
    per_call_ms = _median([sum(r["cpu_ms_per_call"].values()) for r in one_worker])
    ceiling = cores / (per_call_ms / 1000) if per_call_ms else 0.0
    catchup_ratios = {
        str(t): {
            "one": median_of(catchups, "per_second", index_threads=t, indexers=1),
            "two": median_of(catchups, "per_second", index_threads=t, indexers=2),
        }
        for t in options.index_threads
    }
    for pair in catchup_ratios.values():
        pair["ratio"] = round(pair["two"] / pair["one"], 2) if pair["one"] else 0.0
    return {
        "benchmark": "scale",
        "engram_version": __version__,
        "run_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "git_commit": git_commit(),
        "machine": harness.machine_facts(options.database_url, load_before),
        "options": {k: str(v) if isinstance(v, Path) else v for k, v in asdict(options).items()},
        "serving": {
            "runs": servings,
            "one_worker_per_second": serving_one,
            "two_workers_per_second": serving_two,
            "ratio": round(serving_two / serving_one, 2) if serving_one else 0.0,
            "cpu_ms_per_call_one_worker": per_call_ms,
            "ceiling_per_second": round(ceiling, 1),
            "ceiling_ratio": round(ceiling / serving_one, 2) if serving_one else 0.0,
        },
        "catch_up": {"runs": catchups, "by_threads": catchup_ratios, "embedder_floor": floors},
    }


def markdown(report: dict[str, Any]) -> str:
    machine = report["machine"]
    serving = report["serving"]
    catch = report["catch_up"]
    cores = machine["cpu_count"]
    lines = [
        "# Engram scale benchmark",
        "",
        f"Run {report['run_at']} on {cores} cores ({machine['cpu_model']}), Engram "
        f"{report['engram_version']}, Qdrant server backend. Load average before / after: "
        f"{machine['load_average']['before']} / {machine['load_average']['after']}.",
        "",
        "## Serving: one worker and two (`engram serve --role api --workers N`)",
        "",
        f"Mixed workload ({', '.join(CALLS)}, one of each in turn) from "
        f"{report['options']['processes']} client processes x "
        f"{report['options']['connections']} connections, {report['options']['seconds']:g} s "
        "measured after a warm-up, per run; runs alternate.",
        "",
        "| workers | calls/s | p50 | p99 | server CPU ms/call | load generator ms/call "
        "| everything else ms/call | busy cores | failed |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in serving["runs"]:
        cpu = r["cpu_ms_per_call"]
        lines.append(
            f"| {r['workers']} | {r['per_second']:,.1f} | {r['p50_ms']} ms | {r['p99_ms']} ms "
            f"| {cpu['server']} | {cpu['load_generator']} | {cpu['everything_else']} "
            f"| {r['machine_busy_cores']} | {sum(r['failed'].values())} |"
        )
    lines += [
        "",
        f"Two workers / one: **{serving['ratio']}x** (medians "
        f"{serving['two_workers_per_second']:,.1f} / {serving['one_worker_per_second']:,.1f}"
        f" calls/s) on {cores} cores. Ceiling: a call "
        f"costs {serving['cpu_ms_per_call_one_worker']:.2f} ms of CPU in all (server, load "
        f"generator, PostgreSQL, Redis, Qdrant and whatever else ran), so {cores} busy cores "
        f"serve at most {serving['ceiling_per_second']:,.1f} calls/s: "
        f"{serving['ceiling_ratio']}x one worker.",
        "",
        "## Index catch-up: one indexer and two (`engram serve --role indexer`)",
        "",
        "| index threads | indexers | memories | seconds | memories/s | indexer CPU s |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for r in catch["runs"]:
        threads = r["index_threads"] or f"0 ({cores})"
        lines.append(
            f"| {threads} | {r['indexers']} | {r['queued']:,} | {r['seconds']} "
            f"| {r['per_second']:,.1f} | {r['indexer_cpu_seconds']} |"
        )
    lines += ["", "| index threads | one indexer | two indexers | ratio |", "|---:|---:|---:|---:|"]
    for threads, pair in catch["by_threads"].items():
        label = threads if threads != "0" else f"0 ({cores})"
        lines.append(
            f"| {label} | {pair['one']:,.1f}/s | {pair['two']:,.1f}/s | **{pair['ratio']}x** |"
        )
    floors = catch["embedder_floor"]
    lines += [
        "",
        f"Floor: the embedder alone, in one process, embeds {floors.get('1', 0):,.1f} texts/s "
        f"on one core and {floors.get('0', 0):,.1f}/s on all {cores}; no number of indexers "
        "embeds faster than the second.",
        "",
        "| goal | target | measured | met |",
        "|---|---|---:|---|",
        f"| two workers / one | >= {GOAL_RATIO}x | {serving['ratio']}x "
        f"| {'yes' if serving['ratio'] >= GOAL_RATIO else 'no'} |",
    ]
    for threads, pair in catch["by_threads"].items():
        label = "every core" if threads == "0" else f"{threads} thread(s) each"
        lines.append(
            f"| two indexers / one ({label}) | >= {GOAL_RATIO}x | {pair['ratio']}x "
            f"| {'yes' if pair['ratio'] >= GOAL_RATIO else 'no'} |"
        )
    return "\n".join(lines) + "\n"
