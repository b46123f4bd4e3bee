"""`engram bench decisions-corpus`: ingest real repositories, and count what failed.

    engram bench decisions-corpus REPO [REPO...] [--max-commits N] [--address ... --api-key ...]

Each REPO is a local git repository (a work tree or a bare mirror); its name is
the directory's (`owner+name` becomes `owner/name`, as mirrors are laid out),
or `NAME=PATH` names it. Every history is ingested the way `engram decisions
ingest` does it (the same reader, batches and counting: `ingest_history`) into
one scratch tenant, and the report gives, per repository: commits in the range,
commits read, decisions stored, commits without a decision, commits skipped
with their reasons, content cleaned to fit, time, and whether the run failed.
A failed run is the one thing that must not happen: the command exits 1 then.

Synthetic histories test each hazard in CI (tests/decisions_hazards.py); this
command is for real ones, which CI cannot fetch.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engram_server.bench import harness

DEFAULT_OUT = Path("eval/results/decisions-ingest-corpus.json")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("repos", nargs="+", help="repositories: PATH or NAME=PATH")
    harness.add_server_arguments(parser)
    parser.add_argument("--batch-size", type=int, default=200)
    parser.add_argument(
        "--max-commits",
        type=int,
        default=0,
        help="ingest at most the oldest N commits of each history (0: all of it)",
    )
    harness.add_output_arguments(parser, DEFAULT_OUT)


def run_command(args: argparse.Namespace) -> int:
    report = asyncio.run(run(args))
    harness.write_results(args.out, report, markdown(report))
    return 1 if any(r["failure"] for r in report["repositories"]) else 0


@dataclass(frozen=True)
class Target:
    name: str
    path: str


def targets(specs: list[str]) -> list[Target]:
    out = []
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep:
            path = spec
            folder = Path(spec).resolve()
            base = folder.parent.name if folder.name in ("repo", ".git") else folder.name
            name = base.removesuffix(".git").replace("+", "/")
        out.append(Target(name, path))
    return out


def _git(path: str, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", path, *args], capture_output=True, text=True, check=True
    ).stdout.strip()


def revision_range(path: str, max_commits: int) -> tuple[str, int]:
    """The range to ingest (HEAD, or the oldest `max_commits` of it) and how many
    commits the whole of HEAD holds."""
    total = int(_git(path, "rev-list", "--count", "HEAD"))
    if not max_commits or max_commits >= total:
        return "HEAD", total
    # The commit `max_commits` from the root along first parents: its history.
    oldest = _git(path, "rev-list", "--reverse", "--first-parent", "HEAD").split()
    return oldest[min(max_commits, len(oldest)) - 1], total


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from engram import Client

    from engram_server.cli.ingest_history import IngestTally, ingest_history
    from engram_server.evaluation.remote import RemoteEngram

    say = harness.Run(args.quiet)
    rows: list[dict[str, Any]] = []
    async with harness.bench_server(harness.server_choice(args), "engram_corpus") as server:
        remote = RemoteEngram(server.address, server.platform_key, 300.0)
        await remote.create_tenant()
        key = remote._metadata[0][1].removeprefix("Bearer ")
        for target in targets(args.repos):
            revisions, total = revision_range(target.path, args.max_commits)
            in_range = int(_git(target.path, "rev-list", "--count", revisions))
            say(f"{target.name}: {in_range} of {total} commits")

            def progress(tally: IngestTally, _lines: Any, name: str = target.name) -> None:
                if tally.read and tally.read % 5000 < args.batch_size:
                    say(f"{name}: {tally.read} read")

            failure = ""
            t0 = time.monotonic()
            tally: IngestTally | None
            try:
                with Client(server.address, key, timeout=600.0) as client:
                    tally = await asyncio.to_thread(
                        ingest_history,
                        client,
                        target.path,
                        revisions,
                        target.name,
                        batch_size=args.batch_size,
                        on_batch=progress,
                    )
            except Exception as error:
                failure = "".join(traceback.format_exception_only(error)).strip()
                tally = getattr(error, "tally", None)
            seconds = time.monotonic() - t0
            rows.append(_row(target, total, in_range, revisions, tally, seconds, failure))
            say(f"{target.name}: {rows[-1]}")
            # Written after each repository: a long corpus run leaves what it measured.
            partial = _report(args, say, server.mode, rows)
            harness.write_results(args.out, partial, markdown(partial))
        await remote.delete_tenant()
        await remote.close()
        mode = server.mode
    return _report(args, say, mode, rows)


def _report(
    args: argparse.Namespace, run: harness.Run, mode: str, rows: list[dict[str, Any]]
) -> dict[str, Any]:
    return {
        "machine": run.machine(args.database_url),
        "git_commit": harness.git_commit(),
        "server": mode,
        "batch_size": args.batch_size,
        "max_commits": args.max_commits,
        "repositories": rows,
    }


def _row(
    target: Target,
    total: int,
    in_range: int,
    revisions: str,
    tally: Any,
    seconds: float,
    failure: str,
) -> dict[str, Any]:
    row: dict[str, Any] = {
        "repository": target.name,
        "commits_in_history": total,
        "commits_in_range": in_range,
        "range": revisions,
        "seconds": round(seconds, 1),
        "failure": failure,
    }
    if tally is not None:
        row.update(
            commits_read=tally.read,
            decisions_stored=tally.stored,
            decisions_created=tally.created,
            decisions_updated=tally.updated,
            commits_without_decision=tally.without_decision,
            commits_already_ingested=tally.already,
            commits_skipped=tally.skipped,
            skipped_reasons=dict(tally.skip_reasons()),
            cleaned=dict(tally.cleaned()),
        )
    return row


def markdown(report: dict[str, Any]) -> str:
    rows = report["repositories"]
    lines = [
        "# Decisions ingest on real repositories",
        "",
        "`engram bench decisions-corpus`: each history ingested as `engram decisions ingest`"
        " does it, into one tenant of " + report["server"] + ".",
        "",
        "| repository | commits | read | decisions stored | without a decision | skipped |"
        " time | commits/s | failure |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        read = r.get("commits_read", 0)
        rate = read / r["seconds"] if r["seconds"] else 0.0
        commits = f"{r['commits_in_range']}"
        if r["commits_in_range"] != r["commits_in_history"]:
            commits += f" of {r['commits_in_history']}"
        lines.append(
            f"| {r['repository']} | {commits} | {read} | {r.get('decisions_stored', 0)} |"
            f" {r.get('commits_without_decision', 0)} | {r.get('commits_skipped', 0)} |"
            f" {r['seconds']:.0f} s | {rate:.0f} | {r['failure'] or 'none'} |"
        )
    total_read = sum(r.get("commits_read", 0) for r in rows)
    failed = [r["repository"] for r in rows if r["failure"]]
    lines += [
        "",
        f"{len(rows)} repositories, {total_read} commits read;"
        f" {'failed: ' + ', '.join(failed) if failed else 'none failed'}.",
        "",
        "## Skipped and cleaned, by reason",
        "",
    ]
    for r in rows:
        skipped = r.get("skipped_reasons", {})
        cleaned = r.get("cleaned", {})
        if not skipped and not cleaned:
            continue
        lines.append(f"- **{r['repository']}**:")
        lines += [f"  - skipped {n}: {reason}" for reason, n in skipped.items()]
        lines += [f"  - cleaned {n}: {kind}" for kind, n in cleaned.items()]
    m = report["machine"]
    lines += [
        "",
        f"Batches of {report['batch_size']} commits; machine: {m['cpu_count']} cores,"
        f" {m['cpu_model']}, load average before / after {m['load_average']['before'][0]:.1f}"
        f" / {m['load_average']['after'][0]:.1f}. The index fills asynchronously"
        " (outbox) and is not part of the time.",
        "",
    ]
    return "\n".join(lines)
