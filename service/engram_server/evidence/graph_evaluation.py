"""`engram eval graph`: multi-hop questions answerable only through edges.

Each chain of `data/graph_questions.jsonl` is a question, a seed memory the question
finds, and an answer memory linked to the seed by an edge that shares no content
word with the question: plain Recall can find the answer only by meaning, graph
expansion by following the edge. The chains are stored in one space among
`--distractors` synthetic memories (the bench corpus), the index is waited for,
and each question is asked with and without `graph {enabled, max_hops: 1}`.

Reported side by side: whether the answer is among the first k direct hits
(recall@k, graph off), whether it is anywhere in the graph-expanded response
(whose direct hits are the same k, followed by the memories the edges reached),
and the mean response size. Graph expansion is strictly additive, so it never
lowers recall@k; what it adds comes after the k direct hits.

    engram eval graph [--out eval/results/graph.md] [--k 5] [--distractors 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engram.v1 import (
    evidence_pb2,
    evidence_pb2_grpc,
    lifecycle_pb2,
    recall_pb2,
    recall_pb2_grpc,
    types_pb2,
)

DEFAULT_DATASET = Path(__file__).parent / "data" / "graph_questions.jsonl"
DEFAULT_PG_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
SPACE = "graph-eval"
_KINDS = {
    "RELATED": types_pb2.EDGE_KIND_RELATED,
    "ABOUT": types_pb2.EDGE_KIND_ABOUT,
    "DERIVED_FROM": types_pb2.EDGE_KIND_DERIVED_FROM,
    "SUPPORTS": types_pb2.EDGE_KIND_SUPPORTS,
}


def load(path: Path | str = DEFAULT_DATASET) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


async def evaluate(
    address: str, platform_key: str, chains: Sequence[dict[str, Any]], k: int, distractors: int
) -> dict[str, Any]:
    from engram_server.bench import corpus
    from engram_server.bench.engram_side import EngramSide

    side = EngramSide(address, platform_key)
    try:
        tenant = await side.new_tenant("graph-eval")
        recall = recall_pb2_grpc.RecallServiceStub(side.channel)
        evidence = evidence_pb2_grpc.EvidenceServiceStub(side.channel)
        texts = corpus.memories("graph-eval", distractors)
        for i in range(0, len(texts), 250):
            await tenant.batch_propose(
                lifecycle_pb2.BatchProposeMemoriesRequest(
                    proposals=[
                        lifecycle_pb2.MemoryProposal(space=SPACE, content=t, confidence=0.9)
                        for t in texts[i : i + 250]
                    ]
                )
            )
        answers: dict[str, str] = {}
        for chain in chains:
            first = len(tenant.names)
            await tenant.batch_propose(
                lifecycle_pb2.BatchProposeMemoriesRequest(
                    proposals=[
                        lifecycle_pb2.MemoryProposal(space=SPACE, content=c, confidence=0.9)
                        for c in (chain["seed"], chain["answer"])
                    ]
                )
            )
            seed, answer = tenant.names[first : first + 2]
            answers[chain["id"]] = answer
            await evidence.CreateEdge(
                evidence_pb2.CreateEdgeRequest(
                    edge=types_pb2.Edge(
                        source_memory=seed, target_memory=answer, kind=_KINDS[chain["edge"]]
                    )
                ),
                metadata=tenant.metadata,
            )
        _, drained = await side.wait_indexed(300, [tenant])
        if not drained:
            raise RuntimeError("the index did not drain in time")
        await side.first_recall(tenant)
        rows = []
        for chain in chains:
            answer = answers[chain["id"]]
            plain = await recall.Recall(
                recall_pb2.RecallRequest(
                    query=chain["question"], spaces=[SPACE], k=k, skip_access_tracking=True
                ),
                metadata=tenant.metadata,
            )
            graph = await recall.Recall(
                recall_pb2.RecallRequest(
                    query=chain["question"],
                    spaces=[SPACE],
                    k=k,
                    skip_access_tracking=True,
                    graph=recall_pb2.GraphExpansion(enabled=True, max_hops=1),
                ),
                metadata=tenant.metadata,
            )
            plain_names = [h.memory.name for h in plain.hits]
            graph_names = [h.memory.name for h in graph.hits]
            rows.append(
                {
                    "id": chain["id"],
                    "plain_found": answer in plain_names,
                    "graph_direct_found": answer in graph_names[:k],
                    "graph_found": answer in graph_names,
                    "graph_size": len(graph_names),
                }
            )
        await side.delete_tenants()
    finally:
        await side.close()
    n = len(rows)
    return {
        "chains": n,
        "k": k,
        "distractors": distractors,
        "plain_recall_at_k": round(sum(r["plain_found"] for r in rows) / n, 3),
        "graph_recall_at_k": round(sum(r["graph_direct_found"] for r in rows) / n, 3),
        "graph_answer_returned": round(sum(r["graph_found"] for r in rows) / n, 3),
        "graph_mean_hits": round(sum(r["graph_size"] for r in rows) / n, 2),
        "rows": rows,
    }


def markdown(result: dict[str, Any], note: str) -> str:
    k = result["k"]
    lines = [
        "# Multi-hop questions: Recall with and without graph expansion",
        "",
        f"{result['chains']} questions whose answer shares no content word with the question"
        " and is linked by an edge to a memory the question does find"
        f" (`service/engram_server/evidence/data/graph_questions.jsonl`), among"
        f" {result['distractors']:,} synthetic memories; `engram eval graph`, k = {k}.",
        "",
        "| | graph off | graph on (1 hop) |",
        "|---|---:|---:|",
        f"| answer among the first {k} hits | {result['plain_recall_at_k']:.3f}"
        f" | {result['graph_recall_at_k']:.3f} |",
        f"| answer anywhere in the response | {result['plain_recall_at_k']:.3f}"
        f" | {result['graph_answer_returned']:.3f} |",
        f"| mean hits returned | {k} | {result['graph_mean_hits']} |",
        "",
        "Graph expansion is strictly additive: the first k hits are the direct ones either"
        " way, and the memories reached through edges follow them.",
        "",
    ]
    if note:
        lines += [note, ""]
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="engram eval graph",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--address", help="a running server; default: start one")
    parser.add_argument("--api-key", default="", help="with --address: a platform-admin key")
    parser.add_argument("--database-url", default=DEFAULT_PG_URL, help="PostgreSQL superuser URL")
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL)
    parser.add_argument("--dataset", default=str(DEFAULT_DATASET))
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--distractors", type=int, default=2000)
    parser.add_argument("--out", help="write the markdown report here (JSON beside it)")
    parser.add_argument("--note", default="")
    return parser


async def _run(args: argparse.Namespace) -> dict[str, Any]:
    from engram_server.bench import harness

    chains = load(args.dataset)
    with contextlib.ExitStack() as stack:
        if args.address:
            return await evaluate(args.address, args.api_key, chains, args.k, args.distractors)
        url = harness.create_database(args.database_url, "engram_eval_graph")
        stack.callback(harness.drop_database, args.database_url, url)
        server = harness.SpawnedServer(url, args.redis_url)
        server.start()
        stack.callback(server.stop)
        await server.wait_serving()
        return await evaluate(
            server.address, server.bootstrap_token, chains, args.k, args.distractors
        )


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    result = asyncio.run(_run(args))
    summary = {key: value for key, value in result.items() if key != "rows"}
    print(json.dumps(summary))
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(markdown(result, args.note), encoding="utf-8")
        out.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0
