"""`engram bench recall`: indexing throughput and Recall latency against in-process BM25.

One tenant is loaded with synthetic memories (people, projects, places, figures;
reproducible from --seed) while other tenants hold memories of their own. At each
size the tenant is topped up with BatchProposeMemories and the clock runs from the
first write until GetIndexStatus reports nothing pending: that is the indexing
throughput (memories/s until searchable). Then natural-language questions are
asked one at a time through gRPC (Recall, k=10, default consistency, the query
embedding included), each alternated with the same question put to a plain Okapi
BM25 index over the same memories in this process: the baseline.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from engram.v1 import lifecycle_pb2, recall_pb2, recall_pb2_grpc, types_pb2

from engram_server import __version__
from engram_server.bench import corpus, harness
from engram_server.bench.engram_side import EngramSide, EngramTenant
from engram_server.bench.stats import Latency
from engram_server.evaluation.bm25 import BM25

DEFAULT_OUT = "bench/results/recall.json"
SPACE = "kb"
SOURCE = "engram-bench"
ENGRAM_TABLES = ("memories", "memory_revisions", "audit_log", "outbox", "embedding_cache")
POLL_SECONDS = 0.25
DEPTH_SESSION_SIZE = 20
# Upper bound on waiting for the index to drain, per memory written (generous: a
# slow machine embeds ~100/s) plus a fixed minute.
DRAIN_SECONDS_PER_MEMORY = 0.05
GOAL_SIZE = 100_000


@dataclass(frozen=True)
class Options:
    server: harness.ServerChoice
    sizes: tuple[int, ...]
    neighbours: int
    neighbor_memories: int
    queries: int
    warmup: int
    batch_size: int
    k: int
    out: Path
    seed: int
    profile: Path | None
    quiet: bool
    # Also time each question in depth mode; the measured tenant's memories are
    # then written in sessions of DEPTH_SESSION_SIZE (depth mode widens sessions).
    depth: bool = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    harness.add_server_arguments(parser)
    parser.add_argument(
        "--sizes",
        default="10000,100000",
        type=harness.sizes,
        help="memories in the measured tenant at each measuring point (ascending)",
    )
    parser.add_argument("--neighbours", type=int, default=9, help="other tenants present")
    parser.add_argument(
        "--neighbor-memories", type=int, default=1000, help="memories each neighbour holds"
    )
    parser.add_argument("--queries", type=int, default=300, help="timed questions per size")
    parser.add_argument("--warmup", type=int, default=20, help="untimed questions first")
    parser.add_argument("--batch-size", type=int, default=250, help="proposals per batch")
    parser.add_argument("--k", type=int, default=10, help="hits per question")
    parser.add_argument("--seed", type=int, default=7, help="seed of memories and questions")
    parser.add_argument(
        "--profile",
        help="with a started server: record it with py-spy while the largest size is"
        " queried, as collapsed stacks in this file",
    )
    parser.add_argument(
        "--depth",
        action="store_true",
        help="also time every question in depth mode (RECALL_DEPTH_DEEP), right after the"
        f" standard Recall; the measured memories are written in sessions of {DEPTH_SESSION_SIZE}",
    )
    harness.add_output_arguments(parser, DEFAULT_OUT)


def options_from(args: argparse.Namespace) -> Options:
    if args.neighbours < 0 or args.neighbor_memories < 0:
        raise ValueError("--neighbours and --neighbor-memories must not be negative")
    if args.queries < 2 or args.warmup < 0:
        raise ValueError("--queries must be at least 2 and --warmup not negative")
    if not 1 <= args.batch_size <= 1000:
        raise ValueError("--batch-size must be between 1 and 1000")
    if not 1 <= args.k <= 100:
        raise ValueError("--k must be between 1 and 100")
    server = harness.server_choice(args)
    if args.profile and server.address:
        raise ValueError("--profile needs a server started by the bench (no --address)")
    if args.profile and not harness.py_spy():
        raise ValueError("--profile needs py-spy on PATH (pip install py-spy)")
    return Options(
        server=server,
        sizes=args.sizes,
        neighbours=args.neighbours,
        neighbor_memories=args.neighbor_memories,
        queries=args.queries,
        warmup=args.warmup,
        batch_size=args.batch_size,
        k=args.k,
        out=args.out,
        seed=args.seed,
        profile=Path(args.profile) if args.profile else None,
        quiet=args.quiet,
        depth=args.depth,
    )


def run_command(args: argparse.Namespace) -> int:
    options = options_from(args)
    return harness.run_and_write(options.out, run(options), markdown)


# --- measuring ------------------------------------------------------------------


@dataclass(frozen=True)
class Indexing:
    """One top-up: written with BatchProposeMemories, then drained by the indexer."""

    memories: int
    write_seconds: float
    searchable_seconds: float

    def to_json(self) -> dict[str, Any]:
        rate = self.memories / self.searchable_seconds if self.searchable_seconds > 0 else 0.0
        return {
            "memories": self.memories,
            "write_seconds": round(self.write_seconds, 3),
            "until_searchable_seconds": round(self.searchable_seconds, 3),
            "memories_per_second": round(rate, 1),
        }

    @property
    def rate(self) -> float:
        return self.memories / self.searchable_seconds if self.searchable_seconds > 0 else 0.0


@dataclass
class Level:
    memories: int
    indexing: Indexing
    engram: Latency
    bm25: Latency
    bm25_build_seconds: float
    mean_hits: float
    overlap_at_k: float
    extra: dict[str, Any] = field(default_factory=dict)

    def ratios(self) -> dict[str, float]:
        return {
            "p50": _ratio(self.engram.p50_ms, self.bm25.p50_ms),
            "p99": _ratio(self.engram.p99_ms, self.bm25.p99_ms),
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "memories": self.memories,
            "indexing": self.indexing.to_json(),
            "engram_recall": self.engram.to_json(),
            "bm25": self.bm25.to_json(),
            "bm25_build_seconds": round(self.bm25_build_seconds, 3),
            "ratio_engram_to_bm25": self.ratios(),
            "mean_hits": round(self.mean_hits, 2),
            "overlap_with_bm25_at_k": round(self.overlap_at_k, 3),
            **self.extra,
        }


def _ratio(numerator: float, denominator: float) -> float:
    return round(numerator / denominator, 2) if denominator > 0 else float("inf")


@dataclass
class _Tenant:
    """A bench tenant with its recall stub and the contents it holds, in write order."""

    engram: EngramTenant
    recall: recall_pb2_grpc.RecallServiceAsyncStub
    contents: list[str] = field(default_factory=list)
    session_size: int = 0  # > 0: memories in sessions of this many, in write order

    async def write(self, contents: list[str], batch_size: int) -> float:
        """Writes `contents` in batches; returns the seconds of the batch calls."""
        first = len(self.contents)
        requests = [
            lifecycle_pb2.BatchProposeMemoriesRequest(
                proposals=[
                    _proposal(text, self._session(first + i + j))
                    for j, text in enumerate(contents[i : i + batch_size])
                ]
            )
            for i in range(0, len(contents), batch_size)
        ]
        seconds = 0.0
        for request in requests:
            seconds += await self.engram.batch_propose(request)
        self.contents.extend(contents)
        return seconds

    def _session(self, position: int) -> str:
        return f"s{position // self.session_size}" if self.session_size else ""

    async def pending(self) -> int:
        return int((await self.status()).pending_dense_items)

    async def status(self) -> recall_pb2.IndexStatus:
        reply: recall_pb2.IndexStatus = await self.recall.GetIndexStatus(
            recall_pb2.GetIndexStatusRequest(), metadata=self.engram.metadata
        )
        return reply

    async def drained(self, wait_seconds: float) -> None:
        deadline = time.monotonic() + wait_seconds
        while await self.pending() > 0:
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"tenant {self.engram.tenant_id} still has memories to index"
                    f" after {wait_seconds:.0f}s"
                )
            await asyncio.sleep(POLL_SECONDS)

    async def ask(self, query: str, k: int, deep: bool = False) -> tuple[float, list[str]]:
        request = recall_pb2.RecallRequest(query=query, spaces=[SPACE], k=k)
        if deep:
            request.depth = recall_pb2.RECALL_DEPTH_DEEP
        start = time.perf_counter()
        response = await self.recall.Recall(request, metadata=self.engram.metadata)
        elapsed = time.perf_counter() - start
        return elapsed, [h.memory.name for h in response.hits]


def questions_per_size(seed: str, per_size: int, sizes: int) -> list[list[str]]:
    """`sizes` lists of `per_size` questions, no question in two lists: a question an
    earlier size asked would be answered from the server's query-vector cache and
    skip the query embedding."""
    pool = distinct_questions(seed, per_size * sizes)
    return [pool[i * per_size : (i + 1) * per_size] for i in range(sizes)]


def distinct_questions(seed: str, count: int) -> list[str]:
    """`count` different questions, in a reproducible order: a repeated question
    could be answered from a cache and would not measure the query embedding."""
    drawn = count
    while True:
        unique = list(dict.fromkeys(corpus.queries(seed, drawn)))
        if len(unique) >= count:
            return unique[:count]
        if drawn > 64 * count:
            raise ValueError(f"the question shapes give fewer than {count} distinct questions")
        drawn *= 2


def _proposal(text: str, session: str = "") -> lifecycle_pb2.MemoryProposal:
    return lifecycle_pb2.MemoryProposal(
        space=SPACE,
        kind=types_pb2.MEMORY_KIND_SEMANTIC,
        content=text,
        source=SOURCE,
        session=session,
    )


async def _load(tenant: _Tenant, contents: list[str], batch_size: int) -> Indexing:
    """Writes `contents`, then waits until the tenant has nothing left to index."""
    start = time.perf_counter()
    write_seconds = await tenant.write(contents, batch_size)
    await tenant.drained(_wait_seconds(len(contents)))
    return Indexing(len(contents), write_seconds, time.perf_counter() - start)


def _wait_seconds(count: int) -> float:
    return 60.0 + DRAIN_SECONDS_PER_MEMORY * count


async def run(options: Options) -> dict[str, Any]:
    say = harness.Run(options.quiet)
    started = (
        "`engram serve` started by the bench in a child process (default settings:"
        " in-process MiniLM int8 embeddings, embedded vector index), on a fresh"
        " database of the same PostgreSQL server; the client is this process,"
        " calling it through grpc.aio over loopback"
    )
    async with harness.bench_server(options.server, "engram_bench_recall", started, say) as served:
        side = EngramSide(served.address, served.platform_key)
        try:
            levels, neighbour_indexing, status = await _measure(
                options, side, served.database_url, served.pid, say
            )
        finally:
            if options.server.address:
                with contextlib.suppress(grpc.aio.AioRpcError):
                    await side.delete_tenants()
            await side.close()
    report_json: dict[str, Any] = {
        "benchmark": "recall",
        "engram_version": __version__,
        "git_commit": harness.git_commit(),
        "started_at": say.started(),
        "duration_seconds": round(say.seconds(), 1),
        "machine": say.machine(options.server.database_url),
        "server": {
            "embedding_model": status.embedding_model,
            "embedding_dimension": status.embedding_dimension,
            "vector_backend": status.vector_backend,
        },
        "config": {
            "sizes": list(options.sizes),
            "neighbours": options.neighbours,
            "neighbor_memories": options.neighbor_memories,
            "queries": options.queries,
            "warmup": options.warmup,
            "batch_size": options.batch_size,
            "k": options.k,
            "seed": options.seed,
            **({"depth_session_size": DEPTH_SESSION_SIZE, "depth": True} if options.depth else {}),
        },
        "method": _method(served.mode),
        "neighbour_indexing": neighbour_indexing.to_json() if neighbour_indexing else None,
        "levels": [lv.to_json() for lv in levels],
        "goals": evaluate_goals(levels),
    }
    return report_json


async def _measure(
    options: Options,
    side: EngramSide,
    engram_url: str,
    server_pid: int,
    say: Callable[[str], None],
) -> tuple[list[Level], Indexing | None, recall_pb2.IndexStatus]:
    recall_stub = recall_pb2_grpc.RecallServiceStub(side.channel)
    measured = _Tenant(
        await side.new_tenant("measured"),
        recall_stub,
        session_size=DEPTH_SESSION_SIZE if options.depth else 0,
    )
    # The neighbours are written first and all at once, so that the indexer has one
    # tenant to drain while the measured tenant is loaded, as on a quiet shared server.
    neighbours: list[_Tenant] = []
    start = time.perf_counter()
    for k in range(options.neighbours):
        neighbour = _Tenant(await side.new_tenant(f"neighbour{k + 1}"), recall_stub)
        neighbours.append(neighbour)
        contents = corpus.memories(f"{options.seed}-n{k + 1}", options.neighbor_memories)
        say(f"neighbour {k + 1}/{options.neighbours}: {len(contents):,} memories")
        await neighbour.write(contents, options.batch_size)
    neighbour_indexing: Indexing | None = None
    if neighbours and options.neighbor_memories:
        total = options.neighbours * options.neighbor_memories
        for neighbour in neighbours:
            await neighbour.drained(_wait_seconds(total))
        neighbour_indexing = Indexing(total, 0.0, time.perf_counter() - start)
        say(f"neighbours searchable: {neighbour_indexing.rate:,.0f} memories/s")

    all_contents = corpus.memories(f"{options.seed}-m", options.sizes[-1])
    question_sets = questions_per_size(
        f"{options.seed}-q", options.warmup + options.queries, len(options.sizes)
    )
    levels: list[Level] = []
    for size, questions in zip(options.sizes, question_sets, strict=True):
        top_up = all_contents[len(measured.contents) : size]
        say(f"{size:,}: writing {len(top_up):,} memories and waiting until searchable")
        indexing = await _load(measured, top_up, options.batch_size)
        say(f"{size:,}: {indexing.rate:,.0f} memories/s until searchable")
        if engram_url:
            # Autovacuum and a checkpoint after the bulk load would land in the timed calls.
            harness.settle(options.server.database_url, {engram_url: ENGRAM_TABLES})
        build_start = time.perf_counter()
        bm25 = BM25([(str(i), text) for i, text in enumerate(measured.contents)])
        build_seconds = time.perf_counter() - build_start
        # The first Recall after a bulk load waits for anything the server does once
        # the backlog is empty (the embedded index builds its search graphs then and
        # holds the process meanwhile): timed on its own, outside the figures.
        first_seconds, _ = await measured.ask(f"settle {size}", options.k)
        say(f"{size:,}: first Recall after the load took {first_seconds:.2f} s")
        profile = options.profile if size == options.sizes[-1] else None
        say(f"{size:,}: {options.queries} questions, Recall and BM25 alternating")
        with harness.profiling(server_pid, profile):
            level = await _questions(options, measured, bm25, questions, size, indexing)
        level.bm25_build_seconds = build_seconds
        level.extra["first_recall_after_load_seconds"] = round(first_seconds, 3)
        levels.append(level)
        say(
            f"{size:,}: Recall p50 {level.engram.p50_ms:.2f} ms p99 {level.engram.p99_ms:.2f} ms;"
            f" BM25 p50 {level.bm25.p50_ms:.2f} ms p99 {level.bm25.p99_ms:.2f} ms"
        )
    return levels, neighbour_indexing, await measured.status()


async def _questions(
    options: Options,
    tenant: _Tenant,
    bm25: BM25,
    questions: list[str],
    size: int,
    indexing: Indexing,
) -> Level:
    """Asks every question of Engram then of BM25, one after the other.

    Alternating puts each Recall and its baseline under the same background load.
    """
    index_of = {name: i for i, name in enumerate(tenant.engram.names)}
    engram: list[float] = []
    baseline: list[float] = []
    deep: list[float] = []
    hits = 0
    overlap = 0.0
    for n, question in enumerate(questions):
        seconds, names = await tenant.ask(question, options.k)
        start = time.perf_counter()
        best = bm25.search(question, options.k)
        bm25_seconds = time.perf_counter() - start
        deep_seconds = (await tenant.ask(question, options.k, True))[0] if options.depth else 0.0
        if n < options.warmup:
            continue
        engram.append(seconds)
        deep.append(deep_seconds)
        baseline.append(bm25_seconds)
        hits += len(names)
        found = {str(index_of[name]) for name in names if name in index_of}
        overlap += len(found & set(best)) / options.k
    count = len(engram)
    level = Level(
        memories=size,
        indexing=indexing,
        engram=Latency.of(engram),
        bm25=Latency.of(baseline),
        bm25_build_seconds=0.0,
        mean_hits=hits / count,
        overlap_at_k=overlap / count,
    )
    if options.depth:
        depth = Latency.of(deep)
        level.extra["depth_recall"] = depth.to_json()
        level.extra["ratio_depth_to_standard"] = {
            "p50": _ratio(depth.p50_ms, level.engram.p50_ms),
            "p99": _ratio(depth.p99_ms, level.engram.p99_ms),
        }
    return level


# --- goals and report -----------------------------------------------------------


def evaluate_goals(levels: list[Level]) -> list[dict[str, Any]]:
    largest = levels[-1]
    at = f"at {largest.memories:,} memories" + (
        "" if largest.memories >= GOAL_SIZE else f" (the goal is stated at {GOAL_SIZE:,})"
    )
    slowest = min(levels, key=lambda lv: lv.indexing.rate)
    return [
        {
            "goal": "Recall p50",
            "target": "<= 10 ms at 100k",
            "measured": largest.engram.p50_ms,
            "unit": "ms",
            "over": at,
            "met": largest.engram.p50_ms <= 10.0,
        },
        {
            "goal": "Recall p99",
            "target": "<= 30 ms at 100k",
            "measured": largest.engram.p99_ms,
            "unit": "ms",
            "over": at,
            "met": largest.engram.p99_ms <= 30.0,
        },
        {
            "goal": "Indexing throughput",
            "target": ">= 300 memories/s",
            "measured": round(slowest.indexing.rate, 1),
            "unit": "memories/s",
            "over": "slowest top-up of the measured tenant",
            "met": slowest.indexing.rate >= 300.0,
        },
    ]


def markdown(report: dict[str, Any]) -> str:
    machine = report["machine"]
    pg = machine["postgres"]
    load = machine["load_average"]
    server = report["server"]
    config = report["config"]
    lines = [
        "# Engram recall benchmark",
        "",
        f"Run {report['started_at']} on {machine['cpu_count']} cores ({machine['cpu_model']}),"
        f" {machine['memory_gb']} GB RAM, Python {machine['python']}, PostgreSQL"
        f" {pg['server_version']}, Engram {report['engram_version']}"
        + (f" at {report['git_commit'][:12]}" if report.get("git_commit") else "")
        + f"; embeddings {server['embedding_model']} ({server['embedding_dimension']} dims),"
        f" vector index {server['vector_backend']}.",
        f"Load average (1 min) before / after: {_first(load['before'])} / {_first(load['after'])}.",
        "",
        f"Server: {report['method']['server']}",
        "",
        f"Corpus: {report['method']['corpus']} The measured tenant grows to"
        f" {', '.join(f'{s:,}' for s in config['sizes'])} memories;"
        f" {config['neighbours']} other tenants hold {config['neighbor_memories']:,} each.",
        "",
        f"Baseline: {report['method']['baseline']}",
        "",
        "| memories | indexing (until searchable) | Recall p50 | Recall p99 | BM25 p50 |"
        " BM25 p99 | ratio p50 | ratio p99 | overlap@k |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for lv in report["levels"]:
        e, b, r = lv["engram_recall"], lv["bm25"], lv["ratio_engram_to_bm25"]
        ix = lv["indexing"]
        lines.append(
            f"| {lv['memories']:,} | {ix['memories_per_second']:,.0f}/s"
            f" ({ix['memories']:,} in {ix['until_searchable_seconds']:.0f} s)"
            f" | {e['p50_ms']:.2f} ms | {e['p99_ms']:.2f} ms | {b['p50_ms']:.2f} ms"
            f" | {b['p99_ms']:.2f} ms | {r['p50']:.2f}x | {r['p99']:.2f}x"
            f" | {lv['overlap_with_bm25_at_k']:.2f} |"
        )
    for lv in report["levels"]:
        if "depth_recall" in lv:
            d, r = lv["depth_recall"], lv["ratio_depth_to_standard"]
            lines.append(
                f"| {lv['memories']:,}, depth mode | | {d['p50_ms']:.2f} ms | {d['p99_ms']:.2f} ms"
                f" | | | {r['p50']:.2f}x standard | {r['p99']:.2f}x standard | |"
            )
    if config.get("depth"):
        lines += [
            "",
            "Depth mode (RECALL_DEPTH_DEEP) is asked right after the standard Recall and"
            " BM25 for every question; the measured tenant's memories are written in"
            f" sessions of {config['depth_session_size']} (depth mode widens sessions), for"
            " both rows.",
        ]
    firsts = [lv.get("first_recall_after_load_seconds") for lv in report["levels"]]
    if all(first is not None for first in firsts):
        lines += [
            "",
            "First Recall after each load (untimed above; it waits for the embedded"
            " index's search-graph build, which holds the server process once the"
            " backlog is empty): "
            + ", ".join(
                f"{first:.2f} s at {lv['memories']:,}"
                for first, lv in zip(firsts, report["levels"], strict=True)
            )
            + ".",
        ]
    neighbours = report.get("neighbour_indexing")
    if neighbours:
        lines += [
            "",
            f"Neighbour tenants: {neighbours['memories']:,} memories searchable at"
            f" {neighbours['memories_per_second']:,.0f}/s.",
        ]
    lines += ["", "| goal | target | measured | over | met |", "|---|---|---:|---|---|"]
    for goal in report["goals"]:
        value = goal["measured"]
        shown = f"{value:.2f} ms" if goal["unit"] == "ms" else f"{value:,.0f}/s"
        lines.append(
            f"| {goal['goal']} | {goal['target']} | {shown} | {goal['over']} |"
            f" {'yes' if goal['met'] else 'no'} |"
        )
    lines += [
        "",
        "Ratio = Engram / BM25 (how many times slower than the in-process baseline;"
        " Engram's figure includes gRPC, authentication, the query embedding, both"
        " index legs, hydration from PostgreSQL and ranking). Overlap@k = share of"
        " Engram's top k that BM25's top k also holds (a sanity check that both"
        " answer the question, not a quality measure: see `engram eval`).",
        "",
        f"Method: {report['method']['measurement']}",
        "",
    ]
    return "\n".join(lines)


def _first(values: list[float]) -> str:
    return f"{values[0]:.2f}" if values else "n/a"


def _method(server_mode: str) -> dict[str, str]:
    return {
        "server": server_mode + ".",
        "corpus": (
            "synthetic team-memory sentences in 20 shapes (people, projects, places,"
            " tools, customers, dates and figures; `engram_server.bench.corpus`,"
            " reproducible from the seed), all distinct, in one space; questions in 18"
            " natural-language shapes over the same vocabulary, none copied from a memory."
        ),
        "baseline": (
            "`engram_server.evaluation.bm25.BM25` (Okapi BM25, k1 1.2, b 0.75, English"
            " stop words) over the measured tenant's memories in this process: no"
            " network, no embedding, no filter, no database; its build time is not counted."
        ),
        "measurement": (
            "the measured tenant is topped up with BatchProposeMemories; indexing"
            " throughput = memories written / seconds from the first write until"
            " GetIndexStatus reports no pending item (polled every"
            f" {POLL_SECONDS} s). Then VACUUM (ANALYZE) and CHECKPOINT on the server's"
            " database, one untimed Recall (reported separately), and every question"
            " (all distinct, across sizes too, so none is answered from the server's query-vector"
            " cache) is asked sequentially from one client: a"
            " Recall (k as configured, default consistency = eventual, access tracking"
            " on) timed round trip through grpc.aio, then the same question to BM25,"
            " alternating; warm-up questions are not counted."
        ),
    }
