"""`engram bench evidence`: AssessMemory latency, and Recall with one hop of graph
expansion against plain Recall measured in the same run.

One tenant is loaded with synthetic memories (BatchProposeMemories, sources drawn
from a small set so agreement between sources exists), then RELATED edges are
created between consecutive memories (one per `--edge-every` memories, through
CreateEdge, the code every edge writer shares), and the index is waited for. At
each size:

- graph recall: each question is asked twice, as a plain Recall and as a Recall with
  `graph {enabled, max_hops: 1}`, in alternating order, in two wordings of the same
  length (the server caches query embeddings; a repeated text would spare one of
  the two its embedding). The ratio of the p50s is the cost of the expansion;
- AssessMemory (report only): memories drawn at random are assessed one at a time;
  each runs a Recall over the memory's space (k = 20, waiting for the index) and the
  deterministic judge.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from engram.v1 import (
    evidence_pb2,
    evidence_pb2_grpc,
    lifecycle_pb2,
    recall_pb2,
    recall_pb2_grpc,
    types_pb2,
)

from engram_server import __version__
from engram_server.bench import corpus, harness
from engram_server.bench.engram_side import EngramSide, EngramTenant
from engram_server.bench.recall import questions_per_size
from engram_server.bench.stats import Latency, alternating

DEFAULT_OUT = "bench/results/evidence.json"
SPACE = "kb"
SOURCES = ("wiki", "docs", "chat", "email", "tracker", "notes", "crm")
GRAPH_RATIO_GOAL = 1.3
REWORDED = "In other words: {q}"
PLAIN = "Put simply: {q}"


@dataclass(frozen=True)
class Options:
    server: harness.ServerChoice
    sizes: tuple[int, ...]
    questions: int
    assessments: int
    warmup: int
    batch_size: int
    edge_every: int
    out: Path
    seed: int
    quiet: bool


def add_arguments(parser: argparse.ArgumentParser) -> None:
    harness.add_server_arguments(parser)
    parser.add_argument(
        "--sizes", default="10000,100000", type=harness.sizes, help="memories at each level"
    )
    parser.add_argument("--questions", type=int, default=200, help="timed Recall pairs per size")
    parser.add_argument("--assessments", type=int, default=100, help="timed AssessMemory calls")
    parser.add_argument("--warmup", type=int, default=10, help="untimed calls first")
    parser.add_argument("--batch-size", type=int, default=250, help="proposals per batch")
    parser.add_argument("--edge-every", type=int, default=4, help="one RELATED edge per N memories")
    parser.add_argument("--seed", type=int, default=11)
    harness.add_output_arguments(parser, DEFAULT_OUT)


def options_from(args: argparse.Namespace) -> Options:
    if args.questions < 2 or args.assessments < 2 or args.edge_every < 1:
        raise ValueError("--questions and --assessments must be at least 2, --edge-every 1")
    return Options(
        server=harness.server_choice(args),
        sizes=args.sizes,
        questions=args.questions,
        assessments=args.assessments,
        warmup=args.warmup,
        batch_size=args.batch_size,
        edge_every=args.edge_every,
        out=args.out,
        seed=args.seed,
        quiet=args.quiet,
    )


def run_command(args: argparse.Namespace) -> int:
    options = options_from(args)
    return harness.run_and_write(options.out, run(options), markdown)


async def _load(
    options: Options, tenant: EngramTenant, evidence: Any, contents: list[str], seed: int
) -> None:
    rng = random.Random(seed)
    names = await tenant.load(
        (
            lifecycle_pb2.MemoryProposal(
                space=SPACE,
                kind=types_pb2.MEMORY_KIND_SEMANTIC,
                content=text,
                source=rng.choice(SOURCES),
                confidence=0.9,
            )
            for text in contents
        ),
        options.batch_size,
    )
    for i in range(0, len(names) - 1, options.edge_every):
        with contextlib.suppress(grpc.aio.AioRpcError):  # a duplicate pair exists
            await evidence.CreateEdge(
                evidence_pb2.CreateEdgeRequest(
                    edge=types_pb2.Edge(
                        source_memory=names[i],
                        target_memory=names[i + 1],
                        kind=types_pb2.EDGE_KIND_RELATED,
                    )
                ),
                metadata=tenant.metadata,
            )


async def _graph_level(
    options: Options, tenant: EngramTenant, recall: Any, questions: list[str], size: int
) -> dict[str, Any]:
    def plain(i: int) -> Any:
        return recall.Recall(
            recall_pb2.RecallRequest(
                query=PLAIN.format(q=questions[i]), spaces=[SPACE], k=10, skip_access_tracking=True
            ),
            metadata=tenant.metadata,
        )

    def graph(i: int) -> Any:
        return recall.Recall(
            recall_pb2.RecallRequest(
                query=REWORDED.format(q=questions[i]),
                spaces=[SPACE],
                k=10,
                skip_access_tracking=True,
                graph=recall_pb2.GraphExpansion(enabled=True, max_hops=1),
            ),
            metadata=tenant.metadata,
        )

    plain_s, graph_s, replies = await alternating(len(questions), options.warmup, plain, graph)
    added = sum(1 for reply in replies for h in reply.hits if h.reached_from)
    plain_latency = Latency.of(plain_s)
    graph_latency = Latency.of(graph_s)
    return {
        "memories": size,
        "recall_plain": plain_latency.to_json(),
        "recall_graph_one_hop": graph_latency.to_json(),
        "ratio_graph_to_plain": {
            "p50": round(graph_latency.p50_ms / plain_latency.p50_ms, 2),
            "p99": round(graph_latency.p99_ms / plain_latency.p99_ms, 2),
        },
        "mean_hits_added_by_graph": round(added / max(1, len(graph_s)), 2),
    }


async def _assess_level(
    options: Options, tenant: EngramTenant, evidence: Any, size: int, seed: int
) -> dict[str, Any]:
    rng = random.Random(seed)
    picks = rng.sample(tenant.names, min(len(tenant.names), options.assessments + options.warmup))
    seconds: list[float] = []
    corroborated = 0
    for i, name in enumerate(picks):
        start = time.perf_counter()
        reply = await evidence.AssessMemory(
            evidence_pb2.AssessMemoryRequest(name=name), metadata=tenant.metadata
        )
        elapsed = time.perf_counter() - start
        if i < options.warmup:
            continue
        seconds.append(elapsed)
        corroborated += reply.suggested_level == types_pb2.EVIDENCE_LEVEL_CORROBORATED
    latency = Latency.of(seconds)
    return {
        "memories": size,
        "assess_memory": latency.to_json(),
        "share_suggested_corroborated": round(corroborated / max(1, len(seconds)), 3),
    }


async def run(options: Options) -> dict[str, Any]:
    say = harness.Run(options.quiet)
    levels: list[dict[str, Any]] = []

    async with harness.bench_server(options.server, "engram_bench_ev") as served:
        side = EngramSide(served.address, served.platform_key)
        try:
            recall = recall_pb2_grpc.RecallServiceStub(side.channel)
            evidence = evidence_pb2_grpc.EvidenceServiceStub(side.channel)
            tenant = await side.new_tenant("evidence")
            contents = corpus.memories(f"{options.seed}-ev", options.sizes[-1])
            question_sets = questions_per_size(
                f"{options.seed}-q", options.warmup + options.questions, len(options.sizes)
            )
            loaded = 0
            for level, (size, questions) in enumerate(
                zip(options.sizes, question_sets, strict=True)
            ):
                say(f"loading to {size:,} memories and their edges")
                await _load(options, tenant, evidence, contents[loaded:size], options.seed + level)
                loaded = size
                _, drained = await side.wait_indexed(120 + 0.05 * size, [tenant])
                if not drained:
                    raise RuntimeError("the index did not drain in time")
                await side.first_recall(tenant)
                say(f"{size:,} searchable; timing graph recall")
                graph = await _graph_level(options, tenant, recall, questions, size)
                say(f"{size:,}: {graph['ratio_graph_to_plain']}")
                assess = await _assess_level(options, tenant, evidence, size, options.seed + level)
                say(f"{size:,}: AssessMemory {assess['assess_memory']}")
                levels.append({**graph, **assess})
        finally:
            with contextlib.suppress(grpc.aio.AioRpcError):
                await side.delete_tenants()
            await side.close()
    largest = levels[-1]
    return {
        "benchmark": "evidence",
        "engram_version": __version__,
        "git_commit": harness.git_commit(),
        "started_at": say.started(),
        "machine": say.machine(options.server.database_url),
        "server": served.mode,
        "config": {
            "sizes": list(options.sizes),
            "questions": options.questions,
            "assessments": options.assessments,
            "warmup": options.warmup,
            "edge_every": options.edge_every,
        },
        "levels": levels,
        "goals": {
            "graph_one_hop_p50_within": GRAPH_RATIO_GOAL,
            "measured_at": largest["memories"],
            "met": largest["ratio_graph_to_plain"]["p50"] <= GRAPH_RATIO_GOAL,
        },
    }


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "# Evidence benchmark",
        "",
        f"Engram {report['engram_version']} ({report['git_commit']}), {report['started_at']};"
        f" server: {report['server']}.",
        "",
        "| memories | Recall p50 / p99 ms | Recall + 1 hop p50 / p99 ms | ratio p50 |"
        " hits added | AssessMemory p50 / p99 ms |",
        "|---|---|---|---|---|---|",
    ]
    for level in report["levels"]:
        plain, graph = level["recall_plain"], level["recall_graph_one_hop"]
        assess = level["assess_memory"]
        lines.append(
            f"| {level['memories']:,} | {plain['p50_ms']} / {plain['p99_ms']}"
            f" | {graph['p50_ms']} / {graph['p99_ms']} | {level['ratio_graph_to_plain']['p50']}"
            f" | {level['mean_hits_added_by_graph']} | {assess['p50_ms']} / {assess['p99_ms']} |"
        )
    goals = report["goals"]
    lines += [
        "",
        f"Goal: Recall with one hop within {goals['graph_one_hop_p50_within']}x of plain"
        f" Recall's p50 at {goals['measured_at']:,} memories:"
        f" {'met' if goals['met'] else 'not met'}.",
        "",
    ]
    return "\n".join(lines)
