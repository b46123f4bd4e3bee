"""`engram eval decisions`: finding the commit that answers a "why" question.

    engram eval decisions [--split dev|test|holdout|all] [--repos ripgrep,click]
                          [--repo NAME=PATH ...]
                          [--address HOST:PORT --api-key KEY] [--out eval/results/decisions.json]

Each repository of `eval/datasets/decisions/repositories.json` is read at its
pinned commit from a local copy: `--repo NAME=PATH` (a checkout or a bare
repository), else `<--mirror-root>/<mirror>/repo` when present, else a clone
of its URL into a temp dir. Its history never enters this repository.

The questions (`<name>.jsonl`) were written from plain git before Engram ran on
the repository. Each names its kind (`rationale`, `origin`, `rename`, ...), its
split (`dev`, `test` or `holdout`) and the commits that answer it; a `no-answer`
question names none. `holdout` questions are about repositories of their own;
they are scored only when asked for by name (`--split holdout`), never by
`--split all`, and a repository with no question in the chosen split is not
ingested. Every answering commit must be reachable from the pinned commit, or
the run stops naming the question.

Every commit of the history is ingested (deterministic miner) into a fresh
tenant, the run waits until the index has caught up, and each question is asked
through SearchDecisions (k = 10) and scored by the rank of the first decision
whose commits include an answering one. Beside it, in the same run and over the
same commits:

- `git log --grep`: the question's keywords (stop words dropped) matched
  case-insensitively in commit messages, as `git log -i --grep=w1 --grep=w2 ...`
  would, commits matching more keywords first, then git's order (newest first);
- Okapi BM25 over each commit's full message (subject and body).

Reported per split (`--split all` reports dev, test and both, not holdout):
Hit@1, Hit@5, Hit@10 and MRR@10 over the questions that have an answer, overall,
by repository and by kind; and for the `no-answer` questions, how often Engram
abstained (said that no decision explains the question) and the precision of its
abstentions.
While SearchDecisions has no abstain signal, the report gives Engram's top score
on answerable and on no-answer questions instead.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
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
MAX_INVALID_EXAMPLES = 5
SYSTEMS = ("engram", "git-grep", "bm25")
SPLITS = ("dev", "test")
# Written after dev and test were looked at, over other repositories; not part
# of `all`, so that it stays unscored until asked for by name.
HOLDOUT = "holdout"
SPLIT_CHOICES = (*SPLITS, HOLDOUT, "all")
NO_ANSWER = "no-answer"
# The boolean of SearchDecisionsResponse that says no decision explains the
# question, and the confidence it is decided from. Read by name so that this
# evaluation runs against servers with and without them; while the response has
# no such field, abstention is not scored.
ABSTAIN_FIELD = "abstained"
CONFIDENCE_FIELD = "confidence"


@dataclass(frozen=True)
class Question:
    id: str
    kind: str
    question: str
    answers: tuple[str, ...]
    split: str = ""

    @property
    def answerable(self) -> bool:
        return bool(self.answers)


@dataclass
class Outcome:
    """What each system did with one question."""

    ranks: dict[str, int | None]
    top_score: float | None = None
    abstained: bool | None = None
    confidence: float | None = None


@dataclass
class RepoRun:
    name: str
    language: str
    commit: str
    commits: int = 0
    decisions: int = 0
    without_decision: int = 0
    invalid: int = 0
    invalid_examples: list[str] = field(default_factory=list)
    read_error: str = ""
    ingest_seconds: float = 0.0
    index_seconds: float = 0.0
    answers_mined: int = 0
    answers_total: int = 0
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    questions: list[Question] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)


def split_of(question_id: str) -> str:
    """The split a question belongs to: the parity of its id's SHA-256, so the
    assignment is fixed by the id alone and about half go to each."""
    return SPLITS[int(hashlib.sha256(question_id.encode()).hexdigest(), 16) % 2]


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="engram eval decisions",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--dataset-dir", default=DEFAULT_DIR)
    p.add_argument("--repos", default="", help="comma-separated names (default: all)")
    p.add_argument("--repo", action="append", default=[], help="NAME=PATH of a local copy")
    p.add_argument(
        "--split",
        choices=SPLIT_CHOICES,
        default="all",
        help="all = dev and test; holdout is scored only when named",
    )
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
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)

    def write(runs: Sequence[RepoRun]) -> str:
        # After every repository, so that a long run stopped half-way still
        # leaves the report of the repositories it finished.
        report = _report(runs, args.split)
        out.write_text(json.dumps(report, indent=2) + "\n")
        text = markdown(report)
        out.with_suffix(".md").write_text(text)
        return text

    print(write(asyncio.run(_run(args, write))))
    return 0


def _say(quiet: bool) -> Callable[[str], None]:
    def say(message: str) -> None:
        if not quiet:
            print(f"[eval decisions] {message}", file=sys.stderr, flush=True)

    return say


def load_questions(path: Path) -> list[Question]:
    """The questions of one file; `kind` falls back to the older `category`, and
    `split` to `split_of(id)`. A `no-answer` question must name no commit and
    every other question at least one."""
    allowed = (*SPLITS, HOLDOUT)
    out = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        d = json.loads(line)
        kind = d.get("kind") or d["category"]
        question = Question(
            d["id"], kind, d["question"], tuple(d["answers"]), d.get("split") or split_of(d["id"])
        )
        if question.split not in allowed:
            raise ValueError(f"{path}:{number}: split must be one of {allowed}")
        if (kind == NO_ANSWER) == question.answerable:
            raise ValueError(
                f"{path}:{number}: answers must be empty exactly when kind is {NO_ANSWER!r}"
            )
        out.append(question)
    return out


def in_split(questions: Iterable[Question], split: str) -> list[Question]:
    """The questions of `split`; `all` is dev and test, never holdout."""
    return [q for q in questions if q.split == split or (split == "all" and q.split in SPLITS)]


def questions_to_ask(
    dataset_dir: Path, manifest: dict[str, Any], repos: str, split: str
) -> dict[str, list[Question]]:
    """The questions of `split` for each repository named by `repos` (comma-separated,
    empty for all of the manifest), leaving out repositories that have none in
    that split: ingesting them would score nothing."""
    names = [n for n in (repos.split(",") if repos else manifest) if n]
    unknown = [n for n in names if n not in manifest]
    if unknown:
        raise SystemExit(f"--repos: not in repositories.json: {', '.join(unknown)}")
    chosen = {n: in_split(load_questions(dataset_dir / f"{n}.jsonl"), split) for n in names}
    out = {n: questions for n, questions in chosen.items() if questions}
    if not out:
        raise SystemExit(f"--split {split}: no questions in {', '.join(names)}")
    return out


def check_answers(questions: Iterable[Question], history: set[str], repo: str) -> None:
    """ValueError naming the question when an answer is not a commit of the
    ingested history (a typo, or a commit after the pinned one)."""
    for q in questions:
        for sha in q.answers:
            if sha not in history:
                raise ValueError(f"{repo} {q.id}: answer {sha} is not reachable from the pin")


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


def abstained(response: Any) -> bool | None:
    """Whether SearchDecisions said no decision explains the question; None when
    the server's API has no such signal."""
    if ABSTAIN_FIELD not in response.DESCRIPTOR.fields_by_name:
        return None
    return bool(getattr(response, ABSTAIN_FIELD))


