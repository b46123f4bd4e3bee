"""`engram bench lifecycle`: the governed write path and reads against their floor.

One tenant is measured while other tenants hold memories too. At each size the
tenant is topped up with BatchProposeMemories (its throughput), then GetMemory and
ListMemories (first page and a deep page) are timed, then single ProposeMemory
calls. The floor does the same with the same rows through plain psycopg, in a
scratch database of the same PostgreSQL server, alternating with Engram call by
call so that both sides see the same machine.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import secrets
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import grpc
from engram.v1 import lifecycle_pb2

from engram_server import __version__
from engram_server.bench import harness, report
from engram_server.bench.engram_side import (
    EngramSide,
    EngramTenant,
    batch_requests,
    proposal,
)
from engram_server.bench.floor import FloorDatabase
from engram_server.bench.report import Level
from engram_server.bench.stats import Latency, Throughput
from engram_server.bench.workload import Item, Workload
from engram_server.store.migrate import migrate

DEFAULT_OUT = "bench/results/lifecycle.json"
BATCH_SIZE = 100
PAGE_SIZE = 50
# Longest wait for the indexer to go idle before one timed write.
IDLE_WAIT_SECONDS = 120.0
IDLE_POLL_SECONDS = 0.01
ENGRAM_TABLES = ("memories", "memory_revisions", "audit_log", "outbox")
FLOOR_TABLES = ("memories", "audit_log")


@dataclass(frozen=True)
class Options:
    server: harness.ServerChoice
    sizes: tuple[int, ...]
    tenants: int
    samples: int
    neighbor_memories: int
    out: Path
    seed: int
    quiet: bool
    index_wait_seconds: float
    idle_batches: int
    clients: int
    concurrent_batches: int

    @property
    def warmup(self) -> int:
        return min(50, max(5, self.samples // 10))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    harness.add_server_arguments(parser)
    parser.add_argument(
        "--sizes",
        default="10000,100000",
        type=harness.sizes,
        help="memories in the measured tenant at each measuring point (ascending)",
    )
    parser.add_argument(
        "--tenants", type=int, default=3, help="tenants in all: the measured one and neighbours"
    )
    parser.add_argument("--samples", type=int, default=500, help="timed calls per latency figure")
    parser.add_argument(
        "--neighbor-memories", type=int, default=2000, help="memories each neighbour tenant holds"
    )
    parser.add_argument(
        "--index-wait-seconds",
        type=float,
        default=1800.0,
        help="longest wait for the search index to catch up after each bulk load",
    )
    parser.add_argument(
        "--idle-batches",
        type=int,
        default=20,
        help="BatchProposeMemories calls timed with the indexer idle, at each size",
    )
    parser.add_argument(
        "--clients",
        type=int,
        default=4,
        help="concurrent clients (and floor connections) of the concurrent batch figure",
    )
    parser.add_argument(
        "--concurrent-batches",
        type=int,
        default=40,
        help="BatchProposeMemories calls made by the concurrent clients, at each size",
    )
    parser.add_argument("--seed", type=int, default=7, help="seed of the random Get targets")
    harness.add_output_arguments(parser, DEFAULT_OUT)


def options_from(args: argparse.Namespace) -> Options:
    if args.tenants < 1:
        raise ValueError("--tenants must be at least 1")
    if args.samples < 2:
        raise ValueError("--samples must be at least 2")
    if args.neighbor_memories < 0:
        raise ValueError("--neighbor-memories must not be negative")
    server = harness.server_choice(args)
    smallest_page = min(args.sizes) // 2
    if smallest_page < PAGE_SIZE:
        raise ValueError(f"sizes must be at least {2 * PAGE_SIZE} for the deep-page figure")
    if args.idle_batches < 1:
        raise ValueError("--idle-batches must be at least 1")
    if args.clients < 1:
        raise ValueError("--clients must be at least 1")
    if args.concurrent_batches < args.clients:
        raise ValueError("--concurrent-batches must be at least --clients")
    # Each size writes its singles and idle batches on top of the size itself;
    # the next size must still need a top-up.
    extra = 2 * (min(50, max(5, args.samples // 10)) + args.samples)
    extra += (args.idle_batches + args.concurrent_batches) * BATCH_SIZE
    for smaller, larger in zip(args.sizes, args.sizes[1:], strict=False):
        if larger - smaller <= extra:
            raise ValueError(
                f"sizes {smaller} and {larger} are too close: each size adds {extra}"
                " memories of its own (single proposals, idle and concurrent batches)"
            )
    return Options(
        server=server,
        sizes=args.sizes,
        tenants=args.tenants,
        samples=args.samples,
        neighbor_memories=args.neighbor_memories,
        out=args.out,
        seed=args.seed,
        quiet=args.quiet,
        index_wait_seconds=args.index_wait_seconds,
        idle_batches=args.idle_batches,
        clients=args.clients,
        concurrent_batches=args.concurrent_batches,
    )


def run_command(args: argparse.Namespace) -> int:
    options = options_from(args)
    result = asyncio.run(run(options))
    harness.write_results(options.out, result.report, result.markdown)
    return 0


@dataclass(frozen=True)
class Result:
    report: dict[str, Any]
    markdown: str


async def run(options: Options) -> Result:
    say = harness.Run(options.quiet)
    tag = secrets.token_hex(4)
    started = (
        "`engram serve` started by the bench in a child process, on a fresh"
        " database of the same PostgreSQL server; the client is a separate process"
        " calling it through grpc.aio over loopback"
    )
    async with contextlib.AsyncExitStack() as stack:
        floor_url = stack.enter_context(
            harness.scratch_database(options.server.database_url, "engram_bench_floor")
        )
        migrate(floor_url)
        floor = FloorDatabase(floor_url)
        stack.callback(floor.close)
        served = await stack.enter_async_context(
            harness.bench_server(options.server, "engram_bench", started, say)
        )
        side = EngramSide(served.address, served.platform_key)
        try:
            levels = await _measure(options, side, floor, served.database_url, floor_url, tag, say)
        finally:
            if options.server.address:
                with contextlib.suppress(grpc.aio.AioRpcError):
                    await side.delete_tenants()
            await side.close()
    machine = say.machine(options.server.database_url)
    report_json: dict[str, Any] = {
        "benchmark": "lifecycle",
        "engram_version": __version__,
        "git_commit": harness.git_commit(),
        "started_at": say.started(),
        "duration_seconds": round(say.seconds(), 1),
        "machine": machine,
        "config": {
            "sizes": list(options.sizes),
            "tenants": options.tenants,
            "neighbor_memories": options.neighbor_memories,
            "samples": options.samples,
            "warmup": options.warmup,
            "batch_size": BATCH_SIZE,
            "idle_batches": options.idle_batches,
            "page_size": PAGE_SIZE,
            "seed": options.seed,
        },
        "method": _method(
            served.mode, bool(served.database_url), options.idle_batches, options.clients
        ),
        "levels": [lv.to_json() for lv in levels],
        "goals": report.evaluate_goals(levels),
    }
    return Result(report_json, report.markdown(report_json, levels))


async def _measure(
    options: Options,
    side: EngramSide,
    floor: FloorDatabase,
    engram_url: str,
    floor_url: str,
    tag: str,
    say: Callable[[str], None],
) -> list[Level]:
    measured = await side.new_tenant("measured")
    floor.add_tenant(measured.tenant_id)
    for k in range(options.tenants - 1):
        neighbour = await side.new_tenant(f"neighbour{k + 1}")
        floor.add_tenant(neighbour.tenant_id)
        items = Workload(f"{tag}-n{k + 1}").items(0, options.neighbor_memories)
        if items:
            say(f"neighbour {neighbour.tenant_id}: {len(items):,} memories")
            for request in batch_requests(items, BATCH_SIZE):
                await neighbour.batch_propose(request)
            for i in range(0, len(items), BATCH_SIZE):
                floor.insert_batch(neighbour.tenant_id, items[i : i + BATCH_SIZE])

    async def indexer_idle() -> None:
        """Returns once the measured tenant has nothing waiting to be indexed."""
        _, idle = await side.wait_indexed(IDLE_WAIT_SECONDS, [measured], IDLE_POLL_SECONDS)
        if not idle:
            raise RuntimeError(f"the search index did not catch up in {IDLE_WAIT_SECONDS:.0f} s")

    pair = _Pair(
        options, measured, floor, random.Random(options.seed), indexer_idle, side.round_trip
    )
    workload = Workload(f"{tag}-m")
    written = 0  # memories in the measured tenant, identical on both sides
    levels: list[Level] = []
    for size in options.sizes:
        level = Level(memories=size)
        top_up = workload.items(written, size - written)
        say(f"{size:,}: BatchProposeMemories x{len(top_up):,} / batched inserts")
        engram_batches, floor_batches = await pair.batches(top_up)
        level.engram_throughput["batch_propose_indexing"] = engram_batches
        level.floor_throughput["insert_batch_indexing"] = floor_batches
        written = size
        say(f"{size:,}: waiting for the search index to catch up")
        level.index_wait_seconds, level.index_caught_up = await side.wait_indexed(
            options.index_wait_seconds
        )
        to_settle: dict[str, tuple[str, ...]] = {floor_url: FLOOR_TABLES}
        if engram_url:
            to_settle[engram_url] = ENGRAM_TABLES
        harness.settle(options.server.database_url, to_settle)
        level.first_recall_seconds = await side.first_recall(measured)
        say(f"{size:,}: first Recall after the load took {level.first_recall_seconds:.2f} s")

        say(f"{size:,}: GetMemory / primary-key SELECT")
        level.engram_latency["get"], level.floor_latency["get"] = await pair.gets()
        say(f"{size:,}: bare round trips (gRPC health check / SELECT 1)")
        (
            level.engram_latency["round_trip"],
            level.floor_latency["round_trip"],
        ) = await pair.round_trips()
        say(f"{size:,}: ListMemories / keyset SELECT")
        first = await pair.pages("", None)
        level.engram_latency["list_first_page"], level.floor_latency["list_first_page"] = first
        token = await measured.token_at(size // 2)
        position = floor.position(measured.tenant_id, size // 2 - 1)
        deep = await pair.pages(token, position)
        level.engram_latency["list_deep_page"], level.floor_latency["list_deep_page"] = deep

        count = options.warmup + options.samples
        singles = workload.items(written, count)
        written += len(singles)
        say(f"{size:,}: ProposeMemory / single insert x{options.samples}, indexer busy")
        busy = await pair.singles(singles, idle=False)
        level.engram_latency["propose_indexing"], level.floor_latency["insert_one_indexing"] = busy
        singles = workload.items(written, count)
        written += len(singles)
        say(f"{size:,}: ProposeMemory / single insert x{options.samples}, indexer idle")
        level.engram_latency["propose"], level.floor_latency["insert_one"] = await pair.singles(
            singles, idle=True
        )
        idle_batches = workload.items(written, options.idle_batches * BATCH_SIZE)
        written += len(idle_batches)
        say(f"{size:,}: BatchProposeMemories x{options.idle_batches}, indexer idle")
        engram_batches, floor_batches = await pair.batches(idle_batches, idle=True)
        level.engram_throughput["batch_propose"] = engram_batches
        level.floor_throughput["insert_batch"] = floor_batches
        concurrent = workload.items(written, options.concurrent_batches * BATCH_SIZE)
        written += len(concurrent)
        say(
            f"{size:,}: BatchProposeMemories x{options.concurrent_batches}"
            f" from {options.clients} concurrent clients"
        )
        engram_batches, floor_batches = await pair.concurrent_batches(concurrent, options.clients)
        level.engram_throughput["batch_propose_concurrent"] = engram_batches
        level.floor_throughput["insert_batch_concurrent"] = floor_batches
        levels.append(level)
        say(
            f"{size:,}: propose p50 {level.engram_latency['propose'].p50_ms:.2f} ms"
            f" (floor {level.floor_latency['insert_one'].p50_ms:.2f}),"
            f" batch {level.engram_throughput['batch_propose'].items_per_second:,.0f}/s"
            f" (floor {level.floor_throughput['insert_batch'].items_per_second:,.0f}/s),"
            f" get p50 {level.engram_latency['get'].p50_ms:.2f} ms"
            f" (floor {level.floor_latency['get'].p50_ms:.2f})"
        )
    return levels


class _Pair:
    """Runs each operation on both sides in alternation, call by call.

    The machine's background load drifts; alternating puts the Engram call and
    its floor call under the same conditions, so their ratio stays meaningful
    even when the absolute figures move.
    """

    def __init__(
        self,
        options: Options,
        tenant: EngramTenant,
        floor: FloorDatabase,
        rng: random.Random,
        indexer_idle: Callable[[], Awaitable[None]],
        round_trip: Callable[[], Awaitable[float]],
    ) -> None:
        self.indexer_idle = indexer_idle
        self.round_trip = round_trip
        self.warmup = options.warmup
        self.samples = options.samples
        self.tenant = tenant
        self.floor = floor
        self.rng = rng
        self.floor_ids: list[uuid.UUID] = []

    async def batches(self, items: list[Item], idle: bool = False) -> tuple[Throughput, Throughput]:
        """With `idle`, each Engram call starts once the indexer has caught up with
        the previous one (the wait is not timed)."""
        # Requests are built before any clock starts: their cost is the client's.
        requests = batch_requests(items, BATCH_SIZE)
        engram: list[float] = []
        floor: list[float] = []
        for i, request in enumerate(requests):
            if idle:
                await self.indexer_idle()
            engram.append(await self.tenant.batch_propose(request))
            ids, seconds = self.floor.insert_batch(
                self.tenant.tenant_id, items[i * BATCH_SIZE : (i + 1) * BATCH_SIZE]
            )
            self.floor_ids.extend(ids)
            floor.append(seconds)
        return Throughput.of(len(items), engram), Throughput.of(len(items), floor)

    async def concurrent_batches(
        self, items: list[Item], clients: int
    ) -> tuple[Throughput, Throughput]:
        """Throughput over wall time with `clients` calls in flight at once (each
        client sends its next batch when its last one is answered), then the floor
        the same way over as many connections. The indexer is idle when each side
        starts and busy with the side's own writes after that."""
        requests = batch_requests(items, BATCH_SIZE)
        await self.indexer_idle()
        seconds: list[float] = []

        async def client(share: list[lifecycle_pb2.BatchProposeMemoriesRequest]) -> None:
            for request in share:
                seconds.append(await self.tenant.batch_propose(request))

        start = time.perf_counter()
        await asyncio.gather(*(client(requests[k::clients]) for k in range(clients)))
        engram = Throughput.over_wall(len(items), seconds, time.perf_counter() - start)
        chunks = [items[i : i + BATCH_SIZE] for i in range(0, len(items), BATCH_SIZE)]
        ids, floor_seconds, wall = await asyncio.to_thread(
            self.floor.insert_batches_concurrently, self.tenant.tenant_id, chunks, clients
        )
        self.floor_ids.extend(ids)
        return engram, Throughput.over_wall(len(items), floor_seconds, wall)

    async def singles(self, items: list[Item], idle: bool = False) -> tuple[Latency, Latency]:
        requests = [lifecycle_pb2.ProposeMemoryRequest(proposal=proposal(it)) for it in items]
        engram: list[float] = []
        floor: list[float] = []
        for request, item in zip(requests, items, strict=True):
            if idle:
                await self.indexer_idle()
            engram.append(await self.tenant.propose(request))
            memory_id, seconds = self.floor.insert_one(self.tenant.tenant_id, item)
            self.floor_ids.append(memory_id)
            floor.append(seconds)
        return self._latencies(engram, floor)

    async def gets(self) -> tuple[Latency, Latency]:
        engram: list[float] = []
        floor: list[float] = []
        for _ in range(self.warmup + self.samples):
            engram.append(await self.tenant.get(self.rng.choice(self.tenant.names)))
            floor.append(self.floor.get(self.tenant.tenant_id, self.rng.choice(self.floor_ids)))
        return self._latencies(engram, floor)

    async def round_trips(self) -> tuple[Latency, Latency]:
        engram: list[float] = []
        floor: list[float] = []
        for _ in range(self.warmup + self.samples):
            engram.append(await self.round_trip())
            floor.append(self.floor.round_trip())
        return self._latencies(engram, floor)

    async def pages(
        self, token: str, position: tuple[datetime, uuid.UUID] | None
    ) -> tuple[Latency, Latency]:
        # Engram asks for one row more than the page to know whether another follows.
        limit = PAGE_SIZE + 1
        engram: list[float] = []
        floor: list[float] = []
        for _ in range(self.warmup + self.samples):
            engram.append(await self.tenant.list_page(PAGE_SIZE, token))
            floor.append(self.floor.list_page(self.tenant.tenant_id, limit, position))
        return self._latencies(engram, floor)

    def _latencies(self, engram: list[float], floor: list[float]) -> tuple[Latency, Latency]:
        return Latency.of(engram[self.warmup :]), Latency.of(floor[self.warmup :])


