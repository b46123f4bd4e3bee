"""`engram eval realtalk`: Recall on real conversations (REALTALK), by split and category.

    engram eval realtalk [--realtalk-dir DIR] [--split all|dev|report]
                         [--address HOST:PORT --api-key KEY] [--out PATH] [--label NAME]
    engram eval realtalk --bm25-only      the baseline alone, no server

The data is read from --realtalk-dir or $ENGRAM_EVAL_REALTALK_DIR (see
`realtalk`); without either the dataset is skipped with a message and the
command exits 0, so scripts that run every evaluation keep going.

The run drives Engram black-box through gRPC the way the held-out benchmark
does: one tenant per conversation, every turn proposed as one EPISODIC memory
"SPEAKER: text" with its session (and its time as an attribute), then one
Recall per question with default settings (read-your-writes, no access
tracking). A plain BM25 over the same turns is scored on the same questions.
Results are written per split (dev: conversations 1-5, where levers are tuned;
report: 6-10, only measured) and per category, recall@10 and MRR each with a
95% bootstrap interval, as JSON plus a markdown table beside it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import grpc.aio

from engram_server import __version__
from engram_server.evaluation import metrics, realtalk
from engram_server.evaluation.dataset import Conversation
from engram_server.evaluation.remote import RecallUnavailable, RemoteEngram
from engram_server.evaluation.runner import (
    Progress,
    SystemScores,
    bm25_retriever,
    rankings_retriever,
    score_system,
    turns_of_hits,
)

DEFAULT_OUT = "eval/results/realtalk.json"
DEFAULT_PG_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
KS = (1, 5, 10)
RESAMPLES = 2000


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="engram eval realtalk",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--realtalk-dir", help=f"the directory of Chat_<n>_*.json (default ${realtalk.ENV_DIR})"
    )
    parser.add_argument("--split", choices=("all", "dev", "report"), default="all")
    parser.add_argument("--address", help="a running server; default: start one")
    parser.add_argument("--api-key", help="with --address: a platform-admin key")
    parser.add_argument("--out", help=f"JSON results, markdown beside it (default {DEFAULT_OUT})")
    parser.add_argument("--label", default="default settings", help="names the configuration")
    parser.add_argument("--database-url", default=DEFAULT_PG_URL)
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL)
    parser.add_argument("--index-timeout", type=float, default=1800.0)
    parser.add_argument("--deadline", type=float, default=60.0)
    parser.add_argument("--bm25-only", action="store_true")
    parser.add_argument(
        "--depth",
        action="store_true",
        help="also ask every question in depth mode (RECALL_DEPTH_DEEP), scored beside",
    )
    parser.add_argument("--quiet", action="store_true")
    return parser


def main(argv: Sequence[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(list(argv))
    try:
        path = realtalk.directory(args.realtalk_dir)
    except realtalk.DatasetMissing as missing:
        print(f"engram eval realtalk: skipped: {missing}", file=sys.stderr)
        return 0
    api_key = args.api_key or os.environ.get("ENGRAM_API_KEY", "")
    if args.address and not api_key:
        parser.error("--address needs --api-key (a platform-admin key) or $ENGRAM_API_KEY")
    loaded = realtalk.load(path)
    conversations = loaded.split(args.split)
    say = Progress(args.quiet)
    say(
        f"REALTALK: {len(conversations)} conversations ({args.split}),"
        f" {sum(len(c.questions) for c in conversations)} questions;"
        f" {loaded.unresolved_evidence} evidence ids named no turn,"
        f" {loaded.dropped_questions} questions dropped for it"
    )
    baseline = score_system("bm25", conversations, bm25_retriever(conversations), KS)
    started_at = datetime.now(UTC)
    wall = time.perf_counter()
    engram: SystemScores | None = None
    deep: SystemScores | None = None
    details: dict[str, Any] = {}
    if not args.bm25_only:
        try:
            engram, deep, details = asyncio.run(_engram(args, api_key, conversations, say))
        except RecallUnavailable as error:
            print(f"engram eval realtalk: {error}", file=sys.stderr)
            return 2
    result = build(loaded, conversations, baseline, engram, details, args.label, deep)
    result["started_at"] = started_at.isoformat(timespec="seconds")
    result["duration_seconds"] = round(time.perf_counter() - wall, 1)
    text = markdown(result)
    print(text)
    if args.out or engram is not None:
        out = Path(args.out or DEFAULT_OUT)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
        out.with_suffix(".md").write_text(text)
        print(f"results: {out} and {out.with_suffix('.md')}", file=sys.stderr)
    return 0


async def _engram(
    args: argparse.Namespace,
    api_key: str,
    conversations: Sequence[Conversation],
    say: Callable[[str], None],
) -> tuple[SystemScores, SystemScores | None, dict[str, Any]]:
    with contextlib.ExitStack() as stack:
        if args.address:
            address, platform_key = args.address, api_key
        else:
            from engram_server.bench import harness

            database_url = harness.create_database(args.database_url, "engram_eval")
            stack.callback(harness.drop_database, args.database_url, database_url)
            server = harness.SpawnedServer(database_url, args.redis_url)
            server.start()
            stack.callback(server.stop)
            say(f"starting engram serve (pid {server.pid}) on {server.address}")
            await server.wait_serving()
            address, platform_key = server.address, server.bootstrap_token
        rankings: dict[str, list[str]] = {}
        latencies: list[float] = []
        deep_rankings: dict[str, list[str]] = {}
        deep_latencies: list[float] = []
        turns = memories = 0
        ingest_seconds = index_seconds = 0.0
        model = ""
        for conversation in conversations:
            # One tenant per conversation: IDF and every statistic are its own.
            remote = RemoteEngram(address, platform_key, args.deadline)
            try:
                await remote.create_tenant()
                await remote.check_recall()
                ingested = await remote.ingest([conversation], lambda _: None)
                wait = await remote.wait_indexed(args.index_timeout, say)
                turns += ingested.turns
                memories += ingested.memories
                ingest_seconds += ingested.seconds
                index_seconds += wait.seconds
                for question in conversation.questions:
                    hits, seconds = await remote.rank(conversation, question, max(KS))
                    rankings[question.id] = turns_of_hits(hits, ingested.turns_by_memory)
                    latencies.append(seconds)
                    if args.depth:
                        hits, seconds = await remote.rank(conversation, question, max(KS), True)
                        deep_rankings[question.id] = turns_of_hits(hits, ingested.turns_by_memory)
                        deep_latencies.append(seconds)
                model = remote.embedding_model or wait.embedding_model or model
                say(
                    f"{conversation.id}: {ingested.turns} turns in {ingested.seconds:.1f}s,"
                    f" indexed {wait.seconds:.1f}s later; {len(conversation.questions)} asked"
                )
            finally:
                with contextlib.suppress(grpc.aio.AioRpcError):
                    await remote.delete_tenant()
                await remote.close()
    latencies.sort()
    deep_latencies.sort()
    details = {
        "turns": turns,
        "memories": memories,
        "ingest_seconds": round(ingest_seconds, 1),
        "index_wait_seconds": round(index_seconds, 1),
        "embedding_model": model,
        "recall_p50_ms": round(1000 * latencies[len(latencies) // 2], 2) if latencies else 0,
    }
    deep = None
    if args.depth:
        details["depth_recall_p50_ms"] = round(1000 * _p(deep_latencies, 0.5), 2)
        details["depth_recall_p99_ms"] = round(1000 * _p(deep_latencies, 0.99), 2)
        details["recall_p99_ms"] = round(1000 * _p(latencies, 0.99), 2)
        deep = score_system("engram-depth", conversations, rankings_retriever(deep_rankings), KS)
    scores = score_system("engram", conversations, rankings_retriever(rankings), KS)
    return scores, deep, details


def _p(ordered: Sequence[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def mean_ci(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean and a 95% bootstrap interval of it (resampling questions)."""
    low, high = metrics.paired_bootstrap_ci(values, [0.0] * len(values), resamples=RESAMPLES)
    return metrics.mean(values), low, high