def confidence(response: Any) -> float | None:
    """The confidence SearchDecisions abstains by; None when its API has none."""
    if CONFIDENCE_FIELD not in response.DESCRIPTOR.fields_by_name:
        return None
    return float(getattr(response, CONFIDENCE_FIELD))


async def _run(
    args: argparse.Namespace, finished: Callable[[Sequence[RepoRun]], object]
) -> list[RepoRun]:
    import contextlib

    say = _say(args.quiet)
    manifest = json.loads((Path(args.dataset_dir) / "repositories.json").read_text())
    questions = questions_to_ask(Path(args.dataset_dir), manifest, args.repos, args.split)
    names = list(questions)
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
            runs.append(await _one(name, spec, path, questions[name], address, platform_key, say))
            finished(runs)
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
    import grpc
    from engram import git
    from engram.v1 import decisions_pb2, decisions_pb2_grpc

    from engram_server.evaluation.bm25 import BM25
    from engram_server.evaluation.remote import RemoteEngram

    run = RepoRun(name, spec["language"], spec["commit"], questions=questions)
    messages = _messages(path, spec["commit"])
    check_answers(questions, {sha for sha, _ in messages}, name)
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

        async def ingest(commits: list[decisions_pb2.Commit]) -> None:
            response = await stub.IngestCommits(
                decisions_pb2.IngestCommitsRequest(repository=name, commits=commits),
                metadata=metadata,
                timeout=300,
            )
            run.commits += len(commits)
            run.decisions += response.created_decisions
            run.without_decision += response.commits_without_decision
            run.invalid += response.invalid_commits
            for c in response.commits:
                if c.disposition == decisions_pb2.COMMIT_DISPOSITION_DECISION:
                    mined.add(c.sha)
                elif c.disposition == decisions_pb2.COMMIT_DISPOSITION_INVALID:
                    refused(c.sha, c.reason)

        def refused(sha: str, reason: str) -> None:
            if len(run.invalid_examples) < MAX_INVALID_EXAMPLES:
                run.invalid_examples.append(f"{sha[:12]}: {reason}"[:300])

        async def send(commits: list[decisions_pb2.Commit]) -> None:
            try:
                await ingest(commits)
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.INVALID_ARGUMENT:
                    raise
                if len(commits) == 1:
                    run.commits += 1
                    run.invalid += 1
                    refused(commits[0].sha, error.details() or "")
                    return
                # A server that refuses a whole batch for one bad commit: the
                # others still count, so they are sent one by one.
                for commit in commits:
                    await send([commit])

        batch: list[decisions_pb2.Commit] = []
        try:
            for commit in git.read_commits(path, spec["commit"]):
                batch.append(commit)
                if len(batch) >= BATCH:
                    await send(batch)
                    batch = []
        except (git.GitError, ValueError, UnicodeError) as error:
            # The client's reader could not go on; what it read is still scored,
            # and the report says where it stopped.
            run.read_error = f"{type(error).__name__}: {error}"[:300]
            say(f"{name}: reading git stopped after {run.commits + len(batch)} commits: {error}")
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
            run.outcomes[q.id] = Outcome(
                ranks={
                    "engram": _rank(engram, q.answers),
                    "git-grep": _rank(grep, q.answers),
                    "bm25": _rank(lexical, q.answers),
                },
                top_score=response.hits[0].score if response.hits else None,
                abstained=abstained(response),
                confidence=confidence(response),
            )
    finally:
        await remote.delete_tenant()
        await remote.close()
    return run


