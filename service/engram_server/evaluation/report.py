"""The results of a run: a JSON document and the markdown tables made from it."""

from __future__ import annotations

import hashlib
import os
import platform
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from engram_server import __version__
from engram_server.bench.harness import git_commit
from engram_server.evaluation import bm25, dataset
from engram_server.evaluation.runner import NDCG_K, EngramRun, SystemScores, compare

GOAL = "Engram above the BM25 baseline on recall@k at every k, MRR and nDCG@10"


def build(
    *,
    dataset_path: Path,
    conversations: Sequence[dataset.Conversation],
    baseline: SystemScores,
    engram: EngramRun,
    started_at: datetime,
    duration_seconds: float,
) -> dict[str, Any]:
    scores = engram.scores
    overall = compare(scores, baseline)
    by_category: dict[str, Any] = {}
    for category in scores.categories():
        ours, theirs = scores.means(category), baseline.means(category)
        by_category[category] = {
            "questions": sum(q.category == category for q in scores.questions),
            "metrics": {
                name: {
                    "engram": ours[name],
                    "bm25": theirs[name],
                    "delta": ours[name] - theirs[name],
                }
                for name in scores.metric_names()
            },
        }
    # "Clearly above": the whole 95% interval of the gain is above zero.
    goal_by_metric = {name: row["delta_ci95"][0] > 0 for name, row in overall.items()}
    ingested = engram.ingested
    latencies = sorted(engram.latencies)
    return {
        "benchmark": "recall-quality",
        "engram_version": __version__,
        "git_commit": git_commit(),
        "started_at": started_at.isoformat(timespec="seconds"),
        "duration_seconds": round(duration_seconds, 1),
        "machine": {
            "cpu_count": os.cpu_count(),
            "platform": platform.platform(),
            "python": platform.python_version(),
        },
        "dataset": {
            "path": str(dataset_path),
            "sha256": hashlib.sha256(dataset_path.read_bytes()).hexdigest(),
            **dataset.summary(conversations),
        },
        "config": {
            "ks": list(scores.ks),
            "hits_requested": max(*scores.ks, NDCG_K),
            "ndcg_k": NDCG_K,
            "grades": {"2": "answers the question", "1": "supports the answer"},
        },
        "method": {
            "server": engram.server_mode + ".",
            "engram": (
                "a scratch tenant; one space per conversation (`eval/<conversation>`); every"
                " turn stored with BatchProposeMemories as an EPISODIC memory (content = the"
                " turn's text, session = its session, attributes turn_id/role/time), in"
                " chronological order; then, once GetIndexStatus reports no backlog, one"
                " Recall per question in its conversation's space with READ_YOUR_WRITES"
                " consistency, skip_access_tracking and default ranking settings; hits"
                " mapped back to turn ids through the memory names BatchProposeMemories"
                " returned."
            ),
            "baseline": (
                f"Okapi BM25 (k1 = {bm25.K1}, b = {bm25.B}, IDF ln(1 + (N - n + 0.5) /"
                " (n + 0.5))) in process over the same turns, one index per conversation;"
                " lower-cased \\w+ tokens, English stop words removed"
                f" ({len(bm25.STOP_WORDS)} function words), no stemming."
            ),
            "metrics": (
                "recall@k: share of graded turns (grade 1 or 2) in the first k; MRR: mean of"
                " 1 / rank of the first graded turn (0 if none in the hits); nDCG@10: gain"
                " 2^grade - 1, discount log2(rank + 1), over the ideal ordering. Means over"
                " questions; delta_ci95 is a 95% paired bootstrap interval of the mean"
                " difference (2000 resamples of the questions)."
            ),
        },
        "ingest": {
            "turns": ingested.turns,
            "memories": ingested.memories,
            "merged_turns": ingested.merged_turns,
            "outcomes": dict(sorted(ingested.outcomes.items())),
            "seconds": round(ingested.seconds, 2),
            "index_wait_seconds": round(engram.index_wait.seconds, 2),
            "index_status_available": engram.index_wait.status_available,
            "embedding_model": engram.embedding_model,
            "vector_backend": engram.index_wait.vector_backend,
        },
        "recall_latency_ms": {
            "calls": len(latencies),
            "p50": _ms(_quantile(latencies, 0.50)),
            "p95": _ms(_quantile(latencies, 0.95)),
            "max": _ms(latencies[-1] if latencies else 0.0),
            "note": "sequential calls from one client, read-your-writes included; for"
            " information only (`engram bench recall` measures latency properly)",
        },
        "results": {"overall": overall, "by_category": by_category},
        "goal": {
            "statement": GOAL,
            "met": all(goal_by_metric.values()),
            "by_metric": goal_by_metric,
        },
        "questions": _questions(conversations, scores, baseline),
    }


