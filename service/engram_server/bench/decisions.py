"""`engram bench decisions`: mining throughput, time to searchable, answer latency.

    engram bench decisions [--commits 10000] [--queries 200] [--address ... --api-key ...]
    engram bench decisions --repo /path/to/repo [--range HEAD] [--commits 30000]

With --repo, the history is a real repository's (bare or not; --commits keeps
its newest commits up to that many). Otherwise a synthetic repository of
--commits commits is written with `git fast-import` (files edited a few lines at
a time, renames, messages with and without stated reasons, formatting and
lockfile commits, reverts). Then, timed:

- the floor: the client alone reading the history (`git log` with rename
  detection and zero-context hunks, parsed into Commit messages);
- the floor of a call: the smallest authenticated round trip (ListDecisions of
  one), as many times as there are batches;
- ingestion, client and server together: the same read (on a thread, ahead of
  the calls, as `engram decisions ingest` reads), sent in batches of
  --batch-size to IngestCommits (deterministic miner) until the last reply;
  indexing is not part of it (the outbox feeds the index asynchronously, while
  the ingestion runs);
- how long after that the index caught up, waiting as `engram decisions ingest`
  does, from the first batch on (read-your-writes searches one after another,
  for which the server indexes the backlog at serving priority): the history is
  searchable then.
  The time to searchable (ingestion start to caught up) over the ingestion time
  is the ratio the index is held to (goal: at most `GOAL_SEARCHABLE_RATIO`), and
  decisions/s is decisions created over the time to searchable;
- after the index has caught up, ExplainCode (a file and a line range at HEAD)
  and SearchDecisions (a question built from a commit's subject words), p50 and
  p99 over --queries calls each.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import grpc.aio

from engram_server.bench import harness
from engram_server.bench.stats import Latency

DEFAULT_OUT = Path("bench/results/decisions.json")
GOAL_COMMITS_PER_SECOND = 150.0
# Time to searchable over ingestion time: the index keeps up with the ingestion.
GOAL_SEARCHABLE_RATIO = 1.5

_VERBS = ["Cache", "Retry", "Guard", "Batch", "Limit", "Split", "Inline", "Validate", "Stream"]
_NOUNS = ["config", "parser", "index", "session", "upload", "query", "token", "report", "queue"]
_REASONS = [
    "because the {n} was re-read on every request",
    "so that a slow {n} does not block the loop",
    "to avoid a race between two writers of the {n}",
    "since the {n} grew past 10 MB in production",
    "instead of a global lock around the {n}",
]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    harness.add_server_arguments(parser)
    parser.add_argument(
        "--repo", type=Path, help="a real git repository (bare or not) instead of a synthetic one"
    )
    parser.add_argument("--range", default="HEAD", help="with --repo: the revision range")
    parser.add_argument(
        "--commits",
        type=int,
        default=None,
        help="synthetic: commits written (default 10000); --repo: at most this many, the newest",
    )
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--batch-size", type=int, default=250)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--index-timeout", type=float, default=3600.0)
    parser.add_argument("--seed", type=int, default=7)
    harness.add_output_arguments(parser, DEFAULT_OUT)


def run_command(args: argparse.Namespace) -> int:
    return harness.run_and_write(args.out, run(args), markdown)


def write_history(path: Path, commits: int, files: int, seed: int) -> tuple[list[str], list[str]]:
    """A repository of `commits` commits made with git fast-import; returns the
    subjects of the commits (oldest first) and the source files at HEAD."""
    rng = random.Random(seed)
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    contents = {
        f"src/mod{i:03d}/file{i:03d}.py": [f"line {j}" for j in range(60)] for i in range(files)
    }
    names = list(contents)
    stream: list[bytes] = []
    subjects: list[str] = []
    when = 1_600_000_000
    for n in range(commits):
        when += rng.randint(60, 3600)
        kind = rng.random()
        verb, noun = rng.choice(_VERBS), rng.choice(_NOUNS)
        ops: list[str] = []
        if n == 0:
            subject, body = "Add the initial modules", ""
            for name in names:
                data = ("\n".join(contents[name]) + "\n").encode()
                ops.append(f"M 100644 inline {name}\ndata {len(data)}\n" + data.decode())
        elif kind < 0.05:
            subject, body = f"Format the {noun} module", ""
        elif kind < 0.08:
            subject, body = "Bump dependencies", ""
            ops.append("M 100644 inline Cargo.lock\ndata <<EOF\n" + f"lock {n}\n" + "EOF\n")
        elif kind < 0.10 and len(names) > 10:
            old = rng.choice(names)
            new = old.replace(".py", f"_r{n}.py")
            names[names.index(old)] = new
            contents[new] = contents.pop(old)
            subject, body = f"Rename {Path(old).name} to {Path(new).name}", ""
            ops.append(f"R {old} {new}\n")
        else:
            subject = f"{verb} the {noun} in {rng.choice(names).split('/')[1]}"
            reason = rng.choice(_REASONS).format(n=noun)
            measured = f"Measured {rng.randint(2, 90)} ms p50 before. Closes #{n}"
            body = f"{reason.capitalize()}.\n\n{measured}"
        if n and (not ops or kind >= 0.10):
            for name in rng.sample(names, k=rng.randint(1, 3)):
                lines = contents[name]
                at = rng.randrange(len(lines))
                if rng.random() < 0.5:
                    lines.insert(at, f"# {verb.lower()} {noun} {n}")
                else:
                    lines[at] = f"{verb.lower()}_{noun} = {n}"
                data = ("\n".join(lines) + "\n").encode()
                ops.append(f"M 100644 inline {name}\ndata {len(data)}\n" + data.decode())
        subjects.append(subject)
        message = (subject + ("\n\n" + body if body else "") + "\n").encode()
        header = (
            f"commit refs/heads/main\nmark :{n + 1}\n"
            f"author Dev <dev@example.com> {when} +0000\n"
            f"committer Dev <dev@example.com> {when} +0000\n"
            f"data {len(message)}\n"
        ).encode()
        parent = f"from :{n}\n".encode() if n else b""
        stream.append(header + message + parent + "".join(ops).encode() + b"\n")
    subprocess.run(
        ["git", "-C", str(path), "fast-import", "--quiet"], input=b"".join(stream), check=True
    )
    subprocess.run(["git", "-C", str(path), "checkout", "-q", "main"], check=True)
    return subjects, names


async def run(args: argparse.Namespace) -> dict[str, Any]:
    import contextlib

    from engram import git
    from engram.v1 import decisions_pb2, decisions_pb2_grpc

    from engram_server.evaluation.remote import RemoteEngram

    say = harness.Run(args.quiet)
    server = harness.server_choice(args)
    rng = random.Random(args.seed)
    async with contextlib.AsyncExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="engram-bench-")))
        t0 = time.perf_counter()
        if args.repo is not None:
            source, revisions = (
                str(args.repo),
                bounded_range(str(args.repo), args.range, args.commits),
            )
            name = args.repo.resolve().name.removesuffix(".git")
            if name == "repo":  # a mirror's layout: <owner+name>/repo
                name = args.repo.resolve().parent.name
            repository = "bench/" + re.sub(r"[^A-Za-z0-9._-]+", "-", name)
        else:
            source, revisions, repository = str(tmp / "repo"), "HEAD", "bench/synthetic"
            written = args.commits or 10_000
            write_history(Path(source), written, args.files, args.seed)
            say(f"wrote {written} commits in {time.perf_counter() - t0:.1f}s")

        # The floor: the client alone reading the history; it also gives the
        # questions (subjects) and the files to explain (paths).
        t0 = time.perf_counter()
        subjects: list[str] = []
        touched: dict[str, None] = {}
        for commit in git.read_commits(source, revisions):
            subjects.append(commit.message.split("\n", 1)[0])
            touched.update((f.path, None) for f in commit.files if not f.binary)
        floor = time.perf_counter() - t0
        commits = len(subjects)
        paths = list(touched)[-2000:] or ["README"]
        say(f"floor: read {commits} commits of {repository} in {floor:.1f}s")
        report: dict[str, Any] = {
            "repository": repository,
            "revision_range": revisions,
            "synthetic": args.repo is None,
            "commits": commits,
            "files": args.files if args.repo is None else len(touched),
        }

        served = await stack.enter_async_context(harness.bench_server(server, "engram_bench"))
        remote = RemoteEngram(served.address, served.platform_key, 300.0)
        await remote.create_tenant()
        stub = decisions_pb2_grpc.DecisionsServiceStub(remote.channel)
        metadata = remote._metadata
        # The floor of a call: the smallest authenticated round trip, once per batch.
        calls = -(-commits // args.batch_size)
        t0 = time.perf_counter()
        for _ in range(calls):
            await stub.ListDecisions(
                decisions_pb2.ListDecisionsRequest(page_size=1), metadata=metadata, timeout=60
            )
        round_trips = time.perf_counter() - t0
        say(f"floor: {calls} round trips in {round_trips:.2f}s")

        # Ingestion as `engram decisions ingest` does it: git read and parsed on a
        # thread ahead of the calls, one call in flight at a time. The index fills
        # from the outbox meanwhile; its backlog is sampled after each call.
        created = 0
        refused = 0
        waited = 0.0
        lag: list[int] = []
        ingested = asyncio.Event()
        waiting = asyncio.create_task(
            wait_searchable(stub, remote, ingested, args.index_timeout, lambda m: say(m))
        )
        t0 = time.perf_counter()
        for batch in git.read_batches(source, revisions, args.batch_size):
            t1 = time.perf_counter()
            try:
                response = await stub.IngestCommits(
                    decisions_pb2.IngestCommitsRequest(repository=repository, commits=batch),
                    metadata=metadata,
                    timeout=600,
                )
            except grpc.aio.AioRpcError as error:
                # A batch the server refuses whole is counted, and the run goes on:
                # what is measured here is the time of what was stored.
                if error.code() != grpc.StatusCode.INVALID_ARGUMENT:
                    raise
                refused += len(batch)
                say(f"batch refused: {(error.details() or '')[:200]}")
                continue
            finally:
                waited += time.perf_counter() - t1
            created += int(response.created_decisions)
            refused += int(response.invalid_commits)
            lag.append(await index_backlog(remote))
        ingest = time.perf_counter() - t0
        ingested.set()
        rate = commits / ingest
        say(
            f"ingested in {ingest:.1f}s ({rate:.0f}/s), {created} decisions;"
            f" {waited:.1f}s waiting on the server; index backlog then {lag[-1] if lag else 0}",
        )

        t1 = time.perf_counter()
        caught_up = True
        try:
            finished = await waiting
        except TimeoutError as pending:
            # Measured anyway, and reported as such: SearchDecisions then searches
            # the part of the history indexed so far, beside the indexing work.
            caught_up = False
            finished = time.perf_counter()
            say(f"{pending}; measuring anyway")
        index_seconds = finished - t1
        searchable = finished - t0
        say(
            f"searchable {searchable:.1f}s after the ingestion started"
            f" ({searchable / ingest:.2f}x the ingestion, {created / searchable:.0f} decisions/s)",
        )

        head = git.resolve(source, revisions.split("..")[-1] or "HEAD")
        explain: list[float] = []
        search: list[float] = []
        for _ in range(args.queries):
            line = rng.randint(1, 60)
            t1 = time.perf_counter()
            await stub.ExplainCode(
                decisions_pb2.ExplainCodeRequest(
                    repository=repository,
                    path=rng.choice(paths),
                    lines=decisions_pb2.LineRange(start_line=line, end_line=line + 3),
                    revision=head,
                ),
                metadata=metadata,
                timeout=60,
            )
            explain.append(time.perf_counter() - t1)
            words = rng.choice(subjects).lower().split()
            t1 = time.perf_counter()
            await stub.SearchDecisions(
                decisions_pb2.SearchDecisionsRequest(
                    query=f"why do we {' '.join(words[:4])}?", repository=repository
                ),
                metadata=metadata,
                timeout=60,
            )
            search.append(time.perf_counter() - t1)
        await remote.delete_tenant()
        await remote.close()
    report.update(
        {
            "machine": say.machine(args.database_url),
            "git_commit": harness.git_commit(),
            "decisions_created": created,
            "commits_refused": refused,
            "floor_read_seconds": round(floor, 2),
            "floor_commits_per_second": round(commits / floor, 1),
            "floor_round_trips": calls,
            "floor_round_trip_seconds": round(round_trips, 3),
            "ingest_seconds": round(ingest, 2),
            "ingest_commits_per_second": round(rate, 1),
            "ingest_decisions_per_second": round(created / ingest, 1),
            "ingest_server_wait_seconds": round(waited, 2),
            "ratio_to_floor": round(ingest / floor, 2),
            "goal_commits_per_second": GOAL_COMMITS_PER_SECOND,
            "index_backlog_max": max(lag, default=0),
            "index_backlog_at_ingest_end": lag[-1] if lag else 0,
            "index_seconds": round(index_seconds, 1),
            "index_caught_up": caught_up,
            "searchable_seconds": round(searchable, 1),
            "searchable_decisions_per_second": round(created / searchable, 1),
            "searchable_ratio": round(searchable / ingest, 2),
            "goal_searchable_ratio": GOAL_SEARCHABLE_RATIO,
            "explain_code": Latency.of(explain).to_json(),
            "search_decisions": Latency.of(search).to_json(),
            "queries": args.queries,
        }
    )
    return report


def bounded_range(path: str, revision_range: str, newest: int | None) -> str:
    """`revision_range` cut to about its `newest` commits: from the commit that
    many back in `git rev-list` order (exactly that many on a linear history)."""
    if not newest:
        return revision_range
    listed = subprocess.run(
        ["git", "-C", path, "rev-list", f"--max-count={newest + 1}", revision_range],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    if len(listed) <= newest:
        return revision_range
    return f"{listed[-1]}..{listed[0]}"


async def wait_searchable(
    stub: Any,
    remote: Any,
    ingested: asyncio.Event,
    wait_seconds: float,
    say: Callable[[str], None],
) -> float:
    """Waits as `engram decisions ingest` does, from the first batch on:
    read-your-writes searches one after another (the server indexes the backlog
    for each at serving priority) until one answers after the ingestion ended
    (`ingested`). Returns when that was (perf_counter); TimeoutError when the
    index has not caught up `wait_seconds` after the ingestion."""
    from engram.v1 import decisions_pb2, recall_pb2

    request = decisions_pb2.SearchDecisionsRequest(
        query="why", k=1, consistency=recall_pb2.READ_CONSISTENCY_READ_YOUR_WRITES
    )
    ended: float | None = None
    last_report = 0.0
    while True:
        if ended is None and ingested.is_set():
            ended = time.perf_counter()
        try:
            await stub.SearchDecisions(request, metadata=remote._metadata, timeout=600)
            if ended is not None:
                return time.perf_counter()
            await asyncio.sleep(0.5)  # caught up with the ingestion so far
            continue
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.UNAVAILABLE:
                raise
        if ended is None:
            continue
        elapsed = time.perf_counter() - ended
        if elapsed > wait_seconds:
            pending = await index_backlog(remote)
            raise TimeoutError(f"index backlog still {pending} items after {wait_seconds:.0f}s")
        if elapsed - last_report >= 10:
            last_report = elapsed
            say(f"waiting for the index: {await index_backlog(remote)} items pending")


async def index_backlog(remote: Any) -> int:
    """The tenant's index backlog now (items not yet searchable by both legs)."""
    from engram.v1 import recall_pb2

    status = await remote.recall.GetIndexStatus(
        recall_pb2.GetIndexStatusRequest(), metadata=remote._metadata, timeout=60
    )
    return int(status.pending_dense_items)


