"""DecisionsService servicer: protobuf in, domain calls, protobuf out."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import grpc
from engram.v1 import decisions_pb2, decisions_pb2_grpc, recall_pb2, types_pb2

from engram_server.api import convert
from engram_server.api.privacy import findings_to_proto
from engram_server.api.timestamps import optional_time
from engram_server.decisions.answer import Candidate, Match
from engram_server.decisions.model import (
    Alternative,
    Anchor,
    ChangeType,
    Commit,
    Decision,
    Disposition,
    Evidence,
    FileChange,
    Hunk,
    LineSpan,
    Origin,
    Outcome,
    OutcomeRecord,
)
from engram_server.errors import InvalidArgument, Violations
from engram_server.platform.context import AppContext
from engram_server.platform.principal import current_principal
from engram_server.services.decisions import (
    MAX_ANCHOR_SYMBOL_CHARS,
    MAX_PATH_BYTES,
    MAX_SOURCE_BYTES,
    MAX_SOURCES,
    SHORT_SHA,
    CommitInput,
    DecisionsService,
    ExplainQuery,
    SearchQuery,
    check_commit,
    check_span,
    now,
    parse_decision_name,
    sanitised_commit,
    stated_draft,
)
from engram_server.store.decisions import DecisionFilter

Ctx = grpc.aio.ServicerContext[Any, Any]

# Stands in for a missing or invalid author time; such a commit carries a violation
# and is reported, never ingested.
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

_CHANGE_TYPES = {
    decisions_pb2.FILE_CHANGE_TYPE_UNSPECIFIED: ChangeType.MODIFIED,
    decisions_pb2.FILE_CHANGE_TYPE_ADDED: ChangeType.ADDED,
    decisions_pb2.FILE_CHANGE_TYPE_MODIFIED: ChangeType.MODIFIED,
    decisions_pb2.FILE_CHANGE_TYPE_DELETED: ChangeType.DELETED,
    decisions_pb2.FILE_CHANGE_TYPE_RENAMED: ChangeType.RENAMED,
    decisions_pb2.FILE_CHANGE_TYPE_COPIED: ChangeType.COPIED,
}
_DISPOSITIONS = {
    Disposition.DECISION: decisions_pb2.COMMIT_DISPOSITION_DECISION,
    Disposition.NO_DECISION: decisions_pb2.COMMIT_DISPOSITION_NO_DECISION,
    Disposition.ALREADY_INGESTED: decisions_pb2.COMMIT_DISPOSITION_ALREADY_INGESTED,
    Disposition.INVALID: decisions_pb2.COMMIT_DISPOSITION_INVALID,
}
_MATCHES = {
    Match.LINES: decisions_pb2.ANCHOR_MATCH_LINES,
    Match.FILE: decisions_pb2.ANCHOR_MATCH_FILE,
    Match.SEMANTIC: decisions_pb2.ANCHOR_MATCH_SEMANTIC,
}
_OUTCOMES = {
    Outcome.UNSPECIFIED: decisions_pb2.DECISION_OUTCOME_UNSPECIFIED,
    Outcome.MET: decisions_pb2.DECISION_OUTCOME_MET,
    Outcome.PARTIALLY_MET: decisions_pb2.DECISION_OUTCOME_PARTIALLY_MET,
    Outcome.MISSED: decisions_pb2.DECISION_OUTCOME_MISSED,
}
_OUTCOMES_IN = {number: outcome for outcome, number in _OUTCOMES.items()}
_ORIGINS = {o.value: o for o in Origin}


# -- proto -> domain ---------------------------------------------------------------------


def _span(r: decisions_pb2.LineRange) -> LineSpan:
    return LineSpan(r.start_line, r.end_line or r.start_line)


def commit_from_proto(index: int, c: decisions_pb2.Commit) -> CommitInput:
    """One commit, or its violations (named by their path in the request)."""
    path = f"commits[{index}]"
    v = Violations()
    if not c.HasField("author_time"):
        v.add(f"{path}.author_time", "required: with the title it identifies a decision")
    files = []
    for i, f in enumerate(c.files):
        change = _CHANGE_TYPES.get(f.change_type)
        if change is None:
            v.add(f"{path}.files[{i}].change_type", f"unknown enum value {f.change_type}")
            change = ChangeType.MODIFIED
        hunks = tuple(
            Hunk(
                _span(h.old_lines) if h.HasField("old_lines") else None,
                _span(h.new_lines) if h.HasField("new_lines") else None,
                h.section,
                h.excerpt,
            )
            for h in f.hunks
        )
        files.append(
            FileChange(
                f.path,
                f.old_path,
                change,
                f.additions,
                f.deletions,
                f.binary,
                hunks,
                tuple(f.added_symbols),
                tuple(f.removed_symbols),
            )
        )
    commit = Commit(
        sha=c.sha,
        message=c.message,
        author_time=convert.time_field(c, "author_time", f"{path}.author_time", v) or _EPOCH,
        parents=tuple(c.parents),
        author_name=c.author_name,
        committer_name=c.committer_name,
        commit_time=convert.time_field(c, "commit_time", f"{path}.commit_time", v),
        files=tuple(files),
        diff_excerpt=c.diff_excerpt,
        refs=tuple(c.refs),
    )
    commit, notes = sanitised_commit(commit)
    check_commit(v, path, commit)
    if v.items:
        return CommitInput(index, c.sha, None, tuple((x.field, x.description) for x in v.items))
    return CommitInput(index, c.sha, commit, notes=notes)


def _evidence_in(items: Any, path: str, v: Violations) -> list[Evidence]:
    out = []
    for i, e in enumerate(items):
        if not e.quote.strip():
            v.add(f"{path}[{i}].quote", "required")
        elif len(e.quote) > 1000:
            v.add(f"{path}[{i}].quote", "at most 1000 characters")
        origin = _ORIGINS.get(e.origin or "statement")
        if origin is None:
            v.add(f"{path}[{i}].origin", "one of commit_message, diff, session, statement")
            origin = Origin.STATEMENT
        out.append(Evidence(e.quote, origin, e.commit_sha, e.path, e.memory))
    return out


def _sources_in(sources: Any, v: Violations) -> tuple[str, ...]:
    if len(sources) > MAX_SOURCES:
        v.add("sources", f"at most {MAX_SOURCES} texts")
    for i, text in enumerate(sources):
        if len(text.encode()) > MAX_SOURCE_BYTES:
            v.add(f"sources[{i}]", f"at most {MAX_SOURCE_BYTES} bytes")
    return tuple(sources)


def _draft_from_proto(d: decisions_pb2.Decision, v: Violations) -> Any:
    if not d.title.strip():
        v.add("decision.title", "required")
    elif len(d.title) > 200:
        v.add("decision.title", "at most 200 characters")
    if not d.rationale.strip():
        v.add("decision.rationale", "required")
    elif len(d.rationale) > 4000:
        v.add("decision.rationale", "at most 4000 characters")
    for name, text, limit in (
        ("statement", d.statement, 2000),
        ("question", d.question, 500),
        ("author", d.author, 256),
    ):
        if len(text) > limit:
            v.add(f"decision.{name}", f"at most {limit} characters")
    anchors = []
    for i, a in enumerate(d.anchors):
        path = f"decision.anchors[{i}]"
        if not a.path:
            v.add(f"{path}.path", "required")
        elif len(a.path.encode()) > MAX_PATH_BYTES:
            v.add(f"{path}.path", f"at most {MAX_PATH_BYTES} bytes")
        if len(a.symbol) > MAX_ANCHOR_SYMBOL_CHARS:
            v.add(f"{path}.symbol", f"at most {MAX_ANCHOR_SYMBOL_CHARS} characters")
        lines = None
        if a.HasField("lines"):
            lines = _span(a.lines)
            check_span(v, f"{path}.lines", lines)
        anchors.append(Anchor(a.path, lines, a.commit_sha, a.symbol))
    if len(d.anchors) > 200:
        v.add("decision.anchors", "at most 200 anchors")
    if len(d.evidence) > 24:
        v.add("decision.evidence", "at most 24 quotes")
    if len(d.alternatives) > 12:
        v.add("decision.alternatives", "at most 12 alternatives")
    if len(d.expectations) > 12:
        v.add("decision.expectations", "at most 12 expectations")
    for i, sha in enumerate(d.commits):
        if not SHORT_SHA.fullmatch(sha):
            v.add(f"decision.commits[{i}]", "a commit sha: 4-64 lowercase hex characters")
    for i, tag in enumerate(d.tags):
        if not tag or len(tag) > 64 or "," in tag:
            v.add(f"decision.tags[{i}]", "1-64 characters, no commas")
    evidence = _evidence_in(d.evidence, "decision.evidence", v)
    when = convert.time_field(d, "decision_time", "decision.decision_time", v) or now()
    return stated_draft(
        d.title.strip(),
        d.statement.strip(),
        d.rationale.strip(),
        d.question.strip(),
        when,
        d.author,
        [Alternative(a.description, a.reason_rejected) for a in d.alternatives],
        evidence,
        anchors,
        list(d.commits),
        list(d.tags),
        list(d.expectations),
    )


# -- domain -> proto ---------------------------------------------------------------------


def anchor_to_proto(a: Anchor) -> decisions_pb2.CodeAnchor:
    out = decisions_pb2.CodeAnchor(path=a.path, commit_sha=a.commit_sha, symbol=a.symbol)
    if a.lines is not None:
        out.lines.CopyFrom(decisions_pb2.LineRange(start_line=a.lines.start, end_line=a.lines.end))
    if a.recorded_lines is not None:
        out.recorded_lines.CopyFrom(
            decisions_pb2.LineRange(
                start_line=a.recorded_lines.start, end_line=a.recorded_lines.end
            )
        )
        out.recorded_commit_sha = a.recorded_commit
    return out


def _evidence_out(e: Evidence) -> decisions_pb2.DecisionEvidence:
    return decisions_pb2.DecisionEvidence(
        quote=e.quote, commit_sha=e.commit_sha, origin=e.origin.value, path=e.path, memory=e.memory
    )


def decision_to_proto(d: Decision) -> decisions_pb2.Decision:
    out = decisions_pb2.Decision(
        name=d.name,
        repository=d.repository,
        title=d.title,
        statement=d.statement,
        rationale=d.rationale,
        question=d.question,
        alternatives=[
            decisions_pb2.DecisionAlternative(
                description=a.description, reason_rejected=a.reason_rejected
            )
            for a in d.alternatives
        ],
        evidence=[_evidence_out(e) for e in d.evidence],
        anchors=[anchor_to_proto(a) for a in d.anchors],
        commits=d.commits,
        memory=f"memories/{d.memory_id}",
        space=d.space,
        status=types_pb2.MemoryStatus.Value(f"MEMORY_STATUS_{d.status}"),
        superseded_by=f"decisions/{d.superseded_by}" if d.superseded_by else "",
        author=d.author,
        tags=d.tags,
        expectations=d.expectations,
        outcome=_OUTCOMES[d.outcome],
        origin=d.origin.value,
    )
    convert.set_time(out.decision_time, d.decision_time)
    convert.set_time(out.create_time, d.create_time)
    convert.set_time(out.update_time, d.update_time)
    for o in d.outcomes:
        record = out.outcome_history.add(
            outcome=_OUTCOMES[o.outcome],
            summary=o.summary,
            evidence=[_evidence_out(e) for e in o.evidence],
            recorder=o.recorder,
        )
        convert.set_time(record.record_time, o.record_time)
    return out


def explanation_to_proto(c: Candidate) -> decisions_pb2.CodeExplanation:
    out = decisions_pb2.CodeExplanation(
        decision=decision_to_proto(c.decision),
        match=_MATCHES[c.match],
        matched_anchors=[anchor_to_proto(a) for a in c.matched_anchors],
        score=c.score,
    )
    if c.replacement is not None:
        out.replacement.CopyFrom(decision_to_proto(c.replacement))
    return out


def read_your_writes_wait(ctx: AppContext, context: Ctx) -> float:
    """How long a read-your-writes read may wait for the index, as Recall's: the
    configured wait, or less when the call's deadline comes first."""
    remaining = context.time_remaining()
    wait = ctx.settings.read_your_writes_wait_ms / 1000.0
    return wait if remaining is None else min(wait, remaining)


