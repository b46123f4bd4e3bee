"""`engram eval decisions`: finding the commit that answers a "why" question.

    engram eval decisions [--repos ripgrep,click] [--repo NAME=PATH ...]
                          [--address HOST:PORT --api-key KEY] [--out eval/results/decisions.json]

Each repository of `eval/datasets/decisions/repositories.json` is read at its
pinned commit from a local copy: `--repo NAME=PATH` (a checkout or a bare
repository), else `<--mirror-root>/<mirror>/repo` when present, else a clone
of its URL into a temp dir. Its history never enters this repository.

The questions (`<name>.jsonl`) were written from plain git before Engram ran
on the repository, each naming the commits that answer it. Every commit of the
history is ingested (deterministic miner) into a fresh tenant; each question is
asked through SearchDecisions (k = 10) and scored by the rank of the first
decision whose commits include an answering one. Beside it, in the same run:

- `git log --grep`: the question's keywords (stop words dropped) matched
  case-insensitively in commit messages, as `git log -i --grep=w1 --grep=w2 ...`
  would, commits matching more keywords first, then git's order (newest first);
- BM25 over the commit messages (subject and body).

Reported: Hit@1, Hit@5, Hit@10 and MRR@10, overall and per category.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

DEFAULT_DIR = "eval/datasets/decisions"
DEFAULT_OUT = "eval/results/decisions.json"
DEFAULT_MIRRORS = "/work/.mirror"
DEFAULT_PG_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
K = 10
BATCH = 250
SYSTEMS = ("engram", "git-grep", "bm25")


@dataclass(frozen=True)
class Question:
    id: str
    category: str
    question: str
    answers: tuple[str, ...]


@dataclass
class RepoRun:
    name: str
    language: str
    commit: str
    commits: int = 0
    decisions: int = 0
    without_decision: int = 0
    ingest_seconds: float = 0.0
    index_seconds: float = 0.0
    answers_mined: int = 0
    answers_total: int = 0
    ranks: dict[str, dict[str, int | None]] = field(default_factory=dict)
    questions: list[Question] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="engram eval decisions",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--dataset-dir", default=DEFAULT_DIR)
    p.add_argument("--repos", default="", help="comma-separated names (default: all)")
    p.add_argument("--repo", action="append", default=[], help="NAME=PATH of a local copy")
    p.add_argument("--mirror-root", default=DEFAULT_MIRRORS)
    p.add_argument("--address", help="a running server (default: start one)")
    p.add_argument("--api-key", help="with --address: a platform-admin key")
    p.add_argument("--database-url", default=DEFAULT_PG_URL)
    p.add_argument("--redis-url", default=DEFAULT_REDIS_URL)
    p.add_argument("--out", default=DEFAULT_OUT)
    p.add_argument("--quiet", action="store_true")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    runs = asyncio.run(_run(args))
    report = _report(runs)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    text = markdown(report)
    out.with_suffix(".md").write_text(text)
    print(text)
    return 0


def _say(quiet: bool) -> Callable[[str], None]:
    def say(message: str) -> None:
        if not quiet:
            print(f"[eval decisions] {message}", file=sys.stderr, flush=True)

    return say


def load_questions(path: Path) -> list[Question]:
    out = []
    for line in path.read_text().splitlines():
        if line.strip():
            d = json.loads(line)
            kind = d.get("kind") or d["category"]
            out.append(Question(d["id"], kind, d["question"], tuple(d["answers"])))
    return out


def _source(name: str, spec: dict[str, str], args: argparse.Namespace, tmp: Path) -> str:
    for item in args.repo:
        key, _, path = str(item).partition("=")
        if key == name:
            return path
    mirror = Path(args.mirror_root) / spec.get("mirror", "") / "repo"
    if spec.get("mirror") and mirror.exists():
        return str(mirror)
    target = tmp / name
    subprocess.run(["git", "clone", "--bare", "-q", spec["url"], str(target)], check=True)
    return str(target)


def _messages(path: str, commit: str) -> list[tuple[str, str]]:
    """(sha, message) of every commit up to `commit`, newest first (git's order)."""
    raw = subprocess.run(
        ["git", "-C", path, "log", "--format=%H%x00%B%x01", commit],
        capture_output=True,
        text=True,
        check=True,
        errors="replace",
    ).stdout
    out = []
    for record in raw.split("\x01"):
        record = record.strip("\n")
        if record:
            sha, _, message = record.partition("\x00")
            out.append((sha.strip(), message))
    return out


def grep_ranking(question: str, messages: Sequence[tuple[str, str]]) -> list[str]:
    from engram_server.evaluation.bm25 import STOP_WORDS, tokenize

    words = list(dict.fromkeys(tokenize(question, STOP_WORDS)))
    if not words:
        return []
    scored = []
    for position, (sha, message) in enumerate(messages):
        lowered = message.lower()
        matched = sum(1 for w in words if w in lowered)
        if matched:
            scored.append((-matched, position, sha))
    scored.sort()
    return [sha for _, _, sha in scored[:K]]


def _rank(ranking: Sequence[Sequence[str]], answers: Sequence[str]) -> int | None:
    """1-based rank of the first entry (a decision's commits, or one commit)
    holding an answer; None when none of the first K does."""
    wanted = set(answers)
    for i, shas in enumerate(ranking[:K], start=1):
        if wanted & set(shas):
            return i
    return None


async def _run(args: argparse.Namespace) -> list[RepoRun]:
    import contextlib

    say = _say(args.quiet)
    manifest = json.loads((Path(args.dataset_dir) / "repositories.json").read_text())
    names = [n for n in (args.repos.split(",") if args.repos else manifest) if n]
    runs: list[RepoRun] = []
    with contextlib.ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="engram-eval-")))
        if args.address:
            address, platform_key = args.address, args.api_key or ""
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
        for name in names:
            spec = manifest[name]
            path = _source(name, spec, args, tmp)
            questions = load_questions(Path(args.dataset_dir) / f"{name}.jsonl")
            runs.append(await _one(name, spec, path, questions, address, platform_key, say))
    return runs


