"""DecisionsService messages <-> `engram.decision_types`, for both clients."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from engram import _convert as c
from engram import decision_types as dt
from engram import errors
from engram import types as t
from engram.v1 import decisions_pb2


def lines_out(message: Any, field_name: str) -> dt.LineRange | None:
    if not message.HasField(field_name):
        return None
    pb: decisions_pb2.LineRange = getattr(message, field_name)
    return dt.LineRange(start_line=pb.start_line, end_line=pb.end_line)


def evidence_out(pb: decisions_pb2.DecisionEvidence) -> dt.DecisionEvidence:
    return dt.DecisionEvidence(
        quote=pb.quote, commit_sha=pb.commit_sha, origin=pb.origin, path=pb.path, memory=pb.memory
    )


def anchor_out(pb: decisions_pb2.CodeAnchor) -> dt.CodeAnchor:
    return dt.CodeAnchor(
        path=pb.path,
        lines=lines_out(pb, "lines"),
        commit_sha=pb.commit_sha,
        symbol=pb.symbol,
        recorded_lines=lines_out(pb, "recorded_lines"),
        recorded_commit_sha=pb.recorded_commit_sha,
    )


def decision_out(pb: decisions_pb2.Decision) -> dt.Decision:
    return dt.Decision(
        name=pb.name,
        repository=pb.repository,
        title=pb.title,
        statement=pb.statement,
        rationale=pb.rationale,
        question=pb.question,
        alternatives=tuple(
            dt.DecisionAlternative(description=a.description, reason_rejected=a.reason_rejected)
            for a in pb.alternatives
        ),
        evidence=tuple(evidence_out(e) for e in pb.evidence),
        anchors=tuple(anchor_out(a) for a in pb.anchors),
        commits=tuple(pb.commits),
        decision_time=c.time_out(pb, "decision_time"),
        create_time=c.time_out(pb, "create_time"),
        update_time=c.time_out(pb, "update_time"),
        memory=pb.memory,
        space=pb.space,
        status=c.enum_out(t.MemoryStatus, pb.status),
        superseded_by=pb.superseded_by,
        author=pb.author,
        tags=tuple(pb.tags),
        expectations=tuple(pb.expectations),
        outcome=c.enum_out(dt.DecisionOutcome, pb.outcome),
        outcome_history=tuple(
            dt.DecisionOutcomeRecord(
                outcome=c.enum_out(dt.DecisionOutcome, r.outcome),
                summary=r.summary,
                evidence=tuple(evidence_out(e) for e in r.evidence),
                record_time=c.time_out(r, "record_time"),
                recorder=r.recorder,
            )
            for r in pb.outcome_history
        ),
        origin=pb.origin,
        raw=pb,
    )


def ingested_commit_out(pb: decisions_pb2.IngestedCommit) -> dt.IngestedCommit:
    return dt.IngestedCommit(
        index=pb.index,
        sha=pb.sha,
        disposition=c.enum_out(dt.CommitDisposition, pb.disposition),
        reason=pb.reason,
        decision=pb.decision,
        violations=tuple(
            dt.CommitFieldViolation(field=v.field, description=v.description) for v in pb.violations
        ),
    )


def ingest_out(pb: decisions_pb2.IngestCommitsResponse) -> dt.IngestResult:
    return dt.IngestResult(
        decisions=tuple(decision_out(d) for d in pb.decisions),
        processed_commits=pb.processed_commits,
        skipped_commits=pb.skipped_commits,
        commits_without_decision=pb.commits_without_decision,
        created_decisions=pb.created_decisions,
        updated_decisions=pb.updated_decisions,
        invalid_commits=pb.invalid_commits,
        privacy_findings=c.findings_out(pb.privacy_findings),
        commits=tuple(ingested_commit_out(x) for x in pb.commits),
        pending_index_items=pb.pending_index_items,
        raw=pb,
    )


def session_ingest_out(pb: decisions_pb2.IngestSessionResponse) -> dt.SessionIngestResult:
    return dt.SessionIngestResult(
        decisions=tuple(decision_out(d) for d in pb.decisions),
        created_decisions=pb.created_decisions,
        messages=pb.messages,
        privacy_findings=c.findings_out(pb.privacy_findings),
        raw=pb,
    )


def search_out(pb: decisions_pb2.SearchDecisionsResponse) -> dt.DecisionSearchResult:
    return dt.DecisionSearchResult(
        hits=tuple(
            dt.DecisionHit(decision=decision_out(h.decision), score=h.score) for h in pb.hits
        ),
        abstained=pb.abstained,
        confidence=pb.confidence,
        raw=pb,
    )


def explain_out(pb: decisions_pb2.ExplainCodeResponse) -> dt.ExplainResult:
    return dt.ExplainResult(
        explanations=tuple(
            dt.CodeExplanation(
                decision=decision_out(e.decision),
                match=c.enum_out(dt.AnchorMatch, e.match),
                matched_anchors=tuple(anchor_out(a) for a in e.matched_anchors),
                score=e.score,
                replacement=decision_out(e.replacement) if e.HasField("replacement") else None,
            )
            for e in pb.explanations
        ),
        context=pb.context,
        token_count=pb.token_count,
        raw=pb,
    )


# -- inputs: the dataclasses that are also arguments --------------------------------


def lines_in(value: dt.LineRange, field: str) -> decisions_pb2.LineRange:
    return c.fill(
        decisions_pb2.LineRange(),
        f"{field}.",
        start_line=value.start_line,
        end_line=value.end_line,
    )


def evidence_in(value: Any, field: str) -> decisions_pb2.DecisionEvidence:
    """A quote (a string), a `DecisionEvidence`, or the message itself."""
    if isinstance(value, decisions_pb2.DecisionEvidence):
        return value
    if isinstance(value, str):
        return c.fill(decisions_pb2.DecisionEvidence(), f"{field}.", quote=value)
    if isinstance(value, dt.DecisionEvidence):
        return c.fill(
            decisions_pb2.DecisionEvidence(),
            f"{field}.",
            quote=value.quote,
            commit_sha=value.commit_sha,
            origin=value.origin,
            path=value.path,
            memory=value.memory,
        )
    raise errors.invalid_argument(
        field, f"expected a quote or an engram.DecisionEvidence, got {type(value).__name__}"
    )


def anchor_in(value: Any, field: str) -> decisions_pb2.CodeAnchor:
    """A `CodeAnchor`, or the message itself."""
    if isinstance(value, decisions_pb2.CodeAnchor):
        return value
    if not isinstance(value, dt.CodeAnchor):
        raise errors.invalid_argument(
            field, f"expected an engram.CodeAnchor, got {type(value).__name__}"
        )
    return c.fill(
        decisions_pb2.CodeAnchor(),
        f"{field}.",
        path=value.path,
        lines=lines_in(value.lines, f"{field}.lines") if value.lines is not None else None,
        commit_sha=value.commit_sha,
        symbol=value.symbol,
    )


# -- commits: `engram.Commit` -> engram.v1.Commit ------------------------------------
#
# The SDK refuses a field of the wrong type and a value no commit can have (what
# the server's shape checks would refuse too: a sha that is not a full hash, a
# hunk on no side...), naming it as the server would (`commits[3].files[0].path`).
# Limits (message and excerpt sizes, file and hunk counts) stay the server's: a
# commit over them is refused alone, in the result, and the others are ingested.

_SHA = re.compile(r"(?:[0-9a-f]{40}|[0-9a-f]{64})")
_INT32_MAX = 2**31 - 1


def commit_in(value: Any, field: str) -> decisions_pb2.Commit:
    """An `engram.Commit`, or the message itself (sent as it is)."""
    if isinstance(value, decisions_pb2.Commit):
        return value
    if not isinstance(value, dt.Commit):
        raise errors.invalid_argument(
            field, f"expected an engram.Commit or an engram.v1.Commit, got {type(value).__name__}"
        )
    sha = _sha(value.sha, f"{field}.sha")
    parents = [
        _sha(p, f"{field}.parents[{i}]") for i, p in _items(value.parents, f"{field}.parents")
    ]
    if not c.text_in(value.message, f"{field}.message").strip():
        raise errors.invalid_argument(f"{field}.message", "required")
    return c.fill(
        decisions_pb2.Commit(),
        f"{field}.",
        sha=sha,
        parents=parents,
        author_name=value.author_name,
        author_email=value.author_email,
        author_time=_time(value.author_time, f"{field}.author_time", required=True),
        committer_name=value.committer_name,
        commit_time=_time(value.commit_time, f"{field}.commit_time", required=False),
        message=value.message,
        files=[
            file_change_in(f, f"{field}.files[{i}]")
            for i, f in _items(value.files, f"{field}.files")
        ],
        diff_excerpt=value.diff_excerpt,
        refs=value.refs,
    )


def file_change_in(value: Any, field: str) -> decisions_pb2.FileChange:
    """An `engram.FileChange`, or the message itself."""
    if isinstance(value, decisions_pb2.FileChange):
        return value
    if not isinstance(value, dt.FileChange):
        raise errors.invalid_argument(
            field, f"expected an engram.FileChange, got {type(value).__name__}"
        )
    if not c.text_in(value.path, f"{field}.path"):
        raise errors.invalid_argument(f"{field}.path", "required")
    change = c.enum_in(dt.FileChangeType, value.change_type, f"{field}.change_type")
    if change in (decisions_pb2.FILE_CHANGE_TYPE_RENAMED, decisions_pb2.FILE_CHANGE_TYPE_COPIED):
        if not c.text_in(value.old_path, f"{field}.old_path"):
            raise errors.invalid_argument(f"{field}.old_path", "required for a rename or copy")
    return c.fill(
        decisions_pb2.FileChange(),
        f"{field}.",
        path=value.path,
        old_path=value.old_path,
        change_type=decisions_pb2.FileChangeType.ValueType(change),
        additions=_count(value.additions, f"{field}.additions"),
        deletions=_count(value.deletions, f"{field}.deletions"),
        binary=c.flag(value.binary, f"{field}.binary"),
        hunks=[hunk_in(h, f"{field}.hunks[{i}]") for i, h in _items(value.hunks, f"{field}.hunks")],
        added_symbols=value.added_symbols,
        removed_symbols=value.removed_symbols,
    )


def hunk_in(value: Any, field: str) -> decisions_pb2.DiffHunk:
    """An `engram.DiffHunk`, or the message itself."""
    if isinstance(value, decisions_pb2.DiffHunk):
        return value
    if not isinstance(value, dt.DiffHunk):
        raise errors.invalid_argument(
            field, f"expected an engram.DiffHunk, got {type(value).__name__}"
        )
    if value.old_lines is None and value.new_lines is None:
        raise errors.invalid_argument(
            f"{field}.new_lines", "a hunk needs old_lines, new_lines or both"
        )
    return c.fill(
        decisions_pb2.DiffHunk(),
        f"{field}.",
        old_lines=_span(value.old_lines, f"{field}.old_lines"),
        new_lines=_span(value.new_lines, f"{field}.new_lines"),
        section=value.section,
        excerpt=value.excerpt,
    )


def _span(value: Any, field: str) -> decisions_pb2.LineRange | None:
    """A hunk side: a `LineRange` from line 1 on, its end 0 (one line) or not
    before its start."""
    if value is None:
        return None
    if isinstance(value, decisions_pb2.LineRange):
        value = dt.LineRange(start_line=value.start_line, end_line=value.end_line)
    if not isinstance(value, dt.LineRange):
        raise errors.invalid_argument(
            field, f"expected an engram.LineRange, got {type(value).__name__}"
        )
    start = _count(value.start_line, f"{field}.start_line")
    end = _count(value.end_line, f"{field}.end_line")
    if start < 1:
        raise errors.invalid_argument(f"{field}.start_line", "must be at least 1")
    if end and end < start:
        raise errors.invalid_argument(f"{field}.end_line", "must not be before start_line")
    return decisions_pb2.LineRange(start_line=start, end_line=end)


def _sha(value: Any, field: str) -> str:
    text = c.text_in(value, field)
    if not _SHA.fullmatch(text):
        raise errors.invalid_argument(
            field, f"must be 40 or 64 lowercase hex characters, got {text!r:.70}"
        )
    return text


def _time(value: Any, field: str, *, required: bool) -> Any:
    if value is None and not required:
        return None
    if not isinstance(value, datetime):
        raise errors.invalid_argument(
            field,
            f"expected a datetime{'' if required else ' or None'}, got {type(value).__name__}",
        )
    return c.time_in(value, field)


def _count(value: Any, field: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise errors.invalid_argument(field, f"expected an integer, got {type(value).__name__}")
    if not 0 <= value <= _INT32_MAX:
        raise errors.invalid_argument(field, f"must be between 0 and {_INT32_MAX}, got {value}")
    return value


def _items(values: Any, field: str) -> Iterable[tuple[int, Any]]:
    if isinstance(values, str | bytes | Mapping) or not isinstance(values, Iterable):
        raise errors.invalid_argument(field, f"expected a list, got {type(values).__name__}")
    return enumerate(list(values))
