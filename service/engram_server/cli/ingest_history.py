"""Sending a repository's history to IngestCommits and keeping count of it.

`engram decisions ingest` and `engram bench decisions-corpus` both run
`ingest_history`: git is read on a thread ahead of the calls (`engram.git`),
each batch goes to IngestCommits, and `IngestTally` adds up what became of
every commit. A commit the reader could not represent, or that the server
refused, is counted with its reason and the run goes on: only a failure of the
run itself (git failing, the server unreachable) ends it, as an exception.
"""

from __future__ import annotations

import collections
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from engram import Client, CommitDisposition, IngestResult, git
from engram.errors import InvalidArgument
from engram.v1 import decisions_pb2

# `commits[12].files[3].path` -> `files[].path`: one reason for every commit.
_POSITION = re.compile(r"\[\d+\]")
_COMMIT_FIELD = re.compile(r"^commits\[(\d+)\]\.?")


@dataclass(frozen=True)
class CommitLine:
    """What became of one commit, for `--verbose`."""

    sha: str
    outcome: str  # decision, no decision, already ingested, refused, skipped
    detail: str


@dataclass
class IngestTally:
    """The counts of one ingest run; `read` is what git gave, the rest what became
    of it."""

    repository: str
    read: int = 0
    created: int = 0
    updated: int = 0
    without_decision: int = 0
    already: int = 0
    refused: int = 0
    seconds: float = 0.0
    no_decision_reasons: collections.Counter[str] = field(default_factory=collections.Counter)
    refusals: collections.Counter[str] = field(default_factory=collections.Counter)
    # What the server changed to store a commit (binary content it did not quote).
    server_cleaned: collections.Counter[str] = field(default_factory=collections.Counter)
    report: git.ReadReport = field(default_factory=git.ReadReport)

    @property
    def skipped(self) -> int:
        """Commits nothing of which was stored: the reader's skips and the refusals."""
        return sum(self.report.skipped.values()) + self.refused

    @property
    def stored(self) -> int:
        return self.created + self.updated

    def skip_reasons(self) -> collections.Counter[str]:
        return self.report.skipped + self.refusals

    def cleaned(self) -> collections.Counter[str]:
        """What was changed to store commits, by kind: by this reader, by the server."""
        return self.report.sanitised + self.server_cleaned

    def summary(self) -> list[str]:
        rate = self.read / self.seconds if self.seconds > 0 else 0.0
        lines = [
            f"{self.repository}: {self.read} commits read in {self.seconds:.1f}s ({rate:.0f}/s):"
            f" {self.stored} decisions stored ({self.created} decisions created,"
            f" {self.updated} updated), {self.without_decision} commits without a decision,"
            f" {self.already} already ingested, {self.skipped} skipped"
        ]
        for reason, n in self.skip_reasons().most_common():
            lines.append(f"  skipped {n:6d}: {reason}")
        for kind, n in self.cleaned().most_common():
            lines.append(f"  cleaned {n:6d}: {kind}")
        for reason, n in self.no_decision_reasons.most_common(8):
            lines.append(f"  no decision {n:6d}: {reason}")
        return lines


def ingest_history(
    client: Client,
    path: str,
    revision_range: str,
    repository: str,
    *,
    space: str = "",
    batch_size: int = 200,
    reprocess: bool = False,
    on_batch: Callable[[IngestTally, list[CommitLine]], None] | None = None,
) -> IngestTally:
    """Reads `revision_range` at `path` and ingests it; `on_batch` sees the tally
    and the batch's commit lines after each call. GitError or EngramError when
    the run itself fails (the tally so far is on the exception as `tally`)."""
    tally = IngestTally(repository)
    started = time.monotonic()
    try:
        for batch in git.read_batches(path, revision_range, batch_size, report=tally.report):
            lines = _send(client, tally, batch, space, reprocess)
            tally.read = tally.report.read
            tally.seconds = time.monotonic() - started
            if on_batch is not None:
                on_batch(tally, lines)
    except Exception as error:
        tally.seconds = time.monotonic() - started
        error.tally = tally  # type: ignore[attr-defined]
        raise
    tally.read = tally.report.read
    tally.seconds = time.monotonic() - started
    # Commits skipped after the last batch was sent still get their lines.
    rest = _skipped_lines(tally)
    if rest and on_batch is not None:
        on_batch(tally, rest)
    return tally


