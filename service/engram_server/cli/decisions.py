"""`engram decisions`: mine a repository's history, ask why code is like it is.

engram decisions ingest [PATH] [--range A..B] [--repository NAME]
                                           read git history, send it in batches
engram decisions ingest-session SPACE SESSION --repository NAME
                                           mine a session's buffered conversation
engram decisions explain PATH [--lines 40-52] [--symbol NAME]
                                           why is this code like this?
engram decisions search QUESTION           decisions that answer a question
engram decisions get NAME | list           read decisions
engram decisions create --repository R --title T --rationale W [--evidence Q --source TEXT]
engram decisions outcome NAME --outcome MISSED --summary TEXT [--evidence Q --source-file F]

The server never reads a repository: `ingest` runs git here with the SDK's reader
(`engram.git`: log with rename detection and zero-context hunks) and sends what
it read, batch by batch, to show progress as it goes (`Client.ingest_repository`
is the same without the progress bar). What ingest accepts, cleans and skips is
in docs/decisions.md.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engram import Client, Decision, DecisionEvidence, DecisionOutcome, git
from engram.errors import EngramError, InvalidArgument
from google.protobuf import json_format

from engram_server.cli import common
from engram_server.cli.anchor_lines import exact_context
from engram_server.cli.common import Commands, UsageError
from engram_server.cli.index_wait import IndexWait
from engram_server.cli.ingest_history import CommitLine, IngestTally, ingest_history
from engram_server.cli.ingest_progress import IngestProgress

DEFAULT_BATCH = 200
INGEST_TIMEOUT = 300.0


def register(commands: Commands[argparse.ArgumentParser], parent: argparse.ArgumentParser) -> None:
    top = commands.add_parser("decisions", help="git-mined decisions: why code is like it is")
    sub = top.add_subparsers(dest="decisions_command", metavar="COMMAND", required=True)

    p = sub.add_parser(
        "ingest",
        help="mine a local repository's history into decisions",
        description=(
            "Reads the history of the repository at PATH (default: .) with git and sends it "
            "in batches to IngestCommits, with a progress bar on a terminal (a line every "
            "few seconds otherwise), then prints one summary: commits read, decisions "
            "stored, commits skipped and why. Re-running a range costs nothing and changes "
            "nothing; a rebased history joins the decisions it already has. Exit status 0 "
            "when everything that could be ingested was (skipped commits are counted, not "
            "failures), 2 when git cannot resolve the range, 1 when the run itself failed "
            "(git stopped, the server refused the call). Each call may take up to 300 s "
            "(or --timeout, when longer): a batch of a large history is slow to mine."
        ),
        parents=[parent],
    )
    p.add_argument("path", nargs="?", default=".", help="the repository (default: .)")
    p.add_argument("--range", default="HEAD", help="revision range, e.g. v1.0..HEAD")
    p.add_argument("--repository", help="its name (default: from the origin remote)")
    p.add_argument("--space", default="", help="decision space (default: decisions/<name>)")
    p.add_argument(
        "--batch-size",
        type=int,
        default=DEFAULT_BATCH,
        help="commits per call (default: 200; fewer when they are large)",
    )
    p.add_argument("--reprocess", action="store_true", help="mine ingested commits again")
    p.add_argument("--quiet", action="store_true", help="no progress, summary only")
    p.add_argument(
        "--verbose", action="store_true", help="a line per commit: what became of it and why"
    )
    p.add_argument(
        "--no-wait",
        action="store_true",
        help="return once the history is stored, without waiting until it is searchable",
    )
    p.add_argument(
        "--wait-timeout",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="stop waiting for the index after this long (default: no limit)",
    )
    p.set_defaults(handler=ingest)

    p = sub.add_parser(
        "ingest-session", help="mine decisions from a session's buffer", parents=[parent]
    )
    p.add_argument("space")
    p.add_argument("session")
    p.add_argument("--repository", required=True, help="the repository or project they concern")
    p.add_argument("--decisions-space", default="")
    p.set_defaults(handler=ingest_session)

    p = sub.add_parser("explain", help="why is this code like this?", parents=[parent])
    p.add_argument("path", help="file path relative to the repository root")
    p.add_argument("--repository", help="repository name (default: from the origin remote of .)")
    p.add_argument("--lines", help="line or range: 40 or 40-52")
    p.add_argument("--symbol", default="", help="function or class")
    p.add_argument(
        "--revision",
        default="",
        help="commit the lines refer to: a sha, or a tag, branch or HEAD~N of --repo-path"
        " (default: its HEAD)",
    )
    p.add_argument("--repo-path", default=".", help="local checkout for the defaults")
    p.add_argument("--question", default="")
    p.add_argument("-k", type=int, default=0)
    p.add_argument("--include-superseded", action="store_true")
    p.add_argument("--budget", type=int, default=0, help="token budget of the context")
    p.set_defaults(handler=explain)

    p = sub.add_parser("search", help="decisions that answer a question", parents=[parent])
    p.add_argument("query")
    p.add_argument("--repository", default="")
    p.add_argument("--path", default="")
    p.add_argument("-k", type=int, default=0)
    p.add_argument("--include-superseded", action="store_true")
    p.set_defaults(handler=search)

    p = sub.add_parser("get", help="one decision", parents=[parent])
    p.add_argument("name")
    p.set_defaults(handler=get)

    p = sub.add_parser("list", help="decisions, newest first", parents=[parent])
    p.add_argument("--repository", default="")
    p.add_argument("--path", default="")
    p.add_argument("--outcome", action="append", default=[], help="MET, PARTIALLY_MET, MISSED")
    p.add_argument("--include-superseded", action="store_true")
    p.add_argument("--limit", type=int, default=50)
    p.set_defaults(handler=list_decisions)

    p = sub.add_parser("create", help="record a decision stated explicitly", parents=[parent])
    p.add_argument("--repository", required=True)
    p.add_argument("--title", required=True)
    p.add_argument("--rationale", required=True)
    p.add_argument("--statement", default="")
    p.add_argument("--alternative", action="append", default=[])
    p.add_argument("--expectation", action="append", default=[])
    p.add_argument("--evidence", action="append", default=[], help="a verbatim quote of a --source")
    p.add_argument(
        "--evidence-memory",
        nargs=2,
        action="append",
        default=[],
        metavar=("QUOTE", "MEMORY"),
        help="a verbatim quote of a memory (memories/ID)",
    )
    p.add_argument("--source", action="append", default=[], help="text the quotes come from")
    p.add_argument("--source-file", action="append", default=[], help="file the quotes come from")
    p.set_defaults(handler=create)

    p = sub.add_parser("outcome", help="record how a decision turned out", parents=[parent])
    p.add_argument("name")
    p.add_argument("--outcome", required=True, help="MET, PARTIALLY_MET or MISSED")
    p.add_argument("--summary", required=True)
    p.add_argument("--evidence", action="append", default=[], help="a verbatim quote")
    p.add_argument("--source", action="append", default=[], help="text the quotes come from")
    p.add_argument("--source-file", action="append", default=[], help="file the quotes come from")
    p.set_defaults(handler=outcome)


def ingest(args: argparse.Namespace) -> int:
    if not 1 <= args.batch_size <= 500:
        raise UsageError("--batch-size must be between 1 and 500")
    try:
        total = git.check_range(args.path, args.range)
        repository = args.repository or git.repository_name(args.path)
    except git.GitError as error:
        raise UsageError(f"cannot read {args.range!r} in {args.path}: {error}") from error
    out = common.output(args)
    progress = IngestProgress(total, shown=not args.quiet and not args.json)

    def on_batch(tally: IngestTally, lines: list[CommitLine]) -> None:
        if args.verbose:
            progress.clear()
            for line in lines:
                if args.json:
                    out.item({"sha": line.sha, "outcome": line.outcome, "detail": line.detail})
                else:
                    out.line(f"{line.sha[:12]}  {line.outcome:<16}  {line.detail}".rstrip())
        progress.update(tally)

    with IndexWait(args) as index_wait, _ingest_client(args) as client:
        try:
            tally = ingest_history(
                client,
                args.path,
                args.range,
                repository,
                space=args.space,
                batch_size=args.batch_size,
                reprocess=args.reprocess,
                on_batch=on_batch,
            )
        except (git.GitError, EngramError) as error:
            progress.done()
            failed: IngestTally | None = getattr(error, "tally", None)
            if failed is not None:
                _summary(args, failed)
                print(f"stopped after {failed.read} commits of {total}", file=sys.stderr)
            if isinstance(error, git.GitError):
                print(f"error: git: {error}", file=sys.stderr)
                return 1
            raise
        progress.done()
        index_wait.finish()
    _summary(args, tally)
    if index_wait.outcome:
        common.output(args).line(index_wait.outcome)
    return 0


def _ingest_client(args: argparse.Namespace) -> Client:
    # A batch of a large history can take the server longer than the default
    # per-call deadline meant for single reads.
    return common.make_client(
        argparse.Namespace(**{**vars(args), "timeout": max(args.timeout, INGEST_TIMEOUT)})
    )


def _summary(args: argparse.Namespace, tally: IngestTally) -> None:
    out = common.output(args)
    if args.json:
        out.item(
            {
                "repository": tally.repository,
                "commits_read": tally.read,
                "decisions_stored": tally.stored,
                "decisions_created": tally.created,
                "decisions_updated": tally.updated,
                "commits_without_decision": tally.without_decision,
                "commits_already_ingested": tally.already,
                "commits_skipped": tally.skipped,
                "skipped_reasons": dict(tally.skip_reasons()),
                "cleaned": dict(tally.cleaned()),
                "seconds": round(tally.seconds, 2),
            }
        )
        return
    for line in tally.summary():
        out.line(line)


def _default_repository(args: argparse.Namespace) -> str:
    if args.repository:
        return str(args.repository)
    try:
        return git.repository_name(args.repo_path)
    except git.GitError as error:
        raise UsageError(f"--repository is needed outside a git checkout ({error})") from error


def _lines(text: str | None) -> tuple[int, int] | None:
    if not text:
        return None
    start, _, end = text.partition("-")
    try:
        return (int(start), int(end or start))
    except ValueError as exc:
        raise UsageError(f"--lines must look like 40 or 40-52, not {text!r}") from exc


_SHA = re.compile(r"[0-9a-f]{4,64}")


@dataclass(frozen=True)
class Blamed:
    """A commit `git blame` names for some of the asked lines."""

    sha: str
    summary: str
    author: str
    when: datetime
    lines: list[int]


def blame(repo_path: str, revision: str, path: str, span: tuple[int, int]) -> list[Blamed]:
    """The commits that introduced or last changed lines `span` of `path` at
    `revision` (`git blame --porcelain`), in the order of the lines; empty when
    git cannot tell (no checkout, an unknown revision, lines past the end)."""
    done = subprocess.run(
        [
            *("git", "-C", repo_path, "blame", "--porcelain"),
            *("-L", f"{span[0]},{span[1]}", revision or "HEAD", "--", path),
        ],
        capture_output=True,
        text=True,
        errors="replace",
        check=False,
    )
    if done.returncode != 0:
        return []
    found: dict[str, Blamed] = {}
    headers: dict[str, dict[str, str]] = {}
    sha = ""
    for line in done.stdout.splitlines():
        if line.startswith("\t"):
            continue
        head, _, rest = line.partition(" ")
        if len(head) in (40, 64) and all(c in "0123456789abcdef" for c in head):
            sha = head
            headers.setdefault(sha, {})
            final_line = int(rest.split()[1])
            if sha not in found:
                found[sha] = Blamed(sha, "", "", datetime.fromtimestamp(0, UTC), [])
            found[sha].lines.append(final_line)
        elif sha:
            headers[sha][head] = rest
    out = []
    for sha, b in found.items():
        h = headers.get(sha, {})
        when = datetime.fromtimestamp(int(h.get("author-time", "0") or 0), UTC)
        out.append(Blamed(sha, h.get("summary", ""), h.get("author", ""), when, b.lines))
    return out


def _ranges(numbers: list[int]) -> str:
    """40, 41, 42, 50 -> "40-42, 50"."""
    out: list[str] = []
    for n in sorted(set(numbers)):
        if out and n == int(out[-1].rpartition("-")[2]) + 1:
            out[-1] = f"{out[-1].partition('-')[0]}-{n}"
        else:
            out.append(str(n))
    return ", ".join(out)


def explain(args: argparse.Namespace) -> int:
    repository = _default_repository(args)
    revision = args.revision
    if not revision:
        # Lines refer to the checkout at hand: HEAD of --repo-path, when it is one.
        try:
            revision = git.head(args.repo_path)
        except git.GitError:
            revision = ""
    else:
        # The server takes commit shas: a tag, branch or HEAD~2 is resolved here;
        # a sha (or its prefix) goes as it is when no checkout knows it.
        try:
            revision = git.resolve(args.repo_path, revision)
        except git.GitError as error:
            if not _SHA.fullmatch(revision):
                raise UsageError(f"--revision {revision!r} in {args.repo_path}: {error}") from error
    lines = _lines(args.lines)
    blamed = blame(args.repo_path, revision, args.path, lines) if lines else []
    with common.make_client(args) as client:
        response = client.explain_code(
            repository,
            args.path,
            lines=lines,
            symbol=args.symbol,
            revision=revision,
            question=args.question,
            k=args.k,
            include_superseded=args.include_superseded,
            token_budget=args.budget,
            blame_commits=[b.sha for b in blamed][:50],
        )
    out = common.output(args)
    if args.json:
        data = _json(response)
        if blamed:
            data["blame"] = [
                {
                    "commit": b.sha,
                    "lines": _ranges(b.lines),
                    "summary": b.summary,
                    "author": b.author,
                    "time": b.when.isoformat(),
                }
                for b in blamed
            ]
        out.item(data)
    else:
        for b in blamed:
            out.line(
                f"Lines {_ranges(b.lines)} of {args.path} were introduced or last changed by"
                f" {b.sha[:12]} ({b.when.date().isoformat()}, {b.author}): {b.summary}"
            )
        if blamed:
            out.line("")
        # The server's lines are carried in commit-time order; git knows exactly.
        context = exact_context(response, args.repo_path, revision)
        out.line(context or "No recorded decision explains this code.")
    return 0


def search(args: argparse.Namespace) -> int:
    with common.make_client(args) as client:
        response = client.search_decisions(
            args.query,
            repository=args.repository,
            path=args.path,
            k=args.k,
            include_superseded=args.include_superseded,
        )
    out = common.output(args)
    assert response.raw is not None
    if response.abstained and not args.json:
        out.line(
            f"No recorded decision explains this (confidence {response.confidence:.2f});"
            " the nearest ones:"
        )
    for hit, message in zip(response.hits, response.raw.hits, strict=True):
        if args.json:
            out.item(json_format.MessageToDict(message))
        else:
            d = hit.decision
            commits = ", ".join(c[:12] for c in d.commits[:3])
            out.line(f"{hit.score:7.3f}  {d.title}  [{commits}]  {d.name}")
            if d.rationale:
                out.line(f"         why: {d.rationale[:200]}")
    return 0


def _json(result: Any) -> dict[str, Any]:
    """An SDK result as printed: the API message it came from (`raw`), so `--json`
    keeps the API's field and enum names."""
    data: dict[str, Any] = json_format.MessageToDict(result.raw)
    return data


