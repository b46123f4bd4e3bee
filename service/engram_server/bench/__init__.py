"""`engram bench`: performance measured against a floor taken in the same run.

    engram bench lifecycle [--address HOST:PORT --api-key KEY] [--sizes 10000,100000] ...
    engram bench scale --qdrant-url URL    (workers and indexers, 1 against 2)

Each benchmark writes its results as JSON plus a markdown table (and prints the
table). Every figure comes with the same operation done by PostgreSQL alone, and
the ratio between them, so results stay comparable across machines.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def build_parser() -> argparse.ArgumentParser:
    from engram_server.bench import (
        decisions,
        decisions_corpus,
        evidence,
        lifecycle,
        pool,
        recall,
        scale,
        working_memory,
    )

    parser = argparse.ArgumentParser(
        prog="engram bench", description="Measure Engram against the PostgreSQL floor."
    )
    benchmarks = parser.add_subparsers(dest="benchmark", metavar="BENCHMARK", required=True)
    for name, module, summary in (
        (
            "lifecycle",
            lifecycle,
            "Propose, BatchPropose, Get and List latency/throughput vs plain psycopg",
        ),
        ("recall", recall, "Indexing throughput and Recall latency vs an in-process BM25"),
        (
            "pool",
            pool,
            "Slot-delta vs full sync bytes, delivery latency, pool vs plain Recall",
        ),
        (
            "decisions",
            decisions,
            "IngestCommits throughput (vs reading git alone), ExplainCode / SearchDecisions p50",
        ),
        (
            "decisions-corpus",
            decisions_corpus,
            "Ingest real repositories; per repository what was stored, skipped and why",
        ),
        (
            "working-memory",
            working_memory,
            "Engage latency (vs Recall) and AppendMessage throughput (vs Redis RPUSH)",
        ),
        (
            "evidence",
            evidence,
            "AssessMemory latency; Recall with one hop of graph expansion vs plain Recall",
        ),
        (
            "scale",
            scale,
            "A mixed workload through one worker and two; index catch-up by one indexer and two",
        ),
    ):
        p = benchmarks.add_parser(
            name,
            help=summary,
            description=module.__doc__,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(p)
        p.set_defaults(handler=module.run_command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    try:
        return int(args.handler(args))
    except ValueError as error:
        parser.error(str(error))
    except KeyboardInterrupt:
        return 130
