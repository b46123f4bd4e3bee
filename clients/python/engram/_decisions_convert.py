"""DecisionsService messages <-> `engram.decision_types`, for both clients."""

from __future__ import annotations

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
        path=pb.path, lines=lines_out(pb, "lines"), commit_sha=pb.commit_sha, symbol=pb.symbol
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
