"""Typed results of the decision calls (`ingest_commits`, `explain_code`...).

The same conventions as `engram.types`: frozen dataclasses, aware UTC datetimes,
`StrEnum`s whose values are the short names (`DecisionOutcome.MET == "MET"`), and
the message each result came from in `raw`. `DecisionEvidence`,
`DecisionAlternative`, `CodeAnchor` and `LineRange` are inputs too
(`create_decision(evidence=[...], alternatives=[...], anchors=[...])`).
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
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


@dataclass(frozen=True, kw_only=True)
class LineRange:
    """Lines of a file, 1-based and inclusive (engram.v1.LineRange)."""

    start_line: int = 0
    end_line: int = 0


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
    """What `search_decisions` found, best first; iterating iterates over `hits`."""

    hits: tuple[DecisionHit, ...] = ()
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
    "CommitDisposition",
    "CommitFieldViolation",
    "Decision",
    "DecisionAlternative",
    "DecisionEvidence",
    "DecisionHit",
    "DecisionOutcome",
    "DecisionOutcomeRecord",
    "DecisionSearchResult",
    "ExplainResult",
    "IngestResult",
    "IngestedCommit",
    "LineRange",
    "SessionIngestResult",
]