async def _one(
    name: str,
    spec: dict[str, str],
    path: str,
    questions: list[Question],
    address: str,
    platform_key: str,
    say: Callable[[str], None],
) -> RepoRun:
    from engram import git
    from engram.v1 import decisions_pb2, decisions_pb2_grpc

    from engram_server.evaluation.bm25 import BM25
    from engram_server.evaluation.remote import RemoteEngram

    run = RepoRun(name, spec["language"], spec["commit"], questions=questions)
    messages = _messages(path, spec["commit"])
    bm25 = BM25(messages)
    remote = RemoteEngram(address, platform_key, 120.0)
    stub = decisions_pb2_grpc.DecisionsServiceStub(remote.channel)
    answer_shas = {a for q in questions for a in q.answers}
    mined: set[str] = set()
    try:
        await remote.create_tenant()
        metadata = remote._metadata
        say(f"{name}: ingesting {len(messages)} commits at {spec['commit'][:12]}")
        start = time.perf_counter()
        batch: list[decisions_pb2.Commit] = []

        async def send(commits: list[decisions_pb2.Commit]) -> None:
            response = await stub.IngestCommits(
                decisions_pb2.IngestCommitsRequest(repository=name, commits=commits),
                metadata=metadata,
                timeout=300,
            )
            run.commits += len(commits)
            run.decisions += response.created_decisions
            run.without_decision += response.commits_without_decision
            for c in response.commits:
                if c.disposition == decisions_pb2.COMMIT_DISPOSITION_DECISION:
                    mined.add(c.sha)

        for commit in git.read_commits(path, spec["commit"]):
            batch.append(commit)
            if len(batch) >= BATCH:
                await send(batch)
                batch = []
        if batch:
            await send(batch)
        run.ingest_seconds = time.perf_counter() - start
        say(f"{name}: {run.decisions} decisions in {run.ingest_seconds:.1f}s; indexing")
        wait = await remote.wait_indexed(3600, say)
        run.index_seconds = wait.seconds
        run.answers_total = len(answer_shas)
        run.answers_mined = len(answer_shas & mined)
        for q in questions:
            t0 = time.perf_counter()
            response = await stub.SearchDecisions(
                decisions_pb2.SearchDecisionsRequest(query=q.question, repository=name, k=K),
                metadata=metadata,
                timeout=60,
            )
            run.latencies.append(time.perf_counter() - t0)
            engram = [list(h.decision.commits) for h in response.hits]
            grep = [[sha] for sha in grep_ranking(q.question, messages)]
            lexical = [[sha] for sha in bm25.search(q.question, K)]
            run.ranks[q.id] = {
                "engram": _rank(engram, q.answers),
                "git-grep": _rank(grep, q.answers),
                "bm25": _rank(lexical, q.answers),
            }
    finally:
        await remote.delete_tenant()
        await remote.close()
    return run