def _questions(
    conversations: Sequence[dataset.Conversation], engram: SystemScores, baseline: SystemScores
) -> list[dict[str, Any]]:
    """Each question's labels and both systems' top hits, for looking into misses."""
    by_id = {q.id: q for c in conversations for q in c.questions}
    rows: list[dict[str, Any]] = []
    for ours, theirs in zip(engram.questions, baseline.questions, strict=True):
        question = by_id[ours.question_id]
        rows.append(
            {
                "id": question.id,
                "category": question.category,
                "text": question.text,
                "answers": dict(question.answers),
                "engram": {
                    "ranked": list(ours.ranked),
                    "rr": round(ours.reciprocal_rank, 4),
                    "ndcg": round(ours.ndcg, 4),
                },
                "bm25": {
                    "ranked": list(theirs.ranked),
                    "rr": round(theirs.reciprocal_rank, 4),
                    "ndcg": round(theirs.ndcg, 4),
                },
            }
        )
    return rows


def markdown(report: dict[str, Any]) -> str:
    data, results = report["dataset"], report["results"]
    categories = ", ".join(f"{k} {v}" for k, v in data["questions_by_category"].items())
    lines = [
        "# Recall quality: Engram vs a BM25 baseline",
        "",
        f"Dataset `{data['path']}`: {data['conversations']} conversations,"
        f" {data['sessions']} sessions, {data['turns']} turns, {data['questions']} questions"
        f" ({categories}). Engram {report['engram_version']}, commit"
        f" `{report['git_commit'][:12] or 'unknown'}`, {report['started_at']}.",
        "",
        "| metric | BM25 | Engram | delta | delta 95% CI | relative |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, row in results["overall"].items():
        low, high = row["delta_ci95"]
        relative = f"{row['relative']:+.0%}" if row["relative"] is not None else "n/a"
        lines.append(
            f"| {name} | {row['bm25']:.3f} | {row['engram']:.3f} | {row['delta']:+.3f}"
            f" | [{low:+.3f}, {high:+.3f}] | {relative} |"
        )
    goal = report["goal"]
    lines += [
        "",
        f"Goal ({goal['statement']}, with the whole 95% interval above zero):"
        f" **{'met' if goal['met'] else 'not met'}**.",
        "",
        "## By question category",
        "",
        "| category | questions | MRR BM25 | MRR Engram | nDCG@10 BM25 | nDCG@10 Engram"
        " | recall@5 BM25 | recall@5 Engram |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for category, row in results["by_category"].items():
        m = row["metrics"]
        cells = [f"{m[name]['bm25']:.3f} | {m[name]['engram']:.3f}" for name in _breakdown(m)]
        lines.append(f"| {category} | {row['questions']} | " + " | ".join(cells) + " |")
    ingest, latency = report["ingest"], report["recall_latency_ms"]
    lines += [
        "",
        "## Run",
        "",
        f"- Ingest: {ingest['turns']} turns -> {ingest['memories']} memories"
        f" ({ingest['merged_turns']} merged), outcomes {ingest['outcomes']},"
        f" {ingest['seconds']} s; index caught up {ingest['index_wait_seconds']} s later."
        f" Embedding model `{ingest['embedding_model'] or 'unknown'}`.",
        f"- Recall calls: {latency['calls']}, p50 {latency['p50']} ms, p95 {latency['p95']} ms"
        " (informative only).",
        "",
        "## Method",
        "",
        *(f"- {key}: {text}" for key, text in report["method"].items()),
        "",
    ]
    return "\n".join(lines)


def _breakdown(metrics: dict[str, Any]) -> list[str]:
    return [name for name in ("mrr", f"ndcg@{NDCG_K}", "recall@5") if name in metrics]


def baseline_table(baseline: SystemScores) -> str:
    """The baseline's means, overall and by category (for `--bm25-only`)."""
    names = baseline.metric_names()
    lines = [
        "| category | questions | " + " | ".join(names) + " |",
        "|---|---:|" + "---:|" * len(names),
    ]
    for category in [None, *baseline.categories()]:
        means = baseline.means(category)
        count = sum(category is None or q.category == category for q in baseline.questions)
        cells = " | ".join(f"{means[n]:.3f}" for n in names)
        lines.append(f"| {category or 'all'} | {count} | {cells} |")
    return "\n".join(lines) + "\n"


def _quantile(sorted_values: Sequence[float], q: float) -> float:
    if not sorted_values:
        return 0.0
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 2)
