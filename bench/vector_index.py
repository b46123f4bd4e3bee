"""Embedded vector index at scale: upsert throughput and filtered search latency.

    .venv/bin/python bench/vector_index.py --points 100000 [--out bench/results]
    .venv/bin/python bench/vector_index.py --render bench/results/vector_index.json

Synthetic data: one big tenant with `--points` memories (random unit vectors of
dimension 384 and Zipf-distributed sparse terms) and `--other-tenants` small tenants
beside it, so every search runs through the tenant filter. Searches go through the
async adapter (executor hop included) with the filter recall uses (tenant, ACTIVE
status, a space prefix). Phases: upsert, search on fresh (unoptimized) segments,
`optimize()` (HNSW build; the event loop's longest stall is recorded because the
engine holds the GIL), search again. Dense recall@10 is measured against exact
numpy search over the same filtered points. Vectors are drawn around random cluster
centres by default, as sentence embeddings cluster by topic; `--clusters 0` draws
them uniformly, a pathological case for HNSW (slow to build, low recall) that no
embedding model produces.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import platform
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from engram_server.lexical import SparseVector, sparse_vector
from engram_server.store.vectors import IndexFilter, IndexPoint
from engram_server.store.vectors.edge import EdgeVectorIndex

DIM = 384
BATCH = 256
VOCAB = 50_000
MAIN = "bench-main"


class LoopLag:
    """Longest gap between ticks of a 1 ms ticker: how long the loop was blocked."""

    def __init__(self) -> None:
        self.worst = 0.0
        self._last = 0.0
        self._task: asyncio.Task[None] | None = None

    def _mark(self) -> None:
        now = time.perf_counter()
        self.worst = max(self.worst, now - self._last - 0.001)
        self._last = now

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(0.001)
            self._mark()

    def __enter__(self) -> LoopLag:
        self._last = time.perf_counter()
        self._task = asyncio.get_running_loop().create_task(self._tick())
        return self

    def __exit__(self, *exc: object) -> None:
        # The gap still open when the phase ends counts too (a call that blocked
        # the loop until it returned).
        self._mark()
        if self._task:
            self._task.cancel()


def unit_vectors(
    rng: np.random.Generator, n: int, centers: np.ndarray[Any, Any] | None, noise: float
) -> np.ndarray[Any, Any]:
    """Unit vectors around random cluster centres (like sentence embeddings, which
    cluster by topic), or uniform on the sphere when `centers` is None."""
    if centers is None:
        vectors = rng.standard_normal((n, DIM))
    else:
        picks = centers[rng.integers(0, len(centers), n)]
        vectors = picks + noise * rng.standard_normal((n, DIM))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors.astype(np.float32)


def synthetic(
    n: int, rng: np.random.Generator, centers: np.ndarray[Any, Any] | None, noise: float
) -> tuple[np.ndarray[Any, Any], list[SparseVector]]:
    vectors = unit_vectors(rng, n, centers, noise)
    terms = rng.zipf(1.3, size=(n, 12)) % VOCAB
    sparse = []
    for row in terms:
        ids, counts = np.unique(row, return_counts=True)
        sparse.append(SparseVector(ids.tolist(), (counts * 1.0).tolist()))
    return vectors, sparse


def payload(i: int) -> dict[str, Any]:
    return {
        "space": f"team-{i % 7}/agent-{i % 13}",
        "status": "RETRACTED" if i % 20 == 0 else "ACTIVE",
        "kind": "SEMANTIC",
        "tags": ["a"] if i % 3 == 0 else [],
        "topic": "",
        "session": f"s{i % 100}",
        "slot_key": "",
        "create_time": 1.7e9 + i,
        "evidence_level": i % 5,
        "importance": 0.5,
    }


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1e3  # noqa: E731
    return {"p50_ms": pick(0.5), "p99_ms": pick(0.99), "mean_ms": statistics.fmean(ordered) * 1e3}


# The filters searched, with the predicate that says which synthetic point passes
# (besides being ACTIVE): all of the tenant, one space prefix (1/7 of it, too many
# points for an exact scan, too few for a plain graph walk), one session (1%).
FILTERS: dict[str, tuple[IndexFilter, Callable[[int], bool]]] = {
    "broad": (IndexFilter(), lambda i: True),
    "space_prefix_14pct": (IndexFilter(space_prefixes=["team-1/"]), lambda i: i % 7 == 1),
    "session_1pct": (IndexFilter(session="s5"), lambda i: i % 100 == 5),
}


async def search_phase(
    index: EdgeVectorIndex,
    vectors: np.ndarray[Any, Any],
    ids: list[uuid.UUID],
    queries: np.ndarray[Any, Any],
    query_sparse: list[SparseVector],
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    legs = {
        "dense": lambda i: (queries[i].tolist(), None),
        "sparse": lambda i: (None, query_sparse[i]),
        "hybrid": lambda i: (queries[i].tolist(), query_sparse[i]),
    }
    worst_stall = 0.0
    for filter_name, (flt, passes) in FILTERS.items():
        results: dict[str, Any] = {}
        with LoopLag() as lag:
            for name, make in legs.items():
                samples = []
                for i in range(len(queries)):
                    dense, sparse = make(i)
                    start = time.perf_counter()
                    await index.search(MAIN, dense, sparse, flt, limit=50)
                    samples.append(time.perf_counter() - start)
                results[name] = percentiles(samples)
        worst_stall = max(worst_stall, lag.worst)
        # Outside the stall window: the exact numpy reference runs on the loop.
        eligible = np.array([i for i in range(len(ids)) if i % 20 != 0 and passes(i)])
        results["dense_recall_at_10"] = await dense_recall(
            index, vectors, ids, eligible, queries[:50], flt
        )
        out[filter_name] = results
    out["worst_loop_stall_ms"] = worst_stall * 1e3
    return out


async def dense_recall(
    index: EdgeVectorIndex,
    vectors: np.ndarray[Any, Any],
    ids: list[uuid.UUID],
    eligible: np.ndarray[Any, Any],
    queries: np.ndarray[Any, Any],
    flt: IndexFilter,
) -> float:
    """Share of the exact top 10 (numpy over the eligible points) the index returns."""
    found = 0
    for query in queries:
        scores = vectors[eligible] @ query
        exact = {ids[j] for j in eligible[np.argsort(-scores)[:10]]}
        hits = await index.search(MAIN, query.tolist(), None, flt, limit=10)
        found += len(exact & {h.id for h in hits})
    return found / (10 * len(queries))


async def run(args: argparse.Namespace) -> dict[str, Any]:
    n = args.points
    rng = np.random.default_rng(1)
    centers = rng.standard_normal((args.clusters, DIM)) if args.clusters else None
    vectors, sparse = synthetic(n, rng, centers, args.noise)
    ids = [uuid.UUID(int=i + 1) for i in range(n)]
    others = [
        (f"bench-other-{t}", uuid.uuid4(), i)
        for t in range(args.other_tenants)
        for i in range(args.other_points)
    ]
    queries = unit_vectors(rng, args.queries, centers, args.noise)
    query_sparse = []
    for row in rng.zipf(1.3, size=(args.queries, 3)) % VOCAB:
        unique = sorted(set(row.tolist()))
        query_sparse.append(SparseVector(unique, [1.0] * len(unique)))

    texts = [
        f"Note {i}: the deploy of service-{i % 97} ran on node_{i % 13} v{i % 5}"
        for i in range(2000)
    ]
    start = time.perf_counter()
    for text in texts:
        sparse_vector(text)
    analyzer_rate = len(texts) / (time.perf_counter() - start)

    with tempfile.TemporaryDirectory(prefix="engram-bench-vectors-") as tmp:
        index = EdgeVectorIndex(Path(tmp))
        await index.ensure_collection(DIM, "bench-synthetic")
        result: dict[str, Any] = {
            "points": n,
            "other_tenants": args.other_tenants,
            "other_points_each": args.other_points,
            "dim": DIM,
            "clusters": args.clusters,
            "noise": args.noise,
            "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
            "settings": dataclasses.asdict(index.settings),
            "load_average_before": os.getloadavg()[0],
            "analyzer_docs_per_s": analyzer_rate,
        }
        points = [
            IndexPoint(ids[i], MAIN, payload(i), vectors[i].tolist(), sparse[i]) for i in range(n)
        ]
        call_times = []
        with LoopLag() as lag:
            start = time.perf_counter()
            for lo in range(0, n, BATCH):
                call_start = time.perf_counter()
                await index.upsert(points[lo : lo + BATCH])
                call_times.append(time.perf_counter() - call_start)
            elapsed = time.perf_counter() - start
        result["upsert_points_per_s"] = n / elapsed
        result[f"upsert_call_{BATCH}_points"] = percentiles(call_times)
        result["upsert_worst_loop_stall_ms"] = lag.worst * 1e3
        other_vectors, other_sparse = synthetic(len(others), rng, centers, args.noise)
        for lo in range(0, len(others), BATCH):
            await index.upsert(
                [
                    IndexPoint(pid, tenant, payload(i), other_vectors[k].tolist(), other_sparse[k])
                    for k, (tenant, pid, i) in enumerate(others[lo : lo + BATCH], start=lo)
                ]
            )

        result["search_unoptimized"] = await search_phase(
            index, vectors, ids, queries, query_sparse
        )
        with LoopLag() as lag:
            start = time.perf_counter()
            await index.optimize()
            result["optimize_s"] = time.perf_counter() - start
        result["optimize_worst_loop_stall_ms"] = lag.worst * 1e3
        result["search_optimized"] = await search_phase(index, vectors, ids, queries, query_sparse)
        await index.close()
    result["load_average_after"] = os.getloadavg()[0]
    return result


def markdown(result: dict[str, Any]) -> str:
    """A readable summary of one run."""
    s = result["settings"]
    lines = [
        "# Embedded vector index benchmark (qdrant-edge-py)",
        "",
        f"{result['points']:,} points in one tenant beside {result['other_tenants']} tenants "
        f"of {result['other_points_each']:,}; dense dimension {result['dim']} "
        f"({result['clusters']} clusters, noise {result['noise']}), 12 Zipf terms a point; "
        f"{result['machine']}. Engine: HNSW m={s['hnsw_m']}, payload_m={s['hnsw_payload_m']}, "
        f"ef_construct={s['hnsw_ef_construct']}, search ef={s['hnsw_ef']}, ACORN={s['acorn']}. "
        "Produced by `bench/vector_index.py`; latencies go through the async adapter.",
        "",
    ]
    if "load_average_before" in result:
        lines += [
            f"Load average (1 min) before / after: {result['load_average_before']:.2f} / "
            f"{result['load_average_after']:.2f}.",
            "",
        ]
    lines += [
        f"- upsert: {result['upsert_points_per_s']:,.0f} points/s "
        f"(256-point call p50 {result['upsert_call_256_points']['p50_ms']:.1f} ms); "
        f"longest event-loop stall {result['upsert_worst_loop_stall_ms']:.0f} ms",
        f"- optimize (HNSW build of everything above): {result['optimize_s']:.1f} s, "
        f"event loop blocked {result['optimize_worst_loop_stall_ms'] / 1e3:.1f} s "
        "(the engine holds the GIL)",
        f"- lexical analyzer: {result['analyzer_docs_per_s']:,.0f} memories/s "
        "(`sparse_vector` of a one-line memory)",
        "",
        "| phase | filter | dense p50 / p99 | sparse p50 / p99 | hybrid p50 / p99 "
        "| dense recall@10 |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for phase in ("search_unoptimized", "search_optimized"):
        for name, row in result[phase].items():
            if name == "worst_loop_stall_ms":
                continue
            cells = [
                f"{row[leg]['p50_ms']:.2f} / {row[leg]['p99_ms']:.2f} ms"
                for leg in ("dense", "sparse", "hybrid")
            ]
            label = phase.removeprefix("search_")
            lines.append(
                f"| {label} | {name} | {' | '.join(cells)} | {row['dense_recall_at_10']:.2f} |"
            )
    lines += [
        "",
        "Filters (always with the tenant and ACTIVE status): broad = the whole tenant; "
        "space_prefix_14pct = one space prefix holding 1/7 of the tenant; session_1pct = "
        "one session. Recall is against exact search over the same filtered points.",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--points", type=int, default=100_000)
    parser.add_argument("--other-tenants", type=int, default=9)
    parser.add_argument("--other-points", type=int, default=1_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument(
        "--clusters", type=int, default=2000, help="vector cluster centres; 0 = uniform"
    )
    parser.add_argument("--noise", type=float, default=1.0, help="spread around a centre")
    parser.add_argument("--out", type=Path, default=None, help="directory for the results")
    parser.add_argument("--render", type=Path, default=None, help="re-render a saved JSON")
    args = parser.parse_args()
    if args.render:
        print(markdown(json.loads(args.render.read_text())))
        return
    result = asyncio.run(run(args))
    text = json.dumps(result, indent=2, sort_keys=True)
    print(text)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "vector_index.json").write_text(text + "\n")
        (args.out / "vector_index.md").write_text(markdown(result))


if __name__ == "__main__":
    main()
