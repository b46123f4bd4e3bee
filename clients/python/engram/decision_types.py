"""Typed results of the decision calls (`ingest_commits`, `explain_code`...).

The same conventions as `engram.types`: frozen dataclasses, aware UTC datetimes,
`StrEnum`s whose values are the short names (`DecisionOutcome.MET == "MET"`), and
the message each result came from in `raw`. `DecisionEvidence`,
`DecisionAlternative`, `CodeAnchor` and `LineRange` are inputs too
(`create_decision(evidence=[...], alternatives=[...], anchors=[...])`), and
`Commit` (with its `FileChange`s and their `DiffHunk`s) is what `ingest_commits`
takes.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from engram.types import MemoryStatus, PrivacyFinding
from engram.v1 import decisions_pb2


class DecisionOutcome(enum.StrEnum):
    """What happened after a decision (engram.v1.DecisionOutcome)."""

    UNSPECIFIED = "UNSPECIFIED"
    MET = "MET"
    PARTIALLY_MET = "PARTIALLY_MET"
    MISSED = "MISSED"


class CommitDisposition(enum.StrEnum):
    """What ingesting one commit did (engram.v1.CommitDisposition)."""

    UNSPECIFIED = "UNSPECIFIED"
    DECISION = "DECISION"
    NO_DECISION = "NO_DECISION"
    ALREADY_INGESTED = "ALREADY_INGESTED"
    INVALID = "INVALID"


class AnchorMatch(enum.StrEnum):
    """How an explanation's decision matched the code asked about
    (engram.v1.AnchorMatch)."""

    UNSPECIFIED = "UNSPECIFIED"
    LINES = "LINES"
    FILE = "FILE"
    SEMANTIC = "SEMANTIC"


class FileChangeType(enum.StrEnum):
    """How a commit touched a file (engram.v1.FileChangeType)."""

    UNSPECIFIED = "UNSPECIFIED"
    ADDED = "ADDED"
    MODIFIED = "MODIFIED"
    DELETED = "DELETED"
    RENAMED = "RENAMED"
    COPIED = "COPIED"


@dataclass(frozen=True, kw_only=True)
class LineRange:
    """Lines of a file, 1-based and inclusive (engram.v1.LineRange)."""

    start_line: int = 0
    end_line: int = 0


@dataclass(frozen=True, kw_only=True)
class DiffHunk:
    """One hunk of a diff: where lines changed, on both sides (engram.v1.DiffHunk).
    `old_lines` is None for a hunk that only adds, `new_lines` for one that only
    deletes."""

    old_lines: LineRange | None = None
    new_lines: LineRange | None = None
    # The enclosing function or section, as git prints it after `@@`.
    section: str = ""
    # An excerpt of the hunk's text (comments, constants), used only for mining.
    excerpt: str = ""


@dataclass(frozen=True, kw_only=True)
class FileChange:
    """One file a commit touched (engram.v1.FileChange). `change_type` may also be
    given as a name (`"renamed"`); UNSPECIFIED reads as MODIFIED. `old_path` is
    the previous path of a rename or copy; a binary file has no line counts or
    hunks. `added_symbols` / `removed_symbols`: the names the change introduced
    or removed (`engram.diff_symbols`), never code."""

    path: str
    old_path: str = ""
    change_type: FileChangeType | str = FileChangeType.UNSPECIFIED
    additions: int = 0
    deletions: int = 0
    binary: bool = False
    hunks: Sequence[DiffHunk] = ()
    added_symbols: Sequence[str] = ()
    removed_symbols: Sequence[str] = ()


@dataclass(frozen=True, kw_only=True)
class Commit:
    """A commit as read from a repository, for `ingest_commits` (engram.v1.Commit).

    `sha`, `message` and `author_time` are required (the author time and the
    title identify a decision across rebases); a naive datetime is read as UTC.
    `ingest_commits` refuses a commit with a field of the wrong type or a value no
    commit can have, naming it (`commits[3].files[0].hunks[2].new_lines`); the
    server's limits (sizes, counts) refuse only that commit, in the result.
    """

    sha: str
    message: str
    author_time: datetime
    parents: Sequence[str] = ()
    author_name: str = ""
    # Redacted by the privacy boundary unless the space policy allows it.
    author_email: str = ""
    committer_name: str = ""
    commit_time: datetime | None = None
    files: Sequence[FileChange] = ()
    # An excerpt of the diff, for rationale that lives in code comments.
    diff_excerpt: str = ""
    # Refs pointing at the commit when it was read (`main`, `v1.2.0`).
    refs: Sequence[str] = ()


@dataclass(frozen=True, kw_only=True)
class DecisionEvidence:
    """A verbatim quote backing a decision, and where it is from
    (engram.v1.DecisionEvidence)."""

    quote: str
    commit_sha: str = ""
    origin: str = ""
    path: str = ""
    # The memory quoted (`memories/{id}`), when the quote is from one.
    memory: str = ""


@dataclass(frozen=True, kw_only=True)
class CodeAnchor:
    """The code a decision is about (engram.v1.CodeAnchor)."""

    path: str
    lines: LineRange | None = None
    commit_sha: str = ""
    symbol: str = ""
    # Output only, for an anchor ExplainCode carried to the asked revision: the
    # lines as recorded, at `recorded_commit_sha`.
    recorded_lines: LineRange | None = None
    recorded_commit_sha: str = ""


@dataclass(frozen=True, kw_only=True)
class DecisionAlternative:
    """An option considered and turned down (engram.v1.DecisionAlternative)."""

    description: str
    reason_rejected: str = ""


@dataclass(frozen=True, kw_only=True)
class DecisionOutcomeRecord:
    """One recorded outcome of a decision (engram.v1.DecisionOutcomeRecord)."""

    outcome: DecisionOutcome
    summary: str = ""
    evidence: tuple[DecisionEvidence, ...] = ()
    record_time: datetime | None = None
    recorder: str = ""


@dataclass(frozen=True, kw_only=True)
class Decision:
    """A decision with its rationale, evidence and code anchors (engram.v1.Decision)."""

    name: str
    repository: str = ""
    title: str = ""
    statement: str = ""
    rationale: str = ""
    question: str = ""
    alternatives: tuple[DecisionAlternative, ...] = ()
    evidence: tuple[DecisionEvidence, ...] = ()
    anchors: tuple[CodeAnchor, ...] = ()
    commits: tuple[str, ...] = ()
    decision_time: datetime | None = None
    create_time: datetime | None = None
    update_time: datetime | None = None
    memory: str = ""
    space: str = ""
    status: MemoryStatus = MemoryStatus.UNSPECIFIED
    superseded_by: str = ""
    author: str = ""
    tags: tuple[str, ...] = ()
    expectations: tuple[str, ...] = ()
    outcome: DecisionOutcome = DecisionOutcome.UNSPECIFIED
    outcome_history: tuple[DecisionOutcomeRecord, ...] = ()
    origin: str = ""
    raw: decisions_pb2.Decision | None = field(default=None, repr=False, compare=False)

    @property
    def id(self) -> str:
        return self.name.rpartition("/")[2]


@dataclass(frozen=True, kw_only=True)
class CommitFieldViolation:
    """Why a commit was refused: the field and what is wrong with it."""

    field: str
    description: str = ""


@dataclass(frozen=True, kw_only=True)
class IngestedCommit:
    """What ingesting one commit did (engram.v1.IngestedCommit)."""

    index: int
    sha: str = ""
    disposition: CommitDisposition = CommitDisposition.UNSPECIFIED
    reason: str = ""
    # The decision it produced or updated (`decisions/{id}`), if any.
    decision: str = ""
    violations: tuple[CommitFieldViolation, ...] = ()


@dataclass(frozen=True, kw_only=True)
class IngestResult:
    """What `ingest_commits` mined (engram.v1.IngestCommitsResponse)."""

    decisions: tuple[Decision, ...] = ()
    processed_commits: int = 0
    skipped_commits: int = 0
    commits_without_decision: int = 0
    created_decisions: int = 0
    updated_decisions: int = 0
    invalid_commits: int = 0
    privacy_findings: tuple[PrivacyFinding, ...] = ()
    commits: tuple[IngestedCommit, ...] = ()
    # The tenant's index backlog when the call answered: writes not yet searchable.
    pending_index_items: int = 0
    raw: decisions_pb2.IngestCommitsResponse | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, kw_only=True)
class SessionIngestResult:
    """What `ingest_session` mined from a conversation (engram.v1.IngestSessionResponse)."""

    decisions: tuple[Decision, ...] = ()
    created_decisions: int = 0
    messages: int = 0
    privacy_findings: tuple[PrivacyFinding, ...] = ()
    raw: decisions_pb2.IngestSessionResponse | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, kw_only=True)
class DecisionHit:
    """One decision found by `search_decisions`, with its score."""

    decision: Decision
    score: float = 0.0


@dataclass(frozen=True, kw_only=True)
class DecisionSearchResult:
    """What `search_decisions` found, best first; iterating iterates over `hits`.
    `abstained` says no decision explains the query (`confidence` is under the
    server's calibrated threshold); the hits are then only the nearest ones."""

    hits: tuple[DecisionHit, ...] = ()
    abstained: bool = False
    confidence: float = 0.0
    raw: decisions_pb2.SearchDecisionsResponse | None = field(
        default=None, repr=False, compare=False
    )

    def __iter__(self) -> Iterator[DecisionHit]:
        return iter(self.hits)

    def __len__(self) -> int:
        return len(self.hits)


@dataclass(frozen=True, kw_only=True)
class CodeExplanation:
    """A decision that explains the code asked about (engram.v1.CodeExplanation)."""

    decision: Decision
    match: AnchorMatch = AnchorMatch.UNSPECIFIED
    matched_anchors: tuple[CodeAnchor, ...] = ()
    score: float = 0.0
    # For a superseded decision: the one that replaced it.
    replacement: Decision | None = None


@dataclass(frozen=True, kw_only=True)
class ExplainResult:
    """Why is this code like this? (engram.v1.ExplainCodeResponse). `context` is a
    prompt-ready Markdown block (also `str(result)`); iterating iterates over
    `explanations`."""

    explanations: tuple[CodeExplanation, ...] = ()
    context: str = ""
    token_count: int = 0
    raw: decisions_pb2.ExplainCodeResponse | None = field(default=None, repr=False, compare=False)

    def __iter__(self) -> Iterator[CodeExplanation]:
        return iter(self.explanations)

    def __len__(self) -> int:
        return len(self.explanations)

    def __str__(self) -> str:
        return self.context


__all__ = [
    "AnchorMatch",
    "CodeAnchor",
    "CodeExplanation",
    "Commit",
    "CommitDisposition",
    "CommitFieldViolation",
    "Decision",
    "DecisionAlternative",
    "DecisionEvidence",
    "DecisionHit",
    "DecisionOutcome",
    "DecisionOutcomeRecord",
    "DecisionSearchResult",
    "DiffHunk",
    "ExplainResult",
    "FileChange",
    "FileChangeType",
    "IngestResult",
    "IngestedCommit",
    "LineRange",
    "SessionIngestResult",
]