def _consistency(value: int) -> bool:
    """True for READ_YOUR_WRITES (the semantic leg waits for the index, as
    Recall's); INVALID_ARGUMENT naming `consistency` for an unknown value, before
    anything else of the request is checked or waited for."""
    if value not in recall_pb2.ReadConsistency.values():
        raise InvalidArgument.field("consistency", f"unknown enum value {value}")
    return value == recall_pb2.READ_CONSISTENCY_READ_YOUR_WRITES


class DecisionsServicer(decisions_pb2_grpc.DecisionsServiceServicer):
    """DecisionsService: decisions mined from commits and the code they explain."""

    def __init__(self, ctx: AppContext) -> None:
        self._ctx = ctx
        if ctx.lifecycle is None:
            raise RuntimeError("the DecisionsService needs the lifecycle write path")
        self.service = DecisionsService(ctx.lifecycle, None, ctx.llm)

    def _service(self) -> DecisionsService:
        # Recall is built by the RecallService servicer; use it once it exists.
        self.service.recall = self._ctx.recall
        return self.service

    async def IngestCommits(
        self, request: decisions_pb2.IngestCommitsRequest, context: Ctx
    ) -> decisions_pb2.IngestCommitsResponse:
        inputs = [commit_from_proto(i, c) for i, c in enumerate(request.commits)]
        outcome = await self._service().ingest(
            current_principal(),
            request.repository,
            request.space,
            inputs,
            request.reprocess,
            convert.request_key("IngestCommits", request),
            use_llm=request.use_llm,
        )
        return decisions_pb2.IngestCommitsResponse(
            pending_index_items=await self._service().index_backlog(current_principal().tenant_id),
            decisions=[decision_to_proto(d) for d in outcome.decisions],
            processed_commits=outcome.processed,
            skipped_commits=outcome.skipped,
            commits_without_decision=outcome.without_decision,
            created_decisions=outcome.created,
            updated_decisions=outcome.updated,
            privacy_findings=findings_to_proto(outcome.findings),
            invalid_commits=outcome.invalid,
            commits=[
                decisions_pb2.IngestedCommit(
                    index=c.index,
                    sha=c.sha,
                    disposition=_DISPOSITIONS[c.disposition],
                    reason=c.reason,
                    decision=f"decisions/{c.decision_id}" if c.decision_id else "",
                    violations=[
                        decisions_pb2.CommitFieldViolation(field=f, description=d)
                        for f, d in c.violations
                    ],
                )
                for c in outcome.commits
            ],
        )

    async def CreateDecision(
        self, request: decisions_pb2.CreateDecisionRequest, context: Ctx
    ) -> decisions_pb2.Decision:
        v = Violations()
        if not request.HasField("decision"):
            v.add("decision", "required")
            v.raise_if_any()
        draft = _draft_from_proto(request.decision, v)
        if not request.decision.repository:
            v.add("decision.repository", "required")
        if len(request.session) > 256:
            v.add("session", "at most 256 characters")
        sources = _sources_in(request.sources, v)
        v.raise_if_any()
        decision = await self._service().create(
            current_principal(),
            request.decision.repository,
            request.space,
            draft,
            request.session,
            convert.request_key("CreateDecision", request),
            sources=sources,
        )
        return decision_to_proto(decision)

    async def GetDecision(
        self, request: decisions_pb2.GetDecisionRequest, context: Ctx
    ) -> decisions_pb2.Decision:
        decision = await self._service().get(
            current_principal().tenant_id, parse_decision_name(request.name)
        )
        return decision_to_proto(decision)

    async def ListDecisions(
        self, request: decisions_pb2.ListDecisionsRequest, context: Ctx
    ) -> decisions_pb2.ListDecisionsResponse:
        v = Violations()
        outcomes = []
        for i, number in enumerate(request.outcomes):
            outcome = _OUTCOMES_IN.get(number)
            if outcome is None or outcome == Outcome.UNSPECIFIED:
                v.add(f"outcomes[{i}]", "one of MET, PARTIALLY_MET, MISSED")
            else:
                outcomes.append(outcome.value)
        v.raise_if_any()
        f = DecisionFilter(
            repository=request.repository,
            path=request.path,
            start=optional_time(request, "decision_time_start", "decision_time_start"),
            end=optional_time(request, "decision_time_end", "decision_time_end"),
            include_superseded=request.include_superseded,
            outcomes=tuple(outcomes),
        )
        page, token = await self._service().list_decisions(
            current_principal().tenant_id, f, request.page_size, request.page_token
        )
        return decisions_pb2.ListDecisionsResponse(
            decisions=[decision_to_proto(d) for d in page], next_page_token=token
        )

    async def SearchDecisions(
        self, request: decisions_pb2.SearchDecisionsRequest, context: Ctx
    ) -> decisions_pb2.SearchDecisionsResponse:
        read_your_writes = _consistency(request.consistency)
        found = await self._service().answer_search(
            current_principal().tenant_id,
            SearchQuery(
                query=request.query,
                repository=request.repository,
                path=request.path,
                k=request.k,
                include_superseded=request.include_superseded,
                start=optional_time(request, "decision_time_start", "decision_time_start"),
                end=optional_time(request, "decision_time_end", "decision_time_end"),
                read_your_writes=read_your_writes,
                wait_seconds=read_your_writes_wait(self._ctx, context),
            ),
        )
        return decisions_pb2.SearchDecisionsResponse(
            hits=[
                decisions_pb2.DecisionHit(decision=decision_to_proto(c.decision), score=c.score)
                for c in found.candidates
            ],
            abstained=found.abstained,
            confidence=found.confidence,
        )

    async def ExplainCode(
        self, request: decisions_pb2.ExplainCodeRequest, context: Ctx
    ) -> decisions_pb2.ExplainCodeResponse:
        read_your_writes = _consistency(request.consistency)
        result = await self._service().explain(
            current_principal().tenant_id,
            ExplainQuery(
                repository=request.repository,
                path=request.path,
                lines=_span(request.lines) if request.HasField("lines") else None,
                symbol=request.symbol,
                revision=request.revision,
                question=request.question,
                k=request.k,
                include_superseded=request.include_superseded,
                token_budget=request.token_budget,
                blame_commits=tuple(request.blame_commits),
                read_your_writes=read_your_writes,
                wait_seconds=read_your_writes_wait(self._ctx, context),
            ),
        )
        return decisions_pb2.ExplainCodeResponse(
            explanations=[explanation_to_proto(c) for c in result.candidates],
            context=result.context,
            token_count=result.token_count,
        )

    async def RecordDecisionOutcome(
        self, request: decisions_pb2.RecordDecisionOutcomeRequest, context: Ctx
    ) -> decisions_pb2.Decision:
        v = Violations()
        decision_id = parse_decision_name(request.name)
        outcome = _OUTCOMES_IN.get(request.outcome)
        if outcome is None:
            v.add("outcome", f"unknown enum value {request.outcome}")
            outcome = Outcome.UNSPECIFIED
        evidence = _evidence_in(request.evidence, "evidence", v)
        sources = _sources_in(request.sources, v)
        v.raise_if_any()
        decision = await self._service().record_outcome(
            current_principal(),
            decision_id,
            OutcomeRecord(outcome, request.summary.strip(), tuple(evidence), now()),
            convert.request_key("RecordDecisionOutcome", request),
            sources=sources,
        )
        return decision_to_proto(decision)

    async def IngestSession(
        self, request: decisions_pb2.IngestSessionRequest, context: Ctx
    ) -> decisions_pb2.IngestSessionResponse:
        decisions, created, messages, findings = await self._service().ingest_session(
            current_principal(),
            self._ctx.working_memory,
            request.space,
            request.session,
            request.repository,
            request.decisions_space,
            convert.request_key("IngestSession", request),
        )
        return decisions_pb2.IngestSessionResponse(
            decisions=[decision_to_proto(d) for d in decisions],
            created_decisions=created,
            messages=messages,
            privacy_findings=findings_to_proto(findings),
        )