def _method(
    server_mode: str, settled_engram: bool, idle_batches: int, clients: int
) -> dict[str, str]:
    return {
        "server": server_mode + ".",
        "floor": (
            "plain psycopg 3 (sync, one connection; writes in explicit transactions,"
            " reads as single autocommit statements) on a scratch database of the same"
            " PostgreSQL server with Engram's real migrations applied, written as a"
            " superuser so row-level security is not in play; the same rows as Engram"
            " (same content, spaces, tags, tenants). Single: one INSERT into memories +"
            " one INSERT of the two audit rows (PROPOSED, PROPOSED->ACTIVE) per commit."
            f" Batched: {BATCH_SIZE} memories + {2 * BATCH_SIZE} audit rows per commit"
            " (executemany, pipelined). Get: one primary-key SELECT of the same columns."
            f" List: the same keyset query for {PAGE_SIZE} + 1 rows, newest first."
            " Bare round trip: `SELECT 1`, against a gRPC health check on the Engram side"
            " (no authentication, no database): what every call costs before its work."
        ),
        "measurement": (
            "all calls sequential from one client, alternating one by one between Engram"
            " and the floor so both run under the same background load; each latency"
            " figure after warm-up calls that are not counted; Get targets drawn at"
            " random from all of the tenant's memories; the deep page starts half-way"
            " through the tenant (page token reached by walking 1,000-memory pages);"
            " throughput is memories / summed time of the batch calls. The server embeds"
            " every write for its search index in the background, on the same two cores:"
            " write figures are therefore taken twice, 'indexer busy' (each call runs while"
            " the indexer works on the previous writes: the batches that topped the tenant"
            " up to the size shown, then single proposals back to back) and plain, with"
            " the indexer idle when each call starts (the bench waits, untimed, until the"
            f" tenant has nothing pending; {idle_batches} batches and the single proposals"
            " after the reads); the goals are checked against the plain figures, the"
            " lifecycle path's own cost. Single proposals and the idle batches are timed"
            " after the reads, so a size's tenant holds slightly more memories by then."
            f" Concurrent batches: {clients} clients each send their next batch when"
            " their last is answered (the indexer idle at the start, then busy with"
            f" these writes), and the floor inserts the same batches over {clients}"
            " connections the same way; that throughput is memories / wall time."
        ),
        "settle": (
            "after each top-up, the bench waits until the server's search index has"
            " caught up with the outbox (RecallService.GetIndexStatus of every tenant"
            " reports nothing pending; the wait is in index_wait_seconds), then runs"
            " VACUUM (ANALYZE) and CHECKPOINT on "
            + (
                "both databases"
                if settled_engram
                else "the floor database (the running server's database is not the"
                " bench's to touch)"
            )
            + ", so neither the indexing backlog of the bulk load nor autovacuum or a"
            " checkpoint land inside the timed calls; then one untimed Recall in the"
            " measured tenant (first_recall_seconds), which waits for the embedded"
            " search index to finish building its graphs for the new points (it holds"
            " the server process while it builds)."
        ),
    }
