"""Decisions as the domain sees them: commits in, decisions with anchors out.

Nothing here does I/O or knows protobuf; the servicer converts, the service
orchestrates, the store persists.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

DECISION_NAME_PREFIX = "decisions/"


def decision_name(decision_id: uuid.UUID) -> str:
    return f"{DECISION_NAME_PREFIX}{decision_id}"


class ChangeType(StrEnum):
    UNSPECIFIED = "UNSPECIFIED"
    ADDED = "ADDED"
    MODIFIED = "MODIFIED"
    DELETED = "DELETED"
    RENAMED = "RENAMED"
    COPIED = "COPIED"


class Origin(StrEnum):
    """Where a decision (or a quote) was found."""

    COMMIT = "commit_message"
    DIFF = "diff"
    SESSION = "session"
    STATEMENT = "statement"


class Outcome(StrEnum):
    """What became of a decision's expectations, as recorded later."""

    UNSPECIFIED = "UNSPECIFIED"
    MET = "MET"
    PARTIALLY_MET = "PARTIALLY_MET"
    MISSED = "MISSED"


class Disposition(StrEnum):
    """What an ingest did with one commit."""

    DECISION = "DECISION"  # became a decision, or joined one
    NO_DECISION = "NO_DECISION"  # skipped; `reason` says why
    ALREADY_INGESTED = "ALREADY_INGESTED"
    INVALID = "INVALID"  # refused; `violations` name the fields


@dataclass(frozen=True, slots=True)
class LineSpan:
    """Lines of a file, 1-based and inclusive."""

    start: int
    end: int

    @property
    def count(self) -> int:
        return self.end - self.start + 1

    def overlaps(self, other: LineSpan) -> bool:
        return self.start <= other.end and other.start <= self.end


@dataclass(frozen=True, slots=True)
class Hunk:
    """One zero-context hunk: the lines it replaced and the lines it wrote.

    `old` is None for a hunk that only adds, `new` for one that only deletes
    (as in the API). `section` is what git prints after the second `@@`.
    """

    old: LineSpan | None
    new: LineSpan | None
    section: str = ""
    excerpt: str = ""


@dataclass(frozen=True, slots=True)
class FileChange:
    path: str
    old_path: str = ""
    change_type: ChangeType = ChangeType.MODIFIED
    additions: int = 0
    deletions: int = 0
    binary: bool = False
    hunks: tuple[Hunk, ...] = ()
    # Names the change introduced / removed (never code).
    added_symbols: tuple[str, ...] = ()
    removed_symbols: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Commit:
    sha: str
    message: str
    author_time: datetime
    parents: tuple[str, ...] = ()
    author_name: str = ""
    committer_name: str = ""
    commit_time: datetime | None = None
    files: tuple[FileChange, ...] = ()
    diff_excerpt: str = ""
    refs: tuple[str, ...] = ()

    @property
    def time(self) -> datetime:
        """The commit's place in history (commit time, else author time)."""
        return self.commit_time or self.author_time

    @property
    def subject(self) -> str:
        return self.message.strip().split("\n", 1)[0].strip()

    @property
    def body(self) -> str:
        parts = self.message.strip().split("\n", 1)
        return parts[1].strip() if len(parts) > 1 else ""


@dataclass(frozen=True, slots=True)
class Evidence:
    """A verbatim quote; `quote` occurs exactly in its source."""

    quote: str
    origin: Origin = Origin.COMMIT
    commit_sha: str = ""
    path: str = ""
    # `memories/{memory}` the quote comes from (stated decisions).
    memory: str = ""


@dataclass(frozen=True, slots=True)
class Alternative:
    description: str
    reason_rejected: str = ""


@dataclass(frozen=True, slots=True)
class Anchor:
    """A pointer into the code: a path, optionally lines, at a commit."""

    path: str
    lines: LineSpan | None = None
    commit_sha: str = ""
    symbol: str = ""
    # For an anchor carried to another revision: where it was recorded.
    recorded_lines: LineSpan | None = None
    recorded_commit: str = ""

    @property
    def key(self) -> tuple[str, int, int, str]:
        """Anchors with the same key are the same place (the commit is where it was seen)."""
        if self.lines is None:
            return (self.path, 0, 0, self.symbol)
        return (self.path, self.lines.start, self.lines.end, self.symbol)


@dataclass(frozen=True)
class Draft:
    """A decision mined from one commit (or stated), before it is stored."""

    identity: str
    title: str
    statement: str
    rationale: str
    question: str
    decision_time: datetime
    author: str = ""
    alternatives: tuple[Alternative, ...] = ()
    evidence: tuple[Evidence, ...] = ()
    anchors: tuple[Anchor, ...] = ()
    commits: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    origin: Origin = Origin.COMMIT
    # The sha of the commit this one reverts ("This reverts commit ..."), if any.
    reverts: str = ""
    # For a revert of a revert: the title of the decision it restores.
    restores_title: str = ""
    expectations: tuple[str, ...] = ()


@dataclass(frozen=True)
class Skip:
    """A commit that carries no decision, and why."""

    reason: str


@dataclass(frozen=True)
class OutcomeRecord:
    outcome: Outcome
    summary: str
    evidence: tuple[Evidence, ...]
    record_time: datetime
    recorder: str = ""


@dataclass(frozen=True)
class Decision:
    """A stored decision, with its backing memory's status."""

    id: uuid.UUID
    repository: str
    space: str
    identity: str
    memory_id: uuid.UUID
    title: str
    statement: str
    rationale: str
    question: str
    alternatives: tuple[Alternative, ...]
    evidence: tuple[Evidence, ...]
    anchors: tuple[Anchor, ...]
    commits: tuple[str, ...]
    decision_time: datetime
    create_time: datetime
    update_time: datetime
    author: str
    tags: tuple[str, ...]
    origin: Origin
    status: str
    superseded_by: uuid.UUID | None = None
    expectations: tuple[str, ...] = ()
    outcome: Outcome = Outcome.UNSPECIFIED
    outcomes: tuple[OutcomeRecord, ...] = ()

    @property
    def name(self) -> str:
        return decision_name(self.id)


@dataclass(frozen=True)
class CommitResult:
    """What IngestCommits did with the commit at `index` of the request."""

    index: int
    sha: str
    disposition: Disposition
    reason: str = ""
    decision_id: uuid.UUID | None = None
    violations: tuple[tuple[str, str], ...] = field(default_factory=tuple)
