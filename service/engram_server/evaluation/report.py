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
from engram_server.evaluation import bm25, dataset, metrics
from engram_server.evaluation.runner import NDCG_K, EngramRun, SystemScores, compare

RESAMPLES = 2000

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
    # The generated questions keep their own overall figures (comparable with
    # earlier runs); the harder, hand-written ones are summed up apart.
    generated = [c for c in scores.categories() if c not in dataset.HARD_CATEGORIES]
    hard = [c for c in scores.categories() if c in dataset.HARD_CATEGORIES]
    overall = compare(scores.only(generated), baseline.only(generated))
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
            "intervals": intervals(scores.only([category]), baseline.only([category])),
        }
    hard_results: dict[str, Any] = {}
    if hard:
        hard_engram, hard_bm25 = scores.only(hard), baseline.only(hard)
        hard_results = {
            "categories": hard,
            "questions": len(hard_engram.questions),
            "overall": compare(hard_engram, hard_bm25),
            "intervals": intervals(hard_engram, hard_bm25),
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
            **_hard_file(dataset_path),
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
                " difference (2000 resamples of the questions), ci95 one of a mean."
                " `overall` and the goal are over the generated questions; the harder,"
                " hand-written ones (the dataset's .hard.jsonl) are reported apart, by"
                " category and together."
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
        "results": {
            "overall": overall,
            "overall_intervals": intervals(scores.only(generated), baseline.only(generated)),
            "by_category": by_category,
            "hard": hard_results,
        },
        "goal": {
            "statement": GOAL,
            "met": all(goal_by_metric.values()),
            "by_metric": goal_by_metric,
        },
        "questions": _questions(conversations, scores, baseline),
    }


def _hard_file(dataset_path: Path) -> dict[str, str]:
    path = dataset.hard_path(dataset_path)
    if not path.exists():
        return {}
    return {"hard_path": str(path), "hard_sha256": hashlib.sha256(path.read_bytes()).hexdigest()}


def intervals(engram: SystemScores, baseline: SystemScores) -> dict[str, Any]:
    """Recall at the largest k and MRR: each system's mean with a 95% bootstrap
    interval, and the paired interval of the difference (resampling questions)."""
    out: dict[str, Any] = {}
    for name in (f"recall@{max(engram.ks)}", "mrr"):
        ours, theirs = engram.per_question(name), baseline.per_question(name)
        row: dict[str, Any] = {"questions": len(ours)}
        for system, values in (("bm25", theirs), ("engram", ours)):
            low, high = metrics.paired_bootstrap_ci(values, [0.0] * len(values), RESAMPLES)
            row[system] = {"mean": metrics.mean(values), "ci95": [low, high]}
        low, high = metrics.paired_bootstrap_ci(ours, theirs, RESAMPLES)
        row["delta"] = metrics.mean(ours) - metrics.mean(theirs)
        row["delta_ci95"] = [low, high]
        out[name] = row
    return out


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
        *_generated_note(report),
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
    lines += [
        "",
        "## By category, with 95% intervals",
        "",
        "Means with a 95% bootstrap interval; the delta's interval is paired"
        " (Engram minus BM25 on the same questions).",
        "",
        *_interval_table(report),
    ]
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


def _generated_note(report: dict[str, Any]) -> list[str]:
    hard = report["results"].get("hard") or {}
    if not hard:
        return []
    return [
        f"The overall figures and the goal are over the generated questions; the"
        f" {hard['questions']} harder, hand-written ones (`{report['dataset']['hard_path']}`)"
        " are reported apart in the last table.",
        "",
    ]


def _interval_table(report: dict[str, Any]) -> list[str]:
    results = report["results"]
    rows: list[tuple[str, dict[str, Any]]] = [("overall, generated", results["overall_intervals"])]
    hard = results.get("hard") or {}
    hard_names = set(hard.get("categories", ()))
    rows += [(c, r["intervals"]) for c, r in results["by_category"].items() if c not in hard_names]
    if hard:
        rows.append(("**overall, harder (hand-written)**", hard["intervals"]))
        rows += [(c, r["intervals"]) for c, r in results["by_category"].items() if c in hard_names]
    recall_name = next(n for n in rows[0][1] if n.startswith("recall@"))
    head = recall_name.replace("recall@", "R@")
    lines = [
        f"| category (questions) | BM25 {head} | Engram {head} | delta {head} 95% CI"
        " | BM25 MRR | Engram MRR | delta MRR 95% CI |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, row in rows:
        r, m = row[recall_name], row["mrr"]
        lines.append(
            f"| {name} ({r['questions']}) | {_cell(r['bm25'])} | {_cell(r['engram'])}"
            f" | {_delta(r)} | {_cell(m['bm25'])} | {_cell(m['engram'])} | {_delta(m)} |"
        )
    return lines


def _cell(value: dict[str, Any]) -> str:
    low, high = value["ci95"]
    return f"{value['mean']:.3f} [{low:.2f}, {high:.2f}]"


def _delta(row: dict[str, Any]) -> str:
    low, high = row["delta_ci95"]
    return f"{row['delta']:+.3f} [{low:+.3f}, {high:+.3f}]"


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