def markdown(report: dict[str, Any]) -> str:
    e, s = report["explain_code"], report["search_decisions"]
    if report.get("synthetic", True):
        history = f"Synthetic history of {report['commits']} commits over {report['files']} files"
    else:
        history = (
            f"History of {report['repository']} ({report['revision_range']}):"
            f" {report['commits']} commits touching {report['files']} files"
        )
    refused = report.get("commits_refused", 0)
    return "\n".join(
        [
            "# Decisions benchmark",
            "",
            f"{history} ({report['decisions_created']} decisions"
            + (f", {refused} commits refused" if refused else "")
            + "); `engram bench decisions`.",
            "",
            "| figure | value |",
            "|---|---:|",
            f"| floor: client reads the history (git log -M -U0, parsed) |"
            f" {report['floor_commits_per_second']:.0f} commits/s |",
            f"| ingestion, client and server together | {report['ingest_commits_per_second']:.0f}"
            f" commits/s, {report['ingest_decisions_per_second']:.0f} decisions/s"
            f" (goal {report['goal_commits_per_second']:.0f} commits/s) |",
            f"| ratio to the floor (time) | {report['ratio_to_floor']}x |",
            f"| of the ingestion, time waiting on the server | "
            f"{report['ingest_server_wait_seconds']} of {report['ingest_seconds']} s |",
            f"| floor: {report['floor_round_trips']} smallest authenticated round trips |"
            f" {report['floor_round_trip_seconds']} s |",
            f"| index backlog during ingestion: largest / at its end |"
            f" {report['index_backlog_max']} / {report['index_backlog_at_ingest_end']} items |",
            f"| index caught up after ingestion (outbox, filled while ingesting) | "
            f"{report['index_seconds']} s"
            + ("" if report["index_caught_up"] else " (had not: queries ran beside indexing)")
            + " |",
            "| history searchable (from the start of the ingestion) | "
            + ("" if report["index_caught_up"] else "more than ")
            + f"{report['searchable_seconds']} s,"
            f" {report['searchable_decisions_per_second']:.0f} decisions/s |",
            f"| **time to searchable / ingestion time** | **{report['searchable_ratio']}x**"
            f" (goal at most {report['goal_searchable_ratio']}x) |",
            f"| ExplainCode p50 / p99 | {e['p50_ms']:.1f} / {e['p99_ms']:.1f} ms |",
            f"| SearchDecisions p50 / p99 | {s['p50_ms']:.1f} / {s['p99_ms']:.1f} ms |",
            "",
            f"{report['queries']} queries of each kind; machine: {report['machine']['cpu_count']}"
            f" cores, {report['machine']['cpu_model']}, load average before / after"
            f" {report['machine']['load_average']['before'][0]:.1f} /"
            f" {report['machine']['load_average']['after'][0]:.1f}.",
            "",
        ]
    )