def metrics(ranks: Sequence[int | None]) -> dict[str, Any]:
    n = len(ranks) or 1
    return {
        "questions": len(ranks),
        "hit@1": sum(1 for r in ranks if r is not None and r <= 1) / n,
        "hit@5": sum(1 for r in ranks if r is not None and r <= 5) / n,
        "hit@10": sum(1 for r in ranks if r is not None and r <= 10) / n,
        "mrr@10": sum(1.0 / r for r in ranks if r is not None) / n,
    }


def abstention(pairs: Sequence[tuple[Question, Outcome]]) -> dict[str, Any]:
    """How Engram's abstentions line up with the questions that have no answer.

    precision: of the questions it abstained on, the share that have no answer;
    recall: of the questions that have no answer, the share it abstained on.
    Without the signal, only the top scores are given (median and range), which
    is what a threshold would be chosen from."""

    def scores(answerable: bool, of: Callable[[Outcome], float | None]) -> dict[str, Any]:
        values = [v for q, o in pairs if q.answerable == answerable and (v := of(o)) is not None]
        if not values:
            return {"median": None, "min": None, "max": None}
        return {
            "median": round(statistics.median(values), 4),
            "min": round(min(values), 4),
            "max": round(max(values), 4),
        }

    no_answer = [(q, o) for q, o in pairs if not q.answerable]
    out: dict[str, Any] = {
        "no_answer_questions": len(no_answer),
        "signal": any(o.abstained is not None for _, o in pairs),
        "top_score_answerable": scores(True, lambda o: o.top_score),
        "top_score_no_answer": scores(False, lambda o: o.top_score),
        "confidence_answerable": scores(True, lambda o: o.confidence),
        "confidence_no_answer": scores(False, lambda o: o.confidence),
    }
    if out["signal"]:
        abstained_on = [q for q, o in pairs if o.abstained]
        correct = sum(1 for q in abstained_on if not q.answerable)
        out["abstained"] = len(abstained_on)
        out["precision"] = correct / len(abstained_on) if abstained_on else None
        out["recall"] = correct / len(no_answer) if no_answer else None
    return out