def _show(args: argparse.Namespace, d: Decision) -> None:
    out = common.output(args)
    if args.json:
        out.item(_json(d))
        return
    out.line(f"{d.name}  {d.title}")
    for label, value in (
        ("decision", d.statement),
        ("why", d.rationale),
        ("status", decisions_status(d)),
        ("commits", ", ".join(d.commits)),
    ):
        if value:
            out.line(f"  {label}: {value}")
    for e in d.evidence:
        out.line(f"  evidence: {' '.join(e.quote.split())}")
    for a in d.anchors[:10]:
        lines = f":{a.lines.start_line}-{a.lines.end_line}" if a.lines else ""
        out.line(f"  anchor: {a.path}{lines} {a.symbol}".rstrip())


def decisions_status(d: Decision) -> str:
    status = str(d.status)
    if d.superseded_by:
        status += f" by {d.superseded_by}"
    if d.outcome is not DecisionOutcome.UNSPECIFIED:
        status += f", outcome {d.outcome}"
    return status


def get(args: argparse.Namespace) -> int:
    with common.make_client(args) as client:
        _show(args, client.get_decision(args.name))
    return 0


def list_decisions(args: argparse.Namespace) -> int:
    shown = 0
    with common.make_client(args) as client:
        for d in client.list_decisions(
            repository=args.repository,
            path=args.path,
            outcomes=args.outcome,
            include_superseded=args.include_superseded,
            page_size=min(max(args.limit, 1), 1000),
        ):
            _show(args, d)
            shown += 1
            if shown >= args.limit:
                break
    return 0