def _metrics(ranks: Sequence[int | None]) -> dict[str, float]:
    n = len(ranks) or 1
    return {
        "hit@1": sum(1 for r in ranks if r is not None and r <= 1) / n,
        "hit@5": sum(1 for r in ranks if r is not None and r <= 5) / n,
        "hit@10": sum(1 for r in ranks if r is not None and r <= 10) / n,
        "mrr@10": sum(1.0 / r for r in ranks if r is not None) / n,
    }


def _report(runs: Sequence[RepoRun]) -> dict[str, Any]:
    repos: dict[str, Any] = {}
    everything: dict[str, list[int | None]] = {s: [] for s in SYSTEMS}
    for run in runs:
        categories = sorted({q.category for q in run.questions})
        by_system: dict[str, Any] = {}
        for system in SYSTEMS:
            ranks = [run.ranks[q.id][system] for q in run.questions]
            everything[system] += ranks
            by_system[system] = {
                "all": _metrics(ranks),
                **{
                    c: _metrics([run.ranks[q.id][system] for q in run.questions if q.category == c])
                    for c in categories
                },
            }
        latencies = sorted(run.latencies)
        repos[run.name] = {
            "language": run.language,
            "commit": run.commit,
            "commits": run.commits,
            "decisions": run.decisions,
            "commits_without_decision": run.without_decision,
            "ingest_seconds": round(run.ingest_seconds, 2),
            "ingest_commits_per_second": round(run.commits / max(run.ingest_seconds, 1e-9), 1),
            "index_seconds": round(run.index_seconds, 2),
            "answer_commits_mined": f"{run.answers_mined}/{run.answers_total}",
            "search_p50_ms": round(1000 * latencies[len(latencies) // 2], 1) if latencies else 0,
            "questions": len(run.questions),
            "systems": by_system,
            "ranks": run.ranks,
        }
    return {
        "generated": datetime.now(UTC).isoformat(timespec="seconds"),
        "k": K,
        "repositories": repos,
        "overall": {s: _metrics(everything[s]) for s in SYSTEMS},
    }


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "# Decisions: finding the commit that answers a why-question",
        "",
        f"Generated {report['generated']} by `engram eval decisions` (SearchDecisions, k = 10;"
        " deterministic miner). Questions were written from plain git before Engram ran on"
        " the repositories (`eval/datasets/decisions/`).",
        "",
        "| repository | system | Hit@1 | Hit@5 | Hit@10 | MRR@10 |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for name, repo in report["repositories"].items():
        for system in SYSTEMS:
            m = repo["systems"][system]["all"]
            lines.append(
                f"| {name} | {system} | {m['hit@1']:.2f} | {m['hit@5']:.2f} | {m['hit@10']:.2f}"
                f" | {m['mrr@10']:.3f} |"
            )
    for system in SYSTEMS:
        m = report["overall"][system]
        lines.append(
            f"| **both** | {system} | {m['hit@1']:.2f} | {m['hit@5']:.2f} | {m['hit@10']:.2f}"
            f" | {m['mrr@10']:.3f} |"
        )
    lines += ["", "## Per category (MRR@10: engram / git-grep / bm25)", ""]
    for name, repo in report["repositories"].items():
        lines.append(f"### {name} ({repo['language']}, {repo['commit'][:12]})")
        lines.append("")
        lines.append("| category | engram Hit@10 | engram MRR | git-grep MRR | bm25 MRR |")
        lines.append("|---|---:|---:|---:|---:|")
        for category, m in repo["systems"]["engram"].items():
            if category == "all":
                continue
            g = repo["systems"]["git-grep"][category]
            b = repo["systems"]["bm25"][category]
            lines.append(
                f"| {category} | {m['hit@10']:.2f} | {m['mrr@10']:.3f} | {g['mrr@10']:.3f}"
                f" | {b['mrr@10']:.3f} |"
            )
        lines += [
            "",
            f"{repo['commits']} commits ingested in {repo['ingest_seconds']}s"
            f" ({repo['ingest_commits_per_second']}/s), {repo['decisions']} decisions,"
            f" {repo['commits_without_decision']} commits without a decision; answering"
            f" commits that became decisions: {repo['answer_commits_mined']}; index caught up"
            f" {repo['index_seconds']}s later; SearchDecisions p50 {repo['search_p50_ms']} ms.",
            "",
        ]
    return "\n".join(lines) + "\n"