def _section(runs: Sequence[RepoRun], split: str) -> dict[str, Any]:
    """Metrics of one split: overall, by repository and by kind, per system."""
    pairs = [(run, q, run.outcomes[q.id]) for run in runs for q in in_split(run.questions, split)]
    answerable = [(run, q, o) for run, q, o in pairs if q.answerable]

    def table(rows: Sequence[tuple[RepoRun, Question, Outcome]]) -> dict[str, Any]:
        return {s: metrics([o.ranks[s] for _, _, o in rows]) for s in SYSTEMS}

    return {
        "overall": table(answerable),
        "repositories": {
            run.name: table([p for p in answerable if p[0] is run])
            for run in runs
            if any(p[0] is run for p in answerable)
        },
        "kinds": {
            kind: table([p for p in answerable if p[1].kind == kind])
            for kind in sorted({q.kind for _, q, _ in answerable})
        },
        "abstention": abstention([(q, o) for _, q, o in pairs]),
    }


def _report(runs: Sequence[RepoRun], split: str = "all") -> dict[str, Any]:
    repos: dict[str, Any] = {}
    for run in runs:
        latencies = sorted(run.latencies)
        repos[run.name] = {
            "language": run.language,
            "commit": run.commit,
            "commits": run.commits,
            "decisions": run.decisions,
            "commits_without_decision": run.without_decision,
            "commits_invalid": run.invalid,
            "invalid_examples": run.invalid_examples,
            "read_error": run.read_error,
            "ingest_seconds": round(run.ingest_seconds, 2),
            "ingest_commits_per_second": round(run.commits / max(run.ingest_seconds, 1e-9), 1),
            "index_seconds": round(run.index_seconds, 2),
            "answer_commits_mined": f"{run.answers_mined}/{run.answers_total}",
            "search_p50_ms": round(1000 * latencies[len(latencies) // 2], 1) if latencies else 0,
            "questions": len(run.questions),
            "outcomes": {
                q.id: {
                    "kind": q.kind,
                    "split": q.split,
                    "ranks": run.outcomes[q.id].ranks,
                    "top_score": run.outcomes[q.id].top_score,
                    "abstained": run.outcomes[q.id].abstained,
                    "confidence": run.outcomes[q.id].confidence,
                }
                for q in run.questions
            },
        }
    splits = (*SPLITS, "all") if split == "all" else (split,)
    return {
        "generated": datetime.now(UTC).isoformat(timespec="seconds"),
        "k": K,
        "split": split,
        "repositories": repos,
        "splits": {s: _section(runs, s) for s in splits},
    }


def _fmt(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def above_bm25(table: dict[str, Any]) -> bool:
    """Engram above BM25 on both Hit@5 and MRR@10 (the goal, per repository)."""
    e, b = table["engram"], table["bm25"]
    return bool(e["hit@5"] > b["hit@5"] and e["mrr@10"] > b["mrr@10"])


def _rows(label: str, table: dict[str, Any]) -> list[str]:
    e, g, b = (table[s] for s in SYSTEMS)
    mark = " ✓" if above_bm25(table) else ""
    return [
        f"| {label}{mark} | {e['questions']} | {e['hit@5']:.3f} | {e['mrr@10']:.3f}"
        f" | {b['hit@5']:.3f} | {b['mrr@10']:.3f} | {g['hit@5']:.3f} | {g['mrr@10']:.3f} |"
    ]


_HEADER = [
    "| | questions | Engram Hit@5 | Engram MRR@10 | BM25 Hit@5 | BM25 MRR@10"
    " | git grep Hit@5 | git grep MRR@10 |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
]


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "# Decisions: finding the commit that answers a why-question",
        "",
        f"Generated {report['generated']} by `engram eval decisions --split {report['split']}`"
        " (SearchDecisions, k = 10, deterministic miner, asked once the index had caught up)."
        " Questions were written from plain git before Engram ran on the repositories"
        " (`eval/datasets/decisions/`). Hit@5 and MRR@10 are over the questions that have an"
        " answer; ✓ marks a row where Engram is above BM25 over full commit messages on both.",
        "",
    ]
    for split, section in report["splits"].items():
        title = "dev and test" if split == "all" else split
        lines += [f"## Split: {title}", "", *_HEADER]
        lines += _rows("**all**", section["overall"])
        repositories = section["repositories"]
        above = sum(1 for table in repositories.values() if above_bm25(table))
        lines += [
            "",
            f"### By repository (Engram above BM25 in {above} of {len(repositories)})",
            "",
            *_HEADER,
        ]
        for name, table in repositories.items():
            lines += _rows(name, table)
        lines += ["", "### By kind of question", "", *_HEADER]
        for kind, table in section["kinds"].items():
            lines += _rows(kind, table)
        a = section["abstention"]
        lines += ["", "### Questions with no answer in the history", ""]
        if a["signal"]:
            lines.append(
                f"{a['no_answer_questions']} questions; Engram abstained on {a['abstained']}"
                f" questions in all: precision {_fmt(a['precision'])},"
                f" recall {_fmt(a['recall'])}."
            )
        else:
            lines.append(
                f"{a['no_answer_questions']} questions. SearchDecisions has no abstain signal"
                f" (`{ABSTAIN_FIELD}`) yet, so abstention is not scored; every one of them got"
                " results."
            )
        lines += ["", "| Engram | median | min | max |", "|---|---:|---:|---:|"]
        for label, key in (("top score", "top_score"), ("confidence", "confidence")):
            for group, suffix in (("with an answer", "answerable"), ("without", "no_answer")):
                m = a.get(f"{key}_{suffix}") or {"median": None}
                if m["median"] is not None:
                    lines.append(
                        f"| {label}, questions {group} | {_fmt(m['median'], 4)}"
                        f" | {_fmt(m['min'], 4)} | {_fmt(m['max'], 4)} |"
                    )
        lines.append("")
    lines += [
        "## Ingest",
        "",
        "| repository | language | pinned | commits | decisions | no decision | invalid"
        " | ingest s | commits/s | index caught up s | answers mined | search p50 ms |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, repo in report["repositories"].items():
        lines.append(
            f"| {name} | {repo['language']} | {repo['commit'][:12]} | {repo['commits']}"
            f" | {repo['decisions']} | {repo['commits_without_decision']}"
            f" | {repo['commits_invalid']} | {repo['ingest_seconds']}"
            f" | {repo['ingest_commits_per_second']} | {repo['index_seconds']}"
            f" | {repo['answer_commits_mined']} | {repo['search_p50_ms']} |"
        )
    refused = [
        (name, example)
        for name, repo in report["repositories"].items()
        for example in repo.get("invalid_examples", [])
    ]
    if refused:
        lines += ["", "Commits the server refused as invalid (at most five a repository):", ""]
        lines += [f"- {name} {example}" for name, example in refused]
    errors = [(n, r["read_error"]) for n, r in report["repositories"].items() if r["read_error"]]
    if errors:
        lines += ["", "Reading git stopped early (the commits read before were scored):", ""]
        lines += [f"- {name}: {error}" for name, error in errors]
    return "\n".join(lines) + "\n"