def _cell(scores: SystemScores, ids: set[str], name: str) -> dict[str, Any]:
    values = [q.values()[name] for q in scores.questions if q.question_id in ids]
    mean, low, high = mean_ci(values)
    return {"mean": round(mean, 4), "ci95": [round(low, 4), round(high, 4)]}


def build(
    loaded: realtalk.Loaded,
    conversations: Sequence[Conversation],
    baseline: SystemScores,
    engram: SystemScores | None,
    details: dict[str, Any],
    label: str,
    deep: SystemScores | None = None,
) -> dict[str, Any]:
    from engram_server.bench.harness import git_commit

    chosen = {c.id for c in conversations}
    splits: dict[str, Any] = {}
    for split in ("dev", "report", "all"):
        members = [c for c in loaded.split(split) if c.id in chosen]
        if not members or (split == "all" and len(splits) < 2):
            continue
        rows: dict[str, Any] = {}
        questions = [q for c in members for q in c.questions]
        for category in ["overall", *sorted({q.category for q in questions})]:
            ids = {q.id for q in questions if category == "overall" or q.category == category}
            row: dict[str, Any] = {"questions": len(ids)}
            for name in ("recall@10", "mrr", "recall@5"):
                row[name] = {"bm25": _cell(baseline, ids, name)}
                if engram is not None:
                    row[name]["engram"] = _cell(engram, ids, name)
                    ours = [q.values()[name] for q in engram.questions if q.question_id in ids]
                    theirs = [q.values()[name] for q in baseline.questions if q.question_id in ids]
                    low, high = metrics.paired_bootstrap_ci(ours, theirs, resamples=RESAMPLES)
                    row[name]["delta_ci95"] = [round(low, 4), round(high, 4)]
                    if deep is not None:
                        row[name]["engram_depth"] = _cell(deep, ids, name)
                        mine = [q.values()[name] for q in deep.questions if q.question_id in ids]
                        low, high = metrics.paired_bootstrap_ci(mine, ours, resamples=RESAMPLES)
                        row[name]["depth_delta_ci95"] = [round(low, 4), round(high, 4)]
            rows[category] = row
        splits[split] = {
            "dataset": realtalk.summary(loaded, members),
            "by_category": rows,
        }
    return {
        "benchmark": "recall-quality-realtalk",
        "label": label,
        "engram_version": __version__,
        "git_commit": git_commit(),
        "machine": {"cpu_count": os.cpu_count()},
        "method": (
            "one tenant per conversation; every turn one EPISODIC memory 'SPEAKER: text'"
            " (BatchProposeMemories, session = the file's session, valid_from = the"
            " message's time, attributes turn_id and time), in order; once the index has"
            " no backlog, one Recall per question"
            " (k = 10, read-your-writes, skip_access_tracking, server defaults). BM25:"
            " Okapi over the same 'SPEAKER: text' turns (evaluation/bm25.py). A turn counts"
            " when the question's evidence names it. CIs: 95% bootstrap over questions."
        ),
        "evidence": {
            "unresolved_ids": loaded.unresolved_evidence,
            "dropped_questions": loaded.dropped_questions,
        },
        "engram": details,
        "splits": splits,
    }