def _sources(args: argparse.Namespace) -> list[str]:
    texts = list(args.source)
    for name in args.source_file:
        try:
            texts.append(Path(name).read_text(encoding="utf-8", errors="replace"))
        except OSError as error:
            raise UsageError(f"cannot read --source-file {name}: {error.strerror}") from error
    return texts


def create(args: argparse.Namespace) -> int:
    evidence: list[str | DecisionEvidence] = list(args.evidence)
    evidence += [
        DecisionEvidence(quote=q, memory=m, origin="statement") for q, m in args.evidence_memory
    ]
    with common.make_client(args) as client:
        d = client.create_decision(
            args.repository,
            args.title,
            args.rationale,
            statement=args.statement,
            alternatives=args.alternative,
            expectations=args.expectation,
            evidence=evidence,
            sources=_sources(args),
        )
    _show(args, d)
    return 0


def outcome(args: argparse.Namespace) -> int:
    with common.make_client(args) as client:
        try:
            d = client.record_decision_outcome(
                args.name,
                args.outcome,
                args.summary,
                evidence=args.evidence,
                sources=_sources(args),
            )
        except InvalidArgument as error:
            if error.fields != ["outcome"]:
                raise
            raise UsageError(
                f"unknown outcome {args.outcome!r}: use MET, PARTIALLY_MET or MISSED"
            ) from error
    _show(args, d)
    return 0


def ingest_session(args: argparse.Namespace) -> int:
    with common.make_client(args) as client:
        response = client.ingest_session(
            args.space, args.session, args.repository, decisions_space=args.decisions_space
        )
    out = common.output(args)
    if args.json:
        out.item(_json(response))
        return 0
    for d in response.decisions:
        out.line(f"{d.name}  {d.title}")
    out.line(
        f"{response.messages} messages read, {response.created_decisions} decisions created,"
        f" {len(response.decisions) - response.created_decisions} found again"
    )
    return 0
