"""`engram eval`: retrieval quality of Recall beside a plain BM25 baseline.

    engram eval [--address HOST:PORT --api-key KEY]
                [--dataset eval/datasets/conversations.jsonl] [--k 1,3,5,10]
                [--out eval/results/recall.json]
    engram eval --bm25-only             the baseline alone, no server
    engram eval --generate PATH         (re)write the dataset and stop
    engram eval learn [--help]          fact extraction of Learn on labelled conversations
    engram eval evidence [--help]       the corroboration assessor on labelled claims
    engram eval graph [--help]          multi-hop questions: Recall with and without edges
    engram eval decisions [--help]      why-questions on real git histories (DecisionsService)
    engram eval realtalk [--help]       Recall on REALTALK's real conversations (data
                                        read from $ENGRAM_EVAL_REALTALK_DIR, not shipped)

The dataset is long multi-session conversations whose questions name the turns
that answer them (`dataset` documents the format). Every turn becomes a memory,
every question a Recall; recall@k, MRR and nDCG@10 are computed for Engram and,
in the same run and over the same turns, for Okapi BM25. Results are written as
JSON plus a markdown table beside it.

Without --address a server is started in a child process on a scratch database
of --database-url's PostgreSQL, and removed afterwards. With --address, the
--api-key must be a platform-admin key: the run makes its own tenant and deletes
it at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

DEFAULT_DATASET = "eval/datasets/conversations.jsonl"
DEFAULT_OUT = "eval/results/recall.json"
DEFAULT_PG_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="engram eval",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--address", help="a running server (HOST:PORT); default: start one in a child process"
    )
    parser.add_argument(
        "--api-key",
        help="with --address: a platform-admin key (default $ENGRAM_API_KEY)",
    )
    parser.add_argument("--dataset", default=DEFAULT_DATASET, help="the labelled conversations")
    parser.add_argument(
        "--k", default="1,3,5,10", help="cut-offs for recall@k (comma-separated, 1-100)"
    )
    parser.add_argument("--out", help=f"JSON results, markdown beside it (default {DEFAULT_OUT})")
    parser.add_argument(
        "--database-url",
        default=DEFAULT_PG_URL,
        help="superuser URL of the PostgreSQL server for a started server's scratch database",
    )
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL, help="Redis for a started server")
    parser.add_argument(
        "--index-timeout",
        type=float,
        default=1800.0,
        help="seconds to wait for the index to catch up after ingesting",
    )
    parser.add_argument(
        "--deadline", type=float, default=60.0, help="deadline of each RPC in seconds"
    )
    parser.add_argument(
        "--bm25-only",
        action="store_true",
        help="score the baseline alone and print it (writes files only with --out)",
    )
    parser.add_argument(
        "--generate",
        metavar="PATH",
        help="write the generated dataset to PATH and exit",
    )
    parser.add_argument("--seed", type=int, help="with --generate: the generator's seed")
    parser.add_argument("--conversations", type=int, help="with --generate: how many")
    parser.add_argument(
        "--depth", action="store_true", help="ask every question in depth mode (RECALL_DEPTH_DEEP)"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["learn"]:  # `engram eval learn`: fact extraction (engram_server.learning)
        from engram_server.learning.evaluation import main as learn_main

        return learn_main(argv[1:])
    if argv[:1] == ["evidence"]:  # `engram eval evidence`: the corroboration assessor
        from engram_server.evidence.evaluation import main as evidence_main

        return evidence_main(argv[1:])
    if argv[:1] == ["graph"]:  # `engram eval graph`: multi-hop questions through edges
        from engram_server.evidence.graph_evaluation import main as graph_main

        return graph_main(argv[1:])
    if argv[:1] == ["decisions"]:  # `engram eval decisions`: why-questions on real histories
        from engram_server.evaluation.decisions import main as decisions_main

        return decisions_main(argv[1:])
    if argv[:1] == ["realtalk"]:  # `engram eval realtalk`: real conversations, by split
        from engram_server.evaluation.realtalk_eval import main as realtalk_main

        return realtalk_main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.generate:
            return _generate(args)
        return _evaluate(args)
    except ValueError as error:
        parser.error(str(error))
    except KeyboardInterrupt:
        return 130


def _generate(args: argparse.Namespace) -> int:
    from engram_server.evaluation import dataset

    conversations = dataset.generate(
        seed=dataset.DEFAULT_SEED if args.seed is None else args.seed,
        conversations=args.conversations or dataset.DEFAULT_CONVERSATIONS,
    )
    dataset.dump(conversations, args.generate)
    summary = dataset.summary(conversations)
    print(f"wrote {args.generate}: {json.dumps(summary)}")
    return 0


def _evaluate(args: argparse.Namespace) -> int:
    from engram_server.evaluation import report, runner
    from engram_server.evaluation.remote import RecallUnavailable

    api_key = args.api_key or os.environ.get("ENGRAM_API_KEY", "")
    if args.address and not api_key:
        raise ValueError("--address needs --api-key (a platform-admin key) or $ENGRAM_API_KEY")
    options = runner.Options(
        dataset=Path(args.dataset),
        ks=runner.parse_ks(args.k),
        address=args.address or "",
        api_key=api_key,
        database_url=args.database_url,
        redis_url=args.redis_url,
        bm25_only=args.bm25_only,
        index_timeout=args.index_timeout,
        deadline=args.deadline,
        quiet=args.quiet,
        deep=args.depth,
    )
    started_at = datetime.now(UTC)
    wall = time.perf_counter()
    try:
        conversations, baseline, engram = asyncio.run(runner.run(options))
    except RecallUnavailable as error:
        print(f"engram eval: {error}", file=sys.stderr)
        return 2
    if engram is None:
        table = report.baseline_table(baseline)
        print(table)
        if args.out:
            out = Path(args.out)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.with_suffix(".md").write_text("# BM25 baseline\n\n" + table)
            means = {c or "all": baseline.means(c) for c in [None, *baseline.categories()]}
            out.write_text(json.dumps({"system": "bm25", "means": means}, indent=2) + "\n")
        return 0
    result = report.build(
        dataset_path=options.dataset,
        conversations=conversations,
        baseline=baseline,
        engram=engram,
        started_at=started_at,
        duration_seconds=time.perf_counter() - wall,
    )
    out = Path(args.out or DEFAULT_OUT)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    markdown_path = out.with_suffix(".md")
    text = report.markdown(result)
    markdown_path.write_text(text)
    print(text)
    print(f"results: {out} and {markdown_path}", file=sys.stderr)
    return 0