def markdown(result: dict[str, Any]) -> str:
    lines = [
        "# Recall on REALTALK (real conversations): Engram vs BM25",
        "",
        f"Configuration: {result['label']}. Engram {result['engram_version']}, commit"
        f" `{(result['git_commit'] or 'unknown')[:12]}`.",
        "",
    ]
    for split, data in result["splits"].items():
        info = data["dataset"]
        lines += [
            f"## {split} split: conversations {info['conversations']}",
            "",
            f"{info['turns']} turns, {info['sessions']} sessions, {info['questions']} questions.",
            "",
            "| category (questions) | BM25 R@10 | Engram R@10 | delta R@10 95% CI"
            " | BM25 MRR | Engram MRR |",
            "|---|---|---|---|---|---|",
        ]
        for category, row in data["by_category"].items():
            r10, mrr = row["recall@10"], row["mrr"]
            engram_r10 = _fmt(r10["engram"]) if "engram" in r10 else "-"
            engram_mrr = _fmt(mrr["engram"]) if "engram" in mrr else "-"
            delta = "[{:+.3f}, {:+.3f}]".format(*r10["delta_ci95"]) if "delta_ci95" in r10 else "-"
            lines.append(
                f"| {category} ({row['questions']}) | {_fmt(r10['bm25'])} | {engram_r10}"
                f" | {delta} | {_fmt(mrr['bm25'])} | {engram_mrr} |"
            )
        lines.append("")
        if any("engram_depth" in row["recall@10"] for row in data["by_category"].values()):
            lines += [
                "Depth mode (RECALL_DEPTH_DEEP) beside the standard recall, same run;"
                " the delta's interval is paired (depth - standard):",
                "",
                "| category (questions) | standard R@10 | depth R@10 | delta R@10 95% CI"
                " | standard MRR | depth MRR | delta MRR 95% CI |",
                "|---|---|---|---|---|---|---|",
            ]
            for category, row in data["by_category"].items():
                r10, mrr = row["recall@10"], row["mrr"]
                lines.append(
                    f"| {category} ({row['questions']}) | {_fmt(r10['engram'])}"
                    f" | {_fmt(r10['engram_depth'])}"
                    " | [{:+.3f}, {:+.3f}]".format(*r10["depth_delta_ci95"])
                    + f" | {_fmt(mrr['engram'])} | {_fmt(mrr['engram_depth'])}"
                    " | [{:+.3f}, {:+.3f}] |".format(*mrr["depth_delta_ci95"])
                )
            lines.append("")
    engram = result["engram"]
    if engram:
        lines += [
            f"Ingest: {engram['turns']} turns -> {engram['memories']} memories in"
            f" {engram['ingest_seconds']} s, indexed {engram['index_wait_seconds']} s later;"
            f" model `{engram['embedding_model']}`; Recall p50 {engram['recall_p50_ms']} ms"
            " (informative; `engram bench recall` measures latency).",
            "",
        ]
        if "depth_recall_p50_ms" in engram:
            lines += [
                f"Same run, per question: standard Recall p50 / p99 {engram['recall_p50_ms']}"
                f" / {engram['recall_p99_ms']} ms, depth mode"
                f" {engram['depth_recall_p50_ms']} / {engram['depth_recall_p99_ms']} ms.",
                "",
            ]
    lines += [f"Method: {result['method']}", ""]
    return "\n".join(lines)


def _fmt(cell: dict[str, Any]) -> str:
    low, high = cell["ci95"]
    return f"{cell['mean']:.3f} [{low:.2f}, {high:.2f}]"