def _send(
    client: Client,
    tally: IngestTally,
    batch: list[decisions_pb2.Commit],
    space: str,
    reprocess: bool,
) -> list[CommitLine]:
    try:
        response = client.ingest_commits(tally.repository, batch, space=space, reprocess=reprocess)
    except InvalidArgument as error:
        # Every commit of the batch was refused (the server refuses the call
        # only then): each is counted with its own reasons.
        refused = _refused_commits(error)
        if refused is None:
            raise
        lines = []
        for index, commit in enumerate(batch):
            reasons = refused.get(index, ["refused with the rest of its batch"])
            tally.refused += 1
            tally.refusals[reasons[0]] += 1
            lines.append(CommitLine(commit.sha, "refused", "; ".join(reasons)))
        return lines
    _count(tally, response)
    return _lines(tally, batch, response)


def _refused_commits(error: InvalidArgument) -> dict[int, list[str]] | None:
    """The reasons by commit of a batch refused as a whole, or None when the
    request itself was at fault (not one commit)."""
    out: dict[int, list[str]] = {}
    for v in error.field_violations:
        match = _COMMIT_FIELD.match(v.field)
        if match is None:
            return None
        out.setdefault(int(match.group(1)), []).append(_reason(v.field, v.description))
    return out or None


def _reason(field_path: str, description: str) -> str:
    name = _POSITION.sub("[]", _COMMIT_FIELD.sub("", field_path)) or "commit"
    return f"{name}: {description}"


def _count(tally: IngestTally, response: IngestResult) -> None:
    tally.created += response.created_decisions
    tally.updated += response.updated_decisions
    tally.without_decision += response.commits_without_decision
    tally.already += response.skipped_commits
    tally.refused += response.invalid_commits
    for c in response.commits:
        if c.disposition is CommitDisposition.DECISION and c.reason:
            # A stored commit's reason lists what the server changed to store it.
            for note in c.reason.split("; "):
                tally.server_cleaned[note.partition(":")[0]] += 1
        elif c.disposition is CommitDisposition.NO_DECISION:
            tally.no_decision_reasons[c.reason] += 1
        elif c.disposition is CommitDisposition.INVALID:
            reasons = [_reason(v.field, v.description) for v in c.violations]
            tally.refusals[reasons[0] if reasons else c.reason] += 1


def _lines(
    tally: IngestTally, batch: list[decisions_pb2.Commit], response: IngestResult
) -> list[CommitLine]:
    titles = {d.name: d.title for d in response.decisions}
    lines = []
    for c in response.commits:
        if c.disposition is CommitDisposition.DECISION:
            title = titles.get(c.decision, c.decision)
            lines.append(
                CommitLine(c.sha, "decision", f"{title} ({c.reason})" if c.reason else title)
            )
        elif c.disposition is CommitDisposition.NO_DECISION:
            lines.append(CommitLine(c.sha, "no decision", c.reason))
        elif c.disposition is CommitDisposition.ALREADY_INGESTED:
            lines.append(CommitLine(c.sha, "already ingested", c.reason))
        else:
            detail = "; ".join(_reason(v.field, v.description) for v in c.violations)
            lines.append(CommitLine(c.sha, "refused", detail or c.reason))
    # What the reader changed or skipped, beside the server's answer.
    for sha in dict.fromkeys(commit.sha for commit in batch):
        for note in tally.report.notes.pop(sha, []):
            lines.append(CommitLine(sha, "cleaned", note))
    return lines + _skipped_lines(tally)


def _skipped_lines(tally: IngestTally) -> list[CommitLine]:
    """Lines for the commits the reader skipped so far (never sent)."""
    lines = []
    for sha in [s for s, notes in list(tally.report.notes.items()) if _all_skips(notes)]:
        for note in tally.report.notes.pop(sha):
            lines.append(CommitLine(sha, "skipped", note.removeprefix("skipped: ")))
    return lines


def _all_skips(notes: list[str]) -> bool:
    return any(n.startswith("skipped: ") for n in notes)
