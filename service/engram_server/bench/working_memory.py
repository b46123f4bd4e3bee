"""`engram bench working-memory`: Engage latency and AppendMessage throughput.

Engage: one tenant is loaded with synthetic memories (BatchProposeMemories, then
waiting until GetIndexStatus reports nothing pending); at each size, questions are
sent one at a time as Engage turns (sessions of `--turns-per-session` turns, so the
per-session dedup is exercised), each alternated with a plain Recall of the same
question: the baseline measured in the same run. The ratio is what buffering the
turn, screening it, deduplicating and rendering the context cost on top of Recall.

AppendMessage: `--append-clients` concurrent clients (spread over
`--client-processes` processes, each with its own channels) append messages with
request ids to their own sessions for a fixed count; throughput is messages over
the wall time from the first call to the last answer. The floor is the same number
of Redis RPUSH commands from one process with the same concurrency.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import json
import multiprocessing
import time
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import redis.asyncio as aioredis
from engram.v1 import lifecycle_pb2, lifecycle_pb2_grpc, recall_pb2, recall_pb2_grpc, types_pb2

from engram_server import __version__
from engram_server.bench import corpus, harness
from engram_server.bench.engram_side import EngramSide, EngramTenant
from engram_server.bench.recall import questions_per_size
from engram_server.bench.stats import Latency

DEFAULT_OUT = "bench/results/working_memory.json"
SPACE = "kb"
SOURCE = "engram-bench"
ENGAGE_GOAL_SIZE = 100_000
ENGAGE_P50_GOAL_MS = 15.0
APPEND_GOAL_PER_SECOND = 5000.0
USER_TURN = (
    "Quick question before the planning call: {q} I also need the summary for the"
    " customer by Friday."
)
# The baseline asks the same question in other words of the same length: the
# server caches query embeddings, and a repeated text would spare Recall the
# embedding that Engage pays for.
RECALL_TURN = (
    "Short question ahead of the planning call: {q} I will also want the summary for"
    " the client by Friday."
)


@dataclass(frozen=True)
class Options:
    server: harness.ServerChoice
    sizes: tuple[int, ...]
    questions: int
    warmup: int
    turns_per_session: int
    batch_size: int
    appends: int
    append_clients: int
    stream_clients: int
    client_processes: int
    out: Path
    seed: int
    skip_engage: bool
    profile: Path | None
    quiet: bool


def add_arguments(parser: argparse.ArgumentParser) -> None:
    harness.add_server_arguments(parser)
    parser.add_argument(
        "--sizes",
        default="10000,100000",
        type=harness.sizes,
        help="long-term memories at each Engage level",
    )
    parser.add_argument("--questions", type=int, default=300, help="timed Engage turns per size")
    parser.add_argument("--warmup", type=int, default=20, help="untimed turns first")
    parser.add_argument("--turns-per-session", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=250, help="proposals per batch")
    parser.add_argument("--appends", type=int, default=20000, help="AppendMessage calls in all")
    parser.add_argument("--append-clients", type=int, default=32, help="concurrent appenders")
    parser.add_argument(
        "--stream-clients",
        type=int,
        default=8,
        help="concurrent AppendMessages streams (0: skip); they send --appends messages in all",
    )
    parser.add_argument(
        "--client-processes", type=int, default=2, help="processes the appenders run in"
    )
    parser.add_argument("--skip-engage", action="store_true", help="AppendMessage only")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--profile",
        help="with a started server: py-spy records it during the largest Engage level and"
        " the AppendMessage and AppendMessages runs (raw stacks in <PROFILE>.engage.txt,"
        " <PROFILE>.append.txt and <PROFILE>.stream.txt);"
        " py-spy pauses the server at every sample, so profiled figures are slower",
    )
    harness.add_output_arguments(parser, DEFAULT_OUT)


def options_from(args: argparse.Namespace) -> Options:
    if args.questions < 2 or args.appends < 1 or args.append_clients < 1:
        raise ValueError("--questions, --appends and --append-clients must be positive")
    if args.stream_clients < 0:
        raise ValueError("--stream-clients must not be negative")
    if not 1 <= args.client_processes <= args.append_clients:
        raise ValueError("--client-processes must be between 1 and --append-clients")
    server = harness.server_choice(args)
    if args.profile and (server.address or not harness.py_spy()):
        raise ValueError("--profile needs a server started by the bench and py-spy on PATH")
    return Options(
        server=server,
        sizes=args.sizes,
        questions=args.questions,
        warmup=args.warmup,
        turns_per_session=max(1, args.turns_per_session),
        batch_size=args.batch_size,
        appends=args.appends,
        append_clients=args.append_clients,
        stream_clients=args.stream_clients,
        client_processes=args.client_processes,
        out=args.out,
        seed=args.seed,
        skip_engage=args.skip_engage,
        profile=Path(args.profile) if args.profile else None,
        quiet=args.quiet,
    )


def run_command(args: argparse.Namespace) -> int:
    options = options_from(args)
    return harness.run_and_write(options.out, run(options), markdown)


# --- Engage ---------------------------------------------------------------------


async def _load(tenant: EngramTenant, recall: Any, contents: list[str], batch: int) -> float:
    start = time.perf_counter()
    for i in range(0, len(contents), batch):
        await tenant.batch_propose(
            lifecycle_pb2.BatchProposeMemoriesRequest(
                proposals=[
                    lifecycle_pb2.MemoryProposal(
                        space=SPACE,
                        kind=types_pb2.MEMORY_KIND_SEMANTIC,
                        content=text,
                        source=SOURCE,
                    )
                    for text in contents[i : i + batch]
                ]
            )
        )
    deadline = time.monotonic() + 60 + 0.05 * len(contents)
    while True:
        status = await recall.GetIndexStatus(
            recall_pb2.GetIndexStatusRequest(), metadata=tenant.metadata
        )
        if status.pending_dense_items == 0:
            return time.perf_counter() - start
        if time.monotonic() > deadline:
            raise RuntimeError("the index did not drain in time")
        await asyncio.sleep(0.25)


async def _engage_level(
    options: Options, tenant: EngramTenant, recall: Any, questions: list[str], size: int
) -> dict[str, Any]:
    engage_s: list[float] = []
    recall_s: list[float] = []
    suppressed = 0
    context_tokens = 0
    hits = 0
    run_id = uuid.uuid4().hex[:8]
    for i, question in enumerate(questions):
        session = f"bench-{run_id}-{size}-{i // options.turns_per_session}"
        request = recall_pb2.EngageRequest(
            space=SPACE,
            session=session,
            message=lifecycle_pb2.SessionMessage(role="user", content=USER_TURN.format(q=question)),
            k=10,
            request_id=f"{session}-{i}",
        )
        start = time.perf_counter()
        reply = await recall.Engage(request, metadata=tenant.metadata)
        engage_elapsed = time.perf_counter() - start
        start = time.perf_counter()
        await recall.Recall(
            recall_pb2.RecallRequest(query=RECALL_TURN.format(q=question), spaces=[SPACE], k=10),
            metadata=tenant.metadata,
        )
        recall_elapsed = time.perf_counter() - start
        if i < options.warmup:
            continue
        engage_s.append(engage_elapsed)
        recall_s.append(recall_elapsed)
        suppressed += reply.suppressed_count
        context_tokens += reply.token_count
        hits += len(reply.hits)
    timed = len(engage_s)
    engage = Latency.of(engage_s)
    baseline = Latency.of(recall_s)
    return {
        "memories": size,
        "engage": engage.to_json(),
        "recall_baseline": baseline.to_json(),
        "ratio_engage_to_recall": {
            "p50": round(engage.p50_ms / baseline.p50_ms, 2),
            "p99": round(engage.p99_ms / baseline.p99_ms, 2),
        },
        "mean_hits_sent": round(hits / timed, 2),
        "mean_suppressed": round(suppressed / timed, 2),
        "mean_context_tokens": round(context_tokens / timed, 1),
    }


# --- AppendMessage ----------------------------------------------------------------


def _append_worker(
    address: str, metadata: tuple[tuple[str, str], ...], clients: list[int], per_client: int
) -> tuple[float, float, list[float]]:
    """One client process: its appenders run concurrently on their own channels."""
    return asyncio.run(_append_clients(address, metadata, clients, per_client))


async def _append_clients(
    address: str, metadata: tuple[tuple[str, str], ...], clients: list[int], per_client: int
) -> tuple[float, float, list[float]]:
    channels = [grpc.aio.insecure_channel(address) for _ in clients]
    latencies: list[float] = []
    run_id = uuid.uuid4().hex[:8]

    async def appender(client: int, channel: grpc.aio.Channel) -> None:
        stub = lifecycle_pb2_grpc.LifecycleServiceStub(channel)
        for n in range(per_client):
            request = lifecycle_pb2.AppendMessageRequest(
                space=SPACE,
                session=f"append-{run_id}-{client}",
                message=lifecycle_pb2.SessionMessage(
                    role="user" if n % 2 == 0 else "assistant",
                    content=f"Turn {n}: the deployment of service {client} moves to Thursday.",
                ),
                request_id=f"{run_id}-{client}-{n}",
            )
            start = time.perf_counter()
            await stub.AppendMessage(request, metadata=metadata)
            latencies.append(time.perf_counter() - start)

    try:
        # Connect every channel first so the timed window holds only calls.
        await asyncio.gather(*(c.channel_ready() for c in channels))
        started = time.time()
        await asyncio.gather(*(appender(c, ch) for c, ch in zip(clients, channels, strict=True)))
        return started, time.time(), latencies
    finally:
        for channel in channels:
            await channel.close()


def _stream_worker(
    address: str, metadata: tuple[tuple[str, str], ...], clients: list[int], per_client: int
) -> tuple[float, float, list[float]]:
    """One client process: each of its clients streams its messages on one
    AppendMessages call without waiting for results."""
    return asyncio.run(_stream_clients(address, metadata, clients, per_client))


async def _stream_clients(
    address: str, metadata: tuple[tuple[str, str], ...], clients: list[int], per_client: int
) -> tuple[float, float, list[float]]:
    channels = [grpc.aio.insecure_channel(address) for _ in clients]
    latencies: list[float] = []
    run_id = uuid.uuid4().hex[:8]

    async def streamer(client: int, channel: grpc.aio.Channel) -> None:
        stub = lifecycle_pb2_grpc.LifecycleServiceStub(channel)
        sent_at: list[float] = []

        async def requests() -> AsyncIterator[lifecycle_pb2.AppendMessagesRequest]:
            for n in range(per_client):
                sent_at.append(time.perf_counter())
                yield lifecycle_pb2.AppendMessagesRequest(
                    space=SPACE,
                    session=f"stream-{run_id}-{client}",
                    message=lifecycle_pb2.SessionMessage(
                        role="user" if n % 2 == 0 else "assistant",
                        content=f"Turn {n}: the deployment of service {client} moves to Thursday.",
                    ),
                    request_id=f"s-{run_id}-{client}-{n}",
                )

        async for response in stub.AppendMessages(requests(), metadata=metadata):
            now = time.perf_counter()
            for result in response.results:
                if result.HasField("error"):
                    raise RuntimeError(f"append refused: {result.error.message}")
                latencies.append(now - sent_at[result.sequence])

    try:
        await asyncio.gather(*(c.channel_ready() for c in channels))
        started = time.time()
        await asyncio.gather(*(streamer(c, ch) for c, ch in zip(clients, channels, strict=True)))
        return started, time.time(), latencies
    finally:
        for channel in channels:
            await channel.close()


async def _stream_throughput(
    options: Options, address: str, tenant: EngramTenant, floor: float
) -> dict[str, Any]:
    per_client = max(1, options.appends // options.stream_clients)
    results = await _in_client_processes(
        options, _stream_worker, address, tenant, options.stream_clients, per_client
    )
    total = per_client * options.stream_clients
    wall = max(r[1] for r in results) - min(r[0] for r in results)
    rate = total / wall
    return {
        "messages": total,
        "streams": options.stream_clients,
        "client_processes": options.client_processes,
        "wall_seconds": round(wall, 3),
        "messages_per_second": round(rate, 1),
        "acknowledged_after": Latency.of([x for r in results for x in r[2]]).to_json(),
        "redis_rpush_floor_per_second": round(floor, 1),
        "ratio_floor_to_engram": round(floor / rate, 2),
    }


async def _in_client_processes(
    options: Options,
    worker: Callable[
        [str, tuple[tuple[str, str], ...], list[int], int], tuple[float, float, list[float]]
    ],
    address: str,
    tenant: EngramTenant,
    clients: int,
    per_client: int,
) -> list[tuple[float, float, list[float]]]:
    """Runs `clients` clients spread over the client processes; each process's
    (start, end, latencies)."""
    groups = [
        list(range(p, clients, options.client_processes)) for p in range(options.client_processes)
    ]
    loop = asyncio.get_running_loop()
    # Spawned, not forked: a forked child inherits this process's gRPC state and hangs.
    spawn = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(options.client_processes, spawn) as pool:
        return list(
            await asyncio.gather(
                *(
                    loop.run_in_executor(pool, worker, address, tenant.metadata, group, per_client)
                    for group in groups
                    if group
                )
            )
        )


async def _append_throughput(
    options: Options, address: str, tenant: EngramTenant
) -> dict[str, Any]:
    per_client = max(1, options.appends // options.append_clients)
    results = await _in_client_processes(
        options, _append_worker, address, tenant, options.append_clients, per_client
    )
    total = per_client * options.append_clients
    wall = max(r[1] for r in results) - min(r[0] for r in results)
    latencies = [x for r in results for x in r[2]]
    floor = await _redis_floor(options.server.redis_url, total, options.append_clients)
    rate = total / wall
    return {
        "messages": total,
        "clients": options.append_clients,
        "client_processes": options.client_processes,
        "wall_seconds": round(wall, 3),
        "messages_per_second": round(rate, 1),
        "call": Latency.of(latencies).to_json(),
        "redis_rpush_floor_per_second": round(floor, 1),
        "ratio_floor_to_engram": round(floor / rate, 2),
    }


async def _redis_floor(url: str, total: int, clients: int) -> float:
    client = aioredis.Redis.from_url(url)
    key_prefix = f"engram-bench-floor:{uuid.uuid4().hex}"
    per_client = max(1, total // clients)
    payload = json.dumps({"role": "user", "content": "Turn: the deployment moves to Thursday."})

    async def pusher(c: int) -> None:
        for _ in range(per_client):
            await client.rpush(f"{key_prefix}:{c}", payload)

    try:
        start = time.perf_counter()
        await asyncio.gather(*(pusher(c) for c in range(clients)))
        elapsed = time.perf_counter() - start
        await client.delete(*(f"{key_prefix}:{c}" for c in range(clients)))
    finally:
        await client.aclose()
    return per_client * clients / elapsed


# --- the run ----------------------------------------------------------------------


def _profile_path(options: Options, phase: str, wanted: bool) -> Path | None:
    if options.profile is None or not wanted:
        return None
    return options.profile.with_name(f"{options.profile.name}.{phase}.txt")


async def run(options: Options) -> dict[str, Any]:
    say = harness.Run(options.quiet)
    async with harness.bench_server(options.server, "engram_bench_wm") as served:
        server_pid, address = served.pid, served.address
        side = EngramSide(address, served.platform_key)
        try:
            recall = recall_pb2_grpc.RecallServiceStub(side.channel)
            levels: list[dict[str, Any]] = []
            if not options.skip_engage:
                tenant = await side.new_tenant("engage")
                contents = corpus.memories(f"{options.seed}-wm", options.sizes[-1])
                question_sets = questions_per_size(
                    f"{options.seed}-q", options.warmup + options.questions, len(options.sizes)
                )
                loaded = 0
                for size, questions in zip(options.sizes, question_sets, strict=True):
                    say(f"loading to {size:,} memories")
                    seconds = await _load(tenant, recall, contents[loaded:size], options.batch_size)
                    loaded = size
                    say(f"{size:,} searchable after {seconds:.0f}s")
                    profile = _profile_path(options, "engage", size == options.sizes[-1])
                    with harness.profiling(server_pid, profile):
                        level = await _engage_level(options, tenant, recall, questions, size)
                    levels.append(level)
                    say(f"{size:,}: Engage {level['engage']}")
            say(f"AppendMessage x{options.appends:,}")
            appender = await side.new_tenant("append")
            with harness.profiling(server_pid, _profile_path(options, "append", True)):
                append = await _append_throughput(options, address, appender)
            say(f"AppendMessage {append['messages_per_second']}/s")
            stream: dict[str, Any] | None = None
            if options.stream_clients:
                say(f"AppendMessages x{options.appends:,}")
                streamer = await side.new_tenant("stream")
                with harness.profiling(server_pid, _profile_path(options, "stream", True)):
                    stream = await _stream_throughput(
                        options, address, streamer, append["redis_rpush_floor_per_second"]
                    )
                say(f"AppendMessages {stream['messages_per_second']}/s")
        finally:
            # Deleting the tenants also clears their Redis keys (the session buffers
            # and the appends' request ids, kept a day); dropping the scratch
            # database would leave those behind in the machine's Redis.
            with contextlib.suppress(grpc.aio.AioRpcError):
                await side.delete_tenants()
            await side.close()
    return {
        "benchmark": "working_memory",
        "engram_version": __version__,
        "git_commit": harness.git_commit(),
        "started_at": say.started(),
        "machine": say.machine(options.server.database_url),
        "server": served.mode,
        "config": {
            "sizes": list(options.sizes),
            "questions": options.questions,
            "warmup": options.warmup,
            "turns_per_session": options.turns_per_session,
            "appends": options.appends,
            "append_clients": options.append_clients,
            "stream_clients": options.stream_clients,
            "client_processes": options.client_processes,
        },
        "engage": levels,
        "append": append,
        "append_stream": stream,
        "goals": _goals(levels, append, stream),
    }


def _goals(
    levels: list[dict[str, Any]], append: dict[str, Any], stream: dict[str, Any] | None
) -> list[dict[str, Any]]:
    goals: list[dict[str, Any]] = []
    at_goal = [lv for lv in levels if lv["memories"] >= ENGAGE_GOAL_SIZE]
    if at_goal:
        p50 = at_goal[0]["engage"]["p50_ms"]
        goals.append(
            {
                "goal": "Engage p50",
                "target": f"<= {ENGAGE_P50_GOAL_MS:g} ms at 100k",
                "measured": p50,
                "met": p50 <= ENGAGE_P50_GOAL_MS,
            }
        )
    elif levels:
        goals.append(
            {
                "goal": "Engage p50",
                "target": f"<= {ENGAGE_P50_GOAL_MS:g} ms at 100k",
                "measured": None,
                "met": None,
                "note": f"not measured at 100k (largest: {levels[-1]['memories']:,})",
            }
        )
    rate = append["messages_per_second"]
    goals.append(
        {
            "goal": "AppendMessage throughput",
            "target": f">= {APPEND_GOAL_PER_SECOND:,.0f}/s",
            "measured": rate,
            "met": rate >= APPEND_GOAL_PER_SECOND,
        }
    )
    if stream is not None:
        streamed = stream["messages_per_second"]
        goals.append(
            {
                "goal": "AppendMessage throughput, streamed (AppendMessages)",
                "target": f">= {APPEND_GOAL_PER_SECOND:,.0f}/s",
                "measured": streamed,
                "met": streamed >= APPEND_GOAL_PER_SECOND,
            }
        )
    return goals


def markdown(report: dict[str, Any]) -> str:
    m = report["machine"]
    lines = [
        "# Engram working-memory benchmark",
        "",
        f"Run {report['started_at']} on {m['cpu_count']} cores ({m['cpu_model']}),"
        f" Python {m['python']}, Engram {report['engram_version']}."
        f" Load average before / after: {m['load_average']['before']} /"
        f" {m['load_average']['after']}.",
        "",
        f"Server: {report['server']}.",
        "",
    ]
    if report["engage"]:
        lines += [
            "| memories | Engage p50 | Engage p99 | Recall p50 | Recall p99 | ratio p50 |"
            " ratio p99 | hits sent | suppressed | context tokens |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for lv in report["engage"]:
            e, r, q = lv["engage"], lv["recall_baseline"], lv["ratio_engage_to_recall"]
            lines.append(
                f"| {lv['memories']:,} | {e['p50_ms']:.2f} ms | {e['p99_ms']:.2f} ms |"
                f" {r['p50_ms']:.2f} ms | {r['p99_ms']:.2f} ms | {q['p50']:.2f}x |"
                f" {q['p99']:.2f}x | {lv['mean_hits_sent']} | {lv['mean_suppressed']} |"
                f" {lv['mean_context_tokens']} |"
            )
        lines.append("")
    a = report["append"]
    lines += [
        "| AppendMessage | clients | processes | messages/s | call p50 | call p99 |"
        " Redis RPUSH floor | floor / Engram |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
        f"| {a['messages']:,} messages | {a['clients']} | {a['client_processes']} |"
        f" {a['messages_per_second']:,.0f} | {a['call']['p50_ms']:.2f} ms |"
        f" {a['call']['p99_ms']:.2f} ms | {a['redis_rpush_floor_per_second']:,.0f}/s |"
        f" {a['ratio_floor_to_engram']:.2f}x |",
        "",
    ]
    st = report.get("append_stream")
    if st:
        lines += [
            "| AppendMessages (stream) | streams | processes | messages/s |"
            " acknowledged p50 | acknowledged p99 | Redis RPUSH floor | floor / Engram |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
            f"| {st['messages']:,} messages | {st['streams']} | {st['client_processes']} |"
            f" {st['messages_per_second']:,.0f} | {st['acknowledged_after']['p50_ms']:.2f} ms |"
            f" {st['acknowledged_after']['p99_ms']:.2f} ms |"
            f" {st['redis_rpush_floor_per_second']:,.0f}/s | {st['ratio_floor_to_engram']:.2f}x |",
            "",
        ]
    lines += [
        "| goal | target | measured | met |",
        "|---|---|---:|---|",
    ]
    for g in report["goals"]:
        met = {True: "yes", False: "no", None: "not measured"}[g["met"]]
        measured = "-" if g["measured"] is None else g["measured"]
        lines.append(f"| {g['goal']} | {g['target']} | {measured} | {met} |")
    lines.append("")
    return "\n".join(lines)
